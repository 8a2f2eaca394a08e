/** Side pots and their split (docs/spec/holdem.md §5), on contributions worked out by hand. */
import { describe, expect, it } from 'vitest';
import { awardPots, buildPots, leftOfButton } from './pots.js';

const seats = ['a', 'b', 'c', 'd'];

describe('side pots', () => {
  it('three all-ins at different sizes and a caller make a main pot and two side pots', () => {
    // a all-in 100, b all-in 250, c all-in 600, d calls 600
    const pots = buildPots(seats, { a: 100, b: 250, c: 600, d: 600 }, seats);
    expect(pots).toEqual([
      { amount: 400, eligible: ['a', 'b', 'c', 'd'] },
      { amount: 450, eligible: ['b', 'c', 'd'] },
      { amount: 700, eligible: ['c', 'd'] },
    ]);
    // a has the best hand, then b, then d: each pot goes to the best hand eligible for it
    const { awards, won } = awardPots(pots, { a: 9, b: 8, c: 1, d: 5 }, seats, 'd');
    expect(awards.map((x) => x.winners)).toEqual([['a'], ['b'], ['d']]);
    expect(won).toEqual({ a: 400, b: 450, d: 700 });
  });

  it("a folded player's chips stay in the pots it reached, and it wins none", () => {
    // d put in 300 and folded; a all-in 100; b and c 500 each
    const pots = buildPots(seats, { a: 100, b: 500, c: 500, d: 300 }, ['a', 'b', 'c']);
    expect(pots).toEqual([
      { amount: 400, eligible: ['a', 'b', 'c'] },
      { amount: 1000, eligible: ['b', 'c'] },
    ]);
    const { won } = awardPots(pots, { a: 1, b: 3, c: 2 }, seats, 'a');
    expect(won).toEqual({ b: 1400 });
  });

  it('chips a folded player put in above every live player go to the top pot', () => {
    const pots = buildPots(seats, { a: 50, b: 50, c: 0, d: 80 }, ['a', 'b']);
    expect(pots).toEqual([{ amount: 180, eligible: ['a', 'b'] }]);
  });

  it('a split pot: odd chips one each to the winners from the first seat left of the button', () => {
    const committed = { a: 101, b: 101, c: 101, d: 0 };
    const pots = buildPots(seats, committed, ['a', 'b', 'c']);
    expect(pots).toEqual([{ amount: 303, eligible: ['a', 'b', 'c'] }]);
    // all three tie: 101 each, nothing odd
    expect(awardPots(pots, { a: 7, b: 7, c: 7 }, seats, 'a').won).toEqual({ a: 101, b: 101, c: 101 });
    // a and c tie on a 303 pot: 151 each, the odd chip to c (left of the button b) before a
    const two = awardPots(pots, { a: 7, b: 1, c: 7 }, seats, 'b');
    expect(two.won).toEqual({ c: 152, a: 151 });
    expect(two.awards[0]!.winners).toEqual(['c', 'a']);
    // with the button on c, a is first left of it and takes the odd chip
    expect(awardPots(pots, { a: 7, b: 1, c: 7 }, seats, 'c').won).toEqual({ a: 152, c: 151 });
  });

  it('two odd chips among three winners go to the first two left of the button', () => {
    const pots = [{ amount: 302, eligible: ['a', 'b', 'c'] }];
    expect(awardPots(pots, { a: 1, b: 1, c: 1 }, seats, 'a').won).toEqual({ b: 101, c: 101, a: 100 });
  });

  it('the order from the button wraps around the table', () => {
    expect(leftOfButton(seats, 'c')).toEqual(['d', 'a', 'b', 'c']);
  });

  it('chips are never made or lost', () => {
    const committed = { a: 37, b: 1000, c: 513, d: 513 };
    const pots = buildPots(seats, committed, ['a', 'c', 'd']);
    const total = pots.reduce((s, p) => s + p.amount, 0);
    expect(total).toBe(2063);
    const { won } = awardPots(pots, { a: 5, c: 5, d: 5 }, seats, 'b');
    expect(Object.values(won).reduce((s, x) => s + x, 0)).toBe(2063);
  });
});
