/**
 * No-limit betting (docs/spec/holdem.md §4): who may do what, an action's
 * effect on the street's bets, when a street's betting closes, and the
 * uncalled part of a bet given back.
 *
 * A bet or raise names the player's whole bet on the street (`to`). The least
 * bet is the big blind; the least raise adds the last full bet or raise of the
 * street (the big blind at first). A player may always go all-in for less. An
 * all-in that raises by less than a full raise does not reopen the betting: a
 * player who acted since the last full raise may then only call or fold.
 */
import type { JsonValue } from '../../jcs.js';
import { active, clockwise, HoldemError, live, type Action, type Draft, type HandState } from './state.js';

/** What `player` may do now; null when it is not its turn. Amounts are chips, bets are `to` totals. */
export interface LegalActions {
  readonly player: string;
  readonly check: boolean;
  /** Chips a call puts in (0 when there is nothing to call; less than owed when the call is all-in). */
  readonly call: number;
  /** `bet` when nobody has bet on this street, else `raise`; null when the player may not bet or raise. */
  readonly raise: { readonly kind: 'bet' | 'raise'; readonly min: number; readonly max: number } | null;
  /** The player's chips behind: going all-in puts them all in. */
  readonly allIn: number;
}

export function legalActions(h: HandState | Draft, player: string): LegalActions | null {
  if (h.phase !== 'bet' || h.toAct !== player) return null;
  const stack = h.stacks[player] ?? 0;
  const bet = h.bets[player] ?? 0;
  const owed = Math.max(0, h.currentBet - bet);
  const canRaise = h.mayRaise.includes(player) && stack > owed && active(h).some((p) => p !== player);
  const max = bet + stack;
  const least = h.currentBet + h.minRaise;
  return {
    player,
    check: owed === 0,
    call: Math.min(owed, stack),
    raise: canRaise ? { kind: h.currentBet === 0 ? 'bet' : 'raise', min: Math.min(least, max), max } : null,
    allIn: stack,
  };
}

/** Reads an action from JSON; null when it is not one. */
export function readAction(v: JsonValue): Action | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const d = v['do'];
  switch (d) {
    case 'fold':
    case 'check':
    case 'call':
    case 'all-in':
    case 'timeout':
      return Object.keys(v).length === 1 ? { do: d } : null;
    case 'bet':
    case 'raise': {
      const to = v['to'];
      return Object.keys(v).length === 2 && typeof to === 'number' && Number.isSafeInteger(to) ? { do: d, to } : null;
    }
    default:
      return null;
  }
}

function put(d: Draft, player: string, chips: number, what: string): void {
  d.stacks[player] = (d.stacks[player] ?? 0) - chips;
  d.bets[player] = (d.bets[player] ?? 0) + chips;
  d.committed[player] = (d.committed[player] ?? 0) + chips;
  d.events.push({ street: d.street, player, what, chips, total: d.bets[player]! });
}

/** Posts a blind (all-in for less when the stack is short). */
export function postBlind(d: Draft, player: string, amount: number, what: string): void {
  put(d, player, Math.min(amount, d.stacks[player] ?? 0), what);
}

/** Raises `player`'s street bet to `to` (already checked legal). */
function raiseTo(d: Draft, player: string, to: number, what: string): void {
  const size = to - d.currentBet;
  put(d, player, to - (d.bets[player] ?? 0), what);
  const others = active(d).filter((p) => p !== player);
  if (size >= d.minRaise) {
    d.minRaise = size;
    d.mayRaise = others;
  } else d.mayRaise = d.mayRaise.filter((p) => p !== player);
  d.currentBet = to;
  d.aggressor = player;
  d.pending = others;
}

function checkRaise(d: Draft, player: string, to: number, kind: 'bet' | 'raise'): void {
  const stack = d.stacks[player] ?? 0;
  const bet = d.bets[player] ?? 0;
  if (!Number.isSafeInteger(to)) throw new HoldemError('bad_action', player, `a ${kind} is a whole number of chips, not ${String(to)}`);
  if (to - bet > stack) throw new HoldemError('over_stack', player, `a ${kind} to ${to} needs ${to - bet} chips but only ${stack} are left`);
  if (to <= d.currentBet) throw new HoldemError(kind === 'bet' ? 'bet_too_small' : 'raise_too_small', player, `a ${kind} must be to more than ${d.currentBet}`);
  if (!d.mayRaise.includes(player))
    throw new HoldemError('raise_not_reopened', player, 'the betting was not reopened by a full raise since this player acted: call or fold');
  if (!active(d).some((p) => p !== player)) throw new HoldemError('no_opponent', player, 'every other player is all-in: nobody is left to call a raise');
  const allIn = to - bet === stack;
  if (!allIn && to - d.currentBet < d.minRaise) {
    throw kind === 'bet'
      ? new HoldemError('bet_too_small', player, `the least bet is ${d.minRaise} (or all-in)`)
      : new HoldemError('raise_too_small', player, `the least raise is to ${d.currentBet + d.minRaise} (or all-in)`);
  }
}

/** Applies `player`'s action to the street (not the street's close: see `closed`). */
export function applyAction(d: Draft, player: string, action: Action): void {
  if (d.phase === 'over') throw new HoldemError('hand_over', player, 'the hand is over');
  if (!d.seats.includes(player) || d.folded.includes(player)) throw new HoldemError('not_in_hand', player, 'this player is not in the hand');
  if (d.phase !== 'bet')
    throw new HoldemError('out_of_turn', player, `no player acts now: the hand waits for ${d.phase === 'deal' ? 'the dealer' : 'the showdown'}`);
  if (d.toAct !== player) throw new HoldemError('out_of_turn', player, `it is ${d.toAct ?? 'nobody'}'s turn to act`);
  const stack = d.stacks[player] ?? 0;
  const bet = d.bets[player] ?? 0;
  const owed = Math.max(0, d.currentBet - bet);
  switch (action.do) {
    case 'fold':
    case 'timeout':
      d.folded.push(player);
      d.events.push({ street: d.street, player, what: action.do, chips: 0, total: bet });
      break;
    case 'check':
      if (owed > 0) throw new HoldemError('cannot_check', player, `there is a bet of ${d.currentBet} to call`);
      d.events.push({ street: d.street, player, what: 'check', chips: 0, total: bet });
      break;
    case 'call':
      if (owed === 0) throw new HoldemError('nothing_to_call', player, 'there is no bet to call: check');
      put(d, player, Math.min(owed, stack), 'call');
      break;
    case 'bet':
      if (d.currentBet > 0) throw new HoldemError('use_raise', player, `there is already a bet of ${d.currentBet}: raise`);
      checkRaise(d, player, action.to, 'bet');
      raiseTo(d, player, action.to, 'bet');
      break;
    case 'raise':
      if (d.currentBet === 0) throw new HoldemError('use_bet', player, 'nobody has bet on this street: bet');
      checkRaise(d, player, action.to, 'raise');
      raiseTo(d, player, action.to, 'raise');
      break;
    case 'all-in':
      if (bet + stack <= d.currentBet) put(d, player, stack, 'all-in');
      else {
        checkRaise(d, player, bet + stack, d.currentBet === 0 ? 'bet' : 'raise');
        raiseTo(d, player, bet + stack, 'all-in');
      }
      break;
    default:
      throw new HoldemError('bad_action', player, 'not an action');
  }
  d.pending = d.pending.filter((p) => p !== player);
  d.mayRaise = d.mayRaise.filter((p) => p !== player);
  d.pending = d.pending.filter((p) => active(d).includes(p));
  d.toAct = clockwise(d.seats, player).find((p) => d.pending.includes(p)) ?? null;
}

/** Whether the street's betting is over: nobody must act, or nobody is left to answer a bet. */
export function closed(d: Draft): boolean {
  if (live(d).length <= 1) return true;
  const can = active(d);
  if (can.length === 0) return true;
  if (can.length === 1) {
    const only = can[0]!;
    const facing = Math.max(0, ...d.seats.filter((p) => p !== only).map((p) => d.bets[p] ?? 0));
    if ((d.bets[only] ?? 0) >= facing) return true;
  }
  return d.pending.length === 0;
}

/** Gives back the part of the street's highest bet that nobody matched. */
export function returnUncalled(d: Draft): void {
  const top = Math.max(0, ...d.seats.map((p) => d.bets[p] ?? 0));
  const holders = d.seats.filter((p) => (d.bets[p] ?? 0) === top);
  if (top === 0 || holders.length !== 1) return;
  const who = holders[0]!;
  const second = Math.max(0, ...d.seats.filter((p) => p !== who).map((p) => d.bets[p] ?? 0));
  const back = top - second;
  d.bets[who] = second;
  d.committed[who] = (d.committed[who] ?? 0) - back;
  d.stacks[who] = (d.stacks[who] ?? 0) + back;
  d.events.push({ street: d.street, player: who, what: 'returned', chips: back, total: second });
}
