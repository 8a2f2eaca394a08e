/**
 * What a new user meets first, run through the built command: output cut short
 * by a pipe, the help of every command, and the audit's verdict in plain words.
 * Runs whose subject is the command's words, not its process, are run in this
 * process (`runInProcess`): a start of the process costs more than most of them.
 */
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXAMPLES } from './examples.js';
import { runInProcess, type InProcessRun } from './in-process.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-new-user-'));

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', cwd: dir });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `fairtable ARGS` in this process, in the same folder: for the runs of a test that are many, not about the process. */
const here = (args: string[], input?: string): Promise<InProcessRun> => runInProcess(args, { cwd: dir, ...(input === undefined ? {} : { input }) });

describe('output into a pipe that closes early (| head)', () => {
  it('stops quietly, with no stack trace', async () => {
    const file = join(dir, 'long.jsonl');
    expect(run(['simulate', 'dice', '--players', '2', '--turns', '2', '--seed', '05'.repeat(32), '--out', file]).status).toBe(0);
    // The reader is gone before the first write, as `head` is once it has its lines.
    const armored = join(dir, 'long.txt');
    const a = spawnSync('bash', ['-c', `"${process.execPath}" "${main}" armor "${file}" > "${armored}"`]);
    expect(a.status).toBe(0);
    const child = spawn(process.execPath, [main, 'dearmor', armored], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(err).toBe('');
    expect(code).toBe(0);
  });
});

describe('fairtable audit, read by someone who has not read the spec', () => {
  it('says what the cheat means, what it did to the outcome, the standing, and which line of the file to open', async () => {
    const file = join(dir, 'cheat.jsonl');
    const sim = await here(['simulate', 'dice', '--players', '4', '--cheat', 'wrong-opening', '--cheater', 'p2', '--seed', '07'.repeat(32), '--out', file]);
    expect(sim.status).toBe(0);
    const r = await here(['audit', file]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^ {2}scores: p0 \d+, p1 \d+, p2 \d+, p3 \d+$/m);
    expect(r.stdout).toMatch(/what it means: commit_mismatch: the player locked in a hidden value/);
    expect(r.stdout).toContain('for the outcome: p2 forfeited for it');
    // The note counts as an editor does: the line it sends the reader to is the envelope the verdict names.
    const note = /line (\d+) is line (\d+) of the file, e\.g\. sed -n (\d+)p FILE/.exec(r.stdout)!;
    const seq = Number(note[1]);
    expect(Number(note[2])).toBe(seq + 1);
    const named = readFileSync(file, 'utf8').split('\n')[Number(note[3]) - 1]!;
    expect((JSON.parse(named) as { at: number }).at).toBe(seq);
    expect(r.stdout).toContain(`line ${seq}  commit_mismatch  p2`);
  });

  it('says when the cheater stays in the game under the rules’ penalty (Diplomacy: its units hold)', async () => {
    const file = join(dir, 'dip.jsonl');
    const sim = await here(['simulate', 'diplomacy', '--players', '7', '--years', '1', '--cheat', 'tampered-orders', '--seed', '03'.repeat(32), '--out', file]);
    expect(sim.status).toBe(0);
    const r = await here(['audit', file]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/for the outcome: p1 was not put out of the game for it/);
  });

  it('demo says what its cheater did in a sentence', () => {
    const r = run(['demo', '--dir', join(dir, 'demo')]);
    expect(r.status).toBe(0);
    const m = /audit: ([a-z_]+) by p1 \(line \d+\)\n {2}([a-z_]+): (.+)\n/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    expect(m![2]).toBe(m![1]);
    expect(m![3]).toMatch(/^the player .+\.$/);
  });

  it('adds nothing to a valid verdict but the standing', async () => {
    const file = join(dir, 'honest.jsonl');
    expect((await here(['simulate', 'snakes', '--players', '2', '--turns', '3', '--seed', '08'.repeat(32), '--out', file])).status).toBe(0);
    const r = await here(['audit', file]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ {2}squares: p0 \d+, p1 \d+$/m);
    expect(r.stdout).not.toMatch(/what it means|for the outcome|lines count from 0/);
  });
});

describe('--help of every command', () => {
  /**
   * Every command's path, long options and whole help text, from one process: `fairtable` is built as it
   * runs, and its parse is replaced by a walk over the commands it assembled.
   */
  function helps(): { path: string; options: string[]; help: string; leaf: boolean }[] {
    const dump = `
      import { createRequire } from 'node:module';
      const { Command } = createRequire(${JSON.stringify(main)})('commander');
      Command.prototype.parseAsync = async function () {
        const out = [];
        const walk = (cmd, names) => {
          let help = '';
          cmd.configureOutput({ writeOut: (s) => (help += s) });
          cmd.outputHelp();
          out.push({ path: names.join(' '), options: cmd.options.map((o) => o.long).filter(Boolean), help, leaf: cmd.commands.length === 0 });
          for (const c of cmd.commands) walk(c, [...names, c.name()]);
        };
        walk(this, []);
        process.stdout.write(JSON.stringify(out));
      };
      await import(${JSON.stringify(main)});
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', dump], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { path: string; options: string[]; help: string; leaf: boolean }[];
  }

  it('ends with examples for every command, each using only options the command declares', () => {
    const all = helps();
    const top = all.find((c) => c.path === '')!;
    expect(top.help).toMatch(/\nExamples:\n {2}# .+\n {2}\$ fairtable /);
    const leaves = all.filter((c) => c.leaf && c.path !== 'help');
    expect(leaves.map((c) => c.path)).toContain('mail decide');
    expect(leaves.filter((c) => EXAMPLES[c.path] === undefined).map((c) => c.path)).toEqual([]);
    for (const c of leaves) expect(c.help, c.path).toContain('\nExamples:\n');
    // Every example, a group's too (mail), runs a command that exists, with options that command declares.
    for (const [path, examples] of Object.entries(EXAMPLES)) {
      expect(all.find((c) => c.path === path)?.help ?? '', path).toContain('\nExamples:\n');
      for (const [line] of examples) {
        const words = line.split(' ');
        expect(words[0], line).toBe('fairtable');
        const target = all
          .filter((c) => c.path === '' || line.startsWith(`fairtable ${c.path} `) || line === `fairtable ${c.path}`)
          .sort((a, b) => b.path.length - a.path.length)[0]!;
        expect(target.path.startsWith(path), line).toBe(true);
        const declared = new Set([...target.options, '--help']);
        const used = [...line.split('>')[0]!.matchAll(/ (--[a-z][a-z-]*)/g)].map((m) => m[1]!);
        expect(
          used.filter((o) => !declared.has(o)),
          line,
        ).toEqual([]);
      }
    }
  });
});

describe('mail status, for a player who has never played by mail', () => {
  it('prints the decide command for this folder, ready to paste, and it is taken', async () => {
    const keys = ['alice', 'bob'].map((name) => {
      const pub = spawnSync('bash', ['-c', `"${process.execPath}" "${main}" keygen --name ${name} --out ${name}.json > ${name}.pub.json`], { cwd: dir });
      expect(pub.status).toBe(0);
      return `${name}.pub.json`;
    });
    const made = run(['mail', 'new', 'dice', '--dir', 'game a', '--key', 'alice.json', '--players', keys.join(','), '--turns', '1', '--timeout', '1d']);
    expect(made.status, made.stderr).toBe(0);
    // The mail goes back and forth (bob joins from alice's invitation) until it is alice's roll. The moves are
    // carried and read in this process (`runInProcess`, as a pipe into `mail read --dir TO -` would); the command
    // the status prints is pasted into a shell below.
    const deliver = async (from: string, to: string, key: string[]): Promise<void> => {
      const outbox = join(dir, from, 'outbox');
      const files = existsSync(outbox) ? readdirSync(outbox).sort() : [];
      if (files.length === 0) return;
      const input = files.map((f) => readFileSync(join(outbox, f), 'utf8')).join('');
      const r = await here(['mail', 'read', '--dir', to, ...key, '-'], input);
      expect(r.status, r.stderr).toBe(0);
      mkdirSync(join(dir, 'sent'), { recursive: true });
      for (const f of files) renameSync(join(outbox, f), join(dir, 'sent', f));
    };
    const statusOf = async (folder: string): Promise<string> => (await here(['mail', 'status', '--dir', folder])).stdout;
    for (let i = 0; i < 6 && !(await statusOf('game a')).includes('decision:'); i++) {
      await deliver('game a', 'game-b', ['--key', 'bob.json']);
      await deliver('game-b', 'game a', []);
    }
    const status = run(['mail', 'status', '--dir', 'game a']);
    expect(status.stdout).toMatch(/^ {2}answer: null$/m);
    const command = /answer with: (fairtable mail decide [^)]*)\)/.exec(status.stdout)?.[1];
    expect(command).toBe("fairtable mail decide --dir 'game a' null");
    const decided = spawnSync('bash', ['-c', command!.replace(/^fairtable/, `"${process.execPath}" "${main}"`)], { cwd: dir, encoding: 'utf8' });
    expect(decided.status, decided.stderr).toBe(0);
    expect(run(['mail', 'status', '--dir', 'game a']).stdout).not.toContain('decision:');
    // Played to the end, the last word gives the scores, not only the winner.
    let last = '';
    for (let i = 0; i < 8 && !last.includes('the game is over'); i++) {
      await deliver('game a', 'game-b', []);
      for (const d of ['game-b', 'game a'])
        if ((await statusOf(d)).includes('decision:')) expect((await here(['mail', 'decide', '--dir', d, 'null'])).status).toBe(0);
      await deliver('game-b', 'game a', []);
      last = await statusOf('game a');
    }
    expect(last).toMatch(/the game is over: winners (alice|bob|alice, bob); scores: alice \d+, bob \d+/);
  });
});

describe('a binding signed with gpg, into a game by mail', () => {
  it('pgp check-binding --entry makes the setup entry that mail new --binding takes', () => {
    const testdata = join(root, 'packages/pgp/src/testdata');
    const sh = (command: string): ReturnType<typeof spawnSync> => spawnSync('bash', ['-c', command], { cwd: dir, encoding: 'utf8' });
    const ft = `"${process.execPath}" "${main}"`;
    expect(sh(`${ft} keygen --name ben --out ben.json > ben.pub.json && ${ft} keygen --name ann --out ann.json > ann.pub.json`).status).toBe(0);
    // The statement signed as gpg --detach-sign --armor would (pgp sign is that, and needs no keyring here).
    expect(sh(`${ft} pgp statement --fairtable-key ben.pub.json --pgp-key ${testdata}/bob.pub.asc > ben.binding.txt`).status).toBe(0);
    expect(sh(`${ft} pgp sign --key ${testdata}/bob.sec.asc ben.binding.txt > ben.binding.txt.asc`).status).toBe(0);
    const entry = run(['pgp', 'check-binding', '--key', `${testdata}/bob.pub.asc`, 'ben.binding.txt', 'ben.binding.txt.asc', '--entry']);
    expect(entry.status, entry.stderr).toBe(0);
    expect(JSON.parse(entry.stdout)).toMatchObject({
      player: 'ben',
      binding: expect.stringContaining('player: ben\n'),
      signature: expect.stringMatching(/^-----BEGIN PGP SIGNATURE-----/),
    });
    expect(sh(`${ft} pgp check-binding --key ${testdata}/bob.pub.asc ben.binding.txt ben.binding.txt.asc --entry > ben.binding.json`).status).toBe(0);
    const game = run([
      'mail',
      'new',
      'dice',
      '--dir',
      'bound',
      '--key',
      'ann.json',
      '--players',
      'ann.pub.json,ben.pub.json',
      '--turns',
      '1',
      '--binding',
      'ben.binding.json',
    ]);
    expect(game.status, game.stderr).toBe(0);
    expect(game.stdout + game.stderr).toMatch(/ben's fairtable key is bound to OpenPGP key C1EE10F174B38AC008CB99393FAC4AAB4F621A53/);
    // A cleartext-signed statement has no detached signature to put in the entry.
    const clear = run(['pgp', 'check-binding', '--key', `${testdata}/bob.pub.asc`, 'ben.binding.txt', '--entry']);
    expect(clear.status).toBe(2);
    expect(clear.stderr).toMatch(/\[bad_input\] --entry needs the statement and its detached signature/);
  });
});

describe('a command line that is wrong, or a file still in its e-mail wrapping', () => {
  it('exits 2 with the error and a one-line hint, never 1 (which audit keeps for a violation)', () => {
    for (const args of [['audit'], ['simulate', 'dice', '--players', '2'], ['audit', 'x.jsonl', '--no-such-option'], ['mail']]) {
      const r = run(args);
      expect(r.status, args.join(' ')).toBe(2);
      if (args[0] !== 'mail') {
        expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(2);
        expect(r.stderr).toMatch(/^error: .+\n\(add --help for the options and examples\)\n$/);
      }
    }
    expect(run(['audit', '--help']).status).toBe(0);
  });

  it('names the mistake when the public part of a key is given where the key file is wanted', async () => {
    const made = await here(['keygen', '--name', 'pat', '--out', 'pat.json']);
    expect(made.status, made.stderr).toBe(0);
    writeFileSync(join(dir, 'pat.pub.json'), made.stdout);
    const r = await here(['mail', 'new', 'dice', '--dir', 'pub-mistake', '--key', 'pat.pub.json', '--players', 'pat.pub.json']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/\[bad_key_file\] \S*pat\.pub\.json is the public part of pat's key.*the one keygen wrote with --out/);
  });

  it('tells an armored or encrypted file apart from a broken transcript, and says how to unwrap it', async () => {
    const file = join(dir, 'wrapped.jsonl');
    expect((await here(['simulate', 'beacon', '--players', '2', '--seed', '09'.repeat(32), '--out', file])).status).toBe(0);
    const armored = spawnSync('bash', ['-c', `"${process.execPath}" "${main}" armor "${file}" > "${dir}/move.txt"`]);
    expect(armored.status).toBe(0);
    const r = await here(['audit', 'move.txt']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('[bad_input] move.txt: an armored message (as mailed), not a transcript: fairtable dearmor move.txt > game.jsonl');
    const json = await here(['audit', 'move.txt', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, error: { code: 'bad_input' } });
  });
});
