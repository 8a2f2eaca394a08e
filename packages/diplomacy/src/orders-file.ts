/**
 * Orders files as people write them, and a position as text (docs/spec/mail.md §11; docs/spec/diplomacy.md
 * §10.3). `readOrdersFile` reads a power's orders for one phase, one order a line in the usual notation
 * (`A Par-Bur`, `F Bre-MAO`, `A Mun S A Par-Bur`, `Build A Par`, `Remove F Kie`, `Waive`), and turns it into
 * the answer the `diplomacy` machine's orders decision takes (a canonical order per unit, build or removal),
 * or throws a coded error naming the line at fault. `positionText` and `legalOrdersText` write what a player
 * needs to write that file: the units, the centres, the phase, and every order the decision offers. Any
 * front end that takes orders from a person (mail, a relay seat) shares these; nothing here knows how the
 * orders travel.
 */
import { FairtableError, type ErrorCode } from '@fairtable/core/errors.js';
import { checkOrders } from './adjudicate.js';
import { provinceOf, type GameMap } from './map.js';
import { formatOrder, parseOrder, type Order } from './orders.js';
import type { Position } from './position.js';
import type { TypoRule } from './protocol/machine.js';
import { orderChoices } from './protocol/options.js';

export interface OrdersFile {
  /** The answer to the orders decision: one canonical order per field (unit, build or removal). */
  readonly choice: Record<string, string>;
  /** The orders as they will be committed, one a line. */
  readonly orders: readonly string[];
  /** What was read differently from what was written, or left to the defaults, in plain words. */
  readonly notes: readonly string[];
}

/** `spring 1901 movement`, `fall 1901 retreat`, `winter 1901 adjustment`. */
export function phaseName(position: Position): string {
  const { season, year, type } = position.phase;
  return `${type === 'adjustment' ? 'winter' : season} ${year} ${type}`;
}

const UNIT_LETTER = { army: 'A', fleet: 'F' } as const;

function lineError(code: ErrorCode, n: number, text: string, message: string): FairtableError {
  return new FairtableError(code, `line ${n}: "${text}": ${message}`, { field: `line ${n}` });
}

/** The codes `checkOrders` gives, as thrown error codes. */
function codeOf(code: string): ErrorCode {
  return code === 'bad_order' || code === 'unknown_province' ? code : 'illegal_order';
}

/**
 * Reads `power`'s orders file for `position`'s phase. Blank lines and lines starting with `#` are skipped.
 * A unit (or dislodged unit) with no order takes the rules' default (hold; disband); builds not written are
 * waived. Each line must be an order `checkOrders` accepts under the game's typo rule and one the decision
 * offers; a second order for one unit, more builds than due, or removals other than exactly those due are
 * refused. Under `ignore-unit-letter` a wrong unit letter is corrected (and said in the notes); under
 * `strict` the machine would void the order, so the file is refused at that line instead.
 */
export function readOrdersFile(map: GameMap, position: Position, power: string, text: string, typos: TypoRule = 'ignore-unit-letter'): OrdersFile {
  const fields = offered(map, position, power);
  const keys = Object.keys(fields);
  const lines: { n: number; text: string }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const t = raw.trim();
    if (t !== '' && !t.startsWith('#')) lines.push({ n: i + 1, text: t });
  });
  const checked = checkOrders(
    map,
    position,
    power,
    lines.map((l) => l.text),
    { strictUnitType: typos === 'strict' },
  );
  const choice: Record<string, string> = {};
  const notes: string[] = [];
  const type = position.phase.type;
  const builds: string[] = [];
  const removals: { n: number; text: string; order: string }[] = [];
  checked.forEach((c, i) => {
    const { n, text: written } = lines[i]!;
    if (c.error !== null || c.order === null) throw lineError(codeOf(c.error?.code ?? 'bad_order'), n, written, c.error?.message ?? 'not an order');
    const order = c.order;
    const parsed: Order = parseOrder(written, map, type);
    if (parsed.kind !== 'waive' && parsed.kind !== 'build') {
      const canonical = parseOrder(order, map, type);
      const wrongUnit = canonical.kind !== 'waive' && parsed.unit !== null && canonical.unit !== null && canonical.unit !== parsed.unit;
      const wrongTarget = parsed.kind === 'support' && canonical.kind === 'support' && parsed.target !== null && parsed.target !== canonical.target;
      if (wrongUnit || wrongTarget) notes.push(`line ${n}: "${written}" read as "${order}" (this game ignores unit letters)`);
    }
    if (type === 'adjustment') {
      if (parsed.kind === 'remove') removals.push({ n, text: written, order });
      else {
        if (parsed.kind === 'build' && builds.some((b) => b !== 'waive' && provinceOf(parseAt(b, map)) === provinceOf(parsed.at)))
          throw lineError('illegal_order', n, written, `a second build in ${provinceOf(parsed.at)}`);
        builds.push(parsed.kind === 'waive' ? 'waive' : order);
        const due = keys.filter((k) => k.startsWith('build ')).length;
        if (builds.length > due)
          throw lineError(
            'illegal_order',
            n,
            written,
            due === 0 ? `${power} has no build due this winter` : `${power} has ${due} build${due === 1 ? '' : 's'} due, and this is one more`,
          );
        const field = `build ${builds.length}`;
        const value = parsed.kind === 'waive' ? formatOrder({ kind: 'waive' }) : order;
        if (!fields[field]!.includes(value))
          throw lineError('illegal_order', n, written, `${power} cannot ${parsed.kind === 'waive' ? 'waive' : `build ${order}`} now`);
        choice[field] = value;
      }
      return;
    }
    // One field per unit: the field of the unit the order is for.
    const key = keys.find((k) => fields[k]!.includes(order));
    if (key === undefined)
      throw lineError(
        'illegal_order',
        n,
        written,
        `"${order}" is not among the orders this phase offers (a convoy through more than one fleet, for one, cannot be written by mail: see the list of legal orders)`,
      );
    if (choice[key] !== undefined) throw lineError('illegal_order', n, written, `${key} already has an order`);
    choice[key] = order;
  });
  if (type === 'adjustment') {
    const due = keys.filter((k) => k.startsWith('remove '));
    if (removals.length !== due.length) {
      const at = removals[due.length] ?? removals[removals.length - 1];
      const message = `${power} must remove ${due.length} unit${due.length === 1 ? '' : 's'} this winter; the file names ${removals.length}`;
      if (at === undefined) throw new FairtableError('illegal_order', message, { field: 'file' });
      throw lineError('illegal_order', at.n, at.text, message);
    }
    const seen = new Set<string>();
    removals.forEach((r, i) => {
      if (seen.has(r.order)) throw lineError('illegal_order', r.n, r.text, `${r.order} is already removed`);
      seen.add(r.order);
      choice[due[i]!] = r.order;
    });
  }
  const defaulted: string[] = [];
  for (const k of keys) {
    if (choice[k] !== undefined) continue;
    // The first value of each field is the rules' default: hold, disband, waive.
    choice[k] = fields[k]![0]!;
    defaulted.push(choice[k]);
  }
  if (defaulted.length > 0) notes.push(`not written, so the default: ${defaulted.join('; ')}`);
  return { choice, orders: keys.map((k) => choice[k]!), notes };
}

/** The orders the decision offers, by field: every field of `orderChoices` is a one-of of canonical orders. */
function offered(map: GameMap, position: Position, power: string): Record<string, readonly string[]> {
  const out: Record<string, readonly string[]> = {};
  for (const [k, c] of Object.entries(orderChoices(map, position, power).fields)) out[k] = c.type === 'one-of' ? c.values.map(String) : [];
  return out;
}

function parseAt(order: string, map: GameMap): string {
  const o = parseOrder(order, map, 'adjustment');
  return o.kind === 'waive' ? '' : o.at;
}

const title = (power: string): string => power.charAt(0).toUpperCase() + power.slice(1);

/**
 * A position in plain text: the phase, each power's units (and dislodged units) and supply centres, the
 * unowned centres, and in a winter what each power builds or removes. `holders` names each power's player.
 */
export function positionText(map: GameMap, position: Position, holders: Readonly<Record<string, string>> = {}): string {
  const out = [`${phaseName(position)[0]!.toUpperCase()}${phaseName(position).slice(1)}`];
  const unit = (u: { type: 'army' | 'fleet'; at: string }): string => `${UNIT_LETTER[u.type]} ${u.at}`;
  out.push('Units:');
  for (const power of map.powers) {
    const units = position.units.filter((u) => u.power === power).map(unit);
    const dislodged = position.dislodged
      .filter((d) => d.power === power)
      .map((d) => `${unit(d)} (dislodged${d.attackerFrom === null ? '' : ` from ${d.attackerFrom}`})`);
    const all = [...units, ...dislodged];
    if (all.length === 0 && !position.supplyCenterOwners.some((o) => o.power === power)) continue;
    out.push(`  ${title(power)}${holders[power] === undefined ? '' : ` (${holders[power]})`}: ${all.length === 0 ? 'none' : all.join(', ')}`);
  }
  out.push('Supply centres:');
  for (const power of map.powers) {
    const owned = position.supplyCenterOwners.filter((o) => o.power === power).map((o) => o.at);
    if (owned.length === 0) continue;
    const units = position.units.filter((u) => u.power === power).length;
    const adjust =
      position.phase.type !== 'adjustment' || owned.length === units
        ? ''
        : owned.length > units
          ? `; builds ${owned.length - units}`
          : `; removes ${units - owned.length}`;
    out.push(`  ${title(power)} ${owned.length}: ${owned.join(', ')}${adjust}`);
  }
  const owned = new Set(position.supplyCenterOwners.map((o) => o.at));
  const unowned = map.supplyCenters.filter((c) => !owned.has(c));
  if (unowned.length > 0) out.push(`  unowned ${unowned.length}: ${unowned.join(', ')}`);
  if (position.contested.length > 0) out.push(`Left empty by a standoff (no retreat there): ${position.contested.join(', ')}`);
  if (position.winner !== null) out.push(`${title(position.winner)} has won.`);
  return out.join('\n') + '\n';
}

/** Every order the decision offers `power` this phase, grouped by unit (or build, removal), one a line. */
export function legalOrdersText(map: GameMap, position: Position, power: string): string {
  const fields = offered(map, position, power);
  const keys = Object.keys(fields);
  const type = position.phase.type;
  const out: string[] = [];
  if (keys.length === 0) return `${title(power)} has nothing to order in the ${phaseName(position)}: its orders file is empty.\n`;
  const seen = new Set<string>();
  for (const k of keys) {
    const values = fields[k]!;
    const shown = values.join('\n');
    // Builds (and removals) offer the same list in every slot: shown once, with how many are due.
    if (seen.has(shown)) continue;
    seen.add(shown);
    const slots = keys.filter((j) => fields[j]!.join('\n') === shown).length;
    const head =
      type === 'adjustment'
        ? k.startsWith('build')
          ? `${slots} build${slots === 1 ? '' : 's'} (or Waive):`
          : `${slots} removal${slots === 1 ? '' : 's'}:`
        : `${position.units.concat(position.dislodged).find((u) => u.at === k && u.power === power)?.type === 'fleet' ? 'F' : 'A'} ${k}${type === 'retreat' ? ' (dislodged)' : ''}:`;
    out.push(head, ...values.map((v) => `    ${v}`));
  }
  return out.join('\n') + '\n';
}
