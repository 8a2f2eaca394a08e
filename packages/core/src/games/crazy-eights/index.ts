/**
 * Crazy Eights, 2 to 5 players, as pure rules (docs/spec/crazy-eights.md §1): the cards are Hold'em's
 * indices 0..51 (`4 × (rank − 2) + suit`), a card matches the top of the discard pile by suit or rank, an
 * eight is played on anything and names the suit in force. The cards are input (dealt by the deck); nothing
 * here draws or times.
 */
import { cardName, rankOf, suitOf, SUITS } from '../holdem/cards.js';

export { cardName, cardCode, parseCard, rankOf, suitOf, SUITS } from '../holdem/cards.js';

export const EIGHT = 8;

/** Cards dealt to each player: seven for two players, five for three to five. */
export const handSize = (players: number): number => (players === 2 ? 7 : 5);

/** The discard pile's top: its card and the suit in force (the suit an eight named, else the card's own). */
export interface Top {
  readonly card: number;
  readonly suit: number;
}

/** A play: a card, and the suit named when it is an eight. */
export interface Play {
  readonly card: number;
  readonly suit?: number;
}

/** Why `play` may not go on `top`, or null when it may. */
export function whyNot(play: Play, top: Top): string | null {
  const eight = rankOf(play.card) === EIGHT;
  if (eight) {
    if (play.suit === undefined || !Number.isInteger(play.suit) || play.suit < 0 || play.suit > 3) return `an eight names a suit (0 to 3)`;
    return null;
  }
  if (play.suit !== undefined) return `only an eight names a suit`;
  if (suitOf(play.card) === top.suit || rankOf(play.card) === rankOf(top.card)) return null;
  return `${cardName(play.card)} matches neither the suit in force (${SUITS[top.suit]!}) nor the rank of ${cardName(top.card)}`;
}

/** The top once `play` is on it. */
export const topAfter = (play: Play): Top => ({ card: play.card, suit: play.suit ?? suitOf(play.card) });

/** The starter turned face up: its own suit is in force, an eight's too (it names nothing). */
export const starterTop = (card: number): Top => ({ card, suit: suitOf(card) });

/** The legal plays from `hand` on `top`: every matching card, and every eight with each of the four suits. */
export function legalPlays(hand: readonly number[], top: Top): Play[] {
  const out: Play[] = [];
  for (const card of [...hand].sort((a, b) => a - b)) {
    if (rankOf(card) === EIGHT) for (let suit = 0; suit < 4; suit++) out.push({ card, suit });
    else if (whyNot({ card }, top) === null) out.push({ card });
  }
  return out;
}

/** The next player after `player` in seat order among `order` (players still in the game), or null when none. */
export function nextPlayer(players: readonly string[], player: string, inGame: (p: string) => boolean): string | null {
  const i = players.indexOf(player);
  for (let k = 1; k <= players.length; k++) {
    const p = players[(i + k) % players.length]!;
    if (inGame(p)) return p;
  }
  return null;
}

/** A play in words: `8♠ naming hearts`, `Q♦`. */
export function playText(play: Play): string {
  return play.suit === undefined || rankOf(play.card) !== EIGHT ? cardName(play.card) : `${cardName(play.card)} naming ${SUIT_WORDS[play.suit]!}`;
}

export const SUIT_WORDS = ['clubs', 'diamonds', 'hearts', 'spades'] as const;
