/**
 * Any NdM dice roll as a game (docs/SPEC.md §8.1): each turn the mover rolls
 * `dice` dice of `sides` faces and adds the sum to its score; after `rounds`
 * rounds the highest score wins (ties share the win). With a `roll` parameter
 * (a dice expression such as `3d6+2` or `4d6kh3`, docs/spec/dice.md) each turn
 * rolls the expression instead and adds its result. `standing` and `turnText`
 * put it in words for mail and terminals.
 */
import type { Chance } from '../chance.js';
import type { JsonValue } from '../jcs.js';
import { FairtableError } from '../errors.js';
import { parseDice, rollDice } from './dice-expr.js';
import { leaders, numberParam, type ChanceGame, type TurnResult } from './game.js';

export interface DiceState {
  readonly dice: number;
  readonly sides: number;
  readonly rounds: number;
  /** The dice expression each turn rolls, canonical (`3d6+2`); absent: `dice`d`sides`. */
  readonly roll?: string;
  readonly players: string[];
  readonly scores: Record<string, number>;
  readonly turns: number;
}

export const diceGame: ChanceGame<DiceState> = {
  name: 'dice',
  init(players, params) {
    const roll = params.roll;
    if (roll !== undefined && typeof roll !== 'string')
      throw new FairtableError('bad_dice_expression', 'game parameter roll must be a dice expression such as 3d6+2', { field: 'roll' });
    return {
      dice: numberParam(params, 'dice', 2, 1, 1000),
      sides: numberParam(params, 'sides', 6, 2, 2 ** 32),
      rounds: numberParam(params, 'rounds', 3, 1, 1_000_000),
      ...(roll === undefined ? {} : { roll: parseDice(roll).text }),
      players: [...players],
      scores: Object.fromEntries(players.map((p) => [p, 0])),
      turns: 0,
    };
  },
  play(state: DiceState, mover: string, chance: Chance, _action: JsonValue): TurnResult<DiceState> {
    if (state.roll !== undefined) {
      const r = rollDice(parseDice(state.roll), chance);
      return {
        state: { ...state, scores: { ...state.scores, [mover]: (state.scores[mover] ?? 0) + r.total }, turns: state.turns + 1 },
        summary: {
          expression: r.expression,
          roll: r.terms.flatMap((t) => [...t.rolls]),
          kept: r.terms.flatMap((t) => [...t.kept]),
          sum: r.total,
          text: r.text,
        },
      };
    }
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
      `Dice: ${state.roll ?? `${state.dice}d${state.sides}`} a turn, ${state.rounds} round${state.rounds === 1 ? '' : 's'}; ${state.turns} of ${total} turns played.`,
      `Scores: ${scoreList(state.scores, state.players)}.`,
    ];
  },
  turnText(player, summary) {
    const s = summary as { roll?: unknown; sum?: unknown; text?: unknown } | null;
    if (s !== null && typeof s.text === 'string') return `${player} rolled ${s.text}`;
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
