/** The games fairtable knows, by name. */
import type { ChanceGame } from './game.js';
import { FairtableError } from '../errors.js';
import { diceGame } from './dice.js';
import { snakesGame } from './snakes.js';
import { monopolyGame } from './monopoly.js';

export const GAMES: Readonly<Record<string, ChanceGame<unknown>>> = {
  dice: diceGame as ChanceGame<unknown>,
  snakes: snakesGame as ChanceGame<unknown>,
  monopoly: monopolyGame as ChanceGame<unknown>,
};

export function gameByName(name: string): ChanceGame<unknown> {
  // Own members only: "__proto__" or "toString" is an unknown game, not a prototype's member.
  const game = Object.hasOwn(GAMES, name) ? GAMES[name] : undefined;
  if (game === undefined) throw new FairtableError('unknown_protocol', `unknown game "${name}" (known: ${Object.keys(GAMES).join(', ')})`, { field: 'game' });
  return game;
}
