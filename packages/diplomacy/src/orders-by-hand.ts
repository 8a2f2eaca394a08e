/**
 * A person's orders file for one phase, read against the choices a seat can commit to
 * (docs/spec/diplomacy-by-hand.md), and the position described as text for the person writing it.
 *
 * The file is seed 003's: one order a line in the usual notation (`A Par-Bur`, `F Bre-MAO`,
 * `A Mar S A Par-Bur`), blank lines and `#` comments skipped. Each line goes through the order parser
 * and `checkOrders`, under the game's typo rule, and must then be one of the canonical orders the
 * phase's decision offers for that unit (options.ts): the seat commits to exactly those. A line that
 * fails is a problem naming its line; a unit, retreat, build or removal the file leaves out takes the
 * default: hold, disband, waive, and for removals the ones civil disorder would make.
 */
import { checkOrders } from './adjudicate.js';
import { provinceOf, type GameMap } from './map.js';
import { formatOrder, parseOrder } from './orders.js';
import type { Position, Unit } from './position.js';
import { orderChoices } from './protocol/options.js';

/** How a wrong unit letter is read (the game's `typos` parameter, §10.1). */
export type OrdersFileTypos = 'ignore-unit-letter' | 'strict';

export interface OrdersFileProblem {
  /** 1-based line of the file. */
  readonly line: number;
  readonly text: string;
  /** bad_order | unknown_province (the parser), illegal_order (the rules or the game's choices), too_many_orders. */
  readonly code: string;
  readonly message: string;
}

export interface OrdersFileReading {
  /**
   * One canonical order per field of the phase's choices: the decision's answer. Always complete:
   * a field whose line had a problem, or that no line named, has its default.
   */
  readonly answer: Record<string, string>;
  readonly problems: readonly OrdersFileProblem[];
  /** Lines read other than as written, under the typo rule (a wrong unit letter ignored). */
  readonly notes: readonly { readonly line: number; readonly text: string; readonly message: string }[];
  /** Fields no good line named, with the default they take. */
  readonly defaulted: readonly { readonly field: string; readonly order: string }[];
}

type Fields = Readonly<Record<string, { readonly values: readonly string[] }>>;

function fieldsOf(map: GameMap, position: Position, power: string): Fields {
  const fields: Record<string, { values: string[] }> = {};
  for (const [name, f] of Object.entries(orderChoices(map, position, power).fields))
    if (f.type === 'one-of') fields[name] = { values: f.values.filter((v): v is string => typeof v === 'string') };
  return fields;
}

/** The units civil disorder removes first (§3.7): furthest from home, fleets before armies, then by name. */
function disorderOrder(map: GameMap, power: string, units: readonly Unit[]): Unit[] {
  const name = (u: Unit): string => (map.province(provinceOf(u.at))?.name ?? u.at).toLowerCase();
  return units
    .filter((u) => u.power === power)
    .map((u) => ({ u, d: map.distanceHome(power, u.type, u.at), n: name(u) }))
    .sort((a, b) => b.d - a.d || (a.u.type === b.u.type ? 0 : a.u.type === 'fleet' ? -1 : 1) || (a.n < b.n ? -1 : a.n > b.n ? 1 : 0))
    .map((x) => x.u);
}

/**
 * The defaults for every field not in `given`: hold (movement), disband (retreat), waive (build), and the
 * removals civil disorder would make, skipping units `given` already removes.
 */
export function defaultOrders(map: GameMap, position: Position, power: string, given: Readonly<Record<string, string>> = {}): Record<string, string> {
  const fields = fieldsOf(map, position, power);
  const answer: Record<string, string> = { ...given };
  const removing = new Set(Object.values(given));
  const disorder = disorderOrder(map, power, position.units).map((u) => formatOrder({ kind: 'remove', unit: u.type, at: u.at }));
  for (const [name, f] of Object.entries(fields)) {
    if (answer[name] !== undefined) continue;
    if (name.startsWith('remove ')) {
      const pick = disorder.find((o) => !removing.has(o) && f.values.includes(o)) ?? f.values[0]!;
      removing.add(pick);
      answer[name] = pick;
    } else answer[name] = f.values[0]!;
  }
  return answer;
}

/** Other spellings of a canonical order that the choices may hold: a convoy route named, a supported fleet's coast dropped. */
function candidates(order: string): string[] {
  const out = [order, `${order} via convoy`];
  const support = / S ([AF] )?([a-z]+) - ([a-z]+)\/[a-z]{2}$/.exec(order);
  if (support !== null) out.push(order.replace(/\/[a-z]{2}$/, ''));
  return out;
}

/**
 * Reads an orders file for `power` in `position`'s phase. Never throws for what the file says: every
 * line that cannot be committed is a problem naming its line, and its unit keeps the default.
 */
export function readOrdersFile(text: string, map: GameMap, position: Position, power: string, typos: OrdersFileTypos): OrdersFileReading {
  const fields = fieldsOf(map, position, power);
  const given: Record<string, string> = {};
  const problems: OrdersFileProblem[] = [];
  const notes: { line: number; text: string; message: string }[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    const order = raw.replace(/#.*$/, '').trim();
    if (order === '') return;
    const problem = (code: string, message: string): void => void problems.push({ line, text: order, code, message });
    const [checked] = checkOrders(map, position, power, [order], { strictUnitType: typos === 'strict' });
    if (checked === undefined || checked.error !== null || checked.order === null) {
      const error = checked?.error ?? { code: 'bad_order', message: 'not an order' };
      return problem(error.code, error.message);
    }
    const canonical = checked.order;
    if (canonical.startsWith('Build ')) {
      const at = provinceOf(canonical.split(' ')[2]!);
      if (Object.values(given).some((o) => o.startsWith('Build ') && provinceOf(o.split(' ')[2]!) === at))
        return problem('illegal_order', `${canonical}: ${power} already builds in ${at}`);
    }
    if (canonical.startsWith('Remove ') && Object.values(given).includes(canonical)) return problem('illegal_order', `${canonical}: the same removal twice`);
    const free = Object.entries(fields).filter(([name]) => given[name] === undefined);
    const all = Object.entries(fields);
    const found = candidates(canonical)
      .map((c) => ({ c, field: free.find(([, f]) => f.values.includes(c))?.[0] }))
      .find((x) => x.field !== undefined);
    if (found === undefined) {
      const taken = candidates(canonical).some((c) => all.some(([name, f]) => given[name] !== undefined && f.values.includes(c)));
      if (taken) {
        const kind = position.phase.type === 'adjustment' ? (canonical === 'Waive' || canonical.startsWith('Build') ? 'builds' : 'removals') : 'orders';
        return problem(
          position.phase.type === 'adjustment' ? 'too_many_orders' : 'illegal_order',
          position.phase.type === 'adjustment'
            ? `${power} has no more ${kind} due: "${canonical}" is one too many`
            : `${canonical}: that unit already has an order`,
        );
      }
      return problem('illegal_order', `"${canonical}" is not among the orders ${power} can give this phase`);
    }
    // A wrong unit letter that the typo rule ignores: said, so the writer sees how the line was read.
    try {
      const parsed = parseOrder(order, map, position.phase.type);
      const written = parsed.kind === 'waive' || parsed.kind === 'build' ? null : parsed.unit;
      const actual = found.c.startsWith('A ') || found.c.startsWith('Remove A ') ? 'army' : 'fleet';
      if (written !== null && written !== actual)
        notes.push({ line, text: order, message: `the unit is ${actual === 'army' ? 'an army' : 'a fleet'}: read as "${found.c}" (typo rule ${typos})` });
    } catch {
      // checkOrders parsed it already; nothing else to say.
    }
    given[found.field!] = found.c;
  });
  const answer = defaultOrders(map, position, power, given);
  const defaulted = Object.keys(fields)
    .filter((name) => given[name] === undefined)
    .map((field) => ({ field, order: answer[field]! }));
  return { answer, problems, notes, defaulted };
}

/** An orders file of the answer, one canonical order a line, in field order. */
export function formatOrdersFile(answer: Readonly<Record<string, string>>): string {
  return Object.values(answer).join('\n') + (Object.keys(answer).length > 0 ? '\n' : '');
}

const letter = (u: Unit): string => (u.type === 'army' ? 'A' : 'F');
const SEASON = { spring: 'Spring', fall: 'Fall' } as const;

/** The phase's name in words: "Spring 1901 movement", "Winter 1901 adjustments". */
export function phaseWords(position: Position): string {
  const { season, year, type } = position.phase;
  if (type === 'adjustment') return `Winter ${year} adjustments`;
  return `${SEASON[season]} ${year} ${type === 'movement' ? 'movement' : 'retreats'}`;
}

/**
 * The position as text for a person: units and supply centres per power, dislodged units with where each
 * may retreat, and the builds or removals due. `power`, when given, is marked in the lists.
 */
export function describePosition(map: GameMap, position: Position, power?: string): string {
  const out: string[] = [phaseWords(position)];
  const mark = (p: string): string => (p === power ? `${p} (you)` : p);
  out.push('Units:');
  for (const p of map.powers) {
    const units = position.units.filter((u) => u.power === p);
    if (units.length > 0) out.push(`  ${mark(p)}: ${units.map((u) => `${letter(u)} ${u.at}`).join(', ')}`);
  }
  out.push('Supply centres:');
  for (const p of map.powers) {
    const owned = position.supplyCenterOwners.filter((o) => o.power === p).map((o) => o.at);
    if (owned.length > 0) out.push(`  ${mark(p)} ${owned.length}: ${owned.join(' ')}`);
  }
  if (position.dislodged.length > 0) {
    out.push('Dislodged:');
    for (const d of position.dislodged) {
      const options = (fieldsOf(map, position, d.power)[d.at]?.values ?? []).filter((o) => o.includes(' R ')).map((o) => o.split(' R ')[1]!);
      out.push(
        `  ${mark(d.power)}: ${letter(d)} ${d.at}${d.attackerFrom === null ? '' : ` (attacked from ${d.attackerFrom})`}: ${options.length === 0 ? 'must disband' : `retreats to ${options.join(', ')} or disbands`}`,
      );
    }
  }
  if (position.phase.type === 'adjustment') {
    out.push('Adjustments:');
    for (const p of map.powers) {
      const centres = position.supplyCenterOwners.filter((o) => o.power === p).length;
      const units = position.units.filter((u) => u.power === p).length;
      if (centres === units) continue;
      out.push(`  ${mark(p)}: ${centres} centres, ${units} units: ${centres > units ? `${centres - units} build(s)` : `${units - centres} removal(s)`}`);
    }
  }
  return out.join('\n');
}

/** The orders `power` may give, one line per unit (or build, removal), for a person choosing them. */
export function describeChoices(map: GameMap, position: Position, power: string): string {
  const fields = fieldsOf(map, position, power);
  const names = Object.keys(fields);
  if (names.length === 0) return `${power} has nothing to order in this phase.`;
  return names.map((name) => `  ${name}: ${fields[name]!.values.join(' | ')}`).join('\n');
}
