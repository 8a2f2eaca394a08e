/**
 * A unit's orders offered (protocol/options.ts) as a menu in groups, for a page to show as one list with
 * headings (docs/spec/web.md §4, "Diplomacy"): hold, moves, moves by convoy, then supports and convoys
 * grouped by the unit they help. The groups keep the offered order; only the headings are added.
 */

/** One heading of a unit's menu and the canonical orders under it. */
export interface MenuGroup {
  readonly label: string;
  readonly orders: readonly string[];
}

const UNIT = String.raw`[AF] [a-z]{3}(?:/[a-z]{2})?`;
const ORDER = new RegExp(String.raw`^${UNIT} (?:(H)|(-) (\S+)( via convoy)?|(S) ([AF] [a-z]{3})(?: - \S+)?|(C) (A [a-z]{3}) - [a-z]{3}|(R) \S+|(D))$`);

/** The heading an order is listed under, or null when the text is not a unit's order (a build, a waive, anything else). */
export function menuGroup(order: string): string | null {
  const m = ORDER.exec(order);
  if (m === null) return null;
  if (m[1] !== undefined) return 'Hold';
  if (m[2] !== undefined) return m[4] === undefined ? 'Move' : 'Move by convoy';
  if (m[5] !== undefined) return `Support ${m[6]!}`;
  if (m[7] !== undefined) return `Convoy ${m[8]!}`;
  if (m[9] !== undefined) return 'Retreat';
  return 'Disband';
}

/**
 * The offered orders in groups, each heading once, in the order its first order comes; null when some
 * value is not a unit's order or there would be a single group, so a page shows the plain list.
 */
export function orderMenu(values: readonly unknown[]): MenuGroup[] | null {
  const groups = new Map<string, string[]>();
  for (const v of values) {
    const label = typeof v === 'string' ? menuGroup(v) : null;
    if (label === null) return null;
    const list = groups.get(label);
    if (list === undefined) groups.set(label, [v as string]);
    else list.push(v as string);
  }
  if (groups.size < 2) return null;
  return [...groups].map(([label, orders]) => ({ label, orders }));
}
