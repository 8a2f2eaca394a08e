/**
 * `fairtable audit` keeps a player who timed out apart from one who broke a rule, and a game in progress apart
 * from a game that is not valid (docs/SPEC.md §7.4, §9, §12), through the built binary: exit 0 with absences,
 * 1 for a rule broken, 3 in progress.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInProcess, type InProcessRun } from './in-process.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-absence-'));

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', cwd: dir, maxBuffer: 1 << 26 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `fairtable ARGS` in this process (`runInProcess`): the simulations and the audits of their small files (on the
 * calling thread). Each test's audit in words, with its exit status, goes through a process.
 */
const here = (args: string[]): Promise<InProcessRun> => runInProcess(args, { cwd: dir });

interface JsonVerdict {
  valid: boolean;
  finished: boolean;
  inProgress: boolean;
  violations: { code: string; player: string | null; kind: string }[];
}

describe('fairtable audit: absence, rule breaking, in progress', async () => {
  it('a game cut short is in progress: exit 3, "IN PROGRESS: N lines so far check", nobody named', async () => {
    const file = join(dir, 'dice.jsonl');
    expect((await here(['simulate', 'dice', '--players', '3', '--seed', '09'.repeat(32), '--turns', '2', '--out', file])).status).toBe(0);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, lines.slice(0, Math.floor(lines.length / 2)).join('\n') + '\n');
    const human = run(['audit', cut]);
    expect(human.status).toBe(3);
    expect(human.stdout).toContain(`IN PROGRESS: ${Math.floor(lines.length / 2)} lines so far check`);
    expect(human.stdout).not.toMatch(/INVALID|withheld/);
    const json = JSON.parse((await here(['audit', cut, '--json'])).stdout) as JsonVerdict;
    expect(json).toMatchObject({ valid: true, finished: false, inProgress: true, violations: [] });
    expect((await here(['audit', file])).status).toBe(0);
  });

  it('a reveal opened from escrow names nobody: the value counts, the withholder stays; exit 0', async () => {
    const file = join(dir, 'beacon-vss.jsonl');
    // Escrow is on by default for the beacon.
    expect((await here(['simulate', 'beacon', '--players', '4', '--cheat', 'withhold', '--seed', '0a'.repeat(32), '--out', file])).status).toBe(0);
    const json = JSON.parse((await here(['audit', file, '--json'])).stdout) as JsonVerdict;
    expect(json.violations).toEqual([]);
    expect(json).toMatchObject({ valid: true, finished: true, inProgress: false });
    const human = run(['audit', file]);
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/^VALID/m);
    expect(human.stdout).not.toMatch(/timed out|rule breaking seen/);
  });

  it('escrow that too few shares leave shut: the withholder and the silent holder timed out, not rule breaking; exit 0', async () => {
    const file = join(dir, 'beacon-shut.jsonl');
    const args = [
      'simulate',
      'beacon',
      '--players',
      '4',
      '--threshold',
      '3',
      '--cheat',
      'withhold',
      '--cheater',
      'p3',
      '--accomplice',
      'p1=escrow-withhold-share',
    ];
    expect((await here([...args, '--seed', '0a'.repeat(32), '--out', file])).status).toBe(0);
    const json = JSON.parse((await here(['audit', file, '--json'])).stdout) as JsonVerdict;
    expect(json.violations.map((v) => [v.code, v.player, v.kind]).sort()).toEqual([
      ['withheld', 'p1', 'absence'],
      ['withheld', 'p3', 'absence'],
    ]);
    expect(json).toMatchObject({ valid: true, finished: true, inProgress: false });
    const human = run(['audit', file]);
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/^VALID/m);
    expect(human.stdout).toMatch(/p3 timed out \(line \d+\): it forfeited/);
    expect(human.stdout).not.toMatch(/rule breaking seen/);
  });

  it('the one reveal withheld without escrow is rule breaking: exit 1, named under "rule breaking seen"', async () => {
    const file = join(dir, 'beacon-none.jsonl');
    expect(
      (await here(['simulate', 'beacon', '--players', '4', '--escrow', 'none', '--cheat', 'withhold', '--seed', '0a'.repeat(32), '--out', file])).status,
    ).toBe(0);
    const json = JSON.parse((await here(['audit', file, '--json'])).stdout) as JsonVerdict;
    expect(json.violations.map((v) => [v.code, v.player, v.kind])).toEqual([['withheld', 'p1', 'rule']]);
    expect(json.valid).toBe(false);
    const human = run(['audit', file]);
    expect(human.status).toBe(1);
    expect(human.stdout).toMatch(/INVALID: rule breaking seen: 1 violation/);
    expect(human.stdout).not.toMatch(/timed out/);
  });
});
