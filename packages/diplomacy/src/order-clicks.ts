/**
 * Orders entered by clicking on the board (docs/spec/diplomacy.md §10.3.3): a small state machine over the orders
 * offered (protocol/options.ts), with no page in it, so that any front end can drive it. Each offered order has
 * one sequence of provinces to click (`orderClicks`): the unit, then where it goes; the unit, the unit it helps,
 * then where that one goes; a home centre to build on. The clicks so far select the offered orders whose sequence
 * begins with them; when one order is left and nothing longer, it is the order; when several end at these clicks
 * (a move by land and by convoy, two coasts, a fleet's support or convoy of the same move), the player chooses from
 * that short list. The machine only ever returns an order of the menu, and every order of the menu has its clicks.
 */
import { FairtableError } from '@fairtable/core/errors.js';

/** The orders offered, per field of the answer (a unit's location, `build 1`, `remove 1`): the one-of values. */
export type ClickMenu = Readonly<Record<string, readonly string[]>>;

/** The provinces clicked so far towards the next order; empty: none yet. */
export type Clicks = readonly string[];

/** Where the clicks stand, and what to do next. */
export interface ClickStep {
  /** The clicks to keep for the next click: empty again once an order is settled or a click started nothing. */
  readonly clicks: Clicks;
  /** The order these clicks settled, or null. */
  readonly order: string | null;
  /** Orders complete at these clicks to choose from (several; or one while further clicks could still go on). */
  readonly choices: readonly string[];
  /** Whether a further click can lead to an order. */
  readonly more: boolean;
  /** What the order being built is, and what to click next, in words. */
  readonly prompt: string;
  /** Why the last click was not taken (the clicks are then as before it), or null. */
  readonly refused: string | null;
}

const COAST_WORD: Readonly<Record<string, string>> = { nc: 'north coast', sc: 'south coast', ec: 'east coast', wc: 'west coast' };

type Parsed =
  | { readonly kind: 'hold' | 'disband'; readonly unit: string; readonly at: string }
  | { readonly kind: 'move'; readonly unit: string; readonly at: string; readonly to: string; readonly via: boolean }
  | { readonly kind: 'retreat'; readonly unit: string; readonly at: string; readonly to: string }
  | { readonly kind: 'support'; readonly unit: string; readonly at: string; readonly target: string; readonly from: string; readonly to: string | null }
  | { readonly kind: 'convoy'; readonly unit: string; readonly at: string; readonly from: string; readonly to: string }
  | { readonly kind: 'build'; readonly type: string; readonly at: string }
  | { readonly kind: 'remove'; readonly unit: string; readonly at: string }
  | { readonly kind: 'waive' };

const LOC = String.raw`[a-z]{3}(?:/[a-z]{2})?`;
const UNIT = String.raw`([AF]) (${LOC})`;
const PATTERNS: readonly [RegExp, (m: RegExpExecArray) => Parsed][] = [
  [new RegExp(`^${UNIT} H$`), (m) => ({ kind: 'hold', unit: m[1]!, at: m[2]! })],
  [new RegExp(`^${UNIT} D$`), (m) => ({ kind: 'disband', unit: m[1]!, at: m[2]! })],
  [new RegExp(`^${UNIT} - (${LOC})( via convoy)?$`), (m) => ({ kind: 'move', unit: m[1]!, at: m[2]!, to: m[3]!, via: m[4] !== undefined })],
  [new RegExp(`^${UNIT} R (${LOC})$`), (m) => ({ kind: 'retreat', unit: m[1]!, at: m[2]!, to: m[3]! })],
  [
    new RegExp(`^${UNIT} S ([AF]) ([a-z]{3})(?: - (${LOC}))?$`),
    (m) => ({ kind: 'support', unit: m[1]!, at: m[2]!, target: m[3]!, from: m[4]!, to: m[5] ?? null }),
  ],
  [new RegExp(`^${UNIT} C A ([a-z]{3}) - ([a-z]{3})$`), (m) => ({ kind: 'convoy', unit: m[1]!, at: m[2]!, from: m[3]!, to: m[4]! })],
  [new RegExp(`^Build ([AF]) (${LOC})$`), (m) => ({ kind: 'build', type: m[1]!, at: m[2]! })],
  [new RegExp(`^Remove ${UNIT}$`), (m) => ({ kind: 'remove', unit: m[1]!, at: m[2]! })],
  [/^Waive$/, () => ({ kind: 'waive' })],
];

function parse(order: string): Parsed | null {
  for (const [re, read] of PATTERNS) {
    const m = re.exec(order);
    if (m !== null) return read(m);
  }
  return null;
}

const provinceOf = (location: string): string => location.split('/')[0]!;

/**
 * The provinces to click for an order, in its canonical text (§10.3.3): a hold or a disband, the unit twice; a move
 * or a retreat, the unit and where it goes; a support, the unit, the unit it supports, and where that one goes (or
 * that unit again, to hold); a convoy, the fleet, the army and where it goes; a build, the centre; a removal, the
 * unit; a waived build, nothing (a button). Null for a text that is not an order.
 */
export function orderClicks(order: string): string[] | null {
  const o = parse(order);
  if (o === null) return null;
  switch (o.kind) {
    case 'hold':
    case 'disband':
      return [provinceOf(o.at), provinceOf(o.at)];
    case 'move':
    case 'retreat':
      return [provinceOf(o.at), provinceOf(o.to)];
    case 'support':
      return [provinceOf(o.at), o.from, o.to === null ? o.from : provinceOf(o.to)];
    case 'convoy':
      return [provinceOf(o.at), o.from, o.to];
    case 'build':
    case 'remove':
      return [provinceOf(o.at)];
    case 'waive':
      return [];
  }
}

const cap = (s: string): string => (s === '' ? s : `${s[0]!.toUpperCase()}${s.slice(1)}`);

/** A location in words: `spa/nc` → `Spa (north coast)`. */
function place(location: string): string {
  const [p, coast] = location.split('/');
  return coast === undefined ? cap(p!) : `${cap(p!)} (${COAST_WORD[coast] ?? coast})`;
}

const unitWords = (letter: string, at: string): string => `${letter} ${place(at)}`;

/** An offered order in words, for the board's line and its choice buttons: `A Lon → Por via convoy`. */
export function orderWords(order: string): string {
  const o = parse(order);
  if (o === null) return order;
  switch (o.kind) {
    case 'hold':
      return `${unitWords(o.unit, o.at)} holds`;
    case 'disband':
      return `${unitWords(o.unit, o.at)} disbands`;
    case 'move':
      return `${unitWords(o.unit, o.at)} → ${place(o.to)}${o.via ? ' via convoy' : o.unit === 'A' ? ' by land' : ''}`;
    case 'retreat':
      return `${unitWords(o.unit, o.at)} retreats → ${place(o.to)}`;
    case 'support':
      return `${unitWords(o.unit, o.at)} supports ${o.target} ${cap(o.from)} ${o.to === null ? 'holding' : `→ ${place(o.to)}`}`;
    case 'convoy':
      return `${unitWords(o.unit, o.at)} convoys A ${cap(o.from)} → ${cap(o.to)}`;
    case 'build':
      return `Build ${o.type === 'A' ? 'an army' : 'a fleet'} in ${place(o.at)}`;
    case 'remove':
      return `Remove ${unitWords(o.unit, o.at)}`;
    case 'waive':
      return 'Waive a build';
  }
}

interface Entry {
  readonly order: string;
  readonly kind: Parsed['kind'];
  readonly clicks: readonly string[];
}

interface Entries {
  readonly all: readonly Entry[];
  /** The entries by their first click. */
  readonly byFirst: ReadonlyMap<string, readonly Entry[]>;
  /** What `candidates` gives before any click, kept: every page's first prompt. */
  start?: Candidates;
}

interface Candidates {
  readonly ending: string[];
  readonly going: Entry[];
  readonly kinds: Set<Parsed['kind']>;
}

const entryCache = new WeakMap<ClickMenu, Entries>();

/** Each distinct offered order with its clicks. */
function entries(menu: ClickMenu): Entries {
  let found = entryCache.get(menu);
  if (found === undefined) {
    const seen = new Set<string>();
    const all: Entry[] = [];
    const byFirst = new Map<string, Entry[]>();
    for (const values of Object.values(menu))
      for (const order of values) {
        if (seen.has(order)) continue;
        seen.add(order);
        const parsed = parse(order);
        const clicks = orderClicks(order);
        if (parsed === null || clicks === null) continue;
        const entry = { order, kind: parsed.kind, clicks };
        all.push(entry);
        const first = clicks[0];
        if (first !== undefined) byFirst.set(first, [...(byFirst.get(first) ?? []), entry]);
      }
    found = { all, byFirst };
    entryCache.set(menu, found);
  }
  return found;
}

const startsWith = (clicks: readonly string[], prefix: Clicks): boolean => prefix.length <= clicks.length && prefix.every((p, i) => clicks[i] === p);

/** The offered orders whose clicks begin with `clicks`: those that end there, and those that go on. */
function candidates(menu: ClickMenu, clicks: Clicks): Candidates {
  const index = entries(menu);
  if (clicks.length === 0 && index.start !== undefined) return index.start;
  const ending: string[] = [];
  const going: Entry[] = [];
  const kinds = new Set<Parsed['kind']>();
  for (const e of clicks.length === 0 ? index.all : (index.byFirst.get(clicks[0]!) ?? [])) {
    if (!startsWith(e.clicks, clicks)) continue;
    kinds.add(e.kind);
    if (e.clicks.length === clicks.length) ending.push(e.order);
    else going.push(e);
  }
  const found = { ending, going, kinds };
  if (clicks.length === 0) index.start = found;
  return found;
}

/** The unit an order is given to, in words (`A Lon`), from any offered order starting at `province`. */
function unitAt(going: readonly Entry[], ending: readonly string[]): string {
  for (const order of [...going.map((e) => e.order), ...ending]) {
    const o = parse(order);
    if (o !== null && o.kind !== 'waive' && o.kind !== 'build') return unitWords(o.unit, o.at);
  }
  return '';
}

const list = (parts: readonly string[]): string => (parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} or ${parts[parts.length - 1]!}`);

/** What the next click does, in words, for the orders still going on after `clicks`. */
function nextWords(clicks: Clicks, going: readonly Entry[]): string {
  const kinds = new Set(going.map((e) => e.kind));
  if (clicks.length === 0) {
    const parts: string[] = [];
    if (kinds.has('hold') || kinds.has('move')) parts.push('one of your units to order it');
    if (kinds.has('retreat') || kinds.has('disband')) parts.push('a dislodged unit of yours to retreat or disband it');
    if (kinds.has('build')) parts.push('a home centre to build there');
    if (kinds.has('remove')) parts.push('a unit of yours to remove it');
    return parts.length === 0 ? '' : `Click ${list(parts)}.`;
  }
  if (clicks.length === 1) {
    const parts: string[] = [];
    if (kinds.has('move')) parts.push('where it moves');
    if (kinds.has('retreat')) parts.push('where it retreats');
    if (kinds.has('hold')) parts.push('itself to hold');
    if (kinds.has('disband')) parts.push('itself to disband');
    if (kinds.has('support')) parts.push('a unit to support');
    if (kinds.has('convoy')) parts.push('an army to convoy');
    return `click ${list(parts)}.`;
  }
  const target = cap(clicks[1]!);
  const parts: string[] = [];
  if (going.some((e) => e.clicks[2] !== clicks[1])) parts.push('where it goes');
  if (going.some((e) => e.clicks[2] === clicks[1])) parts.push(`${target} again to support it holding`);
  return `click ${list(parts)}.`;
}

/** The step at `clicks`, as the page shows it, with `refused` as given. */
function stepAt(menu: ClickMenu, clicks: Clicks, refused: string | null): ClickStep {
  const { ending, going, kinds } = candidates(menu, clicks);
  if (ending.length === 1 && going.length === 0 && clicks.length > 0) {
    const order = ending[0]!;
    return { clicks: [], order, choices: [], more: false, prompt: `${orderWords(order)}.`, refused };
  }
  const more = going.length > 0;
  let prompt: string;
  if (clicks.length === 0) prompt = nextWords(clicks, going);
  else {
    const unit = unitAt(going, ending);
    const verbs: string[] = [];
    if (clicks.length >= 2) {
      if (kinds.has('support')) verbs.push('supports');
      if (kinds.has('convoy')) verbs.push('convoys');
    }
    const head = clicks.length === 1 ? (unit === '' ? place(clicks[0]!) : unit) : `${unit} ${verbs.join(' or ')} the unit in ${cap(clicks[1]!)}`;
    prompt = more ? `${head}: ${nextWords(clicks, going)}` : `${head}:`;
  }
  if (ending.length > 0) prompt = `${prompt}${prompt === '' ? '' : ' '}${more ? 'Or choose' : 'Choose'}: ${ending.map(orderWords).join('; ')}.`;
  return { clicks, order: null, choices: ending, more, prompt, refused };
}

/** Where things stand before any click, or after `clicks` (clicks that reach no offered order are dropped). */
export function clickStart(menu: ClickMenu, clicks: Clicks = []): ClickStep {
  const kept = candidates(menu, clicks).ending.length + candidates(menu, clicks).going.length > 0 ? clicks : [];
  return stepAt(menu, kept, null);
}

/**
 * A click on `province` after `clicks`: it goes on towards the offered orders that continue with it; or, if none
 * does, it starts a new order there (another unit of yours clicked); or it is refused, with the reason, and the
 * clicks stay as they were.
 */
export function clickProvince(menu: ClickMenu, clicks: Clicks, province: string): ClickStep {
  const next = [...clicks, province];
  const { ending, going } = candidates(menu, next);
  if (ending.length + going.length > 0) return stepAt(menu, next, null);
  if (clicks.length > 0) {
    const fresh = candidates(menu, [province]);
    if (fresh.ending.length + fresh.going.length > 0) return stepAt(menu, [province], null);
  }
  const before = stepAt(menu, clicks, null);
  const what = clicks.length === 0 ? 'No order of yours starts' : `${unitAt(candidates(menu, clicks).going, before.choices)} has no order that goes on`;
  return { ...before, refused: `${what} with ${place(province)}.` };
}

/** The choice of `order` among the step's choices at `clicks`; an order not among them is refused (`bad_order`). */
export function clickChoose(menu: ClickMenu, clicks: Clicks, order: string): ClickStep {
  if (!candidates(menu, clicks).ending.includes(order))
    throw new FairtableError('bad_order', `"${order}" is not one of the orders the clicks so far lead to`, { field: 'order' });
  return { clicks: [], order, choices: [], more: false, prompt: `${orderWords(order)}.`, refused: null };
}

/**
 * The answer with `order` put in its field (§10.3.3): a unit's order in the unit's field; a build or a removal, which
 * several fields offer, in place of one on the same province, else in the first field not yet holding a distinct
 * order of its own (a waived build, or the same order as a field before it), else in the last. Other members (a
 * vote) are kept. An order no field offers is refused (`bad_order`).
 */
export function placeOrder<T>(menu: ClickMenu, answer: Readonly<Record<string, T | string>>, order: string): Record<string, T | string> {
  const homes = Object.keys(menu).filter((k) => menu[k]!.includes(order));
  if (homes.length === 0) throw new FairtableError('bad_order', `"${order}" is not offered`, { field: 'order' });
  if (homes.some((k) => answer[k] === order)) return { ...answer };
  const province = orderClicks(order)?.[0];
  const sameProvince = homes.find((k) => {
    const v = answer[k];
    return typeof v === 'string' && v !== 'Waive' && orderClicks(v)?.[0] === province;
  });
  let field = sameProvince;
  if (field === undefined) {
    const used = new Set<string>();
    for (const k of homes) {
      const v = answer[k];
      if (typeof v !== 'string' || v === 'Waive' || used.has(v) || !menu[k]!.includes(v)) {
        field = k;
        break;
      }
      used.add(v);
    }
  }
  return { ...answer, [field ?? homes[homes.length - 1]!]: order };
}

/**
 * For an army's move by convoy, the convoy orders of fleets offered in other fields that match it and are not yet
 * given (the power's own fleets that could carry it), for the page to offer in one step.
 */
export function convoyFollowUps<T>(menu: ClickMenu, answer: Readonly<Record<string, T | string>>, order: string): string[] {
  const o = parse(order);
  if (o === null || o.kind !== 'move' || !o.via) return [];
  const wanted = `C A ${provinceOf(o.at)} - ${o.to}`;
  const out: string[] = [];
  for (const [k, values] of Object.entries(menu)) for (const v of values) if (v.endsWith(wanted) && answer[k] !== v && parse(v)?.kind === 'convoy') out.push(v);
  return out;
}
