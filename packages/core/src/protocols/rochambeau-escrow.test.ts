/**
 * Rochambeau with threshold escrow (docs/spec/rochambeau.md §11). Without it, the last player to reveal sees
 * every other Reveal and chooses between two winners: revealing, or withholding so that its Commit drops
 * out of every tweak. With it, a withheld Reveal is opened from the shares and the verdict is the same
 * either way; the withholder is named. Every escrow rule is broken by a cheater and named.
 */
import { describe, expect, it } from 'vitest';
import { auditLines } from '../audit.js';
import type { Cheat } from '../sim/cheats.js';
import { simulate, type SimResult } from '../sim/simulate.js';

const ESCROW = { escrow: { scheme: 'vss', threshold: 2 } };
const play = (seed: number, options: { escrow?: boolean; cheat?: Cheat; accomplices?: Record<string, Cheat> } = {}): SimResult =>
  simulate({
    protocol: 'rochambeau',
    players: 3,
    seed: new Uint8Array(32).fill(seed),
    ...(options.escrow === true ? { params: ESCROW } : {}),
    ...(options.cheat === undefined ? {} : { cheat: options.cheat, cheater: 'p2' }),
    ...(options.accomplices === undefined ? {} : { accomplices: options.accomplices }),
  });
const winners = (r: SimResult): readonly string[] | undefined => r.outcome?.winners;

describe('the colluding last revealer', () => {
  it('without escrow it chooses the winner: reveal and p1 wins, withhold and p0 wins (seed 2)', () => {
    // p2 reveals last (it sees p0's and p1's Reveals in the log first); it withholds if its partner p0 wins so.
    const honest = play(2);
    const withheld = play(2, { cheat: 'withhold' });
    expect(winners(honest)).toEqual(['p1']);
    expect(winners(withheld)).toEqual(['p0']);
    // It is named by the seats that saw it live (the claim is the game's last line: see docs/SPEC.md §4.4).
    expect(withheld.violations.map((v) => [v.code, v.player])).toContainEqual(['withheld', 'p2']);
  });

  it('with escrow the verdict is the same whether it reveals or withholds, and the withholder is named', () => {
    for (const seed of [2, 3, 6]) {
      const honest = play(seed, { escrow: true });
      const withheld = play(seed, { escrow: true, cheat: 'withhold' });
      expect(auditLines(honest.lines).valid).toBe(true);
      expect(winners(withheld), `seed ${seed}`).toEqual(winners(honest));
      const v = auditLines(withheld.lines);
      expect(v.violations.map((x) => [x.code, x.player])).toEqual([['withheld', 'p2']]);
      expect(v.outcome!.summary).toMatchObject({ opened: ['p2'], named: [{ player: 'p2', code: 'withheld' }] });
    }
  });

  it('a Reveal that is not the one its sharing escrows is commit_mismatch: named, and the escrowed one plays', () => {
    const honest = play(2, { escrow: true });
    const r = play(2, { escrow: true, cheat: 'wrong-opening' });
    const v = auditLines(r.lines);
    expect(v.violations[0]).toMatchObject({ code: 'commit_mismatch', player: 'p2' });
    for (const x of v.violations) expect(x.player).toBe('p2');
    expect(winners(r)).toEqual(winners(honest));
  });
});

describe('escrow rules, each broken and named', () => {
  it('honest players on a lossy, duplicating network audit valid, with four players and k = 2', () => {
    for (const seed of [7, 8]) {
      const r = simulate({ protocol: 'rochambeau', players: 4, seed: new Uint8Array(32).fill(seed), params: ESCROW, drop: 0.1, duplicate: 0.1, maxDelay: 50 });
      const v = auditLines(r.lines);
      expect(v.violations).toEqual([]);
      expect(v.outcome).not.toBeNull();
    }
  });

  it('a sharing that does not fit its shares: every holder complains, no answer fits, bad_share (out before any Reveal)', () => {
    const v = auditLines(play(3, { escrow: true, cheat: 'escrow-bad-deal' }).lines);
    expect(v.violations[0]).toMatchObject({ code: 'bad_share', player: 'p2' });
    for (const x of v.violations) expect(x.player).toBe('p2');
    expect(v.outcome!.forfeits).toContainEqual({ player: 'p2', code: 'bad_share' });
  });

  it('a sharing of the wrong size is bad_share at the Commit', () => {
    const v = auditLines(play(3, { escrow: true, cheat: 'escrow-short-deal' }).lines);
    expect(v.violations[0]).toMatchObject({ code: 'bad_share', player: 'p2' });
    for (const x of v.violations) expect(x.player).toBe('p2');
  });

  it('no share check by the deadline is withheld; the player stays in and its Reveal plays', () => {
    const honest = play(5, { escrow: true });
    const r = play(5, { escrow: true, cheat: 'escrow-withhold-check' });
    const v = auditLines(r.lines);
    expect(v.violations.map((x) => [x.code, x.player])).toEqual([['withheld', 'p2']]);
    expect(winners(r)).toEqual(winners(honest));
  });

  it('a wrong share of a withheld Reveal is bad_share naming its sender; with too few valid shares the Reveal stays shut', () => {
    // p1 withholds its Reveal; p2 publishes a wrong share of it; k = 2 of p1's holders p0, p2: p0's share and
    // p2's wrong one leave one valid share, so p1's Reveal stays shut and p1 is out as the draft says.
    const r = play(6, { escrow: true, cheat: 'escrow-wrong-share', accomplices: { p1: 'withhold' } });
    const v = auditLines(r.lines);
    const named = v.violations.map((x) => [x.code, x.player]);
    expect(named).toContainEqual(['withheld', 'p1']);
    expect(named).toContainEqual(['bad_share', 'p2']);
    for (const x of v.violations) expect(['p1', 'p2']).toContain(x.player);
    expect(v.outcome!.forfeits).toContainEqual({ player: 'p1', code: 'withheld' });
  });
});
