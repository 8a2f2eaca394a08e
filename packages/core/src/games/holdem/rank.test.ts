/**
 * Hand ranking (docs/spec/holdem.md §2) against a reference written apart: it
 * scores a five-card hand as a list [category, tie-breaks…] from rank counts
 * and suit sets, picks the best of the 21 subsets by bitmask, and compares
 * lists element by element. Random seven-card hands must rank and compare
 * alike under both; then the cases people get wrong, by hand.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cardCode, cardName, cardOf, parseCard, parseCards, rankOf, suitOf } from './cards.js';
import { bestHand, describeRank, rankFive } from './rank.js';

/** [category, tie-breaks…] for five cards, worked out without the module under test. */
function referenceScore(five: readonly number[]): number[] {
  const ranks = five.map((c) => Math.floor(c / 4) + 2);
  const suits = new Set(five.map((c) => c % 4));
  const count: number[] = Array<number>(15).fill(0);
  for (const r of ranks) count[r]!++;
  const byCount = (n: number): number[] => {
    const out: number[] = [];
    for (let r = 14; r >= 2; r--) if (count[r] === n) out.push(r);
    return out;
  };
  const distinct = byCount(1);
  let straightHigh = 0;
  if (distinct.length === 5) {
    if (distinct[0]! - distinct[4]! === 4) straightHigh = distinct[0]!;
    else if (distinct.join() === '14,5,4,3,2') straightHigh = 5;
  }
  const isFlush = suits.size === 1;
  if (straightHigh && isFlush) return [8, straightHigh];
  if (byCount(4).length) return [7, ...byCount(4), ...byCount(1)];
  if (byCount(3).length && byCount(2).length) return [6, ...byCount(3), ...byCount(2)];
  if (isFlush) return [5, ...distinct];
  if (straightHigh) return [4, straightHigh];
  if (byCount(3).length) return [3, ...byCount(3), ...byCount(1)];
  if (byCount(2).length === 2) return [2, ...byCount(2), ...byCount(1)];
  if (byCount(2).length === 1) return [1, ...byCount(2), ...byCount(1)];
  return [0, ...distinct];
}

function compareLists(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

function referenceBest(seven: readonly number[]): number[] {
  let best: number[] | null = null;
  for (let mask = 0; mask < 1 << seven.length; mask++) {
    let bits = 0;
    for (let m = mask; m; m &= m - 1) bits++;
    if (bits !== 5) continue;
    const score = referenceScore(seven.filter((_, i) => mask & (1 << i)));
    if (best === null || compareLists(score, best) > 0) best = score;
  }
  return best!;
}

const cards = (text: string): number[] => parseCards(text);
const key = (text: string): number => bestHand(cards(text)).key;

describe('cards', () => {
  it('index = 4 × (rank − 2) + suit, suits clubs, diamonds, hearts, spades', () => {
    expect(cardOf(2, 0)).toBe(0);
    expect(cardOf(14, 3)).toBe(51);
    expect(parseCard('As')).toBe(51);
    expect(parseCard('A♠')).toBe(51);
    expect(parseCard('2c')).toBe(0);
    expect(parseCard('Td')).toBe(parseCard('10♦'));
    expect(parseCard('10d')).toBe(4 * 8 + 1);
    for (let c = 0; c < 52; c++) {
      expect(parseCard(cardCode(c))).toBe(c);
      expect(parseCard(cardName(c))).toBe(c);
      expect(cardOf(rankOf(c), suitOf(c))).toBe(c);
    }
    expect(cardName(parseCard('Th'))).toBe('10♥');
    expect(cardCode(parseCard('10♥'))).toBe('Th');
  });

  it('refuses what is not a card', () => {
    for (const bad of ['1s', 'Ax', '', 'AsKs', '11c']) expect(() => parseCard(bad)).toThrow(/not a card/);
    expect(() => rankOf(52)).toThrow(/\[0, 51\]/);
    expect(() => rankOf(-1)).toThrow(/\[0, 51\]/);
    expect(() => rankOf(1.5)).toThrow(/\[0, 51\]/);
  });
});

describe('hand ranking against the reference', () => {
  const seven = fc.uniqueArray(fc.integer({ min: 0, max: 51 }), { minLength: 9, maxLength: 9 });

  it('every five-card hand: the same category and tie-breaks', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 51 }), { minLength: 5, maxLength: 5 }), (five) => {
        const r = rankFive(five);
        expect([r.category, ...r.ranks]).toEqual(referenceScore(five));
      }),
      { numRuns: 3000 },
    );
  });

  it('two players on a shared board: the same winner, or the same tie', () => {
    fc.assert(
      fc.property(seven, (nine) => {
        const board = nine.slice(0, 5);
        const a = [nine[5]!, nine[6]!, ...board];
        const b = [nine[7]!, nine[8]!, ...board];
        const ra = bestHand(a);
        const rb = bestHand(b);
        expect([ra.category, ...ra.ranks]).toEqual(referenceBest(a));
        expect(Math.sign(ra.key - rb.key)).toBe(compareLists(referenceBest(a), referenceBest(b)));
        expect(referenceScore(ra.cards)).toEqual(referenceBest(a));
      }),
      { numRuns: 1500 },
    );
  });

  it('seven cards from a crowded pool (straights, flushes, full houses, quads, straight flushes): the same rank', () => {
    // cards of five to eight neighbouring ranks (the ace counted low or high) in two to four suits: rare hands come often
    const crowded = fc
      .tuple(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 5, max: 8 }), fc.shuffledSubarray([0, 1, 2, 3], { minLength: 2, maxLength: 4 }))
      .chain(([low, width, suits]) => {
        const pool: number[] = [];
        for (let r = low; r < low + width; r++) for (const s of suits) pool.push(4 * ((r === 1 ? 14 : r) - 2) + s);
        return fc.shuffledSubarray(pool, { minLength: 7, maxLength: 7 });
      });
    const seen = new Set<number>();
    fc.assert(
      fc.property(crowded, (hand) => {
        const r = bestHand(hand);
        seen.add(r.category);
        expect([r.category, ...r.ranks]).toEqual(referenceBest(hand));
      }),
      { numRuns: 1500 },
    );
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('the cases people get wrong', () => {
  it('the wheel is a five-high straight, below a six-high one', () => {
    const wheel = bestHand(cards('Ah 2d 3c 4s 5h Kd Qc'));
    expect(wheel.name).toBe('straight');
    expect(wheel.ranks).toEqual([5]);
    expect(key('2d 3c 4s 5h 6d Kd Qc')).toBeGreaterThan(wheel.key);
    expect(key('Ah Kd Qc Js Th 2c 3c')).toBeGreaterThan(key('Kd Qc Js Th 9h 2c 3c'));
    expect(bestHand(cards('As 2s 3s 4s 5s 9d 9c')).name).toBe('straight flush');
    // no wrap-around: Q K A 2 3 is no straight
    expect(bestHand(cards('Qh Kd As 2c 3d 8s 9h')).name).toBe('high card');
  });

  it('a flush beats a straight; a full house beats a flush; the flush is the best five of its suit', () => {
    expect(key('2h 7h 9h Jh Kh Td Qc')).toBeGreaterThan(key('9d Td Jc Qs Kh 2c 3c'));
    expect(key('9h 9d 9c 4s 4h 2c 3c')).toBeGreaterThan(key('2h 7h 9h Jh Kh 3d 4c'));
    const six = bestHand(cards('2h 4h 7h 9h Jh Kh 3c'));
    expect(six.ranks).toEqual([13, 11, 9, 7, 4]);
  });

  it('the board plays: both hands equal when neither hole card improves the board', () => {
    const board = 'As Ks Qd Jc Th';
    expect(key(`2c 3d ${board}`)).toBe(key(`4h 5h ${board}`));
  });

  it('kickers count to five cards and no further', () => {
    // one pair of aces, kickers K Q J: the 2 vs 3 sixth card does not count
    expect(key('Ac Ad Kh Qs Jc 2d 8s')).toBeGreaterThan(key('Ac Ad Kh Qs Tc 2d 8s'));
    expect(key('Ah Ad Kh Qs Jc 7d 2s')).toBe(key('As Ac Kd Qh Jd 7c 3h'));
    // two pair: the fifth card is the best of the rest
    expect(bestHand(cards('9h 9d 4c 4s Kd Ks 2c')).ranks).toEqual([13, 9, 4]);
    // three pairs: the third pair's rank can be the kicker
    expect(bestHand(cards('9h 9d 4c 4s Kd Ks 7c')).ranks).toEqual([13, 9, 7]);
    // two sets make a full house of the higher
    expect(bestHand(cards('9h 9d 9c 4s 4d 4h Ac')).ranks).toEqual([9, 4]);
    // quads: the kicker is the best of the other three
    expect(bestHand(cards('7h 7d 7c 7s Kd Qh 2c')).ranks).toEqual([7, 13]);
  });

  it('describes a hand', () => {
    expect(describeRank(bestHand(cards('9h 9d 4c 4s Kd 2s 3c')))).toBe('two pair (9 4 K)');
  });

  it('refuses repeated cards and wrong counts', () => {
    expect(() => bestHand(cards('As As Kd Qh Jc 2c'))).toThrow(/twice/);
    expect(() => bestHand(cards('As Kd Qh Jc'))).toThrow(/5 to 7/);
    expect(() => rankFive(cards('As Kd Qh Jc'))).toThrow(/five cards/);
  });
});
