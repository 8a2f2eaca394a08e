/**
 * One hand's state and the refusal of an illegal action (docs/spec/holdem.md
 * §3–§4). The state is plain data (JSON), never changed in place: every step
 * returns a new state.
 */
import { FairtableError } from '../../errors.js';
import type { PotAward } from './pots.js';

export type Street = 'preflop' | 'flop' | 'turn' | 'river';
export const STREETS: readonly Street[] = ['preflop', 'flop', 'turn', 'river'];

/**
 * A player's action. `to` is the player's whole bet on this street once the bet or raise is
 * made (a raise "to" 300, not "by"); `timeout` is what the caller passes for a player who let its
 * deadline pass, and folds.
 */
export type Action =
  | { readonly do: 'fold' }
  | { readonly do: 'check' }
  | { readonly do: 'call' }
  | { readonly do: 'bet'; readonly to: number }
  | { readonly do: 'raise'; readonly to: number }
  | { readonly do: 'all-in' }
  | { readonly do: 'timeout' };

/** What the hand waits for. */
export type HandWaiting =
  | { readonly kind: 'act'; readonly player: string }
  | { readonly kind: 'deal'; readonly street: Street; readonly count: number }
  | { readonly kind: 'showdown'; readonly order: readonly string[] }
  | { readonly kind: 'over' };

export interface HandEvent {
  readonly street: Street;
  readonly player: string;
  /** `small blind`, `big blind`, an action's `do`, or `returned` for an uncalled bet given back. */
  readonly what: string;
  /** Chips moved from the stack to the bet (back to the stack for `returned`). */
  readonly chips: number;
  /** The player's bet on the street after the event. */
  readonly total: number;
}

export interface HandResult {
  readonly pots: readonly PotAward[];
  /** What each player receives from the pots. */
  readonly won: Readonly<Record<string, number>>;
  /** The shown hands' keys and names (empty when all but one folded). */
  readonly hands: Readonly<Record<string, { readonly key: number; readonly name: string; readonly cards: readonly number[] }>>;
  readonly showOrder: readonly string[];
}

export interface HandState {
  /** The players dealt in, in seat order (clockwise). */
  readonly seats: readonly string[];
  readonly button: string;
  readonly smallBlind: number;
  readonly bigBlind: number;
  /** Chips behind, not yet bet. */
  readonly stacks: Readonly<Record<string, number>>;
  /** Put in on this street. */
  readonly bets: Readonly<Record<string, number>>;
  /** Put in over the whole hand, this street included. */
  readonly committed: Readonly<Record<string, number>>;
  readonly folded: readonly string[];
  readonly street: Street;
  readonly phase: 'bet' | 'deal' | 'showdown' | 'over';
  /** The player whose action is awaited (phase `bet`). */
  readonly toAct: string | null;
  /** Players who must still act before this street's betting closes. */
  readonly pending: readonly string[];
  /** Players who may still bet or raise: not those who acted since the last full bet or raise. */
  readonly mayRaise: readonly string[];
  /** The street's bet every player must match to stay in. */
  readonly currentBet: number;
  /** The last full bet or raise on this street, the least a raise may add (the big blind at first). */
  readonly minRaise: number;
  /** Who made the last bet or raise on this street. */
  readonly aggressor: string | null;
  readonly board: readonly number[];
  readonly events: readonly HandEvent[];
  readonly result: HandResult | null;
}

/** Why an action is refused: stable codes (docs/spec/holdem.md §4). */
export type HoldemReason =
  | 'hand_over'
  | 'not_in_hand'
  | 'out_of_turn'
  | 'bad_action'
  | 'cannot_check'
  | 'nothing_to_call'
  | 'use_raise'
  | 'use_bet'
  | 'bet_too_small'
  | 'raise_too_small'
  | 'over_stack'
  | 'raise_not_reopened'
  | 'no_opponent'
  | 'not_dealing'
  | 'bad_cards'
  | 'not_showdown';

/** An action or input the rules refuse; `player` is who did it (null for the dealer's cards). */
export class HoldemError extends FairtableError {
  readonly player: string | null;
  readonly reason: HoldemReason;
  constructor(reason: HoldemReason, player: string | null, message: string) {
    super('illegal_choice', player === null ? message : `${player}: ${message}`, { field: player === null ? 'cards' : 'action' });
    this.name = 'HoldemError';
    this.player = player;
    this.reason = reason;
  }
}

export interface Draft {
  seats: string[];
  button: string;
  smallBlind: number;
  bigBlind: number;
  stacks: Record<string, number>;
  bets: Record<string, number>;
  committed: Record<string, number>;
  folded: string[];
  street: Street;
  phase: HandState['phase'];
  toAct: string | null;
  pending: string[];
  mayRaise: string[];
  currentBet: number;
  minRaise: number;
  aggressor: string | null;
  board: number[];
  events: HandEvent[];
  result: HandResult | null;
}

export function draft(h: HandState): Draft {
  return {
    ...h,
    seats: [...h.seats],
    stacks: { ...h.stacks },
    bets: { ...h.bets },
    committed: { ...h.committed },
    folded: [...h.folded],
    pending: [...h.pending],
    mayRaise: [...h.mayRaise],
    board: [...h.board],
    events: [...h.events],
  };
}

export const live = (h: HandState | Draft): string[] => h.seats.filter((p) => !h.folded.includes(p));
/** Players still in with chips behind: those who can still act. */
export const active = (h: HandState | Draft): string[] => live(h).filter((p) => (h.stacks[p] ?? 0) > 0);

/** The seats after `from`, clockwise, `from` itself last. */
export function clockwise(seats: readonly string[], from: string): string[] {
  const at = seats.indexOf(from);
  return seats.map((_, i) => seats[(at + 1 + i) % seats.length]!);
}
