/**
 * Seats taking turns (docs/SPEC.md §7.2, §7.3): what a forfeit does to a
 * turn-based game. The player leaves the rotation and the game; whoever sat
 * after it keeps its place in the order, and if the mover itself left, the
 * next seat is now to move.
 */
import type { ViolationCode } from '../errors.js';
import type { ChanceGame } from '../games/game.js';
import type { JsonValue } from '../jcs.js';
import type { Outcome, Stepper } from './machine.js';

export interface Rotation {
  readonly rules: ChanceGame<unknown>;
  readonly gameName: string;
  readonly phase: string;
  active: string[];
  mover: number;
  game: unknown;
  forfeits: { player: string; code: ViolationCode }[];
}

/** The outcome of a game of turns once it is over (chain and keyed-stream): the game's winners, or the last seat left. */
export function turnsOutcome(s: Rotation & { readonly turn: number }): Outcome | null {
  if (s.phase !== 'done') return null;
  const winners = s.active.length <= 1 ? [...s.active] : (s.rules.winners(s.game) ?? []);
  return { winners, forfeits: s.forfeits, summary: { game: s.gameName, turns: s.turn, state: s.game as JsonValue } };
}

/** Returns false when the player was already out. */
export function forfeitSeat(s: Rotation, st: Stepper, player: string, code: ViolationCode): boolean {
  const at = s.active.indexOf(player);
  if (at < 0) return false;
  s.active.splice(at, 1);
  if (s.phase === 'play' && at < s.mover) s.mover--;
  if (s.active.length > 0) s.mover %= s.active.length;
  s.game = s.rules.forfeit(s.game, player);
  s.forfeits.push({ player, code });
  st.emit({ type: 'forfeit', player, code });
  return true;
}
