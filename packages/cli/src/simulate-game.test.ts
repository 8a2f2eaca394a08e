/** `fairtable simulate keyed-stream --game … --audit-every …`: seed 000's protocol with any game, from the command line. */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { runInProcess, type InProcessRun } from './in-process.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-cli-game-'));

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', cwd: dir });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `fairtable ARGS` in this process (`runInProcess`): the games after the first, whose subject is what the command plays, not its process. */
const here = (args: string[]): Promise<InProcessRun> => runInProcess(args, { cwd: dir });

const bodies = (file: string): { from: string; body: { type: string; [k: string]: unknown } }[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { from: string; body: { type: string } });

// The built command is brought up to date once for the whole run, by test/global-setup.ts.

describe('fairtable simulate keyed-stream --game', () => {
  it('plays Monopoly on seed 000 protocol, with audits on demand every turn, and the transcript audits valid', () => {
    const file = join(dir, 'monopoly.jsonl');
    const r = run([
      'simulate',
      'keyed-stream',
      '--game',
      'monopoly',
      '--players',
      '3',
      '--turns',
      '2',
      '--audit-every',
      '1',
      '--seed',
      '07'.repeat(32),
      '--out',
      file,
    ]);
    expect(r.status).toBe(0);
    const lines = bodies(file);
    const setup = lines[0]!.body.setup as { protocol: string; game: string; params: { auditEvery: number; rounds: number } };
    expect(setup).toMatchObject({ protocol: 'keyed-stream', game: 'monopoly', params: { auditEvery: 1, rounds: 2 } });
    // Audits were asked for and answered with a new key during play (an answer still queued when the game
    // ends becomes the player's final audit instead, so not every request gets a new key).
    const requests = lines.filter((l) => l.body.type === 'audit-request');
    const answers = lines.filter((l) => l.body.type === 'audit' && l.body.key !== undefined);
    expect(requests.length).toBeGreaterThan(0);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.length).toBeLessThanOrEqual(requests.length);
    const audit = run(['audit', file, '--json']);
    expect(audit.status).toBe(0);
    const verdict = JSON.parse(audit.stdout) as { valid: boolean; outcome: { summary: { game: string } } };
    expect(verdict.valid).toBe(true);
    expect(verdict.outcome.summary.game).toBe('monopoly');
  });

  it('plays snakes, with no audit before the end when --audit-every is not given', async () => {
    const file = join(dir, 'snakes.jsonl');
    expect(
      (await here(['simulate', 'keyed-stream', '--game', 'snakes', '--players', '2', '--turns', '5', '--seed', '08'.repeat(32), '--out', file])).status,
    ).toBe(0);
    const lines = bodies(file);
    expect(lines[0]!.body.setup).toMatchObject({ game: 'snakes', params: { maxRounds: 5 } });
    expect(lines.some((l) => l.body.type === 'audit-request')).toBe(false);
    expect((await here(['audit', file])).status).toBe(0);
  });

  it('refuses an unknown game, --game for a protocol without one, and --audit-every outside keyed-stream', async () => {
    expect((await here(['simulate', 'keyed-stream', '--game', 'poker', '--players', '2', '--out', 'x'])).stderr).toMatch(/bad_input.*unknown game "poker"/);
    expect((await here(['simulate', 'beacon', '--game', 'monopoly', '--players', '2', '--out', 'x'])).stderr).toMatch(/--game is for keyed-stream and chain/);
    expect((await here(['simulate', 'chain', '--audit-every', '2', '--players', '2', '--out', 'x'])).stderr).toMatch(/--audit-every is for keyed-stream/);
    expect((await here(['simulate', 'keyed-stream', '--audit-every', '0', '--players', '2', '--out', 'x'])).stderr).toMatch(/out_of_range/);
  });
});

describe('fairtable simulate beacon --escrow vss', () => {
  it("opens a withholder's value from the others' shares and names nobody; refuses escrow cheats outside it", async () => {
    const file = join(dir, 'escrow.jsonl');
    const seed = '07'.repeat(32);
    const r = await here(['simulate', 'beacon', '--players', '5', '--escrow', 'vss', '--threshold', '3', '--cheat', 'withhold', '--seed', seed, '--out', file]);
    expect(r.status, r.stderr).toBe(0);
    const types = bodies(file).map((e) => e.body.type);
    // Each other player published its share of p1's value: the round ended on the committed value.
    expect(bodies(file).filter((e) => e.body.type === 'share' && e.body.dealer === 'p1').length).toBeGreaterThanOrEqual(3);
    expect(types.filter((t) => t === 'check').length).toBe(5);
    const audit = await here(['audit', file, '--json']);
    const verdict = JSON.parse(audit.stdout) as { violations: { code: string; player: string }[] };
    expect(verdict.violations).toEqual([]);
    expect((await here(['simulate', 'dice', '--players', '2', '--cheat', 'escrow-wrong-share', '--out', join(dir, 'x.jsonl')])).stderr).toMatch(
      /\[bad_cheater\].*beacon --escrow vss/,
    );
    expect((await here(['simulate', 'dice', '--players', '2', '--escrow', 'vss', '--out', join(dir, 'y.jsonl')])).stderr).toMatch(
      /--escrow is for beacon and diplomacy/,
    );
  });
});

describe('fairtable simulate beacon --escrow layers', () => {
  it('peels a withheld value; members who refuse are named through --accomplice; layer cheats need --escrow layers', async () => {
    const seed = '08'.repeat(32);
    const file = join(dir, 'layers.jsonl');
    const r = await here([
      'simulate',
      'beacon',
      '--players',
      '5',
      '--escrow',
      'layers',
      '--cheat',
      'withhold',
      '--cheater',
      'p2',
      '--accomplice',
      'p0=layers-refuse-peel',
      '--seed',
      seed,
      '--out',
      file,
    ]);
    expect(r.status, r.stderr).toBe(0);
    // p2's layers are p0|p4, p0|p1, p1|p3, p3|p4, the core to p0 and p1: p0 refuses, and the exchanges of p4
    // and p1 open every layer (p3 is never asked).
    expect(
      bodies(file)
        .filter((e) => e.body.type === 'peel')
        .map((e) => e.from)
        .sort(),
    ).toEqual(['p1', 'p4']);
    const verdict = JSON.parse((await here(['audit', file, '--json'])).stdout) as { violations: { code: string; player: string }[] };
    // p0's missing peel is an absence; p2's value was peeled and counts: nobody names it.
    expect(verdict.violations.map((v) => `${v.code} ${v.player}`).sort()).toEqual(['withheld p0']);
    const garbage = join(dir, 'layers-garbage.jsonl');
    expect(
      (await here(['simulate', 'beacon', '--players', '4', '--escrow', 'layers', '--cheat', 'layers-bad-box', '--seed', seed, '--out', garbage])).status,
    ).toBe(0);
    const named = JSON.parse((await here(['audit', garbage, '--json'])).stdout) as { violations: { code: string; player: string }[] };
    expect(named.violations.map((v) => `${v.code} ${v.player}`)).toEqual(['bad_layer p1']);
    expect((await here(['simulate', 'beacon', '--players', '3', '--cheat', 'layers-bad-body', '--out', join(dir, 'z.jsonl')])).stderr).toMatch(
      /\[bad_cheater\].*--escrow layers/,
    );
  });
});
