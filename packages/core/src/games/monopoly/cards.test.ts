/**
 * Every Chance and Community Chest card's effect (docs/spec/monopoly.md §6),
 * each worked out by hand: a lands on a card square with a roll of 3 + 4 (or
 * whatever reaches the square) and the draw picks the card from the full
 * pile of sixteen.
 */
import { describe, expect, it } from 'vitest';
import { CHANCE, COMMUNITY_CHEST } from './cards.js';
import { answer, chanceCard, chestCard, dice, fullPile, game, own, roll } from './testkit.js';
import type { MonopolyState } from './state.js';

const draw = (s: MonopolyState, rollDice: [number, number][], card: number): MonopolyState =>
  roll(answer(s, { a: { do: 'roll' } }), [...rollDice, fullPile(card)]);
const from = (position: number, over: Partial<MonopolyState> = {}) => game({ position: { a: position, b: 0, c: 0 }, ...over });
/** From 0 to Chance at 7; from 15 to Chance at 22; from 29 to Chance at 36. */
const toChance = { 7: [0, dice(3, 4)], 22: [15, dice(3, 4)], 36: [29, dice(3, 4)] } as const;
const onChance = (at: 7 | 22 | 36, prefix: string, over: Partial<MonopolyState> = {}) =>
  draw(from(toChance[at][0], over), [...toChance[at][1]], chanceCard(prefix));
const onChest = (prefix: string, over: Partial<MonopolyState> = {}) => draw(from(10, over), dice(3, 4), chestCard(prefix));

describe('the piles', () => {
  it('hold sixteen cards each, in canonical order by wording', () => {
    expect(CHANCE).toHaveLength(16);
    expect(COMMUNITY_CHEST).toHaveLength(16);
    for (const pile of [CHANCE, COMMUNITY_CHEST]) for (let i = 1; i < pile.length; i++) expect(pile[i - 1]!.text <= pile[i]!.text).toBe(true);
  });
  it('a drawn card leaves the pile; a draw picks among the cards left', () => {
    const s = onChance(7, 'Bank pays');
    expect(s.piles.chance).toHaveLength(15);
    expect(s.piles.chance).not.toContain(chanceCard('Bank pays'));
    const t = roll(answer({ ...s, mover: 'a', position: { a: 0, b: 0, c: 0 }, stage: { kind: 'turn' } }, { a: { do: 'roll' } }), [...dice(3, 4), [15, 0]]);
    expect(t.piles.chance).toHaveLength(14);
  });
  it('an empty pile is refilled with every card no player holds', () => {
    // b holds the Chance Get Out of Jail Free card: 15 cards come back, and the first of them is drawn.
    const s = roll(answer(from(0, { piles: { chance: [], chest: [] }, cards: { b: ['chance'] } }), { a: { do: 'roll' } }), [...dice(3, 4), [15, 0]]);
    expect(s.position.a).toBe(39);
    expect(s.piles.chance).toHaveLength(14);
    expect(s.piles.chance).not.toContain(CHANCE.findIndex((c) => c.effect.kind === 'keep'));
  });
});

describe('Chance', () => {
  it('Advance to Boardwalk: offered for sale', () => {
    const s = onChance(7, 'Advance to Boardwalk');
    expect(s.position.a).toBe(39);
    expect(s.stage).toEqual({ kind: 'buy', square: 39 });
    expect(s.cash.a).toBe(1500);
  });
  it('Advance to Go: collect $200', () => {
    const s = onChance(7, 'Advance to Go');
    expect(s.position.a).toBe(0);
    expect(s.cash.a).toBe(1700);
  });
  it('Advance to Illinois Avenue: $200 only when passing Go', () => {
    expect(onChance(7, 'Advance to Illinois').cash.a).toBe(1500);
    const s = onChance(36, 'Advance to Illinois');
    expect(s.position.a).toBe(24);
    expect(s.cash.a).toBe(1700);
  });
  it('Advance to St. Charles Place: $200 only when passing Go; rent when owned', () => {
    expect(onChance(7, 'Advance to St. Charles', { deeds: { 11: own('b') } }).cash).toEqual({ a: 1490, b: 1510, c: 1500 });
    expect(onChance(22, 'Advance to St. Charles', { deeds: { 11: own('b') } }).cash).toEqual({ a: 1690, b: 1510, c: 1500 });
  });
  it('nearest Railroad: twice the rent to its owner, or offered for sale; from 36 it passes Go to Reading', () => {
    const s = onChance(7, 'Advance to the nearest Railroad', { deeds: { 15: own('b'), 5: own('b') } });
    expect(s.position.a).toBe(15);
    expect(s.cash).toEqual({ a: 1400, b: 1600, c: 1500 });
    expect(onChance(22, 'Advance to the nearest Railroad').stage).toEqual({ kind: 'buy', square: 25 });
    const t = onChance(36, 'Advance to the nearest Railroad', { deeds: { 5: own('c') } });
    expect(t.position.a).toBe(5);
    expect(t.cash).toEqual({ a: 1650, b: 1500, c: 1550 });
  });
  it('nearest Utility: ten times a fresh throw of the dice to its owner, or offered for sale', () => {
    const s = roll(answer(from(0, { deeds: { 12: own('b') } }), { a: { do: 'roll' } }), [
      ...dice(3, 4),
      fullPile(chanceCard('Advance token to nearest Utility')),
      ...dice(6, 5),
    ]);
    expect(s.position.a).toBe(12);
    expect(s.cash).toEqual({ a: 1390, b: 1610, c: 1500 });
    expect(onChance(22, 'Advance token to nearest Utility').stage).toEqual({ kind: 'buy', square: 28 });
    expect(onChance(36, 'Advance token to nearest Utility').cash.a).toBe(1700);
  });
  it('Bank pays you dividend of $50', () => {
    expect(onChance(7, 'Bank pays').cash.a).toBe(1550);
  });
  it('Get Out of Jail Free: kept, out of the pile while held', () => {
    const s = onChance(7, 'Get Out of Jail Free');
    expect(s.cards).toEqual({ a: ['chance'] });
    expect(s.piles.chance).not.toContain(chanceCard('Get Out of Jail Free'));
  });
  it('Go Back 3 Spaces: from 7 to Income Tax, from 22 to New York Avenue, from 36 to a Community Chest card', () => {
    const s = onChance(7, 'Go Back 3');
    expect(s.position.a).toBe(4);
    expect(s.cash.a).toBe(1300);
    expect(onChance(22, 'Go Back 3').stage).toEqual({ kind: 'buy', square: 19 });
    const t = roll(answer(from(29), { a: { do: 'roll' } }), [...dice(3, 4), fullPile(chanceCard('Go Back 3')), fullPile(chestCard('You inherit'))]);
    expect(t.position.a).toBe(33);
    expect(t.cash.a).toBe(1600);
  });
  it('Go to Jail: directly, no $200, no roll again', () => {
    const s = draw(from(3), dice(2, 2), chanceCard('Go to Jail'));
    expect(s.position.a).toBe(10);
    expect(s.jail).toEqual({ a: 0 });
    expect(s.cash.a).toBe(1500);
    expect(s.mover).toBe('b');
  });
  it('general repairs: $25 a house, $100 a hotel', () => {
    const deeds = { 1: own('a', 2), 3: own('a', 1), 37: own('a', 5), 39: own('a', 5) };
    expect(onChance(7, 'Make general repairs', { deeds }).cash.a).toBe(1500 - 3 * 25 - 2 * 100);
  });
  it('Speeding fine $15', () => {
    expect(onChance(7, 'Speeding fine').cash.a).toBe(1485);
  });
  it('Take a trip to Reading Railroad: $200 when passing Go', () => {
    const s = onChance(7, 'Take a trip');
    expect(s.position.a).toBe(5);
    expect(s.cash.a).toBe(1700);
    expect(s.stage).toEqual({ kind: 'buy', square: 5 });
  });
  it('Chairman of the Board: pay each player $50', () => {
    expect(onChance(7, 'You have been elected').cash).toEqual({ a: 1400, b: 1550, c: 1550 });
  });
  it('building loan matures: collect $150', () => {
    expect(onChance(7, 'Your building loan').cash.a).toBe(1650);
  });
});

describe('Community Chest', () => {
  const cashAfter = (prefix: string) => onChest(prefix).cash.a;
  it('Advance to Go: $200', () => {
    const s = onChest('Advance to Go');
    expect(s.position.a).toBe(0);
    expect(s.cash.a).toBe(1700);
  });
  it('the cash cards', () => {
    expect(cashAfter('Bank error')).toBe(1700);
    expect(cashAfter("Doctor's fee")).toBe(1450);
    expect(cashAfter('From sale of stock')).toBe(1550);
    expect(cashAfter('Holiday fund')).toBe(1600);
    expect(cashAfter('Income tax refund')).toBe(1520);
    expect(cashAfter('Life insurance')).toBe(1600);
    expect(cashAfter('Pay hospital')).toBe(1400);
    expect(cashAfter('Pay school')).toBe(1450);
    expect(cashAfter('Receive $25')).toBe(1525);
    expect(cashAfter('You have won second prize')).toBe(1510);
    expect(cashAfter('You inherit')).toBe(1600);
  });
  it('Get Out of Jail Free: kept', () => {
    expect(onChest('Get Out of Jail Free').cards).toEqual({ a: ['chest'] });
  });
  it('Go to Jail', () => {
    const s = onChest('Go to Jail');
    expect(s.position.a).toBe(10);
    expect(s.jail).toEqual({ a: 0 });
  });
  it('birthday: collect $10 from every player', () => {
    expect(onChest('It is your birthday').cash).toEqual({ a: 1520, b: 1490, c: 1490 });
  });
  it('street repairs: $40 a house, $115 a hotel', () => {
    const deeds = { 1: own('a', 4), 3: own('a', 3), 39: own('a', 5) };
    expect(onChest('You are assessed', { deeds }).cash.a).toBe(1500 - 7 * 40 - 115);
  });
  it("a player short of a card's payment to another player raises money or goes bankrupt to that player", () => {
    const s = onChest('It is your birthday', { cash: { a: 1500, b: 5, c: 1500 }, deeds: { 39: own('b') } });
    expect(s.stage).toEqual({ kind: 'raise' });
    const t = answer(s, {});
    expect(t.cash).toEqual({ a: 1520, b: 195, c: 1490 });
    const u = onChest('It is your birthday', { cash: { a: 1500, b: 5, c: 1500 } });
    expect(u.players).toEqual(['a', 'c']);
    expect(u.cash.a).toBe(1515);
  });
});
