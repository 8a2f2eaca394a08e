/** Power assignment as seed 003 describes it, on the seed's own example (docs/spec/diplomacy.md §9). */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FairtableError } from '@fairtable/core/errors.js';
import { assignPowers, formatPreferences, parsePreferences } from './assign.js';

const SEED_EXAMPLE = `1 AE(GI)R
2 FRG
3 (EFG)TI(AR)
4 E
5
6 FRA
7 GRA
8 %REG`;

describe('preference lists in the seed notation', () => {
  it('reads the seed example and writes it back the same', () => {
    const prefs = parsePreferences(SEED_EXAMPLE);
    expect(prefs).toHaveLength(8);
    expect(prefs[2]).toEqual({ player: 3, reserve: false, groups: [['england', 'france', 'germany'], ['turkey'], ['italy'], ['austria', 'russia']] });
    expect(prefs[7]).toMatchObject({ player: 8, reserve: true });
    expect(formatPreferences(prefs)).toBe(SEED_EXAMPLE);
  });

  it('refuses what is not a list, with a code and the line', () => {
    for (const bad of ['1 AX', '1 A(E', '1 AA', '1 (E)(F', 'x A', '1 A\n1 E', '1 ((A))']) {
      expect(() => parsePreferences(bad)).toThrow(FairtableError);
    }
    expect(() => parsePreferences('1 AX')).toThrow(/line 1: "X" is not a power/);
  });
});

describe('weighted lotteries, as the seed decides them', () => {
  it("the seed's example: Austria unopposed to player 1, then France by a lottery of seven outcomes", () => {
    // The seed's numbers total 26; 26 mod 7 = 5: player 6 gets France.
    const r = assignPowers(parsePreferences(SEED_EXAMPLE), 'weighted', [5, 0, 0, 0]);
    expect(r.assignment['1']).toBe('austria');
    expect(r.contests[0]).toEqual({ pass: 1, power: 'france', chances: { '2': 3, '3': 1, '6': 3 }, outcomes: 7, number: 5, winner: 6 });
    // Player 2 then takes Russia unopposed; player 3, having lost France, keeps a third of a share for England.
    expect(r.assignment['2']).toBe('russia');
    expect(r.contests[1]).toEqual({ pass: 2, power: 'england', chances: { '3': 1, '4': 3 }, outcomes: 4, number: 0, winner: 3 });
    expect(r.assignment['8']).toBeUndefined();
    // Seven powers, seven players who are not reserves: everyone has one, nobody has two.
    expect(new Set(Object.values(r.assignment)).size).toBe(7);
    expect(Object.keys(r.assignment).sort()).toEqual(['1', '2', '3', '4', '5', '6', '7']);
  });

  it('the outcomes follow the player order: numbers 0–2 give France to player 2, 3 to player 3, 4–6 to player 6', () => {
    const prefs = parsePreferences(SEED_EXAMPLE);
    const winners = [0, 1, 2, 3, 4, 5, 6].map((n) => assignPowers(prefs, 'weighted', (k) => (k === 7 ? n : 0)).contests[0]!.winner);
    expect(winners).toEqual([2, 2, 2, 3, 6, 6, 6]);
  });

  it('too few numbers, or one out of range, is an error; numbers left over are ignored', () => {
    const prefs = parsePreferences(SEED_EXAMPLE);
    expect(() => assignPowers(prefs, 'weighted', [5])).toThrow(/too few lottery numbers/);
    expect(() => assignPowers(prefs, 'weighted', [7, 0, 0, 0])).toThrow(/in \[0, 7\)/);
    expect(assignPowers(prefs, 'weighted', [5, 0, 0, 0, 9, 9, 9]).assignment).toEqual(assignPowers(prefs, 'weighted', [5, 0, 0, 0]).assignment);
  });

  it('any lists and any lottery results: every player who is not a reserve gets exactly one power, each power once', () => {
    const letters = ['A', 'E', 'F', 'G', 'I', 'R', 'T'];
    const list = fc.shuffledSubarray(letters).map((ls) => ls.join(''));
    fc.assert(
      fc.property(fc.array(list, { minLength: 1, maxLength: 7 }), fc.array(fc.nat(), { maxLength: 64 }), (lists, seeds) => {
        const prefs = parsePreferences(lists.map((l, i) => `${i + 1} ${l}`).join('\n'));
        let i = 0;
        const r = assignPowers(prefs, 'weighted', (k) => (seeds[i++] ?? 0) % k);
        expect(Object.keys(r.assignment)).toHaveLength(lists.length);
        expect(new Set(Object.values(r.assignment)).size).toBe(lists.length);
        for (const c of r.contests) expect(c.number).toBeLessThan(c.outcomes);
      }),
      { numRuns: 300 },
    );
  });
});

describe('random serial dictatorship', () => {
  it('a joint random order, then each takes its best remaining power', () => {
    const prefs = parsePreferences('1 F\n2 F\n3 FE');
    // Fisher–Yates on [1, 2, 3] with numbers 0, 0: swap the last with the first ([3, 2, 1]), then the second with the first.
    const r = assignPowers(prefs, 'serial', [0, 0]);
    expect(r.order).toEqual([2, 3, 1]);
    expect(r.assignment).toEqual({ '2': 'france', '3': 'england', '1': 'austria' });
  });
});
