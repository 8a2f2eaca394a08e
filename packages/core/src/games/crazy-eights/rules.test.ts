/** Crazy Eights' rules (docs/spec/crazy-eights.md §1): what matches, what an eight does, the turn order. */
import { describe, expect, it } from 'vitest';
import { handSize, legalPlays, nextPlayer, parseCard, playText, starterTop, topAfter, whyNot } from './index.js';

const c = parseCard;

describe('Crazy Eights rules', () => {
  it('a card matches the suit in force or the rank of the top card; anything else is refused with a reason', () => {
    const top = starterTop(c('9h'));
    expect(whyNot({ card: c('2h') }, top)).toBeNull();
    expect(whyNot({ card: c('9s') }, top)).toBeNull();
    expect(whyNot({ card: c('Ks') }, top)).toMatch(/matches neither/);
  });

  it('an eight goes on anything and must name a suit; only an eight names one', () => {
    const top = starterTop(c('9h'));
    expect(whyNot({ card: c('8c'), suit: 3 }, top)).toBeNull();
    expect(whyNot({ card: c('8c') }, top)).toMatch(/names a suit/);
    expect(whyNot({ card: c('8c'), suit: 4 }, top)).toMatch(/names a suit/);
    expect(whyNot({ card: c('2h'), suit: 2 }, top)).toMatch(/only an eight/);
    // After an eight naming spades, a spade matches and a heart no longer does; another eight's rank matches too.
    const after = topAfter({ card: c('8c'), suit: 3 });
    expect(after).toEqual({ card: c('8c'), suit: 3 });
    expect(whyNot({ card: c('Ks') }, after)).toBeNull();
    expect(whyNot({ card: c('2h') }, after)).not.toBeNull();
    expect(playText({ card: c('8c'), suit: 3 })).toBe('8♣ naming spades');
  });

  it('an eight as starter puts its own suit in force', () => {
    expect(starterTop(c('8d'))).toEqual({ card: c('8d'), suit: 1 });
  });

  it('legal plays: every matching card, every eight with each suit; none is a draw', () => {
    const plays = legalPlays([c('Ks'), c('2h'), c('8c'), c('3d')], starterTop(c('9h')));
    expect(plays).toEqual([{ card: c('2h') }, { card: c('8c'), suit: 0 }, { card: c('8c'), suit: 1 }, { card: c('8c'), suit: 2 }, { card: c('8c'), suit: 3 }]);
    expect(legalPlays([c('Ks'), c('3d')], starterTop(c('9h')))).toEqual([]);
  });

  it('hand sizes and the turn order skip players who are out', () => {
    expect([2, 3, 4, 5].map(handSize)).toEqual([7, 5, 5, 5]);
    const players = ['a', 'b', 'c'];
    expect(nextPlayer(players, 'a', () => true)).toBe('b');
    expect(nextPlayer(players, 'c', () => true)).toBe('a');
    expect(nextPlayer(players, 'a', (p) => p !== 'b')).toBe('c');
    expect(nextPlayer(players, 'a', () => false)).toBeNull();
  });
});
