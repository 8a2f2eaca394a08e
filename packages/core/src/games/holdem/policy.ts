/**
 * A random legal player and a small simulator (docs/spec/holdem.md §9), for
 * tests and for a later protocol's simulations to drive the rules. Chance is
 * injected: `pick(n)` returns a whole number in [0, n).
 */
import { legalActions } from './betting.js';
import { waiting } from './hand.js';
import { createTable, nextHand, tableAct, tableDeal, tableOver, tableShowdown, type TableOptions, type TableState } from './table.js';
import type { Action, HandResult, HandState } from './state.js';

export type Pick = (n: number) => number;

/** A legal action of `player` chosen at random: mostly checks and calls, sometimes a fold, a raise, an all-in or a timeout (a timeout for a player not to act). */
export function randomAction(h: HandState, player: string, pick: Pick): Action {
  const legal = legalActions(h, player);
  if (legal === null) return { do: 'timeout' };
  const roll = pick(100);
  // 2 in 100 a timeout, 20 a fold (facing a bet), 10 a raise (1 of them the whole stack), 1 an all-in
  if (roll < 2) return { do: 'timeout' };
  if (roll < 22 && !legal.check) return { do: 'fold' };
  if (roll >= 22 && roll < 32 && legal.raise !== null) {
    const { kind, min, max } = legal.raise;
    const span = Math.min(max - min, min);
    const to = roll === 22 ? max : min + (span > 0 ? pick(span + 1) : 0);
    return { do: kind, to };
  }
  if (roll === 32 && legal.allIn > 0 && (legal.raise !== null || legal.allIn <= legal.call)) return { do: 'all-in' };
  return legal.check ? { do: 'check' } : { do: 'call' };
}

/** The 52 cards in an order drawn by `pick` (Fisher–Yates). */
export function shuffledDeck(pick: Pick): number[] {
  const deck = Array.from({ length: 52 }, (_, i) => i);
  for (let i = 51; i > 0; i--) {
    const j = pick(i + 1);
    [deck[i], deck[j]] = [deck[j]!, deck[i]!];
  }
  return deck;
}

export type Chooser = (h: HandState, player: string) => Action;

/**
 * Plays the table's next hand to its end from `deck`: two hole cards to each seat in seat order,
 * then the flop, turn and river as the hand asks for them.
 */
export function playHand(t: TableState, deck: readonly number[], choose: Chooser): TableState {
  let table = nextHand(t);
  const seats = table.hand!.seats;
  const holes: Record<string, number[]> = {};
  seats.forEach((p, i) => (holes[p] = [deck[2 * i]!, deck[2 * i + 1]!]));
  let next = 2 * seats.length;
  while (table.hand !== null) {
    const h = table.hand;
    const w = waiting(h);
    if (w.kind === 'act') table = tableAct(table, w.player, choose(h, w.player));
    else if (w.kind === 'deal') {
      table = tableDeal(table, deck.slice(next, next + w.count));
      next += w.count;
    } else if (w.kind === 'showdown') table = tableShowdown(table, holes);
  }
  return table;
}

export interface Simulation {
  readonly table: TableState;
  readonly results: readonly HandResult[];
}

/** Plays a whole table with random legal players and shuffled decks until it is over or `limit` hands were played. */
export function simulateTable(options: TableOptions, pick: Pick, limit = 1000, choose: Chooser = (h, p) => randomAction(h, p, pick)): Simulation {
  let table = createTable(options);
  const results: HandResult[] = [];
  while (!tableOver(table) && table.handsPlayed < limit) {
    table = playHand(table, shuffledDeck(pick), choose);
    if (table.lastHand?.result) results.push(table.lastHand.result);
  }
  return { table, results };
}
