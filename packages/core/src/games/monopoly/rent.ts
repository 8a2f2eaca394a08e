/**
 * Rent (docs/spec/monopoly.md §3): streets (doubled on an unimproved street
 * whose whole colour group one player owns, mortgaged streets of the group
 * included), houses and hotels, railroads by how many the owner holds, and
 * utilities at 4 or 10 times the dice. A mortgaged deed collects nothing.
 * The two cards that send a player to the nearest railroad or utility change
 * the rent: twice a railroad's, or ten times a fresh throw of the dice.
 */
import { deedAt, groupSquares, RAILROAD_RENT, RAILROADS, UTILITIES, type Group } from './board.js';
import type { Holding } from './state.js';

type Deeds = Readonly<Record<string, Holding>>;

export function ownsGroup(deeds: Deeds, player: string, group: Group): boolean {
  return groupSquares(group).every((q) => deeds[q]?.owner === player);
}

/** Rent special to a card: 'double' for the nearest railroad, 'ten' (times the dice) for the nearest utility. */
export type RentCase = 'normal' | 'double' | 'ten';

export function rentFor(deeds: Deeds, square: number, diceSum: number, rentCase: RentCase = 'normal'): number {
  const deed = deedAt(square);
  const h = deeds[square];
  if (deed === null || h === undefined || h.mortgaged) return 0;
  switch (deed.kind) {
    case 'street':
      if (h.houses > 0) return deed.rents[h.houses]!;
      return deed.rents[0] * (ownsGroup(deeds, h.owner, deed.group) ? 2 : 1);
    case 'railroad': {
      const count = RAILROADS.filter((q) => deeds[q]?.owner === h.owner).length;
      return RAILROAD_RENT[count]! * (rentCase === 'double' ? 2 : 1);
    }
    case 'utility': {
      const count = UTILITIES.filter((q) => deeds[q]?.owner === h.owner).length;
      return diceSum * (rentCase === 'ten' || count === 2 ? 10 : 4);
    }
  }
}
