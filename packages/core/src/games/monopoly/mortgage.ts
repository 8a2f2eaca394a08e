/**
 * Mortgages (docs/spec/monopoly.md §5): a deed with no building on its colour
 * group is mortgaged to the bank for half its price; lifting the mortgage
 * costs that plus 10% interest, rounded up to whole dollars. A mortgaged deed
 * collects no rent but still counts for its owner's colour group and railroads.
 */
import { deedAt, mortgageValue, unmortgageCost } from './board.js';
import { groupBuilt } from './building.js';
import type { Draft, MonopolyState } from './state.js';

type View = Pick<MonopolyState, 'deeds' | 'cash'>;

export function whyNotMortgage(s: View, player: string, square: number): string | null {
  const h = s.deeds[square];
  if (h === undefined || h.owner !== player) return 'you can mortgage only a deed you own';
  if (h.mortgaged) return 'it is already mortgaged';
  if (groupBuilt(s, square)) return 'sell the buildings of its colour group first';
  return null;
}

export function mortgage(d: Draft, player: string, square: number): void {
  d.deeds[square] = { ...d.deeds[square]!, mortgaged: true };
  d.cash[player]! += mortgageValue(deedAt(square)!);
}

export function whyNotUnmortgage(s: View, player: string, square: number): string | null {
  const h = s.deeds[square];
  if (h === undefined || h.owner !== player || !h.mortgaged) return 'you have no mortgage on it';
  const cost = unmortgageCost(deedAt(square)!);
  if ((s.cash[player] ?? 0) < cost) return `lifting the mortgage costs $${cost}`;
  return null;
}

export function unmortgage(d: Draft, player: string, square: number): void {
  d.deeds[square] = { ...d.deeds[square]!, mortgaged: false };
  d.cash[player]! -= unmortgageCost(deedAt(square)!);
}
