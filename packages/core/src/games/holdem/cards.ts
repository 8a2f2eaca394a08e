/**
 * Cards of Texas Hold'em (docs/spec/holdem.md §1). A card is an index 0..51:
 * `index = 4 × (rank − 2) + suit`, rank 2..14 (ace high: 11 jack, 12 queen,
 * 13 king, 14 ace) and suit 0 clubs, 1 diamonds, 2 hearts, 3 spades. So 0 is
 * the two of clubs and 51 the ace of spades. A card's name is `A♠` for people
 * and `As` in plain ASCII (ten is `10♠` / `Ts`); `parseCard` reads both.
 */
import { FairtableError } from '../../errors.js';

export const SUITS = ['c', 'd', 'h', 's'] as const;
export const SUIT_SYMBOLS = ['♣', '♦', '♥', '♠'] as const;
const RANK_CHARS = '23456789TJQKA';

export function isCard(c: unknown): c is number {
  return typeof c === 'number' && Number.isInteger(c) && c >= 0 && c <= 51;
}

function checked(c: number): number {
  if (!isCard(c)) throw new FairtableError('out_of_range', `a card is an integer in [0, 51], not ${String(c)}`, { field: 'card' });
  return c;
}

/** The card's rank, 2..14 (14 is the ace). */
export function rankOf(c: number): number {
  return Math.floor(checked(c) / 4) + 2;
}

/** The card's suit, 0 clubs, 1 diamonds, 2 hearts, 3 spades. */
export function suitOf(c: number): number {
  return checked(c) % 4;
}

export function cardOf(rank: number, suit: number): number {
  if (!Number.isInteger(rank) || rank < 2 || rank > 14)
    throw new FairtableError('out_of_range', `a rank is an integer in [2, 14], not ${rank}`, { field: 'rank' });
  if (!Number.isInteger(suit) || suit < 0 || suit > 3)
    throw new FairtableError('out_of_range', `a suit is an integer in [0, 3], not ${suit}`, { field: 'suit' });
  return 4 * (rank - 2) + suit;
}

/** `As`, `Td`, `2c`: the ASCII name. */
export function cardCode(c: number): string {
  return `${RANK_CHARS[rankOf(c) - 2]!}${SUITS[suitOf(c)]!}`;
}

/** `A♠`, `10♦`, `2♣`: the name for people. */
export function cardName(c: number): string {
  const r = rankOf(c);
  return `${r === 10 ? '10' : RANK_CHARS[r - 2]!}${SUIT_SYMBOLS[suitOf(c)]!}`;
}

/** Reads `As`, `A♠`, `Ts`, `10s`, `10♠` (rank letters in either case). */
export function parseCard(text: string): number {
  const m = /^(10|[2-9TJQKAtjqka])([cdhs♣♦♥♠])$/u.exec(text.trim());
  if (m === null) throw new FairtableError('bad_input', `"${text}" is not a card (write it like As, Td, 2c or A♠, 10♦)`, { field: 'card' });
  const r = m[1] === '10' ? 10 : RANK_CHARS.indexOf(m[1]!.toUpperCase()) + 2;
  const s = m[2]!;
  const suit =
    SUITS.indexOf(s as (typeof SUITS)[number]) >= 0 ? SUITS.indexOf(s as (typeof SUITS)[number]) : SUIT_SYMBOLS.indexOf(s as (typeof SUIT_SYMBOLS)[number]);
  return cardOf(r, suit);
}

/** Cards from a space-separated list of names: `parseCards("As Kd 7c")`. */
export function parseCards(text: string): number[] {
  const t = text.trim();
  return t === '' ? [] : t.split(/\s+/u).map(parseCard);
}
