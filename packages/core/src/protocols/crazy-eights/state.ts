/**
 * Crazy Eights on the deck (docs/spec/crazy-eights.md §2): the protocol's state, plain JSON: the deck table's
 * (protocols/deck-table) and the game's own.
 */
import type { JsonValue } from '../../jcs.js';
import type { Top } from '../../games/crazy-eights/index.js';
import type { DeckTableState } from '../deck-table/state.js';

export interface EightsState extends DeckTableState {
  phase: 'keys' | 'shuffle' | 'open' | 'turn' | 'done';
  readonly timeoutMs: number;
  phaseStart: number;
  /** Counts phases, so that a deadline claim names the phase it is about. */
  round: number;
  claimed: string | null;
  /** Each player's hand: the deck positions dealt or drawn to it and not yet played. */
  hands: Record<string, number[]>;
  /** Positions of the local player's hand and the cards under them, opened privately. */
  mine: Record<string, number>;
  /** The next position to draw; the stock is empty at the deck's size. */
  stock: number;
  top: Top | null;
  discard: number[];
  /** Whose turn it is, and the turn's number (a play or a draw names it). */
  turn: string | null;
  turns: number;
  /** The player whose drawn card the opening in progress deals, or null (the deal). */
  drawer: string | null;
  /** Turns passed in a row with the stock empty. */
  passes: number;
  /** Who won: the first to empty its hand; the fewest cards when the game is blocked; the last one left. */
  winners: string[];
  /** Why the game ended without a winner emptying its hand, if it did. */
  ended: string | null;
  /** Each turn: who, and what (a play in the open, a draw, a pass). */
  history: JsonValue[];
}

export const copy = (s: EightsState): EightsState => JSON.parse(JSON.stringify(s)) as EightsState;
