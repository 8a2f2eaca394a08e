/**
 * The games fairtable knows, by name (docs/SPEC.md §8). A game author adds a
 * game without editing this list: `gameBook(myGame)` gives a book with the
 * built-ins and the new game, and `createRegistry({games: [myGame]})`
 * (registry.ts) builds the machines that play it.
 */
import { FairtableError } from '../errors.js';
import type { ChanceGame } from './game.js';
import { diceGame } from './dice.js';
import { snakesGame } from './snakes.js';
import { monopolyChanceGame } from './monopoly-chance.js';
import { monopolyGame } from './monopoly/index.js';

export type GameBook = ReadonlyMap<string, ChanceGame<unknown>>;

export const BUILTIN_GAMES: GameBook = new Map<string, ChanceGame<unknown>>([
  ['dice', diceGame as ChanceGame<unknown>],
  ['snakes', snakesGame as ChanceGame<unknown>],
  ['monopoly', monopolyGame as ChanceGame<unknown>],
  ['monopoly-chance', monopolyChanceGame as ChanceGame<unknown>],
]);

/** The built-ins plus `extra` (a game of the same name replaces a built-in). */
export function gameBook(...extra: readonly ChanceGame<unknown>[]): GameBook {
  const book = new Map(BUILTIN_GAMES);
  for (const g of extra) book.set(g.name, g);
  return book;
}

export function gameByName(name: string, book: GameBook = BUILTIN_GAMES): ChanceGame<unknown> {
  const game = book.get(name);
  if (game === undefined) throw new FairtableError('unknown_game', `unknown game "${name}" (known: ${[...book.keys()].join(', ')})`, { field: 'game' });
  return game;
}
