/**
 * A table of Texas Hold'em across hands (docs/spec/holdem.md §7): chip counts
 * carried from hand to hand, the button moving one seat clockwise to the next
 * player with chips, busted players leaving, and the end: one player holds all
 * the chips, or the agreed number of hands has been played (the most chips win,
 * ties share).
 */
import type { JsonValue } from '../../jcs.js';
import { FairtableError } from '../../errors.js';
import { leaders } from '../game.js';
import { act, deal, showdown, startHand } from './hand.js';
import { clockwise, HoldemError, type Action, type HandState } from './state.js';

export interface TableOptions {
  /** Seat order, clockwise; 2 to 9 players. */
  readonly players: readonly string[];
  readonly startingStack: number;
  readonly smallBlind: number;
  readonly bigBlind: number;
  /** Hands to play at most; 0 plays until one player has every chip. */
  readonly maxHands?: number;
  /** The first hand's button (the first player when absent). */
  readonly button?: string;
}

export interface TableState {
  /** Every player who sat down, in seat order. */
  readonly players: readonly string[];
  /** Chips of every player between hands (0 for a player who busted). */
  readonly stacks: Readonly<Record<string, number>>;
  /** The button of the hand being played, or of the next one. */
  readonly button: string;
  readonly smallBlind: number;
  readonly bigBlind: number;
  readonly maxHands: number;
  readonly handsPlayed: number;
  /** The hand in play, null between hands. */
  readonly hand: HandState | null;
  /** The last hand played to its end, with its result. */
  readonly lastHand: HandState | null;
}

export function createTable(o: TableOptions): TableState {
  const players = [...o.players];
  if (players.length < 2 || players.length > 9)
    throw new FairtableError('out_of_range', `a table seats 2 to 9 players, not ${players.length}`, { field: 'players' });
  if (new Set(players).size !== players.length) throw new FairtableError('bad_input', 'a player sits twice', { field: 'players' });
  const stack = o.startingStack;
  if (!Number.isSafeInteger(stack) || stack <= 0 || stack * players.length > Number.MAX_SAFE_INTEGER) {
    throw new FairtableError('out_of_range', 'the starting stack must be a positive whole number of chips', { field: 'startingStack' });
  }
  const maxHands = o.maxHands ?? 0;
  if (!Number.isSafeInteger(maxHands) || maxHands < 0)
    throw new FairtableError('out_of_range', 'maxHands must be a whole number, 0 for no limit', { field: 'maxHands' });
  const button = o.button ?? players[0]!;
  if (!players.includes(button)) throw new FairtableError('bad_input', `the button ${button} is not at the table`, { field: 'button' });
  // the blinds are checked as a hand checks them
  startHand({ seats: players, button, stacks: Object.fromEntries(players.map((p) => [p, stack])), smallBlind: o.smallBlind, bigBlind: o.bigBlind });
  return {
    players,
    stacks: Object.fromEntries(players.map((p) => [p, stack])),
    button,
    smallBlind: o.smallBlind,
    bigBlind: o.bigBlind,
    maxHands,
    handsPlayed: 0,
    hand: null,
    lastHand: null,
  };
}

/** The players with chips, in seat order. */
export const seated = (t: TableState): string[] => t.players.filter((p) => (t.stacks[p] ?? 0) > 0);

export function tableOver(t: TableState): boolean {
  return t.hand === null && (seated(t).length <= 1 || (t.maxHands > 0 && t.handsPlayed >= t.maxHands));
}

/** The winners once the table is over (the most chips; ties share), else null. */
export function tableWinners(t: TableState): string[] | null {
  return tableOver(t) ? leaders({ ...t.stacks }, seated(t)) : null;
}

/** Deals the next hand to every player with chips. */
export function nextHand(t: TableState): TableState {
  if (t.hand !== null) throw new HoldemError('out_of_turn', null, 'a hand is still in play');
  if (tableOver(t)) throw new FairtableError('game_over', 'the table is over', { field: 'table' });
  const seats = seated(t);
  return {
    ...t,
    hand: startHand({
      seats,
      button: t.button,
      stacks: Object.fromEntries(seats.map((p) => [p, t.stacks[p]!])),
      smallBlind: t.smallBlind,
      bigBlind: t.bigBlind,
    }),
  };
}

/** The hand's next state; once it is over, the chips go back to the table and the button moves. */
function carry(t: TableState, hand: HandState): TableState {
  if (hand.phase !== 'over') return { ...t, hand };
  const stacks = { ...t.stacks };
  for (const p of hand.seats) stacks[p] = hand.stacks[p] ?? 0;
  const button = clockwise(t.players, t.button).find((p) => (stacks[p] ?? 0) > 0) ?? t.button;
  return { ...t, stacks, button, handsPlayed: t.handsPlayed + 1, hand: null, lastHand: hand };
}

function inPlay(t: TableState): HandState {
  if (t.hand === null) throw new HoldemError('hand_over', null, 'no hand is in play');
  return t.hand;
}

export function tableAct(t: TableState, player: string, action: Action | JsonValue): TableState {
  return carry(t, act(inPlay(t), player, action));
}

export function tableDeal(t: TableState, cards: readonly number[]): TableState {
  return carry(t, deal(inPlay(t), cards));
}

export function tableShowdown(t: TableState, holes: Readonly<Record<string, readonly number[]>>): TableState {
  return carry(t, showdown(inPlay(t), holes));
}
