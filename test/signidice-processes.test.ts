/**
 * Signidice as separate programs: `fairtable signidice house` serves the table on
 * 127.0.0.1 and plays the house; two `fairtable signidice play` processes join.
 * Every seat must end with the same balances, and the transcript must audit.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const main = join(root, 'packages/cli/dist/main.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-signidice-'));

function cli(args: string[]): string {
  const r = spawnSync(process.execPath, [main, ...args], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

function collect(child: ChildProcess): Promise<{ out: string; code: number | null }> {
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', () => {});
  return new Promise((resolve) => child.on('close', (code) => resolve({ out, code })));
}

beforeAll(() => {
  for (const name of ['house', 'alice', 'bob']) writeFileSync(join(dir, `${name}.pub.json`), cli(['keygen', '--name', name, '--out', `${name}.json`]));
}, 120_000);

async function play(
  houseArgs: string[],
): Promise<{ reports: { player: string; balances: unknown; violations: { code: string; player: string }[] }[]; transcript: string }> {
  const transcript = join(dir, `game-${Math.random().toString(36).slice(2)}.jsonl`);
  const house = spawn(
    process.execPath,
    [
      main,
      'signidice',
      'house',
      '--key',
      'house.json',
      '--players',
      'alice.pub.json,bob.pub.json',
      '--rounds',
      '2',
      '--timeout-ms',
      '4000',
      '--out',
      transcript,
      ...houseArgs,
    ],
    { cwd: dir },
  );
  const houseDone = collect(house);
  const port = await new Promise<string>((resolve, reject) => {
    let buf = '';
    house.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /PORT (\d+)/.exec(buf);
      if (m) resolve(m[1]!);
    });
    house.on('error', reject);
  });
  const players = ['alice', 'bob'].map((p) =>
    // alice chooses her bet (red, 7 a round); bob leaves his to the automatic player.
    collect(
      spawn(process.execPath, [main, 'signidice', 'play', '--key', `${p}.json`, '--port', port, ...(p === 'alice' ? ['--bet', 'red:7'] : [])], { cwd: dir }),
    ),
  );
  const results = await Promise.all([houseDone, ...players]);
  for (const r of results) expect(r.code).toBe(0);
  const reports = results.map(
    (r) => JSON.parse(r.out.trim().split('\n').pop()!) as { player: string; balances: unknown; violations: { code: string; player: string }[] },
  );
  return { reports, transcript };
}

describe('Signidice across processes on 127.0.0.1', () => {
  it('house and two players agree on every balance, and the transcript audits valid', async () => {
    const { reports, transcript } = await play([]);
    // Every bet alice placed is the one she chose on the command line.
    const bets = readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { from: string; body: { type: string; bet?: unknown } })
      .filter((e) => e.from === 'alice' && e.body.type === 'bet');
    expect(bets.length).toBeGreaterThan(0);
    for (const b of bets) expect(b.body.bet).toEqual({ kind: 'red', pick: null, amount: 7 });
    expect(reports.map((r) => r.player)).toEqual(['house', 'alice', 'bob']);
    expect(new Set(reports.map((r) => JSON.stringify(r.balances))).size).toBe(1);
    const audit = spawnSync(process.execPath, [main, 'audit', transcript, '--json'], { encoding: 'utf8' });
    expect(audit.status).toBe(0);
    const verdict = JSON.parse(audit.stdout) as { valid: boolean; outcome: { summary: { balances: unknown } } };
    expect(verdict.valid).toBe(true);
    expect(JSON.stringify(verdict.outcome.summary.balances)).toBe(JSON.stringify(reports[0]!.balances));
  }, 60_000);

  it('a house that swaps its key is named by every player and by the auditor', async () => {
    const { reports, transcript } = await play(['--cheat', 'house-key-swap']);
    for (const r of reports.slice(1)) expect(r.violations[0]).toMatchObject({ code: 'key_swap', player: 'house' });
    const audit = spawnSync(process.execPath, [main, 'audit', transcript, '--json'], { encoding: 'utf8' });
    expect(audit.status).toBe(1);
    expect((JSON.parse(audit.stdout) as { violations: { code: string; player: string }[] }).violations[0]).toMatchObject({ code: 'key_swap', player: 'house' });
  }, 60_000);
});
