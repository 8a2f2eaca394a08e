/**
 * What a person reads (docs/spec/monopoly.md §10, §13): the legal decisions
 * with their names, the question's choices and default, and the board summary.
 */
import { describe, expect, it } from 'vitest';
import { monopolyGame, legalDecisions, boardSummary } from './index.js';
import { answer, dice, game, own, turn } from './testkit.js';

const labels = (s: ReturnType<typeof game>, p: string) => legalDecisions(s, p).map((l) => l.label);

describe('legal decisions, named', () => {
  it('in jail with a card and property to manage', () => {
    const s = game({ position: { a: 10, b: 0, c: 0 }, jail: { a: 1 }, cards: { a: ['chest'] }, deeds: { 1: own('a'), 3: own('a'), 39: own('a', 0, true) } });
    expect(labels(s, 'a')).toEqual([
      'Roll for doubles to leave jail',
      'Pay $50 bail, then roll',
      'Use a Get Out of Jail Free card, then roll',
      'Build a house on Mediterranean Avenue ($50)',
      'Build a house on Baltic Avenue ($50)',
      'Mortgage Mediterranean Avenue (receive $30)',
      'Mortgage Baltic Avenue (receive $30)',
      'Lift the mortgage on Boardwalk ($220)',
      'Offer b a trade',
      'Offer c a trade',
    ]);
    expect(labels(s, 'b')).toEqual([]);
    const q = monopolyGame.question(s, 'a')!;
    expect(q.kind).toBe('turn');
    expect(q.fallback).toEqual({ do: 'roll' });
    expect(q.choices.type).toBe('any-of');
  });
  it('buying, the sealed bid, a trade answer and raising money', () => {
    const buy = turn(game(), dice(1, 2));
    expect(labels(buy, 'a')).toEqual(['Buy Baltic Avenue for $60', 'Decline Baltic Avenue (it goes to auction)']);
    const auction = answer(buy, { a: { do: 'decline' } });
    expect(legalDecisions(auction, 'c')).toEqual([
      { label: 'Bid for Baltic Avenue (sealed; 0 passes)', choice: 0, form: { type: 'integer', min: '0', max: '1500' } },
    ]);
    expect(monopolyGame.question(auction, 'c')).toMatchObject({ kind: 'bid', fallback: 0 });
    const offered = answer(game({ deeds: { 1: own('a') } }), {
      a: { do: 'trade', to: 'b', give: { squares: [1], cash: 0, cards: [] }, get: { squares: [], cash: 80, cards: [] } },
    });
    expect(labels(offered, 'b')).toEqual(["Accept a's offer: a gives Mediterranean Avenue for $80", "Decline a's offer"]);
    const raise = turn(game({ cash: { a: 100, b: 1500, c: 1500 }, position: { a: 1, b: 0, c: 0 }, deeds: { 39: own('a') } }), dice(1, 2));
    expect(labels(raise, 'a')).toEqual([
      'Raise the money automatically (sell buildings, then mortgage), or go bankrupt if you cannot',
      'Mortgage Boardwalk (receive $200)',
    ]);
  });
});

describe('the board summary', () => {
  it('shows the stage, players, deeds with buildings and mortgages, the bank, and numbered choices', () => {
    const s = game({
      deeds: { 1: own('a', 2), 3: own('a', 2), 5: own('b', 0, true) },
      bank: { houses: 28, hotels: 12 },
      jail: { c: 2 },
      position: { a: 0, b: 0, c: 10 },
    });
    expect(boardSummary(s, 'a')).toBe(
      [
        'Monopoly, round 1: a to decide, then roll.',
        '',
        'Players:',
        '  a (to move): $1,500, on Go (0); net worth $1,820',
        '  b: $1,500, on Go (0); net worth $1,600',
        '  c: $1,500, on Jail (10), in jail (2 failed tries); net worth $1,500',
        '',
        'Deeds:',
        '  Mediterranean Avenue (1): a, 2 houses',
        '  Baltic Avenue (3): a, 2 houses',
        '  Reading Railroad (5): b, mortgaged',
        '',
        'Bank: 28 houses, 12 hotels.',
        '',
        'a, your choices:',
        '  1. Roll the dice: {"do":"roll"}',
        '  2. Build a house on Mediterranean Avenue ($50): {"do":"build","square":1}',
        '  3. Build a house on Baltic Avenue ($50): {"do":"build","square":3}',
        '  4. Sell a house on Mediterranean Avenue to the bank: {"do":"sell","square":1}',
        '  5. Sell a house on Baltic Avenue to the bank: {"do":"sell","square":3}',
        '  6. Offer b a trade: {"do":"trade","to":"b","give":{"squares":[],"cash":0,"cards":[]},"get":{"squares":[],"cash":0,"cards":[]}} (fill in)',
        '  7. Offer c a trade: {"do":"trade","to":"c","give":{"squares":[],"cash":0,"cards":[]},"get":{"squares":[],"cash":0,"cards":[]}} (fill in)',
        '',
      ].join('\n'),
    );
  });
});
