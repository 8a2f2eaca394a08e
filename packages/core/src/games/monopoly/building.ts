/**
 * Houses and hotels (docs/spec/monopoly.md §4): built evenly on a whole,
 * unmortgaged colour group, from the bank's stock (32 houses and 12 hotels by
 * default: when the bank has none, nobody builds), sold back evenly at half
 * their cost. A hotel replaces four houses, which go back to the bank; selling
 * a hotel takes four houses from the bank to stand in its place, and when the
 * bank has fewer, the square keeps as many as the bank has and the rest are
 * sold too.
 */
import { deedAt, groupSquares, HOTEL, type Street } from './board.js';
import { ownsGroup } from './rent.js';
import type { Draft, MonopolyState } from './state.js';

type View = Pick<MonopolyState, 'deeds' | 'bank' | 'cash'>;

function street(square: number): Street | null {
  const d = deedAt(square);
  return d !== null && d.kind === 'street' ? d : null;
}

const housesOn = (s: View, square: number): number => s.deeds[square]?.houses ?? 0;

/** Why `player` may not build on `square` now, or null when it may. */
export function whyNotBuild(s: View, player: string, square: number): string | null {
  const deed = street(square);
  const h = s.deeds[square];
  if (deed === null || h === undefined || h.owner !== player) return 'you can build only on a street you own';
  if (!ownsGroup(s.deeds, player, deed.group)) return 'you must own the whole colour group';
  const group = groupSquares(deed.group);
  if (group.some((q) => s.deeds[q]!.mortgaged)) return 'no street of the group may be mortgaged';
  if (h.houses >= HOTEL) return 'the street has a hotel';
  if (h.houses > Math.min(...group.map((q) => housesOn(s, q)))) return 'build evenly: another street of the group has fewer buildings';
  if ((s.cash[player] ?? 0) < deed.house) return `a building costs $${deed.house}`;
  if (h.houses === 4 ? s.bank.hotels < 1 : s.bank.houses < 1) return h.houses === 4 ? 'the bank has no hotel left' : 'the bank has no house left';
  return null;
}

export function build(d: Draft, player: string, square: number): void {
  const deed = street(square)!;
  const h = d.deeds[square]!;
  d.cash[player]! -= deed.house;
  if (h.houses === 4) {
    d.bank = { houses: d.bank.houses + 4, hotels: d.bank.hotels - 1 };
  } else {
    d.bank = { ...d.bank, houses: d.bank.houses - 1 };
  }
  d.deeds[square] = { ...h, houses: h.houses + 1 };
}

export function whyNotSell(s: View, player: string, square: number): string | null {
  const deed = street(square);
  const h = s.deeds[square];
  if (deed === null || h === undefined || h.owner !== player || h.houses === 0) return 'you have no building there';
  const group = groupSquares(deed.group);
  if (h.houses < Math.max(...group.map((q) => housesOn(s, q)))) return 'sell evenly: another street of the group has more buildings';
  return null;
}

/** Sells one building back to the bank at half its cost; returns the money received. */
export function sell(d: Draft, player: string, square: number): number {
  const deed = street(square)!;
  const h = d.deeds[square]!;
  const half = deed.house / 2;
  let paid: number;
  if (h.houses === HOTEL) {
    const stand = Math.min(4, d.bank.houses);
    d.bank = { houses: d.bank.houses - stand, hotels: d.bank.hotels + 1 };
    d.deeds[square] = { ...h, houses: stand };
    paid = half * (1 + 4 - stand);
  } else {
    d.bank = { ...d.bank, houses: d.bank.houses + 1 };
    d.deeds[square] = { ...h, houses: h.houses - 1 };
    paid = half;
  }
  d.cash[player]! += paid;
  return paid;
}

/** Buildings on a player's streets, for repairs and net worth. */
export function buildingsOf(s: Pick<MonopolyState, 'deeds'>, player: string): { houses: number; hotels: number } {
  let houses = 0;
  let hotels = 0;
  for (const h of Object.values(s.deeds)) {
    if (h.owner !== player) continue;
    if (h.houses === HOTEL) hotels++;
    else houses += h.houses;
  }
  return { houses, hotels };
}

/** Whether any street of the square's group carries a building (mortgages and trades need none). */
export function groupBuilt(s: Pick<MonopolyState, 'deeds'>, square: number): boolean {
  const deed = deedAt(square);
  if (deed === null || deed.kind !== 'street') return false;
  return groupSquares(deed.group).some((q) => housesOn(s as View, q) > 0);
}
