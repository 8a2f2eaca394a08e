/**
 * One hand of no-limit Texas Hold'em (docs/spec/holdem.md §3–§6): the blinds,
 * four betting streets, the board as the dealer deals it, the showdown, the
 * pots to the best hands. The cards come in from outside (a deck protocol),
 * so the hand never draws one: it waits for the flop, turn and river, and at
 * the showdown for the hole cards of the players still in.
 */
import type { JsonValue } from '../../jcs.js';
import { FairtableError } from '../../errors.js';
import { applyAction, closed, postBlind, readAction, returnUncalled } from './betting.js';
import { cardCode, isCard } from './cards.js';
import { awardPots, buildPots } from './pots.js';
import { bestHand } from './rank.js';
import { active, clockwise, draft, HoldemError, live, STREETS, type Action, type Draft, type HandResult, type HandState, type HandWaiting } from './state.js';

export interface HandOptions {
  /** The players dealt in, in seat order (clockwise), 2 to 9 of them. */
  readonly seats: readonly string[];
  readonly button: string;
  /** Every seat's chips at the start of the hand (positive). */
  readonly stacks: Readonly<Record<string, number>>;
  readonly smallBlind: number;
  readonly bigBlind: number;
}

function positive(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0)
    throw new FairtableError('out_of_range', `${field} must be a positive whole number of chips`, { field });
  return v;
}

/** The small blind's seat: the button heads-up, else the seat left of the button. */
export function smallBlindSeat(seats: readonly string[], button: string): string {
  return seats.length === 2 ? button : clockwise(seats, button)[0]!;
}

/** Deals a hand in: posts the blinds and waits for the first preflop action. */
export function startHand(o: HandOptions): HandState {
  const seats = [...o.seats];
  if (seats.length < 2 || seats.length > 9)
    throw new FairtableError('out_of_range', `a hand is dealt to 2 to 9 players, not ${seats.length}`, { field: 'seats' });
  if (new Set(seats).size !== seats.length) throw new FairtableError('bad_input', 'a player sits twice', { field: 'seats' });
  if (!seats.includes(o.button)) throw new FairtableError('bad_input', `the button ${o.button} is not dealt in`, { field: 'button' });
  const smallBlind = positive(o.smallBlind, 'smallBlind');
  const bigBlind = positive(o.bigBlind, 'bigBlind');
  if (smallBlind > bigBlind) throw new FairtableError('out_of_range', 'the small blind is more than the big blind', { field: 'smallBlind' });
  const stacks: Record<string, number> = {};
  for (const p of seats) stacks[p] = positive(o.stacks[p], `stacks.${p}`);
  if (seats.reduce((sum, p) => sum + stacks[p]!, 0) > Number.MAX_SAFE_INTEGER) {
    throw new FairtableError('out_of_range', 'the chips at the table add up to more than 2^53 - 1', { field: 'stacks' });
  }
  const d: Draft = {
    seats,
    button: o.button,
    smallBlind,
    bigBlind,
    stacks,
    bets: Object.fromEntries(seats.map((p) => [p, 0])),
    committed: Object.fromEntries(seats.map((p) => [p, 0])),
    folded: [],
    street: 'preflop',
    phase: 'bet',
    toAct: null,
    pending: [],
    mayRaise: [],
    currentBet: bigBlind,
    minRaise: bigBlind,
    aggressor: null,
    board: [],
    events: [],
    result: null,
  };
  const sb = smallBlindSeat(seats, o.button);
  const bb = clockwise(seats, sb)[0]!;
  postBlind(d, sb, smallBlind, 'small blind');
  postBlind(d, bb, bigBlind, 'big blind');
  d.pending = active(d);
  d.mayRaise = active(d);
  d.toAct = clockwise(seats, bb).find((p) => d.pending.includes(p)) ?? null;
  advance(d);
  return d;
}

function finishByFold(d: Draft): void {
  const winner = live(d)[0]!;
  const pots = buildPots(d.seats, d.committed, [winner]);
  const { awards, won } = awardPots(pots, { [winner]: 0 }, d.seats, d.button);
  settle(d, { pots: awards, won, hands: {}, showOrder: [] });
}

function settle(d: Draft, result: HandResult): void {
  for (const [p, chips] of Object.entries(result.won)) d.stacks[p] = (d.stacks[p] ?? 0) + chips;
  d.result = result;
  d.phase = 'over';
  d.toAct = null;
  d.pending = [];
}

/** Closes a street whose betting is over: the uncalled bet back, then the next deal or the showdown. */
function advance(d: Draft): void {
  if (d.phase !== 'bet') return;
  if (live(d).length <= 1) {
    returnUncalled(d);
    finishByFold(d);
    return;
  }
  if (!closed(d)) return;
  returnUncalled(d);
  d.toAct = null;
  d.pending = [];
  d.phase = d.street === 'river' ? 'showdown' : 'deal';
}

/** What the hand waits for now. */
export function waiting(h: HandState): HandWaiting {
  switch (h.phase) {
    case 'bet':
      return { kind: 'act', player: h.toAct! };
    case 'deal': {
      const street = STREETS[STREETS.indexOf(h.street) + 1]!;
      return { kind: 'deal', street, count: street === 'flop' ? 3 : 1 };
    }
    case 'showdown':
      return { kind: 'showdown', order: showOrder(h) };
    case 'over':
      return { kind: 'over' };
  }
}

/**
 * The order hands are shown: the last player to bet or raise on the river first, when there was
 * one; else the first player still in left of the button; then clockwise.
 */
export function showOrder(h: HandState | Draft): string[] {
  const inHand = live(h);
  const first = h.aggressor !== null && inHand.includes(h.aggressor) ? h.aggressor : clockwise(h.seats, h.button).find((p) => inHand.includes(p))!;
  return [first, ...clockwise(h.seats, first).filter((p) => p !== first && inHand.includes(p))];
}

/** `player`'s action (an `Action` or its JSON). A refused one throws a `HoldemError` naming the player and the reason. */
export function act(h: HandState, player: string, action: Action | JsonValue): HandState {
  const a = readAction(action as JsonValue);
  if (a === null) throw new HoldemError('bad_action', player, 'not an action (fold, check, call, bet to, raise to, all-in, timeout)');
  const d = draft(h);
  applyAction(d, player, a);
  advance(d);
  return d;
}

function checkCards(cards: readonly unknown[], taken: readonly number[], player: string | null): void {
  const seen = new Set(taken);
  for (const c of cards) {
    if (!isCard(c)) throw new HoldemError('bad_cards', player, `${String(c)} is not a card (0..51)`);
    if (seen.has(c)) throw new HoldemError('bad_cards', player, `${cardCode(c)} is dealt twice`);
    seen.add(c);
  }
}

/** The dealer's next cards: the flop's three, then the turn's one, then the river's one. */
export function deal(h: HandState, cards: readonly number[]): HandState {
  if (h.phase !== 'deal') throw new HoldemError('not_dealing', null, h.phase === 'over' ? 'the hand is over' : 'the hand does not wait for cards');
  const next = STREETS[STREETS.indexOf(h.street) + 1]!;
  const count = next === 'flop' ? 3 : 1;
  if (cards.length !== count) throw new HoldemError('bad_cards', null, `the ${next} is ${count} card${count === 1 ? '' : 's'}, not ${cards.length}`);
  checkCards(cards, h.board, null);
  const d = draft(h);
  d.board.push(...cards);
  d.street = next;
  d.phase = 'bet';
  for (const p of d.seats) d.bets[p] = 0;
  d.currentBet = 0;
  d.minRaise = d.bigBlind;
  d.aggressor = null;
  d.pending = active(d);
  d.mayRaise = active(d);
  d.toAct = clockwise(d.seats, d.button).find((p) => d.pending.includes(p)) ?? null;
  advance(d);
  return d;
}

/** The showdown: every player still in shows its two hole cards; the pots go to the best hands. */
export function showdown(h: HandState, holes: Readonly<Record<string, readonly number[]>>): HandState {
  if (h.phase !== 'showdown') throw new HoldemError('not_showdown', null, 'the hand is not at its showdown');
  const order = showOrder(h);
  const taken = [...h.board];
  const hands: Record<string, { key: number; name: string; cards: number[] }> = {};
  const keys: Record<string, number> = {};
  for (const p of order) {
    const hole = holes[p];
    if (hole === undefined || hole.length !== 2) throw new HoldemError('bad_cards', p, 'a player at the showdown shows exactly two hole cards');
    checkCards(hole, taken, p);
    taken.push(...hole);
    const best = bestHand([...hole, ...h.board]);
    hands[p] = { key: best.key, name: best.name, cards: [...best.cards] };
    keys[p] = best.key;
  }
  const d = draft(h);
  const pots = buildPots(d.seats, d.committed, order);
  const { awards, won } = awardPots(pots, keys, d.seats, d.button);
  settle(d, { pots: awards, won, hands, showOrder: order });
  return d;
}
