/**
 * Trades (docs/spec/monopoly.md §9): in its turn the mover may offer another
 * player deeds, cash and Get Out of Jail Free cards for deeds, cash and cards
 * of the other's; the other accepts or declines (declining is the default).
 * No deed of a colour group with buildings may change hands; a player who
 * receives a mortgaged deed pays the bank 10% interest on it at once, and the
 * deed stays mortgaged. An offer is checked when made and again when
 * accepted. An offer of nothing for nothing is withdrawn at once.
 */
import { deedAt, interestOf } from './board.js';
import { groupBuilt } from './building.js';
import { giveCard, takeCard } from './cards.js';
import { oweBank } from './money.js';
import type { Draft, MonopolyState, Offer, Pile, TradeSide } from './state.js';

function sideProblem(s: MonopolyState, player: string, side: unknown, what: string): string | null {
  if (side === null || typeof side !== 'object' || Array.isArray(side)) return `${what}: expected {squares, cash, cards}`;
  const { squares, cash, cards } = side as Record<string, unknown>;
  if (!Array.isArray(squares) || !Array.isArray(cards) || typeof cash !== 'number') return `${what}: expected {squares, cash, cards}`;
  if (!Number.isSafeInteger(cash) || cash < 0 || cash > (s.cash[player] ?? 0)) return `${what}: cash must be from 0 to $${s.cash[player] ?? 0}`;
  if (new Set(squares).size !== squares.length) return `${what}: a square twice`;
  for (const q of squares) {
    if (typeof q !== 'number' || deedAt(q) === null || s.deeds[q]?.owner !== player) return `${what}: ${player} does not own square ${String(q)}`;
    if (groupBuilt(s, q)) return `${what}: square ${q}'s colour group has buildings`;
  }
  const held = [...(s.cards[player] ?? [])];
  for (const c of cards) {
    const at = held.indexOf(c as Pile);
    if (at < 0) return `${what}: ${player} holds no such card ${JSON.stringify(c)}`;
    held.splice(at, 1);
  }
  return null;
}

export function whyNotOffer(s: MonopolyState, offer: Offer): string | null {
  if (!s.players.includes(offer.to) || offer.to === offer.from) return 'offer a trade to another player still in the game';
  const problem = sideProblem(s, offer.from, offer.give, 'give') ?? sideProblem(s, offer.to, offer.get, 'get');
  if (problem !== null) return problem;
  return null;
}

/** An offer of nothing for nothing is withdrawn at once: nobody is asked (it still counts as an offer). */
export function isEmptyOffer(offer: Offer): boolean {
  const empty = (t: TradeSide): boolean => t.squares.length === 0 && t.cash === 0 && t.cards.length === 0;
  return empty(offer.give) && empty(offer.get);
}

function hand(d: Draft, from: string, to: string, side: TradeSide): void {
  d.cash[from]! -= side.cash;
  d.cash[to]! += side.cash;
  for (const q of side.squares) {
    const h = d.deeds[q]!;
    d.deeds[q] = { ...h, owner: to };
    if (h.mortgaged) oweBank(d, to, interestOf(deedAt(q)!), `interest on ${q}`);
  }
  for (const c of side.cards) {
    takeCard(d, from, c);
    giveCard(d, to, c);
  }
}

export function carryOut(d: Draft, offer: Offer): void {
  hand(d, offer.from, offer.to, offer.give);
  hand(d, offer.to, offer.from, offer.get);
  d.log.push({ trade: offer as never });
}
