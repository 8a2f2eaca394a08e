/**
 * The command line's limits and coded errors (issue 7 items 3–4, issue 8 §5):
 * cheats their cheater cannot commit, the random stream's full range and its
 * bounds, the judge's bound on N, option ranges, player-id names, prototype
 * member names as protocols. Each refusal is exit 2 with one `[code]` line.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSetupEnvelope } from '@fairtable/core/setup.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { toHex } from '@fairtable/core/bytes.js';
import { runInProcess, type InProcessRun } from '../packages/cli/src/in-process.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-limits-'));
const SEED = '00'.repeat(32);

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [main, ...args], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `fairtable ARGS` in this process (`runInProcess`): a refusal's words and status are the command's, not its process's. */
const here = (args: string[]): Promise<InProcessRun> => runInProcess(args, { cwd: dir });

/** ARGS refused: exit 2 with one `[code]` line (run in this process). */
async function refused(args: string[], code: string): Promise<string> {
  const r = await here(args);
  expect(r.status, r.stderr).toBe(2);
  expect(r.stderr).toMatch(new RegExp(`\\[${code}\\]`));
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  return r.stderr;
}

/** The same, through a process of its own: commands that would reach out to a relay are not run in this process. */
function refusedByProcess(args: string[], code: string): string {
  const r = run(args);
  expect(r.status, r.stderr).toBe(2);
  expect(r.stderr).toMatch(new RegExp(`\\[${code}\\]`));
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  return r.stderr;
}

// The built command is brought up to date once for the whole run, by test/global-setup.ts.

describe('simulate: a cheat its cheater cannot commit is an error', () => {
  it('a house cheat defaults to the house and is caught; --cheater p1 with it is bad_cheater', async () => {
    const out = join(dir, 'swap.jsonl');
    expect((await here(['simulate', 'signidice', '--players', '3', '--seed', SEED, '--cheat', 'house-key-swap', '--out', out])).status).toBe(0);
    const audit = await here(['audit', out, '--json']);
    expect(audit.status).toBe(1);
    expect((JSON.parse(audit.stdout) as { violations: { code: string; player: string }[] }).violations[0]).toMatchObject({ code: 'key_swap', player: 'house' });
    await refused(['simulate', 'signidice', '--players', '3', '--seed', SEED, '--cheat', 'house-key-swap', '--cheater', 'p1', '--out', out], 'bad_cheater');
  });

  it('a Signidice cheat in another protocol, a player cheat for the house, and a cheat with no effect are bad_cheater', async () => {
    const out = join(dir, 'x.jsonl');
    await refused(['simulate', 'dice', '--players', '3', '--seed', SEED, '--cheat', 'house-key-swap', '--out', out], 'bad_cheater');
    await refused(['simulate', 'dice', '--players', '3', '--seed', SEED, '--cheat', 'player-reuse-r', '--out', out], 'bad_cheater');
    await refused(['simulate', 'signidice', '--players', '2', '--seed', SEED, '--cheat', 'player-reuse-r', '--cheater', 'house', '--out', out], 'bad_cheater');
    // The house has nothing to withhold under `withhold` (it signs, it never reveals): no trace, so no transcript.
    await refused(['simulate', 'signidice', '--players', '2', '--seed', SEED, '--cheat', 'withhold', '--cheater', 'house', '--out', out], 'bad_cheater');
  });
});

describe('random', () => {
  it('accepts --below 2^53 and refuses 2^53 + 1', async () => {
    const r = await here(['random', '--seed', SEED, '--label', 'x', '--below', '9007199254740992', '--count', '5']);
    expect(r.status, r.stderr).toBe(0);
    const values = r.stdout.trim().split('\n').map(Number);
    expect(values).toHaveLength(5);
    for (const v of values) expect(v >= 0 && v < 2 ** 53).toBe(true);
    await refused(['random', '--seed', SEED, '--label', 'x', '--below', '9007199254740993'], 'out_of_range');
    await refused(['random', '--seed', SEED, '--label', 'x', '--dice', '0'], 'out_of_range');
  });

  it('bounds shuffles: --shuffle 10000000 --count 20 is refused; a legal run prints whole shuffles', async () => {
    await refused(['random', '--seed', SEED, '--label', 'x', '--shuffle', '10000000', '--count', '20'], 'out_of_range');
    await refused(['random', '--seed', SEED, '--label', 'x', '--shuffle', '1000000', '--count', '11'], 'out_of_range');
    const r = await here(['random', '--seed', SEED, '--label', 'x', '--shuffle', '5', '--count', '3']);
    expect(r.status).toBe(0);
    for (const line of r.stdout.trim().split('\n')) expect(line.split(' ').map(Number).sort()).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('option ranges and names', () => {
  it('rochambeau judge refuses an N of a million digits at once', async () => {
    const file = join(dir, 'bign.json');
    writeFileSync(file, JSON.stringify({ N: '9'.repeat(1_000_000), hash: 'sha-256', players: [{ id: 'a', commit: null, reveal: null }] }));
    const r = await here(['rochambeau', 'judge', file]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/\[out_of_range\] N: 1000000 digits/);
  });

  it('--workers takes 1..64 only', async () => {
    const out = join(dir, 'w.jsonl');
    expect((await here(['simulate', 'dice', '--players', '2', '--seed', SEED, '--turns', '1', '--out', out])).status).toBe(0);
    for (const w of ['abc', '0', '400', '-1', '1.5']) await refused(['audit', out, '--workers', w], 'out_of_range');
    // Verifying threads of its own: through the process.
    expect(run(['audit', out, '--workers', '2']).status).toBe(0);
  });

  it('keygen refuses names that can never be player ids', async () => {
    for (const name of ['a b', '', 'x'.repeat(65), 'ünï', 'a/b'])
      await refused(['keygen', '--name', name, '--out', join(dir, 'k.json'), '--force'], 'bad_input');
    expect((await here(['keygen', '--name', 'alice_1.x', '--out', join(dir, 'k.json'), '--force'])).status).toBe(0);
  });

  it('signidice house refuses an unknown wheel', () => {
    run(['keygen', '--name', 'house', '--out', 'house.json', '--force']);
    writeFileSync(join(dir, 'alice.pub.json'), run(['keygen', '--name', 'alice', '--out', 'alice.json', '--force']).stdout);
    // Refused before any relay is reached (nothing listens on port 9).
    const relay = ['--relay', 'http://127.0.0.1:9'];
    refusedByProcess(['signidice', 'house', ...relay, '--key', 'house.json', '--players', 'alice.pub.json', '--wheel', 'banana'], 'bad_input');
    refusedByProcess(['signidice', 'house', ...relay, '--key', 'house.json', '--players', 'alice.pub.json', '--cheat', 'player-reuse-r'], 'bad_cheater');
    refusedByProcess(['signidice', 'play', ...relay, '--game', 'ab'.repeat(32), '--key', 'alice.json', '--cheat', 'house-key-swap'], 'bad_cheater');
  });

  it('__proto__, toString and constructor as protocol names are unknown_protocol, as game names unknown_game', async () => {
    const k = generateKeyPair(new Uint8Array(32).fill(9));
    for (const [protocol, game] of [
      ['__proto__', null],
      ['toString', null],
      ['constructor', null],
      ['chain', '__proto__'],
      ['chain', 'toString'],
    ] as const) {
      const setup = { protocol, game, params: {}, players: [{ id: 'a', key: toHex(k.publicKey) }], nonce: '00'.repeat(32), created: 1 };
      const file = join(dir, `proto-${protocol}-${game}.jsonl`);
      writeFileSync(file, envelopeLine(createSetupEnvelope(setup, 'a', k)) + '\n');
      await refused(['audit', file], game === null ? 'unknown_protocol' : 'unknown_game');
    }
  });
});
