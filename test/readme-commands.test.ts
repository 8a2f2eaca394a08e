/**
 * Every command README.md shows, run as written (through bash, `npx fairtable`
 * being the built binary) in a fresh directory, in the README's order: each
 * must exit as the README says, and each cheat it shows must really be caught,
 * the audit naming the cheater. A command added to the README without an
 * expectation here fails the test.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-readme-'));
const bin = join(dir, '.bin');

interface Result {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** The README's shell commands, in order: every line of every ```sh block that is not a comment. */
function readmeCommands(): string[] {
  const text = readFileSync(join(root, 'README.md'), 'utf8');
  const commands: string[] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block[1]!.split('\n')) if (line.trim() !== '' && !line.trim().startsWith('#')) commands.push(line.trim());
  }
  return commands;
}

function bash(command: string): Promise<Result> {
  const child = spawn('bash', ['-c', command], { cwd: dir, env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

beforeAll(() => {
  // The built command is brought up to date once for the whole run, by test/global-setup.ts.
  // `npx fairtable` is the built binary; the README's paths into the repository resolve through a link.
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'npx'),
    `#!/bin/sh\nif [ "$1" = fairtable ]; then shift; exec "${process.execPath}" "${main}" "$@"; fi\necho "README runs only npx fairtable" >&2; exit 127\n`,
  );
  chmodSync(join(bin, 'npx'), 0o755);
  symlinkSync(join(root, 'packages'), join(dir, 'packages'));
});

type Check = (r: Result) => void;

/**
 * Runs a command that starts a relay (any free port, through PORT=0), checks that it answers /health,
 * stops it with SIGTERM and expects a clean exit.
 */
async function serveBriefly(command: string): Promise<void> {
  const child = spawn('bash', ['-c', command], {
    cwd: dir,
    detached: true,
    env: { ...process.env, PORT: '0', PATH: `${bin}:${process.env.PATH ?? ''}` },
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*"msg":"relay listening"/.exec(out);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
    child.on('close', (code) => reject(new Error(`${command} exited (${code}) before listening: ${out}`)));
  });
  expect(await (await fetch(`${url}/health`)).json()).toEqual({ ok: true });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  process.kill(-child.pid!, 'SIGTERM');
  expect(await closed).toBe(0);
}

const exits =
  (code: number, more?: Check): Check =>
  (r) => {
    expect(r.code, `${r.out}\n${r.err}`).toBe(code);
    more?.(r);
  };

/** What each README command must do; the first pattern that matches a command applies. */
const EXPECT: [RegExp, Check | 'skip'][] = [
  // The whole suite: this test is part of it.
  [/^npm ci && npm test\b/, 'skip'],
  // `npm start` and `fairtable relay` serve until stopped: run by `serveBriefly` below.
  [/^npm ci && npm start\b|^npx fairtable relay\b/, 'skip'],
  [/^npx fairtable demo\b/, exits(0, (r) => expect(r.out).toMatch(/cheater game[\s\S]*audit: \S+ by p1 /))],
  [/ keygen --name \w+ .*> \S+\.pub\.json/, exits(0)],
  [/ simulate dice .*--cheat wrong-opening --cheater p2/, exits(0)],
  [/ audit cheat\.jsonl$|audit cheat\.jsonl\s+#/, exits(1, (r) => expect(r.out).toMatch(/commit_mismatch\s+p2/))],
  [/ audit game\.jsonl --json/, exits(0, (r) => expect(JSON.parse(r.out)).toMatchObject({ valid: true, violations: [] }))],
  [/ simulate (monopoly|rochambeau) /, exits(0)],
  [
    / random .*--dice 6 --count 10/,
    exits(0, (r) =>
      expect(
        r.out
          .trim()
          .split('\n')
          .every((v) => /^[1-6]$/.test(v)),
      ).toBe(true),
    ),
  ],
  [/ armor game\.jsonl > move\.txt/, exits(0, () => expect(readFileSync(join(dir, 'move.txt'), 'utf8')).toMatch(/BEGIN FAIRTABLE MESSAGE/))],
  [/ dearmor move\.txt/, exits(0, (r) => expect(r.out.trim()).toBe(readFileSync(join(dir, 'game.jsonl'), 'utf8').trim()))],
  [/^node -e .*> game\.json$/, exits(0)],
  [/^node -e .*> phase\.json$/, exits(0)],
  [/ diplomacy adjudicate phase\.json/, exits(0, (r) => expect(JSON.parse(r.out)).toMatchObject({ phase: { season: 'fall', year: 1901 } }))],
  [/ rochambeau judge game\.json/, exits(0, (r) => expect(JSON.parse(r.out)).toMatchObject({ winner: expect.any(String) }))],
  [/ vrf keygen/, exits(0, (r) => expect(JSON.parse(r.out)).toMatchObject({ sk: expect.any(String), pk: expect.any(String) }))],
  [/ vrf prove /, exits(0, (r) => expect(JSON.parse(r.out)).toMatchObject({ pi: expect.stringMatching(/^[0-9a-f]{160}$/), beta: expect.any(String) }))],
  [/ simulate signidice .*--cheat house-key-swap/, exits(0)],
  [/ simulate diplomacy .*--cheat tampered-orders/, exits(0, (r) => expect(r.err).toMatch(/commit_mismatch by p1: .*[a-z]+'s units take the rules' defaults/))],
  [/ audit dip\.jsonl/, exits(1, (r) => expect(r.out).toMatch(/commit_mismatch\s+p1/))],
  [/ audit roulette\.jsonl/, exits(1, (r) => expect(r.out).toMatch(/key_swap\s+house/))],
  [/ audit casino\.jsonl/, exits(0, (r) => expect(r.out).toMatch(/VALID/))],
  // The game alice and bob played through the relay, fetched with its receipts.
  [/ fetch --relay \S+ --game [0-9a-f]{64} --out relay-game\.jsonl/, exits(0, (r) => expect(r.out + r.err).toMatch(/every receipt verifies/))],
  [/ audit relay-game\.jsonl$/, exits(0, (r) => expect(r.out).toMatch(/^VALID/m))],
  [/ mail new monopoly /, exits(0, (r) => expect(r.out).toMatch(/send to every other participant/))],
  [/ mail read --dir game-b --key bob\.json -$/, exits(0, (r) => expect(r.out).toMatch(/joined game .* as bob/))],
  [/ mail status --dir game-b/, exits(0, (r) => expect(r.out).toMatch(/next: /))],
  [/ mail transcript --dir game-b --out mail-game\.jsonl/, exits(0, (r) => expect(r.out).toMatch(/wrote 2 lines/))],
  [/ signidice house .*--resume /, exits(0, (r) => expect(JSON.parse(r.out.trim().split('\n').pop()!)).toMatchObject({ player: 'house', forfeits: [] }))],
  // OpenPGP (docs/spec/pgp.md), with the published test keys.
  [/^cp packages\/pgp\/src\/testdata\/alice\.pub\.asc /, exits(0)],
  [
    / pgp sign --key alice\.sec\.asc game\.jsonl > game\.jsonl\.asc/,
    exits(0, () => expect(readFileSync(join(dir, 'game.jsonl.asc'), 'utf8')).toMatch(/^-----BEGIN PGP SIGNATURE-----\n/)),
  ],
  [
    / pgp verify --key alice\.pub\.asc game\.jsonl game\.jsonl\.asc/,
    exits(0, (r) => expect(r.out).toMatch(/^good signature from 6D453FD69805C664F0647347F84A1CC4226B0DC9 /)),
  ],
  [
    / pgp bind --key alice\.sec\.asc --fairtable-key alice\.pub\.json/,
    exits(0, () =>
      expect(JSON.parse(readFileSync(join(dir, 'alice.binding.json'), 'utf8'))).toMatchObject({
        player: 'alice',
        binding: readFileSync(join(dir, 'alice.binding.txt'), 'utf8'),
      }),
    ),
  ],
  [
    / pgp check-binding --key alice\.pub\.asc alice\.binding\.txt alice\.binding\.txt\.asc/,
    exits(0, (r) => expect(r.out).toMatch(/^binding holds: player alice, fairtable key [0-9a-f]{64}, OpenPGP 6D453FD6/)),
  ],
  [
    / pgp statement --fairtable-key alice\.pub\.json --pgp-key alice\.pub\.asc/,
    exits(0, (r) => expect(r.out).toBe(readFileSync(join(dir, 'alice.binding.txt'), 'utf8'))),
  ],
  [
    / pgp encrypt --to bob\.pub\.asc --sign alice\.sec\.asc move\.txt > move\.asc/,
    exits(0, () => expect(readFileSync(join(dir, 'move.asc'), 'utf8')).toMatch(/^-----BEGIN PGP MESSAGE-----\n/)),
  ],
  [/ pgp decrypt --key bob\.sec\.asc --verify alice\.pub\.asc move\.asc/, exits(0, (r) => expect(r.out).toBe(readFileSync(join(dir, 'move.txt'), 'utf8')))],
];

describe('README.md', () => {
  it('every command it shows runs and does what it says', async () => {
    const commands = readmeCommands();
    expect(commands.length).toBeGreaterThan(15);
    // The README's relay on port 8090 runs here on a free port.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const relayPort = String((probe.address() as { port: number }).port);
    await new Promise((r) => probe.close(r));
    let gameId: string | null = null;
    let house: Promise<Result> | null = null;
    let relay: ChildProcess | null = null;
    const ran: string[] = [];
    for (const raw of commands) {
      // The README's relays (8090, and npm start's 8080) are the one this test runs.
      const command = raw
        .replaceAll('8090', relayPort)
        .replaceAll('localhost:8080', `localhost:${relayPort}`)
        .replace('GAME_ID', gameId ?? 'GAME_ID');
      if (/^npx fairtable relay .*&\s*(#.*)?$/.test(command)) {
        // A relay in the background, serving the commands after it until the test ends.
        const child = spawn('bash', ['-c', command.replace(/&\s*(#.*)?$/, '')], {
          cwd: dir,
          detached: true,
          env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
        });
        relay = child;
        let out = '';
        await new Promise<void>((resolve, reject) => {
          child.stdout.on('data', (d: Buffer) => {
            out += d.toString();
            if (out.includes('"msg":"relay listening"')) resolve();
          });
          child.on('close', (code) => reject(new Error(`${command} exited (${code}) before listening: ${out}`)));
        });
        ran.push(command);
        continue;
      }
      if ((/ signidice house /.test(command) && !command.includes('--resume')) || / play [a-z]+ /.test(command)) {
        // The house (or a game's creator) serves until its game ends; the README's next command is a player in another terminal.
        const child = spawn('bash', ['-c', command], { cwd: dir, env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` } });
        let out = '';
        let err = '';
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        gameId = await new Promise<string>((resolve, reject) => {
          child.stdout.on('data', (d: Buffer) => {
            out += d.toString();
            const m = /^([0-9a-f]{64}) /.exec(out);
            if (m) resolve(m[1]!);
          });
          child.on('close', () => reject(new Error(`${command} exited: ${err}`)));
        });
        house = new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
        ran.push(command);
        continue;
      }
      if (/ signidice play /.test(command)) {
        expect(command).toMatch(/--game [0-9a-f]{64}/);
        const player = await bash(command);
        const h = await house!;
        exits(0)(player);
        exits(0)(h);
        // Both seats print the same balances, and the player's copy is the house's transcript.
        const balances = (r: Result): string => JSON.stringify((JSON.parse(r.out.trim().split('\n').pop()!) as { balances: unknown }).balances);
        expect(balances(player)).toBe(balances(h));
        const copy = /--out (\S+)/.exec(command)![1]!;
        expect(readFileSync(join(dir, copy), 'utf8')).toBe(readFileSync(join(dir, 'casino.jsonl'), 'utf8'));
        ran.push(command);
        continue;
      }
      if (/ play .*--join [0-9a-f]{64}/.test(command)) {
        // bob joins alice's game: both seats end, each printing the same outcome.
        const player = await bash(command);
        const creator = await house!;
        exits(0)(player);
        exits(0)(creator);
        const outcome = (r: Result): unknown => (JSON.parse(r.out.trim().split('\n').pop()!) as { winners: unknown }).winners;
        expect(outcome(player)).toEqual(outcome(creator));
        ran.push(command);
        continue;
      }
      if (command.startsWith('npm ci && npm start') || command.startsWith('npx fairtable relay')) {
        // npm start is `fairtable relay` in the repository; here the built command stands for it.
        await serveBriefly(command.startsWith('npm') ? 'npx fairtable relay --data ./start-data' : command);
        ran.push(command);
        continue;
      }
      const entry = EXPECT.find(([pattern]) => pattern.test(command));
      expect(entry, `README command with no expectation in this test: ${command}`).toBeDefined();
      const check = entry![1];
      if (check === 'skip') continue;
      check(await bash(command));
      const pub = / keygen --name (\w+) .*> (\S+)/.exec(command);
      if (pub) expect(JSON.parse(readFileSync(join(dir, pub[2]!), 'utf8'))).toMatchObject({ name: pub[1], publicKey: expect.stringMatching(/^[0-9a-f]{64}$/) });
      ran.push(command);
    }
    if (relay !== null) process.kill(-relay.pid!, 'SIGTERM');
    expect(ran.some((c) => c.includes('--resume'))).toBe(true);
    expect(ran.some((c) => / play .*--join /.test(c))).toBe(true);
    expect(ran.some((c) => c.startsWith('npx fairtable relay'))).toBe(true);
  }, 240_000);
});
