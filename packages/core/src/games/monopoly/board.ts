/**
 * Monopoly's board as data (docs/spec/monopoly.md §1): the 40 squares of the
 * standard (Atlantic City) board, prices, rents, building costs and colour
 * groups. Nothing here changes during a game.
 */

export type Group = 'brown' | 'light-blue' | 'pink' | 'orange' | 'red' | 'yellow' | 'green' | 'dark-blue' | 'railroad' | 'utility';

export interface Street {
  readonly kind: 'street';
  readonly name: string;
  readonly group: Group;
  readonly price: number;
  /** Rent with 0, 1, 2, 3, 4 houses and with a hotel (index 5). */
  readonly rents: readonly [number, number, number, number, number, number];
  readonly house: number;
}
export interface Railroad {
  readonly kind: 'railroad';
  readonly name: string;
  readonly group: 'railroad';
  readonly price: 200;
}
export interface Utility {
  readonly kind: 'utility';
  readonly name: string;
  readonly group: 'utility';
  readonly price: 150;
}
export type Deed = Street | Railroad | Utility;
export type Square =
  | Deed
  | { readonly kind: 'go' | 'jail' | 'free-parking' | 'go-to-jail'; readonly name: string }
  | { readonly kind: 'chance' | 'chest'; readonly name: string }
  | { readonly kind: 'tax'; readonly name: string; readonly amount: number };

const street = (name: string, group: Group, price: number, house: number, rents: Street['rents']): Street => ({
  kind: 'street',
  name,
  group,
  price,
  rents,
  house,
});
const railroad = (name: string): Railroad => ({ kind: 'railroad', name, group: 'railroad', price: 200 });
const utility = (name: string): Utility => ({ kind: 'utility', name, group: 'utility', price: 150 });

export const BOARD: readonly Square[] = [
  { kind: 'go', name: 'Go' },
  street('Mediterranean Avenue', 'brown', 60, 50, [2, 10, 30, 90, 160, 250]),
  { kind: 'chest', name: 'Community Chest' },
  street('Baltic Avenue', 'brown', 60, 50, [4, 20, 60, 180, 320, 450]),
  { kind: 'tax', name: 'Income Tax', amount: 200 },
  railroad('Reading Railroad'),
  street('Oriental Avenue', 'light-blue', 100, 50, [6, 30, 90, 270, 400, 550]),
  { kind: 'chance', name: 'Chance' },
  street('Vermont Avenue', 'light-blue', 100, 50, [6, 30, 90, 270, 400, 550]),
  street('Connecticut Avenue', 'light-blue', 120, 50, [8, 40, 100, 300, 450, 600]),
  { kind: 'jail', name: 'Jail' },
  street('St. Charles Place', 'pink', 140, 100, [10, 50, 150, 450, 625, 750]),
  utility('Electric Company'),
  street('States Avenue', 'pink', 140, 100, [10, 50, 150, 450, 625, 750]),
  street('Virginia Avenue', 'pink', 160, 100, [12, 60, 180, 500, 700, 900]),
  railroad('Pennsylvania Railroad'),
  street('St. James Place', 'orange', 180, 100, [14, 70, 200, 550, 750, 950]),
  { kind: 'chest', name: 'Community Chest' },
  street('Tennessee Avenue', 'orange', 180, 100, [14, 70, 200, 550, 750, 950]),
  street('New York Avenue', 'orange', 200, 100, [16, 80, 220, 600, 800, 1000]),
  { kind: 'free-parking', name: 'Free Parking' },
  street('Kentucky Avenue', 'red', 220, 150, [18, 90, 250, 700, 875, 1050]),
  { kind: 'chance', name: 'Chance' },
  street('Indiana Avenue', 'red', 220, 150, [18, 90, 250, 700, 875, 1050]),
  street('Illinois Avenue', 'red', 240, 150, [20, 100, 300, 750, 925, 1100]),
  railroad('B. & O. Railroad'),
  street('Atlantic Avenue', 'yellow', 260, 150, [22, 110, 330, 800, 975, 1150]),
  street('Ventnor Avenue', 'yellow', 260, 150, [22, 110, 330, 800, 975, 1150]),
  utility('Water Works'),
  street('Marvin Gardens', 'yellow', 280, 150, [24, 120, 360, 850, 1025, 1200]),
  { kind: 'go-to-jail', name: 'Go to Jail' },
  street('Pacific Avenue', 'green', 300, 200, [26, 130, 390, 900, 1100, 1275]),
  street('North Carolina Avenue', 'green', 300, 200, [26, 130, 390, 900, 1100, 1275]),
  { kind: 'chest', name: 'Community Chest' },
  street('Pennsylvania Avenue', 'green', 320, 200, [28, 150, 450, 1000, 1200, 1400]),
  railroad('Short Line'),
  { kind: 'chance', name: 'Chance' },
  street('Park Place', 'dark-blue', 350, 200, [35, 175, 500, 1100, 1300, 1500]),
  { kind: 'tax', name: 'Luxury Tax', amount: 100 },
  street('Boardwalk', 'dark-blue', 400, 200, [50, 200, 600, 1400, 1700, 2000]),
];

export const GO = 0;
export const JAIL = 10;
export const FREE_PARKING = 20;
export const GO_TO_JAIL = 30;
export const RAILROADS: readonly number[] = [5, 15, 25, 35];
export const UTILITIES: readonly number[] = [12, 28];
export const RAILROAD_RENT: readonly number[] = [0, 25, 50, 100, 200];
/** A hotel stands where five buildings would: `houses === HOTEL` means a hotel. */
export const HOTEL = 5;

export function deedAt(square: number): Deed | null {
  const s = BOARD[square];
  return s !== undefined && (s.kind === 'street' || s.kind === 'railroad' || s.kind === 'utility') ? s : null;
}

/** Every square of a colour group (or of the railroads, or utilities), in board order. */
export function groupSquares(group: Group): number[] {
  const out: number[] = [];
  BOARD.forEach((s, i) => {
    if ((s.kind === 'street' || s.kind === 'railroad' || s.kind === 'utility') && s.group === group) out.push(i);
  });
  return out;
}

export const DEED_SQUARES: readonly number[] = BOARD.flatMap((s, i) => (deedAt(i) === null ? [] : [i]));

export const mortgageValue = (deed: Deed): number => deed.price / 2;
/** Lifting a mortgage costs its value plus 10% interest, rounded up to whole dollars. */
export const unmortgageCost = (deed: Deed): number => mortgageValue(deed) + Math.ceil(mortgageValue(deed) / 10);
export const interestOf = (deed: Deed): number => Math.ceil(mortgageValue(deed) / 10);

export function squareName(square: number): string {
  return BOARD[square]?.name ?? `square ${square}`;
}
