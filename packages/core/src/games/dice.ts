/**
 * Any NdM dice roll as a game (docs/SPEC.md §8.1): each turn the mover rolls
 * `dice` dice of `sides` faces and adds the sum to its score; after `rounds`
 * rounds the highest score wins (ties share the win). `standing` and
 * `turnText` put it in words for mail and terminals.
 */
import type { Chance } from '../chance.js';
import type { JsonValue } from '../jcs.js';
import { leaders, numberParam, type ChanceGame, type TurnResult } from './game.js';

export interface DiceState {
  readonly dice: number;
  readonly sides: number;
  readonly rounds: number;
  readonly players: string[];
  readonly scores: Record<string, number>;
  readonly turns: number;
}

export const diceGame: ChanceGame<DiceState> = {
  name: 'dice',
  init(players, params) {
    return {
      dice: numberParam(params, 'dice', 2, 1, 1000),
      sides: numberParam(params, 'sides', 6, 2, 2 ** 32),
      rounds: numberParam(params, 'rounds', 3, 1, 1_000_000),
      players: [...players],
      scores: Object.fromEntries(players.map((p) => [p, 0])),
      turns: 0,
    };
  },
  play(state: DiceState, mover: string, chance: Chance, _action: JsonValue): TurnResult<DiceState> {
    const roll = chance.dice(state.dice, state.sides);
    const sum = roll.reduce((a, b) => a + b, 0);
    return {
      state: { ...state, scores: { ...state.scores, [mover]: (state.scores[mover] ?? 0) + sum }, turns: state.turns + 1 },
      summary: { roll, sum },
    };
  },
  winners(state) {
    if (state.players.length <= 1) return [...state.players];
    return state.turns >= state.rounds * state.players.length ? leaders(state.scores, state.players) : null;
  },
  forfeit(state, player) {
    return { ...state, players: state.players.filter((p) => p !== player) };
  },
  standing(state) {
    const total = state.rounds * state.players.length;
    return [
      `Dice: ${state.dice}d${state.sides} a turn, ${state.rounds} round${state.rounds === 1 ? '' : 's'}; ${state.turns} of ${total} turns played.`,
      `Scores: ${scoreList(state.scores, state.players)}.`,
    ];
  },
  turnText(player, summary) {
    const s = summary as { roll?: unknown; sum?: unknown } | null;
    if (s === null || !Array.isArray(s.roll) || typeof s.sum !== 'number') return `${player} rolled`;
    return s.roll.length === 1 ? `${player} rolled ${s.sum}` : `${player} rolled ${s.roll.join(' + ')} = ${s.sum}`;
  },
};

/** `ann 11, bob 12, cy 4 (out)`: every seat that scored, in seat order, a player who left marked. */
export function scoreList(values: Readonly<Record<string, number>>, players: readonly string[]): string {
  return Object.keys(values)
    .map((p) => `${p} ${values[p]}${players.includes(p) ? '' : ' (out)'}`)
    .join(', ');
}
