/**
 * Chance and Community Chest (docs/spec/monopoly.md §6; seed 000): the
 * sixteen cards of each pile with their real effects, in canonical order
 * (sorted by wording, UTF-16 code units, as seed 000 suggests). A draw takes
 * a uniform card from the Y still in the pile (`below(Y)` indexing the
 * remaining cards in canonical order); an empty pile is refilled with every
 * card of it that no player holds. A Get Out of Jail Free card stays out of
 * its pile while a player holds it and goes back when used or when its
 * holder leaves the game.
 */
import type { Chance } from '../../chance.js';
import type { Draft, Pile } from './state.js';

export type Effect =
  | { readonly kind: 'advance'; readonly to: number }
  | { readonly kind: 'nearest'; readonly of: 'railroad' | 'utility' }
  | { readonly kind: 'back'; readonly by: number }
  | { readonly kind: 'jail' }
  | { readonly kind: 'cash'; readonly amount: number }
  | { readonly kind: 'each'; readonly amount: number }
  | { readonly kind: 'repairs'; readonly house: number; readonly hotel: number }
  | { readonly kind: 'keep' };

export interface Card {
  readonly text: string;
  readonly effect: Effect;
}

const card = (text: string, effect: Effect): Card => ({ text, effect });
const byText = (a: Card, b: Card): number => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
const KEEP = 'Get Out of Jail Free. This card may be kept until needed, or traded';
const RAILROAD =
  'Advance to the nearest Railroad. If unowned, you may buy it from the Bank. If owned, pay the owner twice the rental to which they are otherwise entitled';

export const CHANCE: readonly Card[] = [
  card('Advance to Boardwalk', { kind: 'advance', to: 39 }),
  card('Advance to Go (Collect $200)', { kind: 'advance', to: 0 }),
  card('Advance to Illinois Avenue. If you pass Go, collect $200', { kind: 'advance', to: 24 }),
  card('Advance to St. Charles Place. If you pass Go, collect $200', { kind: 'advance', to: 11 }),
  card(RAILROAD, { kind: 'nearest', of: 'railroad' }),
  card(RAILROAD, { kind: 'nearest', of: 'railroad' }),
  card('Advance token to nearest Utility. If unowned, you may buy it from the Bank. If owned, throw dice and pay the owner ten times the amount thrown', {
    kind: 'nearest',
    of: 'utility',
  }),
  card('Bank pays you dividend of $50', { kind: 'cash', amount: 50 }),
  card(KEEP, { kind: 'keep' }),
  card('Go Back 3 Spaces', { kind: 'back', by: 3 }),
  card('Go to Jail. Go directly to Jail, do not pass Go, do not collect $200', { kind: 'jail' }),
  card('Make general repairs on all your property. For each house pay $25. For each hotel pay $100', { kind: 'repairs', house: 25, hotel: 100 }),
  card('Speeding fine $15', { kind: 'cash', amount: -15 }),
  card('Take a trip to Reading Railroad. If you pass Go, collect $200', { kind: 'advance', to: 5 }),
  card('You have been elected Chairman of the Board. Pay each player $50', { kind: 'each', amount: -50 }),
  card('Your building loan matures. Collect $150', { kind: 'cash', amount: 150 }),
].sort(byText);

export const COMMUNITY_CHEST: readonly Card[] = [
  card('Advance to Go (Collect $200)', { kind: 'advance', to: 0 }),
  card('Bank error in your favor. Collect $200', { kind: 'cash', amount: 200 }),
  card("Doctor's fee. Pay $50", { kind: 'cash', amount: -50 }),
  card('From sale of stock you get $50', { kind: 'cash', amount: 50 }),
  card(KEEP, { kind: 'keep' }),
  card('Go to Jail. Go directly to jail, do not pass Go, do not collect $200', { kind: 'jail' }),
  card('Holiday fund matures. Receive $100', { kind: 'cash', amount: 100 }),
  card('Income tax refund. Collect $20', { kind: 'cash', amount: 20 }),
  card('It is your birthday. Collect $10 from every player', { kind: 'each', amount: 10 }),
  card('Life insurance matures. Collect $100', { kind: 'cash', amount: 100 }),
  card('Pay hospital fees of $100', { kind: 'cash', amount: -100 }),
  card('Pay school fees of $50', { kind: 'cash', amount: -50 }),
  card('Receive $25 consultancy fee', { kind: 'cash', amount: 25 }),
  card('You are assessed for street repair. $40 per house. $115 per hotel', { kind: 'repairs', house: 40, hotel: 115 }),
  card('You have won second prize in a beauty contest. Collect $10', { kind: 'cash', amount: 10 }),
  card('You inherit $100', { kind: 'cash', amount: 100 }),
].sort(byText);

export const pileCards = (pile: Pile): readonly Card[] => (pile === 'chance' ? CHANCE : COMMUNITY_CHEST);
export const keepIndex = (pile: Pile): number => pileCards(pile).findIndex((c) => c.effect.kind === 'keep');

export function draw(d: Draft, pile: Pile, chance: Chance): Card {
  const cards = pileCards(pile);
  if (d.piles[pile].length === 0) {
    const held = Object.values(d.cards).filter((cs) => cs.includes(pile)).length;
    const all = cards.map((_, i) => i);
    d.piles[pile] = held > 0 ? all.filter((i) => i !== keepIndex(pile)) : all;
    d.log.push({ refill: pile, cards: d.piles[pile].length });
  }
  const remaining = d.piles[pile];
  const pick = chance.below(remaining.length);
  const index = remaining[pick]!;
  d.piles[pile] = remaining.filter((_, i) => i !== pick);
  return cards[index]!;
}

/** A Get Out of Jail Free card goes back among the remaining cards of its pile. */
export function returnCard(d: Draft, pile: Pile): void {
  d.piles[pile] = [...d.piles[pile], keepIndex(pile)].sort((a, b) => a - b);
}

/** Takes one card of the pile (the Chance one first when `pile` is not given) from the player's hand. */
export function takeCard(d: Draft, player: string, pile?: Pile): Pile | null {
  const held = d.cards[player] ?? [];
  const which = pile ?? (held.includes('chance') ? 'chance' : held.includes('chest') ? 'chest' : null);
  if (which === null || !held.includes(which)) return null;
  const at = held.indexOf(which);
  const rest = held.filter((_, i) => i !== at);
  if (rest.length === 0) delete d.cards[player];
  else d.cards[player] = rest;
  return which;
}

export function giveCard(d: Draft, player: string, pile: Pile): void {
  d.cards[player] = [...(d.cards[player] ?? []), pile].sort();
}
