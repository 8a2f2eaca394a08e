/** The games fairtable knows, by name. */
import type { ChanceGame } from './game.js';
import { diceGame } from './dice.js';
import { snakesGame } from './snakes.js';
import { monopolyGame } from './monopoly.js';

export const GAMES: Readonly<Record<string, ChanceGame<unknown>>> = {
  dice: diceGame as ChanceGame<unknown>,
  snakes: snakesGame as ChanceGame<unknown>,
  monopoly: monopolyGame as ChanceGame<unknown>,
};

export function gameByName(name: string): ChanceGame<unknown> {
  const game = GAMES[name];
  if (game === undefined) throw new Error(`unknown game "${name}" (known: ${Object.keys(GAMES).join(', ')})`);
  return game;
}
