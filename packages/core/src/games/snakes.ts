/**
 * Snakes & Ladders (docs/SPEC.md §8.2) on the classic 100-square board (the
 * Milton Bradley layout of 9 ladders and 10 snakes). One die; start off the
 * board at 0; a roll past 100 leaves the piece where it was; the first player
 * on 100 wins. `maxRounds` (default 1000) ends a game that runs on too long,
 * the furthest players sharing the win. `standing` and `turnText` put it in
 * words for mail and terminals.
 */
import type { Chance } from '../chance.js';
import type { JsonValue } from '../jcs.js';
import { leaders, numberParam, type ChanceGame, type TurnResult } from './game.js';

export const LADDERS: Readonly<Record<number, number>> = { 1: 38, 4: 14, 9: 31, 21: 42, 28: 84, 36: 44, 51: 67, 71: 91, 80: 100 };
export const SNAKES: Readonly<Record<number, number>> = { 16: 6, 47: 26, 49: 11, 56: 53, 62: 19, 64: 60, 87: 24, 93: 73, 95: 75, 98: 78 };

export interface SnakesState {
  readonly players: string[];
  readonly positions: Record<string, number>;
  readonly winner: string | null;
  readonly turns: number;
  readonly maxRounds: number;
}

export const snakesGame: ChanceGame<SnakesState> = {
  name: 'snakes',
  init(players, params) {
    return {
      players: [...players],
      positions: Object.fromEntries(players.map((p) => [p, 0])),
      winner: null,
      turns: 0,
      maxRounds: numberParam(params, 'maxRounds', 1000, 1, 1_000_000),
    };
  },
  play(state: SnakesState, mover: string, chance: Chance, _action: JsonValue): TurnResult<SnakesState> {
    const roll = chance.die(6);
    const from = state.positions[mover] ?? 0;
    let to = from + roll <= 100 ? from + roll : from;
    const via = LADDERS[to] !== undefined ? 'ladder' : SNAKES[to] !== undefined ? 'snake' : null;
    to = LADDERS[to] ?? SNAKES[to] ?? to;
    return {
      state: { ...state, positions: { ...state.positions, [mover]: to }, winner: to === 100 ? mover : state.winner, turns: state.turns + 1 },
      summary: { roll, from, to, via },
    };
  },
  winners(state) {
    if (state.winner !== null) return [state.winner];
    if (state.players.length <= 1) return [...state.players];
    if (state.turns >= state.maxRounds * state.players.length) return leaders(state.positions, state.players);
    return null;
  },
  forfeit(state, player) {
    return { ...state, players: state.players.filter((p) => p !== player) };
  },
  standing(state) {
    const positions = Object.keys(state.positions)
      .map((p) => `${p} on ${state.positions[p]}${state.players.includes(p) ? '' : ' (out)'}`)
      .join(', ');
    return [`Snakes & Ladders: ${state.turns} turn${state.turns === 1 ? '' : 's'} played; the first on square 100 wins.`, `Positions: ${positions}.`];
  },
  turnText(player, summary) {
    const s = summary as { roll?: unknown; from?: unknown; to?: unknown; via?: unknown } | null;
    if (s === null || typeof s.roll !== 'number' || typeof s.from !== 'number' || typeof s.to !== 'number') return `${player} rolled`;
    const landed = s.from + s.roll;
    if (landed > 100) return `${player} rolled ${s.roll}: stays on ${s.from} (past 100)`;
    const slide = s.via === 'ladder' ? `, up a ladder to ${s.to}` : s.via === 'snake' ? `, down a snake to ${s.to}` : '';
    return `${player} rolled ${s.roll}: ${s.from} to ${landed}${slide}`;
  },
};
