/**
 * `fairtable simulate diplomacy` and `fairtable audit` on its transcript, end to end (docs/spec/diplomacy.md
 * §10.7): an honest game audits valid; a cheat is named by the simulator's audit and by `fairtable audit`.
 * The honest game's audit, the first cheat's audit and the refused cheat run the built command as processes
 * (start-up, exit statuses 0, 1 and 2); the other runs are the same command lines inside this process.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

const MAIN = fileURLToPath(new URL('../../bin/fairtable.js', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'fairtable-simulate-diplomacy-'));
const SEED = '07'.repeat(32);

/** The built command as a process of its own: its start-up and exit statuses. */
function spawned(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The same command line inside this process (../in-process.ts): the games and most audits, without a process's start-up each. */
const cli = (args: string[]) => runInProcess(args);

describe('fairtable simulate diplomacy', () => {
  it('an honest game of two years with power assignment audits valid, here and with fairtable audit', async () => {
    const out = join(scratch, 'honest.jsonl');
    const r = await cli(['simulate', 'diplomacy', '--players', '7', '--years', '2', '--seed', SEED, '--out', out]);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/audit: valid .*"phase":"S1903M"/);
    const a = spawned(['audit', out, '--json']);
    expect(a.status).toBe(0);
    expect(JSON.parse(a.stdout)).toMatchObject({ valid: true, protocol: 'diplomacy' });
  });

  for (const [cheat, code, extra] of [
    ['tampered-orders', 'commit_mismatch', []],
    ['disagree', 'position_mismatch', []],
    ['withhold', 'withheld', ['--assign', 'fixed', '--escrow', 'none']],
    ['layers-inside-differs', 'bad_layer', ['--assign', 'fixed', '--escrow', 'layers']],
    // With power assignment the first onion is the assignment round's: its bad box is named there.
    ['layers-bad-box', 'bad_layer', ['--escrow', 'layers']],
  ] as const) {
    it(`--cheat ${cheat}: p1 named ${code}`, async () => {
      const out = join(scratch, `${cheat}.jsonl`);
      const r = await cli(['simulate', 'diplomacy', '--players', '7', '--years', '1', '--seed', SEED, '--out', out, '--cheat', cheat, ...extra]);
      expect(r.status).toBe(0);
      expect(r.stderr).toContain(`${code} by p1`);
      const a = cheat === 'tampered-orders' ? spawned(['audit', out, '--json']) : await cli(['audit', out, '--json']);
      expect(a.status).toBe(1);
      const verdict = JSON.parse(a.stdout) as { violations: { code: string; player: string }[] };
      expect(verdict.violations[0]).toMatchObject({ code, player: 'p1' });
    });
  }

  it("--cheat withhold with the defaults (weighted assignment, threshold escrow): every withheld value is opened, the assignment round's too; valid", async () => {
    const out = join(scratch, 'withhold-assign.jsonl');
    const r = await cli(['simulate', 'diplomacy', '--players', '7', '--years', '1', '--seed', SEED, '--out', out, '--cheat', 'withhold']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/audit: valid/);
    const bodies = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => (JSON.parse(l) as { body: { type: string; round: number; label?: string } }).body);
    // p1's preferences were opened from shares in round 0, and the powers were not drawn again.
    expect(bodies.some((b) => b.type === 'share' && b.round === 0)).toBe(true);
    expect(bodies.some((b) => b.type === 'commit' && b.label === 'powers' && b.round > 0)).toBe(false);
    const a = await cli(['audit', out, '--json']);
    expect(a.status).toBe(0);
    expect(JSON.parse(a.stdout)).toMatchObject({ valid: true, protocol: 'diplomacy' });
  });

  it('a Diplomacy cheat in another protocol is refused', () => {
    const r = spawned(['simulate', 'beacon', '--players', '3', '--out', join(scratch, 'x.jsonl'), '--cheat', 'disagree']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('[bad_cheater]');
  });
});
