/**
 * Pots (docs/spec/holdem.md §5): the main pot and side pots from what each
 * player put in over the whole hand, folded players' chips included, and
 * their split between the best hands.
 *
 * Levels are the distinct totals of the players still in (not folded). The
 * pot of level L holds, from every player, what it put in above the previous
 * level and up to L; the players still in who put in at least L may win it.
 * Chips a folded player put in above the top level go to the top pot. A pot
 * whose best hands tie is split evenly; the chips left over (fewer than the
 * number of winners) go one each to the winners in seat order, starting with
 * the first seat left of the button (the button itself last).
 */
import { FairtableError } from '../../errors.js';

export interface Pot {
  readonly amount: number;
  /** The players still in who may win it, in seat order. */
  readonly eligible: readonly string[];
}

export interface PotAward extends Pot {
  readonly winners: readonly string[];
  /** What each winner receives from this pot. */
  readonly shares: Readonly<Record<string, number>>;
}

/** The pots, main pot first. `seats` gives the seat order; `live` the players who have not folded. */
export function buildPots(seats: readonly string[], committed: Readonly<Record<string, number>>, live: readonly string[]): Pot[] {
  const inHand = seats.filter((p) => live.includes(p));
  if (inHand.length === 0) throw new FairtableError('bad_input', 'a pot needs at least one player still in', { field: 'live' });
  const levels = [...new Set(inHand.map((p) => committed[p] ?? 0))].filter((x) => x > 0).sort((a, b) => a - b);
  const pots: { amount: number; eligible: string[] }[] = [];
  let previous = 0;
  for (const level of levels) {
    let amount = 0;
    for (const p of seats) amount += Math.max(0, Math.min(committed[p] ?? 0, level) - previous);
    pots.push({ amount, eligible: inHand.filter((p) => (committed[p] ?? 0) >= level) });
    previous = level;
  }
  let above = 0;
  for (const p of seats) above += Math.max(0, (committed[p] ?? 0) - previous);
  if (above > 0) {
    if (pots.length === 0) pots.push({ amount: 0, eligible: inHand });
    pots[pots.length - 1]!.amount += above;
  }
  return pots;
}

/** Seats in the order odd chips go: the first seat left of the button first, the button last. */
export function leftOfButton(seats: readonly string[], button: string): string[] {
  const at = seats.indexOf(button);
  return seats.map((_, i) => seats[(at + 1 + i) % seats.length]!);
}

/**
 * Splits each pot between its eligible players with the highest key (`keys` holds a key for every
 * eligible player). Returns the awards and what each player receives in all.
 */
export function awardPots(
  pots: readonly Pot[],
  keys: Readonly<Record<string, number>>,
  seats: readonly string[],
  button: string,
): { awards: PotAward[]; won: Record<string, number> } {
  const order = leftOfButton(seats, button);
  const won: Record<string, number> = {};
  const awards: PotAward[] = [];
  for (const pot of pots) {
    let best = -1;
    for (const p of pot.eligible) {
      const k = keys[p];
      if (k === undefined) throw new FairtableError('bad_input', `${p} may win a pot but has no hand`, { field: 'keys' });
      best = Math.max(best, k);
    }
    const winners = order.filter((p) => pot.eligible.includes(p) && keys[p] === best);
    const each = Math.floor(pot.amount / winners.length);
    let odd = pot.amount - each * winners.length;
    const shares: Record<string, number> = {};
    for (const w of winners) {
      shares[w] = each + (odd > 0 ? 1 : 0);
      if (odd > 0) odd--;
      won[w] = (won[w] ?? 0) + shares[w];
    }
    awards.push({ ...pot, winners, shares });
  }
  return { awards, won };
}
