/**
 * Games of chance played on top of a fair-randomness protocol (docs/SPEC.md §8).
 *
 * A game is pure data and rules: `play` takes the state, whose turn it is, a
 * `Chance` to draw from and the mover's action, and returns the next state and
 * a public summary of the turn. It never chooses randomness itself, so the
 * protocol underneath decides where the numbers come from (a joint seed, a
 * chained commitment, a key-committed stream) and every other player can
 * recompute the turn.
 */
import type { Chance } from '../chance.js';
import type { JsonValue } from '../jcs.js';
import type { Choices } from '../protocols/machine.js';
import { FairtableError } from '../errors.js';

export interface TurnResult<G> {
  readonly state: G;
  readonly summary: JsonValue;
}

export interface ChanceGame<G> {
  readonly name: string;
  init(players: readonly string[], params: { readonly [key: string]: JsonValue }): G;
  play(state: G, mover: string, chance: Chance, action: JsonValue): TurnResult<G>;
  /** Winners once the game is over, else null. */
  winners(state: G): string[] | null;
  /** Removes a player who forfeited; the game may end. */
  forfeit(state: G, player: string): G;
  /**
   * The actions the mover may choose on its turn (docs/SPEC.md §7.5). Without it, or when it
   * returns null, the only action is `null`: the player just rolls when ready.
   */
  actions?(state: G, mover: string): Choices | null;
  /** Where the game stands, in plain-text lines for a person (mail, terminals): scores, positions, turns played. */
  standing?(state: G): string[];
  /** One turn in words, from the `summary` its `play` returned: "ann rolled 3 + 5 = 8". */
  turnText?(player: string, summary: JsonValue): string;
}

/** What a game with decisions between its rolls waits for now (docs/SPEC.md §8.4). */
export type Waiting =
  | { readonly kind: 'roll'; readonly player: string }
  | { readonly kind: 'decide'; readonly players: readonly string[]; readonly sealed: boolean }
  | { readonly kind: 'over' };

/** A question a game puts to one player: its legal answers and the default a missed deadline takes. */
export interface GameQuestion {
  readonly kind: string;
  readonly prompt: string;
  readonly choices: Choices;
  readonly fallback: JsonValue;
}

/**
 * A game whose players decide between rolls (docs/SPEC.md §8.4): `play` is one roll of the player
 * `waiting` names; decisions come in through `answer`, every asked player's answer at once (sealed
 * answers are revealed together), a missing or illegal one replaced by the question's fallback.
 */
export interface DecisionGame<G> extends ChanceGame<G> {
  waiting(state: G): Waiting;
  question(state: G, player: string): GameQuestion | null;
  /** Why `choice` is not a legal answer of `player` now, or null. */
  whyIllegal(state: G, player: string, choice: JsonValue): string | null;
  answer(state: G, answers: Readonly<Record<string, JsonValue>>): TurnResult<G>;
  /** The protocol picked who goes first (seed 000's rule); without it the game starts with its first player. */
  firstPlayer?(state: G, player: string): G;
}

export function isDecisionGame<G>(game: ChanceGame<G>): game is DecisionGame<G> {
  return typeof (game as Partial<DecisionGame<G>>).waiting === 'function' && typeof (game as Partial<DecisionGame<G>>).answer === 'function';
}

export function numberParam(params: { readonly [key: string]: JsonValue }, name: string, fallback: number, min: number, max: number): number {
  const v = params[name] ?? fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
    throw new FairtableError('out_of_range', `game parameter ${name} must be an integer in [${min}, ${max}]`, { field: name });
  }
  return v;
}

/** The players with the highest score. */
export function leaders(scores: Record<string, number>, players: readonly string[]): string[] {
  let best = -Infinity;
  for (const p of players) best = Math.max(best, scores[p] ?? 0);
  return players.filter((p) => (scores[p] ?? 0) === best);
}
