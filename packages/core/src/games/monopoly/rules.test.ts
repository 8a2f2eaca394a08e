/**
 * Monopoly's rules against results worked out by hand from the rulebook
 * (docs/spec/monopoly.md): rent in every situation, buying and sealed
 * auctions, building and the bank's shortage, mortgages, trades, raising
 * money, bankruptcy to a player and to the bank, jail, doubles, the end.
 * Agreement between seats cannot catch a wrong rule; these can.
 */
import { describe, expect, it } from 'vitest';
import { monopolyGame } from './index.js';
import { answer, dice, game, own, roll, turn } from './testkit.js';
import { CHANCE } from './cards.js';
import type { JsonValue } from '../../jcs.js';

const cash = (a: number, b = 1500, c = 1500) => ({ a, b, c });

describe('rent', () => {
  const onBaltic = (deeds: Record<string, ReturnType<typeof own>>) => turn(game({ deeds }), dice(1, 2));
  it('a street alone: the printed rent ($4 on Baltic)', () => {
    const s = onBaltic({ 3: own('b') });
    expect(s.position.a).toBe(3);
    expect(s.cash).toEqual(cash(1496, 1504));
    expect(s.stage).toEqual({ kind: 'turn' });
    expect(s.mover).toBe('b');
  });
  it('the whole colour group, unimproved: doubled ($8), even with the other street mortgaged', () => {
    expect(onBaltic({ 1: own('b'), 3: own('b') }).cash).toEqual(cash(1492, 1508));
    expect(onBaltic({ 1: own('b', 0, true), 3: own('b') }).cash).toEqual(cash(1492, 1508));
  });
  it('a group split between owners is not doubled', () => {
    expect(onBaltic({ 1: own('c'), 3: own('b') }).cash).toEqual(cash(1496, 1504));
  });
  it('a mortgaged street collects nothing', () => {
    expect(onBaltic({ 1: own('b'), 3: own('b', 0, true) }).cash).toEqual(cash(1500, 1500));
  });
  it('houses and a hotel: $20, $60, $180, $320, $450 on Baltic', () => {
    for (const [houses, rent] of [
      [1, 20],
      [2, 60],
      [3, 180],
      [4, 320],
      [5, 450],
    ] as const) {
      expect(onBaltic({ 1: own('b', houses === 5 ? 5 : houses), 3: own('b', houses) }).cash).toEqual(cash(1500 - rent, 1500 + rent));
    }
  });
  it('landing on your own deed costs nothing', () => {
    expect(onBaltic({ 3: own('a') }).cash).toEqual(cash(1500));
  });
  it('railroads by how many the owner holds: $25, $50, $100, $200 (mortgaged ones count)', () => {
    const onReading = (deeds: Record<string, ReturnType<typeof own>>) => turn(game({ deeds }), dice(2, 3)).cash;
    expect(onReading({ 5: own('b') })).toEqual(cash(1475, 1525));
    expect(onReading({ 5: own('b'), 15: own('b') })).toEqual(cash(1450, 1550));
    expect(onReading({ 5: own('b'), 15: own('b'), 25: own('b') })).toEqual(cash(1400, 1600));
    expect(onReading({ 5: own('b'), 15: own('b', 0, true), 25: own('b'), 35: own('b') })).toEqual(cash(1300, 1700));
  });
  it('utilities: 4 times the dice with one, 10 times with both', () => {
    const onElectric = (deeds: Record<string, ReturnType<typeof own>>) => turn(game({ deeds, position: { a: 7, b: 0, c: 0 } }), dice(2, 3)).cash;
    expect(onElectric({ 12: own('b') })).toEqual(cash(1480, 1520));
    expect(onElectric({ 12: own('b'), 28: own('b') })).toEqual(cash(1450, 1550));
    expect(onElectric({ 12: own('b'), 28: own('c') })).toEqual(cash(1480, 1520));
  });
});

describe('buying and sealed auctions', () => {
  const landed = () => turn(game(), dice(1, 2));
  it('an unowned deed is offered to the mover; buying pays the price', () => {
    const s = landed();
    expect(s.stage).toEqual({ kind: 'buy', square: 3 });
    expect(monopolyGame.waiting(s)).toEqual({ kind: 'decide', players: ['a'], sealed: false });
    const t = answer(s, { a: { do: 'buy' } });
    expect(t.deeds[3]).toEqual(own('a'));
    expect(t.cash.a).toBe(1440);
    expect(t.mover).toBe('b');
  });
  it('declining puts it to a sealed auction among every player, the mover included', () => {
    const s = answer(landed(), { a: { do: 'decline' } });
    expect(s.stage).toEqual({ kind: 'auction', square: 3, bidders: ['a', 'b', 'c'] });
    expect(monopolyGame.waiting(s)).toEqual({ kind: 'decide', players: ['a', 'b', 'c'], sealed: true });
    const t = answer(s, { a: 0, b: 70, c: 65 });
    expect(t.deeds[3]).toEqual(own('b'));
    expect(t.cash).toEqual(cash(1500, 1430));
    expect(t.mover).toBe('b');
  });
  it('a tie goes to the first tied bidder in seat order from the mover', () => {
    const s = answer(landed(), { a: { do: 'decline' } });
    expect(answer(s, { a: 10, b: 60, c: 60 }).deeds[3]!.owner).toBe('b');
    expect(answer(s, { a: 60, b: 0, c: 60 }).deeds[3]!.owner).toBe('a');
  });
  it('when all pass the deed stays unowned', () => {
    const s = answer(answer(landed(), { a: { do: 'decline' } }), { a: 0, b: 0, c: 0 });
    expect(s.deeds[3]).toBeUndefined();
    expect(s.cash).toEqual(cash(1500));
  });
  it("a late bidder (no bid) and a bid beyond the bidder's cash are passes", () => {
    const s = answer(landed(), { a: { do: 'decline' } });
    const t = answer({ ...s, cash: cash(1500, 1500, 100) }, { a: 5, c: 500 });
    expect(t.deeds[3]!.owner).toBe('a');
    expect(t.cash.a).toBe(1495);
    expect(monopolyGame.whyIllegal({ ...s, cash: cash(1500, 1500, 100) }, 'c', 500)).toMatch(/only \$100/);
    expect(monopolyGame.whyIllegal(s, 'c', -1)).toMatch(/whole number/);
    expect(monopolyGame.whyIllegal(s, 'c', 1.5)).toMatch(/whole number/);
  });
  it('a player short of the price can only decline', () => {
    const s = turn(game({ cash: cash(59) }), dice(1, 2));
    expect(monopolyGame.whyIllegal(s, 'a', { do: 'buy' })).not.toBeNull();
    expect(monopolyGame.whyIllegal(s, 'a', { do: 'decline' })).toBeNull();
  });
});

describe("building, the bank's stock and selling back", () => {
  const browns = (h1 = 0, h3 = 0, bank = { houses: 32, hotels: 12 }) => game({ deeds: { 1: own('a', h1), 3: own('a', h3) }, bank });
  const build = (s: ReturnType<typeof game>, square: number) => answer(s, { a: { do: 'build', square } });
  it('builds on a whole group, evenly, paying the house cost', () => {
    const s = build(browns(), 1);
    expect(s.deeds[1]!.houses).toBe(1);
    expect(s.cash.a).toBe(1450);
    expect(s.bank.houses).toBe(31);
    expect(s.stage).toEqual({ kind: 'turn' });
    expect(monopolyGame.whyIllegal(s, 'a', { do: 'build', square: 1 })).toMatch(/evenly/);
    expect(monopolyGame.whyIllegal(s, 'a', { do: 'build', square: 3 })).toBeNull();
  });
  it('refuses without the whole group, or with a mortgage in it', () => {
    expect(monopolyGame.whyIllegal(game({ deeds: { 1: own('a') } }), 'a', { do: 'build', square: 1 })).toMatch(/whole colour group/);
    expect(monopolyGame.whyIllegal(game({ deeds: { 1: own('a'), 3: own('a', 0, true) } }), 'a', { do: 'build', square: 1 })).toMatch(/mortgaged/);
  });
  it('a house shortage is real: no house in the bank, no building', () => {
    expect(monopolyGame.whyIllegal(browns(0, 0, { houses: 0, hotels: 12 }), 'a', { do: 'build', square: 1 })).toMatch(/no house left/);
  });
  it('a hotel replaces four houses, which go back to the bank; no hotel in the bank, no hotel', () => {
    const s = build(browns(4, 4, { houses: 0, hotels: 1 }), 1);
    expect(s.deeds[1]!.houses).toBe(5);
    expect(s.bank).toEqual({ houses: 4, hotels: 0 });
    expect(s.cash.a).toBe(1450);
    expect(monopolyGame.whyIllegal(s, 'a', { do: 'build', square: 3 })).toMatch(/no hotel left/);
  });
  it('sells back at half, evenly', () => {
    const s = answer(browns(2, 1), { a: { do: 'sell', square: 1 } });
    expect(s.deeds[1]!.houses).toBe(1);
    expect(s.cash.a).toBe(1525);
    expect(s.bank.houses).toBe(33);
    expect(monopolyGame.whyIllegal(browns(1, 2), 'a', { do: 'sell', square: 1 })).toMatch(/evenly/);
  });
  it('selling a hotel takes four houses from the bank; short of them, the rest are sold too', () => {
    const full = answer(browns(5, 4, { houses: 4, hotels: 0 }), { a: { do: 'sell', square: 1 } });
    expect(full.deeds[1]!.houses).toBe(4);
    expect(full.bank).toEqual({ houses: 0, hotels: 1 });
    expect(full.cash.a).toBe(1525);
    const short = answer(browns(5, 5, { houses: 1, hotels: 0 }), { a: { do: 'sell', square: 1 } });
    expect(short.deeds[1]!.houses).toBe(1);
    expect(short.bank).toEqual({ houses: 0, hotels: 1 });
    // The hotel and three houses that cannot stand: four buildings at $25.
    expect(short.cash.a).toBe(1600);
  });
});

describe('mortgages', () => {
  it('mortgage for half the price; lifting costs that plus 10%, rounded up', () => {
    for (const [square, value, lift] of [
      [1, 30, 33],
      [11, 70, 77],
      [39, 200, 220],
      [5, 100, 110],
      [12, 75, 83],
    ] as const) {
      const m = answer(game({ deeds: { [square]: own('a') } }), { a: { do: 'mortgage', square } });
      expect(m.cash.a).toBe(1500 + value);
      expect(m.deeds[square]!.mortgaged).toBe(true);
      const u = answer(m, { a: { do: 'unmortgage', square } });
      expect(u.cash.a).toBe(1500 + value - lift);
      expect(u.deeds[square]!.mortgaged).toBe(false);
    }
  });
  it('no mortgage while the group has buildings; no lifting without the cash', () => {
    expect(monopolyGame.whyIllegal(game({ deeds: { 1: own('a'), 3: own('a', 1) } }), 'a', { do: 'mortgage', square: 1 })).toMatch(/buildings/);
    expect(monopolyGame.whyIllegal(game({ deeds: { 1: own('a', 0, true) }, cash: cash(32) }), 'a', { do: 'unmortgage', square: 1 })).toMatch(/\$33/);
  });
});

describe('trades', () => {
  const offer = { do: 'trade', to: 'b', give: { squares: [1], cash: 100, cards: ['chance'] }, get: { squares: [3], cash: 0, cards: [] } };
  const start = () => game({ deeds: { 1: own('a'), 3: own('b') }, cards: { a: ['chance'] } });
  it('an accepted offer moves deeds, cash and cards both ways', () => {
    const s = answer(start(), { a: offer });
    expect(s.stage.kind).toBe('trade');
    expect(monopolyGame.waiting(s)).toEqual({ kind: 'decide', players: ['b'], sealed: false });
    const t = answer(s, { b: { do: 'accept' } });
    expect(t.deeds[1]!.owner).toBe('b');
    expect(t.deeds[3]!.owner).toBe('a');
    expect(t.cash).toEqual(cash(1400, 1600));
    expect(t.cards).toEqual({ b: ['chance'] });
    expect(t.stage).toEqual({ kind: 'turn' });
    expect(t.mover).toBe('a');
  });
  it('a declined (or unanswered) offer changes nothing; offers per turn are limited', () => {
    const s = answer(start(), { a: offer });
    const t = answer(s, {});
    expect(t.deeds).toEqual(start().deeds);
    expect(t.offers).toBe(1);
    expect(monopolyGame.whyIllegal({ ...t, offers: 3 }, 'a', offer)).toMatch(/at most 3/);
  });
  it('a mortgaged deed received costs 10% interest at once and stays mortgaged', () => {
    const s = game({ deeds: { 1: own('a'), 3: own('b', 0, true) } });
    const t = answer(answer(s, { a: { do: 'trade', to: 'b', give: { squares: [1], cash: 0, cards: [] }, get: { squares: [3], cash: 0, cards: [] } } }), {
      b: { do: 'accept' },
    });
    expect(t.deeds[3]).toEqual(own('a', 0, true));
    expect(t.cash.a).toBe(1497);
  });
  it('refuses deeds of a built group, deeds or cards not held, cash not had', () => {
    const built = game({ deeds: { 6: own('a', 1), 8: own('a', 1), 9: own('a', 1), 3: own('b') } });
    const t = (give: JsonValue, get: JsonValue = { squares: [], cash: 0, cards: [] }) => ({ do: 'trade', to: 'b', give, get });
    expect(monopolyGame.whyIllegal(built, 'a', t({ squares: [6], cash: 0, cards: [] }))).toMatch(/buildings/);
    expect(monopolyGame.whyIllegal(built, 'a', t({ squares: [3], cash: 0, cards: [] }))).toMatch(/does not own/);
    expect(monopolyGame.whyIllegal(built, 'a', t({ squares: [], cash: 0, cards: ['chest'] }))).toMatch(/no such card/);
    expect(monopolyGame.whyIllegal(built, 'a', t({ squares: [], cash: 1501, cards: [] }))).toMatch(/cash/);
  });
  it('an offer of nothing for nothing is withdrawn at once, and counts as an offer', () => {
    const s = answer(start(), { a: { do: 'trade', to: 'b', give: { squares: [], cash: 0, cards: [] }, get: { squares: [], cash: 0, cards: [] } } });
    expect(s.stage).toEqual({ kind: 'turn' });
    expect(s.offers).toBe(1);
  });
});

describe('raising money and bankruptcy', () => {
  it('a debtor who could pay by selling is asked; the automatic answer sells buildings, then mortgages, then pays', () => {
    const s = game({ cash: cash(100), position: { a: 1, b: 0, c: 0 }, deeds: { 6: own('a', 1), 8: own('a', 1), 9: own('a', 1) } });
    const t = turn(s, dice(1, 2));
    expect(t.stage).toEqual({ kind: 'raise' });
    expect(monopolyGame.waiting(t)).toEqual({ kind: 'decide', players: ['a'], sealed: false });
    const u = answer(t, {});
    // Three houses sold at $25 (175), Oriental mortgaged for $50 (225), the tax paid: $25 left.
    expect(u.cash.a).toBe(25);
    expect(u.deeds).toEqual({ 6: own('a', 0, true), 8: own('a'), 9: own('a') });
    expect(u.bank.houses).toBe(35);
    expect(u.mover).toBe('b');
  });
  it('the debtor may raise by hand; it pays as soon as it can', () => {
    const t = turn(game({ cash: cash(150), position: { a: 1, b: 0, c: 0 }, deeds: { 39: own('a') } }), dice(1, 2));
    expect(monopolyGame.whyIllegal(t, 'a', { do: 'build', square: 39 })).not.toBeNull();
    const u = answer(t, { a: { do: 'mortgage', square: 39 } });
    expect(u.cash.a).toBe(150);
    expect(u.stage).toEqual({ kind: 'turn' });
  });
  it('bankrupt to a player: cash, deeds (with 10% on each mortgage) and cards go to the creditor', () => {
    const s = game({
      cash: cash(10),
      position: { a: 34, b: 0, c: 0 },
      deeds: { 1: own('a', 0, true), 37: own('b', 5), 39: own('b', 5) },
      cards: { a: ['chest'] },
    });
    const t = turn(s, dice(2, 3));
    expect(t.players).toEqual(['b', 'c']);
    expect(t.out).toEqual(['a']);
    expect(t.deeds[1]).toEqual(own('b', 0, true));
    expect(t.cash.b).toBe(1500 + 10 - 3);
    expect(t.cards).toEqual({ b: ['chest'] });
    expect(t.mover).toBe('b');
    expect(t.stage).toEqual({ kind: 'turn' });
  });
  it('bankrupt with buildings: they go back to the bank at half, and that money to the creditor', () => {
    const s = game({ cash: cash(0), position: { a: 34, b: 0, c: 0 }, deeds: { 1: own('a', 2, true), 3: own('a', 2), 39: own('b', 5) } });
    // Liquidation is worth 4 × $25 + $30 = $130, far short of $2,000: bankrupt at once.
    const t = turn({ ...s, deeds: { ...s.deeds, 1: own('a', 2) } }, dice(2, 3));
    expect(t.cash.b).toBe(1500 + 100);
    expect(t.bank.houses).toBe(36);
    expect(t.deeds[1]).toEqual(own('b'));
  });
  it('bankrupt to the bank: deeds return unowned and unmortgaged, cards to their piles', () => {
    const s = game({
      cash: cash(100),
      position: { a: 1, b: 0, c: 0 },
      deeds: { 6: own('a'), 8: own('a', 0, true) },
      cards: { a: ['chance'] },
      piles: { chance: [], chest: [] },
    });
    const t = turn(s, dice(1, 2));
    expect(t.out).toEqual(['a']);
    expect(t.deeds).toEqual({});
    expect(t.piles.chance).toEqual([CHANCE.findIndex((c) => c.effect.kind === 'keep')]);
    expect(t.mover).toBe('b');
  });
  it('the last player left wins', () => {
    const s = game({ cash: { a: 10, b: 1500 }, position: { a: 34, b: 0 }, deeds: { 39: own('b', 5) } }, ['a', 'b']);
    const t = turn(s, dice(2, 3));
    expect(t.stage).toEqual({ kind: 'over' });
    expect(monopolyGame.winners(t)).toEqual(['b']);
  });
});

describe('jail, doubles and Go', () => {
  const jailed = (over = {}) => game({ position: { a: 10, b: 0, c: 0 }, jail: { a: 0 }, ...over });
  it('pay $50 bail, then roll and move normally', () => {
    const s = answer(jailed(), { a: { do: 'bail' } });
    expect(s.cash.a).toBe(1450);
    expect(s.jail).toEqual({});
    expect(s.stage).toEqual({ kind: 'roll' });
    expect(roll(s, dice(2, 3)).position.a).toBe(15);
  });
  it('use a Get Out of Jail Free card: it goes back to its pile', () => {
    const s = answer(jailed({ cards: { a: ['chance'] }, piles: { chance: [0, 1], chest: [] } }), { a: { do: 'card' } });
    expect(s.cards).toEqual({});
    expect(s.piles.chance).toContain(CHANCE.findIndex((c) => c.effect.kind === 'keep'));
    expect(s.jail).toEqual({});
  });
  it('doubles get out and move, with no roll again', () => {
    const s = answer(turn(jailed(), dice(2, 2)), { a: { do: 'decline' } });
    expect(s.position.a).toBe(14);
    expect(s.jail).toEqual({});
    expect(s.stage.kind).toBe('auction');
    expect(answer(s, {}).mover).toBe('b');
  });
  it('a failed try stays; the third failure pays $50 and moves', () => {
    const s = turn(jailed(), dice(1, 2));
    expect(s.jail).toEqual({ a: 1 });
    expect(s.position.a).toBe(10);
    expect(s.mover).toBe('b');
    const t = turn(jailed({ jail: { a: 2 } }), dice(1, 2));
    expect(t.jail).toEqual({});
    expect(t.cash.a).toBe(1450);
    expect(t.stage).toEqual({ kind: 'buy', square: 13 });
  });
  it('doubles roll again; a third double goes to jail', () => {
    const s = turn(game({ position: { a: 20, b: 0, c: 0 }, deeds: { 24: own('a') } }), dice(2, 2));
    expect(s.position.a).toBe(24);
    expect(s.mover).toBe('a');
    expect(s.stage).toEqual({ kind: 'turn' });
    const t = turn({ ...s, deeds: { ...s.deeds, 29: own('a') } }, dice(1, 4));
    expect(t.mover).toBe('b');
    const u = turn(turn({ ...s, deeds: { ...s.deeds, 28: own('a') } }, dice(2, 2)), dice(3, 3));
    expect(u.position.a).toBe(10);
    expect(u.jail).toEqual({ a: 0 });
    expect(u.mover).toBe('b');
  });
  it('Go to Jail: no Go salary, no roll again even on doubles', () => {
    const s = turn(game({ position: { a: 26, b: 0, c: 0 } }), dice(2, 2));
    expect(s.position.a).toBe(10);
    expect(s.jail).toEqual({ a: 0 });
    expect(s.cash.a).toBe(1500);
    expect(s.mover).toBe('b');
  });
  it('passing Go collects $200; Income Tax $200, Luxury Tax $100', () => {
    expect(turn(game({ position: { a: 38, b: 0, c: 0 }, deeds: { 3: own('a') } }), dice(1, 4)).cash.a).toBe(1700);
    expect(turn(game({ position: { a: 1, b: 0, c: 0 } }), dice(1, 2)).cash.a).toBe(1300);
    expect(turn(game({ position: { a: 35, b: 0, c: 0 } }), dice(1, 2)).cash.a).toBe(1400);
  });
  it('Free Parking money is a house rule, off by default', () => {
    const withPot = game({ position: { a: 1, b: 16, c: 0 } }, ['a', 'b', 'c'], { freeParkingPot: true });
    const s = turn(withPot, dice(1, 2));
    expect(s.pot).toBe(200);
    const t = turn(s, dice(1, 3));
    expect(t.cash.b).toBe(1700);
    expect(t.pot).toBe(0);
    const off = turn(turn(game({ position: { a: 1, b: 16, c: 0 } }), dice(1, 2)), dice(1, 3));
    expect(off.cash.b).toBe(1500);
  });
});

describe('the end after a set number of rounds', () => {
  it('ends when the rounds are played; the highest net worth wins (cash, deeds at price less mortgage, buildings at cost)', () => {
    const s = game({ deeds: { 39: own('b', 0, true), 1: own('a', 2), 3: own('a', 2) } }, ['a', 'b'], { rounds: 1 });
    const afterA = turn(s, dice(1, 3));
    expect(afterA.cash.a).toBe(1300);
    const bid = answer(answer(turn(afterA, dice(2, 4)), { b: { do: 'decline' } }), {});
    expect(bid.stage).toEqual({ kind: 'over' });
    expect(bid.round).toBe(1);
    // a: 1300 + 60 + 60 + 4 houses at $50 = 1620; b: 1500 + 400 − 200 = 1700.
    expect(monopolyGame.winners(bid)).toEqual(['b']);
    const rich = answer(answer(turn({ ...afterA, cash: { a: 1381, b: 1500 } }, dice(2, 4)), { b: { do: 'decline' } }), {});
    expect(monopolyGame.winners(rich)).toEqual(['a']);
    const tie = answer(answer(turn({ ...afterA, cash: { a: 1380, b: 1500 } }, dice(2, 4)), { b: { do: 'decline' } }), {});
    expect(monopolyGame.winners(tie)).toEqual(['a', 'b']);
  });
  it('rounds are not set by default: the game goes on while two players are in', () => {
    const s = turn(turn(game({}, ['a', 'b']), dice(1, 3)), dice(1, 3));
    expect(s.stage).toEqual({ kind: 'turn' });
    expect(monopolyGame.winners(s)).toBeNull();
  });
});

describe('a forfeit', () => {
  it('is a bankruptcy to the bank; the turn passes when the mover leaves', () => {
    const s = game({ deeds: { 1: own('a', 0, true) }, cards: { a: ['chest'] } });
    const t = monopolyGame.forfeit(s, 'a');
    expect(t.players).toEqual(['b', 'c']);
    expect(t.deeds).toEqual({});
    expect(t.mover).toBe('b');
    expect(t.stage).toEqual({ kind: 'turn' });
  });
  it('drops a bidder from an auction and cancels a trade offered to the player', () => {
    const auction = answer(turn(game(), dice(1, 2)), { a: { do: 'decline' } });
    expect(monopolyGame.waiting(monopolyGame.forfeit(auction, 'c'))).toEqual({ kind: 'decide', players: ['a', 'b'], sealed: true });
    const offered = answer(game({ deeds: { 1: own('a') } }), {
      a: { do: 'trade', to: 'b', give: { squares: [1], cash: 0, cards: [] }, get: { squares: [], cash: 10, cards: [] } },
    });
    expect(monopolyGame.forfeit(offered, 'b').stage).toEqual({ kind: 'turn' });
  });
});
