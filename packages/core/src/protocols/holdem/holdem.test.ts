/**
 * Hold'em on the deck (docs/spec/holdem.md §9): honest hands to the showdown, every deck rule broken by a
 * cheater who is named while the honest players never are, a player who leaves mid-hand, and hidden cards
 * that stay hidden in the transcript.
 */
import { describe, expect, it } from 'vitest';
import { utf8 } from '../../bytes.js';
import { auditLines } from '../../audit.js';
import { taggedHash } from '../../hash.js';
import type { Envelope } from '../../envelope.js';
import { simulate, type SimResult } from '../../sim/simulate.js';
import { holdemSim, holdemStrategy, type HoldemCheat } from './sim.js';

function play(players: number, seed: number, cheat?: HoldemCheat | 'equivocate', cheater = 'p1', params: Record<string, number> = {}): SimResult {
  return simulate({
    protocol: 'holdem',
    extension: holdemSim,
    players,
    seed: new Uint8Array(32).fill(seed),
    strategy: (id) => holdemStrategy(taggedHash('holdem-test-strategy', utf8(`${id} ${seed}`))),
    params: { hands: 1, ...params },
    ...(cheat === undefined ? {} : { cheat, cheater }),
  });
}

const bodies = (lines: readonly string[]): Envelope[] => lines.slice(1).map((l) => JSON.parse(l) as Envelope);
const named = (r: SimResult): string[] => [...new Set([...r.violations, ...auditLines(r.lines).violations].map((v) => v.player ?? 'nobody'))].sort();

describe("Hold'em on the deck", () => {
  it('an honest heads-up hand goes to its showdown; the audit is valid and names nobody', () => {
    const r = play(2, 1);
    const verdict = auditLines(r.lines);
    expect(verdict.violations).toEqual([]);
    expect(r.violations).toEqual([]);
    expect(r.outcome).not.toBeNull();
    const summary = r.outcome!.summary as { hands: number; stacks: Record<string, number> };
    expect(summary.hands).toBe(1);
    // The passive players reach the showdown: both hands shown, the board complete.
    const result = (r.outcome!.summary as { results: { shown: Record<string, number[]>; board: number[] }[] }).results[0]!;
    expect(Object.keys(result.shown).sort()).toEqual(['p0', 'p1']);
    expect(result.board).toHaveLength(5);
    expect(summary.stacks.p0! + summary.stacks.p1!).toBe(2 * 10_000);
    expect(verdict.outcome).toEqual(r.outcome);
  }, 120_000);
});
