/**
 * The names a person reads for each kind of game (docs/spec/web.md §2): the lobby offers them, and the game page
 * heads itself with the same one, found again from the setup it plays (a game made elsewhere, by `fairtable play`,
 * gets the name of the lobby choice that would have made it).
 */
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { Offer } from './api.js';

export const GAMES: readonly { readonly value: Offer['protocol']; readonly label: string }[] = [
  { value: 'dice', label: 'Dice (highest total wins)' },
  { value: 'snakes', label: 'Snakes & Ladders' },
  { value: 'monopoly', label: 'Monopoly (the whole game)' },
  { value: 'rochambeau', label: 'Rochambeau (rock-paper-scissors for any number)' },
  { value: 'signidice', label: 'Roulette against a house (Signidice)' },
  { value: 'diplomacy', label: 'Diplomacy (sealed orders, no game master)' },
  { value: 'holdem', label: "Texas Hold'em (a deck nobody controls)" },
];

/** The lobby's label of a game kind, or the name itself for one the lobby does not offer. */
export function offerLabel(kind: string): string {
  return GAMES.find((g) => g.value === kind)?.label ?? kind;
}

/**
 * The label for a setup: a game of chance by the game it plays (the lobby's dice, snakes and monopoly are chain
 * games), Signidice by its wheel (the lobby's is roulette), any other protocol by its own name.
 */
export function setupLabel(protocol: string, game: string | null, params: { readonly [key: string]: JsonValue }): string {
  if (protocol === 'signidice' && params.wheel === 'dice') return 'Dice against a house (Signidice)';
  return offerLabel(game ?? protocol);
}

/** "ann", "ann and bob", "ann, bob and cy". */
export function names(list: readonly string[]): string {
  return list.length <= 1 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]!}`;
}

/**
 * The headline of a finished game, in the game's terms: one winner, a tie shared, or (roulette) no winner at
 * all, which is how the game ends rather than a failure to decide.
 */
export function outcomeHeadline(winners: readonly string[], protocol: string | null): string {
  if (winners.length === 1) return `Game over: ${winners[0]!} won`;
  if (winners.length > 1) return `Game over: a tie, ${names(winners)} share the win`;
  return protocol === 'signidice' ? 'Game over: every round is played; roulette has no winner, only the balances' : 'Game over: nobody won';
}
