/**
 * `fairtable simulate holdem` with a cheat and `fairtable audit` on its transcript, end to end
 * (docs/spec/holdem.md §11.6): the cheater is named, with the deck's code, by the audit.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../bin/fairtable.js', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'fairtable-simulate-holdem-'));
const SEED = '11'.repeat(32);

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('fairtable simulate holdem', () => {
  it('lists the deck cheats in --help', () => {
    const r = cli(['simulate', '--help']);
    for (const cheat of ['bad-key-share', 'reused-key', 'bad-shuffle', 'bad-decryption-share', 'substituted-card', 'card-not-dealt', 'leave'])
      expect(r.stdout).toContain(cheat);
  });

  it('--cheat substituted-card: p1 is named card_not_dealt by fairtable audit, and forfeits', () => {
    const out = join(scratch, 'substituted.jsonl');
    const r = cli(['simulate', 'holdem', '--players', '2', '--cheat', 'substituted-card', '--seed', SEED, '--out', out]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('forfeited: p1 (card_not_dealt)');
    const a = cli(['audit', out, '--json']);
    const verdict = JSON.parse(a.stdout) as { valid: boolean; protocol: string; violations: { player: string; code: string }[] };
    expect(verdict).toMatchObject({ valid: false, protocol: 'holdem' });
    expect(verdict.violations.map((v) => [v.player, v.code])).toEqual([['p1', 'card_not_dealt']]);
  }, 120_000);

  it("a Hold'em cheat is refused for another protocol", () => {
    const r = cli(['simulate', 'beacon', '--players', '2', '--cheat', 'bad-shuffle', '--out', join(scratch, 'x.jsonl')]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('bad_cheater');
  });
});
