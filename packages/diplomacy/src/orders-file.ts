/**
 * A person's orders file for one phase, read against the choices the phase's orders decision offers, and
 * the position and those choices as text for the person writing it (docs/spec/diplomacy-by-hand.md §2;
 * docs/spec/mail.md §11; docs/spec/diplomacy.md §10.3). Every front end that takes orders from a person
 * shares this reader: `fairtable mail decide --orders FILE` and `fairtable play --orders DIR|-`.
 *
 * The file is seed 003's: one order a line in the usual notation (`A Par-Bur`, `F Bre-MAO`,
 * `A Mar S A Par-Bur`, `Build A Par`, `Remove F Kie`, `Waive`), blank lines skipped, `#` starting a
 * comment. Each line goes through `checkOrders` under the game's typo rule and must then be one of the
 * canonical orders the decision offers (protocol/options.ts): what is committed is always one of those.
 * A line that fails is a problem naming its line, with a code; whatever no good line names takes the
 * rules' default (hold, disband, waive, the removals civil disorder would make). Nothing here knows how
 * the orders travel.
 */
export { phaseCodeName, phaseName } from './phase-names.js';
import { FairtableError, type ErrorCode } from '@fairtable/core/errors.js';
import { checkOrders, civilDisorderOrder } from './adjudicate.js';
import { provinceOf, type GameMap } from './map.js';
import { formatOrder, parseOrder, type Order } from './orders.js';
import type { Position } from './position.js';
import { phaseName } from './phase-names.js';
import type { TypoRule } from './protocol/machine.js';
import { orderChoices } from './protocol/options.js';
import { isVoteLine, parseVote, voteAnswer } from './protocol/endings.js';

/** A line of the file and what is said about it. */
export interface OrdersFileLine {
  /** 1-based line of the file. */
  readonly line: number;
  /** The line as written, its comment and surrounding blanks removed. */
  readonly text: string;
  readonly message: string;
}

/** A line that cannot be committed. */
export interface OrdersFileProblem extends OrdersFileLine {
  /** bad_order, unknown_province (the parser); illegal_order (the rules or the choices); too_many_orders (more builds or removals than due). */
  readonly code: ErrorCode;
}

export interface OrdersFileReading {
  /**
   * The answer to the orders decision: one canonical order per field (unit, retreat, build or removal), in
   * the decision's field order. Always complete: a field no good line named has its default.
   */
  readonly answer: Record<string, string>;
  readonly problems: readonly OrdersFileProblem[];
  /** Lines read other than as written, under the typo rule (a wrong unit letter ignored). */
  readonly notes: readonly OrdersFileLine[];
  /** Fields no good line named, with the default they take. */
  readonly defaulted: readonly { readonly field: string; readonly order: string }[];
  /** The file's vote for an agreed ending (`VOTE DRAW`, `VOTE CANCEL`, `VOTE CONCEDE FRANCE`), as the decision's `vote` answer; null: none (docs/spec/diplomacy.md §10.12). */
  readonly vote: string | null;
}

/** `line 2: "A Par-Pic": par already has an order`: a problem or note as one line of text. */
export function lineText(l: OrdersFileLine): string {
  return `line ${l.line}: "${l.text}": ${l.message}`;
}

const UNIT_LETTER = { army: 'A', fleet: 'F' } as const;
const A_UNIT = { army: 'an army', fleet: 'a fleet' } as const;
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The orders the decision offers, by field, in its order: every field of `orderChoices` is a one-of of canonical orders. */
function offered(map: GameMap, position: Position, power: string): Record<string, readonly string[]> {
  const out: Record<string, readonly string[]> = {};
  for (const [k, c] of Object.entries(orderChoices(map, position, power).fields)) out[k] = c.type === 'one-of' ? c.values.map(String) : [];
  return out;
}

/** The codes `checkOrders` gives, as error codes. */
function codeOf(code: string): ErrorCode {
  return code === 'bad_order' || code === 'unknown_province' ? code : 'illegal_order';
}

/**
 * The answer with a default for every field not in `given`, in the decision's field order: hold
 * (movement), disband (retreat), waive (build), and the removals civil disorder would make (§3.7),
 * skipping units `given` already removes: the defaults the machine applies to a power that sends nothing.
 */
export function defaultOrders(map: GameMap, position: Position, power: string, given: Readonly<Record<string, string>> = {}): Record<string, string> {
  const answer: Record<string, string> = {};
  const removing = new Set(Object.values(given));
  const disorder = civilDisorderOrder(map, power, position.units).map((u) => formatOrder({ kind: 'remove', unit: u.type, at: u.at }));
  for (const [name, values] of Object.entries(offered(map, position, power))) {
    const g = given[name];
    if (g !== undefined) answer[name] = g;
    else if (name.startsWith('remove ')) {
      const pick = disorder.find((o) => !removing.has(o) && values.includes(o)) ?? values[0]!;
      removing.add(pick);
      answer[name] = pick;
    } else answer[name] = values[0]!;
  }
  return answer;
}

/**
 * Spellings of a canonical order that the choices may hold instead, meaning the same (§10.3): an army's
 * move to a province it cannot walk to is by convoy whether or not it says so; `via convoy` where no chain
 * of fleets at sea could carry the army means the move by land (§3.3).
 */
function candidates(order: string): string[] {
  const out = [order];
  if (/^A [a-z]+ - [a-z]+$/.test(order)) out.push(`${order} via convoy`);
  if (order.endsWith(' via convoy')) out.push(order.slice(0, -' via convoy'.length));
  return out;
}

/** Why an order `checkOrders` accepts is not offered: it could never count (§10.3). */
function notOffered(read: Order, canonical: string, power: string): string {
  const why =
    read.kind === 'support' && read.to !== null
      ? `: the unit in ${read.from} cannot be ordered to ${read.to}, so the support could never count`
      : read.kind === 'convoy'
        ? `: no chain of fleets at sea through ${provinceOf(read.at)} links ${read.from} to ${read.to}, so the convoy could never count`
        : '';
  return `"${canonical}" is not among the orders ${power} can give this phase${why} (see the orders offered)`;
}

/** What a wrong unit letter, read under the typo rule, changed: said so the writer sees how the line was read. */
function letterNote(written: Order, read: Order, order: string): string | null {
  const as = `read as "${order}" (this game ignores unit letters)`;
  if (written.kind === 'waive' || written.kind === 'build' || read.kind === 'waive' || read.kind === 'build') return null;
  if (written.unit !== null && read.unit !== null && written.unit !== read.unit) return `the unit is ${A_UNIT[read.unit]}: ${as}`;
  if (written.kind === 'support' && read.kind === 'support' && written.target !== null && read.target !== null && written.target !== read.target)
    return `the supported unit is ${A_UNIT[read.target]}: ${as}`;
  return null;
}

/**
 * Reads `power`'s orders file for `position`'s phase. Never throws for what the file says: every line
 * that cannot be committed is a problem naming its line, and its unit keeps the default. A line must be
 * an order `checkOrders` accepts under the typo rule (under `ignore-unit-letter` a wrong unit letter is
 * read as the unit's and said in the notes; under `strict` it is a problem, since the machine would void
 * the order) and one the decision offers; a second order for a unit, a second build in a province, the
 * same removal twice and more builds or removals than due are problems too.
 */
export function readOrdersFile(map: GameMap, position: Position, power: string, text: string, typos: TypoRule = 'ignore-unit-letter'): OrdersFileReading {
  const fields = offered(map, position, power);
  const all = Object.entries(fields);
  const type = position.phase.type;
  const given: Record<string, string> = {};
  const problems: OrdersFileProblem[] = [];
  const notes: OrdersFileLine[] = [];
  let vote: string | null = null;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const written = raw.replace(/#.*$/, '').trim();
    if (written === '') return;
    const problem = (code: ErrorCode, message: string): void => void problems.push({ line, text: written, code, message });
    if (isVoteLine(written)) {
      const v = parseVote(written, map.powers);
      if (v === null) return problem('bad_order', 'not a vote the rules know: VOTE DRAW, VOTE CANCEL or VOTE CONCEDE <power>');
      if (v.kind === 'concede' && v.to === power) return problem('illegal_order', `${power} cannot concede to itself`);
      if (v.kind === 'concede' && !position.supplyCenterOwners.some((o) => o.power === v.to) && !position.units.some((u) => u.power === v.to))
        return problem('illegal_order', `${v.to} is out of the game: nobody can concede to it`);
      if (vote !== null) return problem('illegal_order', 'a second vote: a file votes once');
      vote = voteAnswer(v);
      return;
    }
    const [checked] = checkOrders(map, position, power, [written], { strictUnitType: typos === 'strict' });
    if (checked === undefined || checked.error !== null || checked.order === null)
      return problem(codeOf(checked?.error?.code ?? 'bad_order'), checked?.error?.message ?? 'not an order');
    const canonical = checked.order;
    const parsed = parseOrder(written, map, type);
    const read = parseOrder(canonical, map, type);
    if (read.kind === 'build' && Object.values(given).some((o) => o.startsWith('Build ') && provinceOf(o.split(' ')[2]!) === provinceOf(read.at)))
      return problem('illegal_order', `a second build in ${provinceOf(read.at)}`);
    if (read.kind === 'remove' && Object.values(given).includes(canonical)) return problem('illegal_order', `${provinceOf(read.at)} is already removed`);
    const spellings = candidates(canonical);
    const found = spellings
      .map((order) => ({ order, field: all.find(([name, values]) => given[name] === undefined && values.includes(order))?.[0] }))
      .find((x) => x.field !== undefined);
    if (found === undefined) {
      const taken = all.find(([name, values]) => given[name] !== undefined && spellings.some((o) => values.includes(o)))?.[0];
      if (type === 'adjustment' && (read.kind === 'build' || read.kind === 'waive' || read.kind === 'remove')) {
        const what = read.kind === 'remove' ? 'removal' : 'build';
        const due = all.filter(([name]) => name.startsWith(`${what === 'build' ? 'build' : 'remove'} `)).length;
        if (due === 0) return problem('illegal_order', `${power} has no ${what} due this winter`);
        if (taken !== undefined) return problem('too_many_orders', `${power} has ${plural(due, what)} due, and this is one more`);
      } else if (taken !== undefined) return problem('illegal_order', `${taken} already has an order`);
      return problem('illegal_order', notOffered(read, canonical, power));
    }
    const note = letterNote(parsed, parseOrder(found.order, map, type), found.order);
    if (note !== null) notes.push({ line, text: written, message: note });
    given[found.field!] = found.order;
  });
  const answer = defaultOrders(map, position, power, given);
  const defaulted = Object.keys(fields)
    .filter((field) => given[field] === undefined)
    .map((field) => ({ field, order: answer[field]! }));
  return { answer, problems, notes, defaulted, vote };
}

/**
 * `readOrdersFile` for a front end that refuses a file with any problem: the first problem thrown as a
 * FairtableError with its code, its message naming the line (`line 2: "A Par-Pic": par already has an
 * order`) and the field `line N`.
 */
export function readOrdersFileOrThrow(
  map: GameMap,
  position: Position,
  power: string,
  text: string,
  typos: TypoRule = 'ignore-unit-letter',
): OrdersFileReading {
  const reading = readOrdersFile(map, position, power, text, typos);
  const first = reading.problems[0];
  if (first !== undefined) throw new FairtableError(first.code, lineText(first), { field: `line ${first.line}` });
  return reading;
}

const title = (power: string): string => power.charAt(0).toUpperCase() + power.slice(1);

/**
 * A position in plain text: the phase, each power's units (and dislodged units) and supply centres, the
 * unowned centres, and in a winter what each power builds or removes. `holders` names each power's player.
 */
export function positionText(map: GameMap, position: Position, holders: Readonly<Record<string, string>> = {}): string {
  const out = [phaseName(position)];
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
  if (keys.length === 0) return `${title(power)} has nothing to order in ${phaseName(position)}: its orders file is empty.\n`;
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
