/**
 * Auctions (docs/spec/monopoly.md §8): a deed the mover declines is sold to
 * the highest of the sealed bids of every player still in the game, the mover
 * included. A bid is a whole number of dollars from 0 (a pass) to the
 * bidder's cash; a bid that breaks this, and a bid not revealed in time, is a
 * pass. On a tie the first tied bidder in seat order from the mover wins. The
 * winner pays its bid to the bank; when everyone passes the deed stays
 * unowned.
 */
import { deedAt } from './board.js';
import type { Draft } from './state.js';

export function whyNotBid(cash: number, bid: unknown): string | null {
  if (typeof bid !== 'number' || !Number.isSafeInteger(bid) || bid < 0) return 'a bid is a whole number of dollars, 0 to pass';
  if (bid > cash) return `you have only $${cash}`;
  return null;
}

/** Bidders in seat order starting from the mover. */
export function fromMover(seats: readonly string[], mover: string, bidders: readonly string[]): string[] {
  const at = seats.indexOf(mover);
  const order = [...seats.slice(at), ...seats.slice(0, at)];
  return order.filter((p) => bidders.includes(p));
}

export function settleAuction(d: Draft, square: number, bidders: readonly string[], bids: Readonly<Record<string, number>>): void {
  let winner: string | null = null;
  let best = 0;
  for (const p of fromMover(d.seats, d.mover, bidders)) {
    const bid = bids[p] ?? 0;
    if (bid > best) {
      best = bid;
      winner = p;
    }
  }
  d.log.push({ auction: square, bids: { ...bids }, winner, price: best });
  if (winner === null || !d.players.includes(winner) || deedAt(square) === null) return;
  d.cash[winner]! -= best;
  d.deeds[square] = { owner: winner, houses: 0, mortgaged: false };
}
