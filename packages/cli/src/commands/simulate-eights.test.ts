/**
 * `fairtable simulate crazy-eights` with a cheat and `fairtable audit` on its transcript, end to end
 * (docs/spec/crazy-eights.md §5): the cheater is named by the audit, with the rule's code.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInProcess, type InProcessRun } from '../in-process.js';

const MAIN = fileURLToPath(new URL('../../bin/fairtable.js', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'fairtable-simulate-eights-'));
const SEED = '07'.repeat(32);

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** `fairtable ARGS` in this process (`runInProcess`): the honest game and its audit, and the refusals; the cheat's run and audit go through processes. */
const here = (args: string[]): Promise<InProcessRun> => runInProcess(args, { cwd: scratch });

describe('fairtable simulate crazy-eights', () => {
  it('lists its cheats in --help', async () => {
    const r = await here(['simulate', '--help']);
    for (const cheat of ['card-not-dealt', 'substituted-card', 'no-match', 'bad-decryption-share', 'leave']) expect(r.stdout).toContain(cheat);
  });

  it('--cheat card-not-dealt: p1 is named card_not_dealt by fairtable audit and forfeits; an honest game audits valid', async () => {
    const out = join(scratch, 'not-dealt.jsonl');
    const r = cli(['simulate', 'crazy-eights', '--players', '2', '--cheat', 'card-not-dealt', '--seed', SEED, '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('forfeited: p1 (card_not_dealt)');
    const a = cli(['audit', out, '--json']);
    const verdict = JSON.parse(a.stdout) as { valid: boolean; protocol: string; violations: { player: string; code: string }[] };
    expect(verdict).toMatchObject({ valid: false, protocol: 'crazy-eights' });
    expect(verdict.violations.map((v) => [v.player, v.code])).toEqual([['p1', 'card_not_dealt']]);
    const honest = join(scratch, 'honest.jsonl');
    expect((await here(['simulate', 'crazy-eights', '--players', '2', '--seed', SEED, '--out', honest])).status).toBe(0);
    const h = await here(['audit', honest, '--json']);
    expect(h.status, h.stdout).toBe(0);
    expect(JSON.parse(h.stdout)).toMatchObject({ valid: true, protocol: 'crazy-eights', violations: [] });
  }, 480_000);

  it('a Crazy Eights cheat is refused for another protocol, and another protocol’s for Crazy Eights', async () => {
    const a = await here(['simulate', 'holdem', '--players', '2', '--cheat', 'no-match', '--out', join(scratch, 'x.jsonl')]);
    expect(a.status).not.toBe(0);
    expect(a.stderr).toContain('bad_cheater');
    const b = await here(['simulate', 'crazy-eights', '--players', '2', '--cheat', 'reused-key', '--out', join(scratch, 'y.jsonl')]);
    expect(b.status).not.toBe(0);
    expect(b.stderr).toContain('bad_cheater');
  });
});
