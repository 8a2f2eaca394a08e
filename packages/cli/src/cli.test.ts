import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInProcess, type InProcessRun } from './in-process.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-cli-'));

function run(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', input, cwd: dir });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `fairtable ARGS` in this process (`runInProcess`), for a test of many runs whose subject is the verdict, not the process. */
const here = (args: string[]): Promise<InProcessRun> => runInProcess(args, { cwd: dir });

describe('a transcript edited by whoever holds it names nobody (docs/SPEC.md §4.4)', () => {
  it('a deleted line, a changed byte, a line from another game: exit 1, no player named, where the log was altered', async () => {
    for (const [protocol, extra] of [
      ['dice', ['--players', '3', '--turns', '3']],
      ['signidice', ['--players', '3']],
    ] as const) {
      const file = join(dir, `held-${protocol}.jsonl`);
      const other = join(dir, `other-${protocol}.jsonl`);
      expect((await here(['simulate', protocol, ...extra, '--seed', '05'.repeat(32), '--out', file])).status).toBe(0);
      // Another game of the same players: the same seed (so the same keys), another number of rounds.
      expect((await here(['simulate', protocol, '--players', '3', '--turns', '4', '--seed', '05'.repeat(32), '--out', other])).status).toBe(0);
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      const foreign = readFileSync(other, 'utf8').trim().split('\n');
      const edits = [
        lines.filter((_, i) => i !== 9), // sed '10d'
        lines.map((l, i) => (i === 6 ? l.replace('"time":', '"time":1') : l)),
        [...lines.slice(0, 5), foreign[4]!, ...lines.slice(5)],
        [...lines.slice(0, 7), lines[7]!.slice(0, 120), ...lines.slice(8)],
      ];
      for (const edited of edits) {
        const path = join(dir, 'edited.jsonl');
        writeFileSync(path, edited.join('\n') + '\n');
        const r = await here(['audit', path, '--json']);
        expect(r.status).toBe(1);
        const v = JSON.parse(r.stdout) as { violations: { player: string | null }[]; alteredAt: number | null; outcome: unknown };
        expect(v.violations.filter((x) => x.player !== null)).toEqual([]);
        expect(v.alteredAt).not.toBeNull();
        expect(v.outcome).toBeNull();
      }
    }
  });
});

describe('fairtable simulate + audit', () => {
  it('an honest game audits valid (exit 0) and a cheater is named (exit 1) in --json', () => {
    const honest = join(dir, 'honest.jsonl');
    expect(run(['simulate', 'dice', '--players', '3', '--seed', '01'.repeat(32), '--turns', '2', '--out', honest]).status).toBe(0);
    const ok = run(['audit', honest, '--json']);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, violations: [] });

    const cheat = join(dir, 'cheat.jsonl');
    expect(run(['simulate', 'chain', '--players', '2', '--seed', '02'.repeat(32), '--cheat', 'wrong-opening', '--cheater', 'p1', '--out', cheat]).status).toBe(
      0,
    );
    const bad = run(['audit', cheat, '--json']);
    expect(bad.status).toBe(1);
    const verdict = JSON.parse(bad.stdout) as {
      valid: boolean;
      violations: { code: string; player: string; seq: number; evidence: { envelope?: unknown }[] }[];
    };
    expect(verdict.valid).toBe(false);
    expect(verdict.violations[0]).toMatchObject({ code: 'commit_mismatch', player: 'p1' });
    expect(verdict.violations[0]!.evidence.some((e) => e.envelope !== undefined)).toBe(true);
    const human = run(['audit', cheat]);
    expect(human.stdout).toMatch(/INVALID/);
    expect(human.stdout).toMatch(/commit_mismatch\s+p1/);
  });

  it('unreadable input exits 2', () => {
    writeFileSync(join(dir, 'junk.jsonl'), 'not json\n');
    expect(run(['audit', join(dir, 'junk.jsonl')]).status).toBe(2);
    expect(run(['audit', join(dir, 'missing.jsonl')]).status).toBe(2);
    writeFileSync(join(dir, 'empty.jsonl'), '');
    expect(run(['audit', join(dir, 'empty.jsonl')]).status).toBe(2);
  });

  it('a transcript edited by hand is invalid', () => {
    const file = join(dir, 'edit.jsonl');
    run(['simulate', 'snakes', '--players', '2', '--seed', '03'.repeat(32), '--turns', '3', '--out', file]);
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[3] = lines[3]!.replace(/"time":(\d+)/, (_, t: string) => `"time":${Number(t) + 1}`);
    writeFileSync(file, lines.join('\n'));
    const r = run(['audit', file, '--json']);
    expect(r.status).toBe(1);
    expect((JSON.parse(r.stdout) as { violations: { code: string }[] }).violations[0]!.code).toBe('bad_signature');
  });

  it('refuses bad options with a clear message', () => {
    expect(run(['simulate', 'poker', '--players', '2', '--out', 'x']).stderr).toMatch(/unknown_protocol/);
    expect(run(['simulate', 'dice', '--players', '1', '--out', 'x']).status).toBe(2);
    expect(run(['simulate', 'dice', '--players', '2', '--cheat', 'bribe', '--out', 'x']).stderr).toMatch(/unknown cheat/);
  });
});

describe('fairtable random', () => {
  it('prints stream values one per line and matches the vectors', () => {
    const vectors = JSON.parse(readFileSync(join(root, 'packages/core/src/vectors/stream.json'), 'utf8')) as {
      cases: { seed: string; label: string; below6: number[]; shuffle10: number[] }[];
    };
    const c = vectors.cases[1]!;
    const r = run(['random', '--seed', c.seed, '--label', c.label, '--below', '6', '--count', '20']);
    expect(r.stdout.trim().split('\n').map(Number)).toEqual(c.below6);
    const dice = run(['random', '--seed', c.seed, '--label', c.label, '--dice', '6', '--count', '20']);
    expect(dice.stdout.trim().split('\n').map(Number)).toEqual(c.below6.map((x) => x + 1));
    const sh = run(['random', '--seed', c.seed, '--label', c.label, '--shuffle', '10']);
    expect(sh.stdout.trim().split(' ').map(Number)).toEqual(c.shuffle10);
    expect(run(['random', '--seed', 'zz', '--label', 'x', '--below', '3']).status).toBe(2);
    expect(run(['random', '--seed', '00'.repeat(32), '--label', 'x']).stderr).toMatch(/exactly one/);
  });
});

describe('fairtable armor / dearmor', () => {
  it('round-trips through a quoted, re-wrapped e-mail and refuses a mangled one', () => {
    const file = join(dir, 'armor.jsonl');
    run(['simulate', 'beacon', '--players', '2', '--seed', '04'.repeat(32), '--out', file]);
    const original = readFileSync(file, 'utf8');
    const block = run(['armor', file]).stdout;
    expect(block).toMatch(/^-----BEGIN FAIRTABLE MESSAGE-----/);
    const mail = `Hi, my move:\r\n\r\n${block
      .split('\n')
      .map((l) => `> ${l}  `)
      .join('\r\n')}\r\nBye\r\n`;
    const back = run(['dearmor', '-'], mail);
    expect(back.status).toBe(0);
    expect(back.stdout).toBe(original);
    const mangled = block.replace(/\n([A-Za-z0-9+/]{10})/, (_, s: string) => `\n${s.startsWith('A') ? 'B' : 'A'}${s.slice(1)}`);
    const refused = run(['dearmor', '-'], mangled);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/bad_checksum|bad_armor/);
  });
});

describe('the installed command', () => {
  it('npx fairtable resolves to the workspace launcher and runs', () => {
    const r = spawnSync(join(root, 'node_modules/.bin/fairtable'), ['--version'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('fairtable keygen', () => {
  it('writes a key file once and prints the public key and fingerprint', () => {
    const r = run(['keygen', '--name', 'alice', '--out', 'alice.json']);
    expect(r.status).toBe(0);
    const pub = JSON.parse(r.stdout) as { publicKey: string; fingerprint: string };
    expect(pub.fingerprint).toMatch(/^[0-9a-f]{4}(-[0-9a-f]{4}){3}$/);
    expect(existsSync(join(dir, 'alice.json'))).toBe(true);
    expect(run(['keygen', '--out', 'alice.json']).status).toBe(2);
  });
});
