/**
 * One phase of Diplomacy: orders in, the next position and a result per order
 * out (docs/spec/diplomacy.md §3). Movement goes to movement.ts; retreats and
 * adjustments are settled here, as are the rules for orders that are missing,
 * illegal or for someone else's unit, centre ownership after the fall, the
 * phase that comes next and the end of the game.
 */
import { FairtableError } from '@fairtable/core/errors.js';
import { coastOf, provinceOf, type GameMap, type UnitType } from './map.js';
import { adjudicateMovement, standoffs, type BoardUnit, type MoveOrder } from './movement.js';
import { formatOrder, parseOrder, type Order, type PhaseType } from './orders.js';
import type { CenterOwner, DislodgedUnit, Phase, Position, Unit } from './position.js';

export interface OrderInput {
  readonly power: string;
  readonly text: string;
}

export type OrderStatus = 'succeeded' | 'failed' | 'invalid' | 'ignored';

export interface OrderResult {
  readonly power: string;
  readonly text: string;
  /** The canonical text, or null when the text is not an order. */
  readonly order: string | null;
  /**
   * succeeded / failed: the order was carried out or not (reason says why not);
   * invalid: a legal-looking order the rules do not allow, so the unit holds,
   * disbands or the build is waived; ignored: not an order for this power's
   * unit in this phase, or a later order for a unit already ordered.
   */
  readonly status: OrderStatus;
  readonly reason: string | null;
}

export interface Adjudication {
  readonly position: Position;
  readonly results: readonly OrderResult[];
}

type Checked = { readonly ok: true; readonly order: Order } | { readonly ok: false; readonly reason: string; readonly order: Order };

export interface RuleOptions {
  /**
   * An order whose unit letter is not the unit's type is invalid (the unit
   * holds or disbands). Default false: the letter is ignored, as the DATC
   * prefers (§3.1); a game may agree on the strict reading instead.
   */
  readonly strictUnitType?: boolean;
  /** Tests only: re-decide every movement decision against the final ones (§3.4). */
  readonly selfCheck?: boolean;
}

const TYPE_NAME: Readonly<Record<UnitType, string>> = { army: 'army', fleet: 'fleet' };

/** The order with the unit's type and exact location taken from the unit it names. */
function withUnit(order: Order, unit: Unit): Order {
  if (order.kind === 'waive' || order.kind === 'build') return order;
  return { ...order, unit: unit.type, at: unit.at } as Order;
}

/** The unit an order names, if the order is for a unit of the phase. */
function orderedProvince(order: Order): string | null {
  return order.kind === 'waive' || order.kind === 'build' ? null : provinceOf(order.at);
}

export function fleetsAtSea(map: GameMap, units: ReadonlyMap<string, Unit>): Unit[] {
  return [...units.values()].filter((u) => u.type === 'fleet' && map.province(provinceOf(u.at))?.kind === 'sea');
}

/** The fleets that lie on some chain from `from` to `to`: reachable from the start and able to reach the end. */
export function onRoute(map: GameMap, fleets: readonly Unit[], from: string, to: string): Unit[] {
  const spread = (start: string): Set<Unit> => {
    const seen = new Set<Unit>(fleets.filter((f) => map.reaches('fleet', f.at, start)));
    const queue = [...seen];
    for (let q = 0; q < queue.length; q++) {
      const f = queue[q] as Unit;
      for (const g of fleets) {
        if (!seen.has(g) && map.reaches('fleet', f.at, provinceOf(g.at))) {
          seen.add(g);
          queue.push(g);
        }
      }
    }
    return seen;
  };
  const forward = spread(from);
  const backward = spread(to);
  return fleets.filter((f) => forward.has(f) && backward.has(f));
}

/**
 * Static legality of a movement order for its unit: everything that does
 * not depend on other orders. An army move to a place it cannot reach by land
 * is legal when a chain of fleets at sea could carry it.
 */
function checkMovement(map: GameMap, units: ReadonlyMap<string, Unit>, unit: Unit, written: Order, strict: boolean): Checked {
  const order = withUnit(written, unit);
  const no = (reason: string): Checked => ({ ok: false, reason, order });
  if (written.kind !== 'hold' && written.kind !== 'move' && written.kind !== 'support' && written.kind !== 'convoy') return no('not a movement order');
  if (strict && written.unit !== null && written.unit !== unit.type)
    return no(`the unit in ${provinceOf(unit.at)} is ${unit.type === 'army' ? 'an army' : 'a fleet'}`);
  const here = provinceOf(unit.at);
  if (order.kind === 'hold') return { ok: true, order };
  if (order.kind === 'move') {
    const to = provinceOf(order.to);
    if (to === here) return no('a unit cannot move to its own province');
    const dest = map.province(to);
    if (dest === undefined) return no('unknown destination');
    if (unit.type === 'army') {
      if (dest.kind !== 'coastal' && dest.kind !== 'inland') return no('an army cannot enter a sea');
      if (!map.reaches('army', unit.at, to)) {
        if (map.province(here)?.kind !== 'coastal' || dest.kind !== 'coastal') return no(`${here} does not border ${to}`);
        // Legal if the fleets at sea, whatever their orders, could carry it (DATC 6.D.8 against 6.D.32).
        if (onRoute(map, fleetsAtSea(map, units), here, to).length === 0) return no(`no fleets at sea could convoy ${here} to ${to}`);
      }
      return { ok: true, order: { ...order, to } };
    }
    if (order.viaConvoy) return no('only armies can be convoyed');
    const targets = map.fleetTargets(unit.at, to);
    if (coastOf(order.to) !== null) {
      if (!targets.includes(order.to)) return no(`a fleet at ${unit.at} cannot reach ${order.to}`);
      return { ok: true, order };
    }
    if (targets.length === 0) return no(`a fleet at ${unit.at} cannot reach ${to}`);
    if (targets.length > 1) return no(`the coast of ${to} must be given`);
    return { ok: true, order: { ...order, to: targets[0] as string } };
  }
  if (order.kind === 'support') {
    const to = order.to === null ? null : provinceOf(order.to);
    if (order.from === here) return no('a unit cannot support itself');
    if (to === here) return no('a unit cannot support a move into its own province');
    const reach = to ?? order.from;
    if (!map.reaches(unit.type, unit.at, reach)) return no(`${unit.at} cannot reach ${reach}`);
    const target = units.get(order.from);
    if (target === undefined) return no(`no unit in ${order.from}`);
    // An army moves to a province, so a coast in the support means nothing.
    return { ok: true, order: { ...order, target: target.type, to: target.type === 'army' ? to : order.to } };
  }
  if (order.kind !== 'convoy') return no('not a movement order');
  if (unit.type !== 'fleet' || map.province(here)?.kind !== 'sea') return no('only a fleet at sea can convoy');
  const army = units.get(order.from);
  if (army === undefined) return no(`no unit in ${order.from}`);
  if (army.type !== 'army') return no('only armies can be convoyed');
  if (order.from === order.to) return no('a convoy to the same province');
  return { ok: true, order };
}

function readOrders(map: GameMap, phase: PhaseType, orders: readonly OrderInput[]): { input: OrderInput; parsed: Order | null; error: string | null }[] {
  return orders.map((input) => {
    if (typeof input !== 'object' || input === null || typeof input.text !== 'string' || typeof input.power !== 'string') {
      throw new FairtableError('bad_input', 'each order must be {power, text}', { field: 'orders' });
    }
    const normal = { power: input.power.toLowerCase(), text: input.text };
    try {
      return { input: normal, parsed: parseOrder(input.text, map, phase), error: null };
    } catch (e) {
      if (e instanceof FairtableError) return { input: normal, parsed: null, error: e.message };
      throw e;
    }
  });
}

/** Centres owned after the fall: each centre with a unit on it goes to that unit's power. */
function updateOwners(map: GameMap, owners: readonly CenterOwner[], units: readonly Unit[]): CenterOwner[] {
  const owner = new Map<string, string>(owners.map((o) => [o.at, o.power]));
  for (const u of units) if (map.supplyCenters.includes(provinceOf(u.at))) owner.set(provinceOf(u.at), u.power);
  return [...owner.entries()].map(([at, power]) => ({ power, at })).sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

function centreCounts(owners: readonly CenterOwner[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const o of owners) counts.set(o.power, (counts.get(o.power) ?? 0) + 1);
  return counts;
}

/** Whether any power has a build it could make or a unit it must remove. */
function adjustmentsDue(map: GameMap, owners: readonly CenterOwner[], units: readonly Unit[]): boolean {
  const centres = centreCounts(owners);
  const occupied = new Set(units.map((u) => provinceOf(u.at)));
  for (const power of map.powers) {
    const count = units.filter((u) => u.power === power).length;
    const diff = (centres.get(power) ?? 0) - count;
    if (diff < 0) return true;
    if (diff > 0 && owners.some((o) => o.power === power && map.homeCenters(power).includes(o.at) && !occupied.has(o.at))) return true;
  }
  return false;
}

/** The position after the fall's last phase: owners updated, victory checked, then adjustments or the next spring. */
function afterFall(map: GameMap, phase: Phase, units: readonly Unit[], owners: readonly CenterOwner[]): Position {
  const supplyCenterOwners = updateOwners(map, owners, units);
  const centres = centreCounts(supplyCenterOwners);
  const majority = Math.floor(map.supplyCenters.length / 2) + 1;
  let winner: string | null = null;
  for (const power of map.powers) if ((centres.get(power) ?? 0) >= majority) winner = power;
  const due = adjustmentsDue(map, supplyCenterOwners, units);
  return {
    phase: due ? { season: 'fall', year: phase.year, type: 'adjustment' } : { season: 'spring', year: phase.year + 1, type: 'movement' },
    units: sortUnits(units),
    dislodged: [],
    contested: [],
    supplyCenterOwners,
    winner,
  };
}

const sortUnits = <T extends Unit>(units: readonly T[]): T[] => [...units].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));

/**
 * Adjudicates one phase. Orders that cannot be read, are for a unit the power
 * does not have, or break the rules get a result saying so; the rules' default
 * stands in for them (hold, disband, waive, civil disorder).
 */
export function adjudicate(map: GameMap, position: Position, orders: readonly OrderInput[], options: RuleOptions = {}): Adjudication {
  if (position.winner !== null) throw new FairtableError('game_over', `the game is over: ${position.winner} has won`, { field: 'winner' });
  if (!Array.isArray(orders)) throw new FairtableError('bad_input', 'orders must be an array', { field: 'orders' });
  const type = position.phase.type;
  const read = readOrders(map, type, orders);
  if (type === 'movement') return movementPhase(map, position, read, options);
  if (type === 'retreat') return retreatPhase(map, position, read, options);
  return adjustmentPhase(map, position, read, options);
}

type Read = ReturnType<typeof readOrders>;

function movementPhase(map: GameMap, position: Position, read: Read, options: RuleOptions): Adjudication {
  const units = new Map<string, Unit>(position.units.map((u) => [provinceOf(u.at), u]));
  const results: (OrderResult | null)[] = read.map(() => null);
  const candidates = new Map<string, { index: number; checked: Checked }[]>();
  read.forEach(({ input, parsed, error }, index) => {
    const ignore = (reason: string, order: Order | null): void => {
      results[index] = { power: input.power, text: input.text, order: order === null ? null : formatOrder(order), status: 'ignored', reason };
    };
    if (parsed === null) return void (results[index] = { power: input.power, text: input.text, order: null, status: 'invalid', reason: error });
    const province = orderedProvince(parsed);
    const unit = province === null ? undefined : units.get(province);
    if (province === null) return ignore('not a movement order', parsed);
    if (unit === undefined) return ignore(`no unit in ${province}`, parsed);
    if (unit.power !== input.power) return ignore(`the unit in ${province} is not ${input.power}'s`, parsed);
    const list = candidates.get(province) ?? [];
    list.push({ index, checked: checkMovement(map, units, unit, parsed, options.strictUnitType === true) });
    candidates.set(province, list);
  });
  // One order per unit. Illegal orders do not count; the same legal order twice is one order;
  // two different legal orders cancel out and the unit holds (DATC 4.D.3, 4.E.1).
  const chosen = new Map<string, { index: number; checked: Checked }>();
  for (const [province, list] of candidates) {
    const put = (index: number, status: OrderStatus, reason: string): void => {
      const entry = read[index] as Read[number];
      const checked = (list.find((c) => c.index === index) as { checked: Checked }).checked;
      results[index] = { power: entry.input.power, text: entry.input.text, order: formatOrder(checked.order), status, reason };
    };
    const legal = list.filter((c) => c.checked.ok);
    const texts = new Set(legal.map((c) => formatOrder(c.checked.order)));
    const first = legal[0] ?? (list[0] as { index: number; checked: Checked });
    if (texts.size > 1)
      chosen.set(province, { index: first.index, checked: { ok: false, reason: `${province} has more than one order`, order: first.checked.order } });
    else chosen.set(province, first);
    for (const c of list) {
      if (c === first) continue;
      if (!c.checked.ok)
        put(c.index, 'invalid', `${(c.checked as { reason: string }).reason}; ${legal.length > 0 ? 'another order for the unit counts' : 'the unit holds'}`);
      else if (texts.size > 1) put(c.index, 'invalid', `${province} has more than one order; the unit holds`);
      else put(c.index, 'ignored', 'the same order again');
    }
  }

  // Army moves that need or choose a convoy: find a chain of matching convoy orders.
  const convoyOrders = new Map<string, { fleet: Unit }[]>();
  for (const [province, { checked }] of chosen) {
    const o = checked.order;
    if (!checked.ok || o.kind !== 'convoy') continue;
    const key = `${o.from}>${o.to}`;
    const list = convoyOrders.get(key) ?? [];
    list.push({ fleet: units.get(province) as Unit });
    convoyOrders.set(key, list);
  }
  const atSea = fleetsAtSea(map, units);
  const convoyRoute = (from: string, to: string): Unit[] =>
    onRoute(
      map,
      (convoyOrders.get(`${from}>${to}`) ?? []).map((f) => f.fleet),
      from,
      to,
    );

  const board: BoardUnit[] = [];
  const boardIndex = new Map<string, number>();
  const orderIndex: number[] = [];
  const invalid = new Map<number, string>();
  for (const unit of sortUnits(position.units)) {
    const province = provinceOf(unit.at);
    const entry = chosen.get(province);
    let order: MoveOrder = { kind: 'hold' };
    if (entry !== undefined) {
      const { checked } = entry;
      const o = checked.order;
      if (!checked.ok) invalid.set(entry.index, checked.reason);
      else if (o.kind === 'move') {
        const to = provinceOf(o.to);
        if (unit.type === 'army') {
          const byLand = map.reaches('army', unit.at, to);
          const route = convoyRoute(province, to);
          const chain = route.length > 0;
          // An army next to its destination goes by convoy when asked to, or when a fleet of its own
          // power convoys it from a place on some chain of fleets at sea between the two (DATC 6.G.6, 6.G.7).
          const ownConvoys = (convoyOrders.get(`${province}>${to}`) ?? []).map((f) => f.fleet).filter((f) => f.power === unit.power);
          const intent = o.viaConvoy || (ownConvoys.length > 0 && onRoute(map, atSea, province, to).some((f) => ownConvoys.includes(f)));
          order = { kind: 'move', to, toLocation: to, viaConvoy: !byLand || (chain && intent) };
        } else order = { kind: 'move', to, toLocation: o.to, viaConvoy: false };
      } else if (o.kind === 'support') order = { kind: 'support', from: o.from, to: o.to === null ? null : provinceOf(o.to), toLocation: o.to };
      else if (o.kind === 'convoy') order = { kind: 'convoy', from: o.from, to: o.to };
    }
    boardIndex.set(province, board.length);
    orderIndex.push(entry?.index ?? -1);
    board.push({ power: unit.power, type: unit.type, at: unit.at, province, order });
  }

  const outcome = adjudicateMovement(map, board, { selfCheck: options.selfCheck === true });

  board.forEach((u, i) => {
    const index = orderIndex[i] as number;
    if (index < 0) return;
    const entry = read[index] as Read[number];
    const checked = (chosen.get(u.province) as { checked: Checked }).checked;
    const text = formatOrder(checked.order);
    const reasonInvalid = invalid.get(index);
    if (reasonInvalid !== undefined) {
      results[index] = {
        power: entry.input.power,
        text: entry.input.text,
        order: text,
        status: 'invalid',
        reason: outcome.dislodgedBy[i] !== -1 ? `${reasonInvalid}; the unit held and was dislodged` : `${reasonInvalid}; the unit holds`,
      };
      return;
    }
    let ok = outcome.success[i] === true;
    let reason = outcome.reason[i] ?? null;
    if (u.order.kind === 'hold' && outcome.dislodgedBy[i] !== -1) {
      ok = false;
      reason = 'dislodged';
    }
    if (u.order.kind === 'convoy' && ok) {
      const army = board[boardIndex.get(u.order.from) as number] as BoardUnit;
      if (army.order.kind !== 'move' || !army.order.viaConvoy) ok = false;
    }
    results[index] = { power: entry.input.power, text: entry.input.text, order: text, status: ok ? 'succeeded' : 'failed', reason: ok ? null : reason };
  });

  // The board after movement.
  const after: Unit[] = [];
  const dislodgedUnits: { unit: BoardUnit; by: BoardUnit }[] = [];
  board.forEach((u, i) => {
    const o = u.order;
    if (o.kind === 'move' && outcome.success[i] === true) after.push({ power: u.power, type: u.type, at: o.toLocation });
    else if (outcome.dislodgedBy[i] !== -1) dislodgedUnits.push({ unit: u, by: board[outcome.dislodgedBy[i] as number] as BoardUnit });
    else after.push({ power: u.power, type: u.type, at: u.at });
  });
  const contested = standoffs(board, outcome);
  const occupied = new Set(after.map((u) => provinceOf(u.at)));
  const dislodged: DislodgedUnit[] = [];
  for (const { unit, by } of dislodgedUnits) {
    const d: DislodgedUnit = {
      power: unit.power,
      type: unit.type,
      at: unit.at,
      attackerFrom: by.province,
      attackerViaConvoy: by.order.kind === 'move' && by.order.viaConvoy,
    };
    if (retreatOptions(map, d, occupied, contested).length > 0) dislodged.push(d);
  }
  const finished = results.map(
    (r, i) =>
      r ??
      ((): OrderResult => {
        const entry = read[i] as Read[number];
        return {
          power: entry.input.power,
          text: entry.input.text,
          order: entry.parsed === null ? null : formatOrder(entry.parsed),
          status: 'ignored',
          reason: 'not an order for a unit',
        };
      })(),
  );
  if (dislodged.length > 0) {
    return {
      position: {
        phase: { season: position.phase.season, year: position.phase.year, type: 'retreat' },
        units: sortUnits(after),
        dislodged: sortUnits(dislodged),
        contested,
        supplyCenterOwners: position.supplyCenterOwners,
        winner: null,
      },
      results: finished,
    };
  }
  if (position.phase.season === 'fall') return { position: afterFall(map, position.phase, after, position.supplyCenterOwners), results: finished };
  return {
    position: {
      phase: { season: 'fall', year: position.phase.year, type: 'movement' },
      units: sortUnits(after),
      dislodged: [],
      contested: [],
      supplyCenterOwners: position.supplyCenterOwners,
      winner: null,
    },
    results: finished,
  };
}

/** Where a dislodged unit may retreat: reachable, empty after movement, not contested, not where the attacker came from (unless by convoy). */
export function retreatOptions(map: GameMap, d: DislodgedUnit, occupied: ReadonlySet<string>, contested: readonly string[]): string[] {
  const options: string[] = [];
  const candidates = d.type === 'army' ? [...map.armyNeighbours(provinceOf(d.at))] : [...map.fleetNeighbours(d.at)];
  for (const location of candidates) {
    const p = provinceOf(location);
    if (occupied.has(p) || contested.includes(p)) continue;
    if (p === d.attackerFrom && !d.attackerViaConvoy) continue;
    options.push(location);
  }
  return options.sort();
}

function retreatPhase(map: GameMap, position: Position, read: Read, options: RuleOptions): Adjudication {
  const dislodged = new Map<string, DislodgedUnit>(position.dislodged.map((d) => [provinceOf(d.at), d]));
  const occupied = new Set(position.units.map((u) => provinceOf(u.at)));
  const results: OrderResult[] = [];
  // Per dislodged unit, its legal orders: a destination, or null to disband.
  const legal = new Map<string, { index: number; to: string | null; text: string }[]>();
  read.forEach(({ input, parsed, error }, index) => {
    const put = (status: OrderStatus, reason: string | null, order: Order | null): void => {
      results[index] = { power: input.power, text: input.text, order: order === null ? null : formatOrder(order), status, reason };
    };
    if (parsed === null) return put('invalid', error, null);
    const province = orderedProvince(parsed);
    const unit = province === null ? undefined : dislodged.get(province);
    if (province === null || unit === undefined) return put('ignored', `no dislodged unit in ${province ?? 'that order'}`, parsed);
    if (unit.power !== input.power) return put('ignored', `the unit in ${province} is not ${input.power}'s`, parsed);
    const order = withUnit(parsed, unit);
    const keep = (to: string | null, normal: Order): void => {
      const list = legal.get(province) ?? [];
      list.push({ index, to, text: formatOrder(normal) });
      legal.set(province, list);
      put('succeeded', null, normal);
    };
    if (options.strictUnitType === true && parsed.kind !== 'waive' && parsed.unit !== null && parsed.unit !== unit.type) {
      return put('invalid', `the unit in ${province} is ${unit.type === 'army' ? 'an army' : 'a fleet'}`, order);
    }
    if (order.kind === 'disband') return keep(null, order);
    if (order.kind !== 'retreat') return put('ignored', 'not a retreat order', order);
    const possible = retreatOptions(map, unit, occupied, position.contested);
    let to: string | undefined;
    if (coastOf(order.to) !== null || unit.type === 'army') to = possible.find((o) => o === (unit.type === 'army' ? provinceOf(order.to) : order.to));
    else {
      const fits = possible.filter((o) => provinceOf(o) === order.to);
      to = fits.length === 1 ? fits[0] : undefined;
    }
    if (to === undefined) return put('invalid', `${unit.at} cannot retreat to ${order.to}`, order);
    keep(to, { ...order, to });
  });
  // One order per unit, as in movement: two different legal orders cancel out and the unit disbands.
  const chosen = new Map<string, { index: number; to: string | null }>();
  for (const [province, list] of legal) {
    const first = list[0] as { index: number; to: string | null; text: string };
    if (new Set(list.map((c) => c.text)).size > 1) {
      for (const c of list)
        results[c.index] = { ...(results[c.index] as OrderResult), status: 'invalid', reason: `${province} has more than one order; the unit disbands` };
      continue;
    }
    chosen.set(province, first);
    for (const c of list.slice(1)) results[c.index] = { ...(results[c.index] as OrderResult), status: 'ignored', reason: 'the same order again' };
  }
  // Two or more retreats to one province: all of them disband.
  const count = new Map<string, number>();
  for (const { to } of chosen.values()) if (to !== null) count.set(provinceOf(to), (count.get(provinceOf(to)) ?? 0) + 1);
  const units: Unit[] = [...position.units];
  for (const [province, d] of dislodged) {
    const c = chosen.get(province);
    if (c === undefined || c.to === null) continue;
    if ((count.get(provinceOf(c.to)) ?? 0) > 1) {
      const r = results[c.index] as OrderResult;
      results[c.index] = { ...r, status: 'failed', reason: `another unit retreated to ${provinceOf(c.to)}; both disband` };
      continue;
    }
    units.push({ power: d.power, type: d.type, at: c.to });
  }
  if (position.phase.season === 'fall') return { position: afterFall(map, position.phase, units, position.supplyCenterOwners), results };
  return {
    position: {
      phase: { season: 'fall', year: position.phase.year, type: 'movement' },
      units: sortUnits(units),
      dislodged: [],
      contested: [],
      supplyCenterOwners: position.supplyCenterOwners,
      winner: null,
    },
    results,
  };
}

function adjustmentPhase(map: GameMap, position: Position, read: Read, options: RuleOptions): Adjudication {
  const centres = centreCounts(position.supplyCenterOwners);
  const ownerOf = new Map(position.supplyCenterOwners.map((o) => [o.at, o.power]));
  const units = new Map<string, Unit>(position.units.map((u) => [provinceOf(u.at), u]));
  const diff = new Map<string, number>();
  for (const power of map.powers) diff.set(power, (centres.get(power) ?? 0) - position.units.filter((u) => u.power === power).length);
  const used = new Map<string, number>();
  const removed = new Set<string>();
  const built: Unit[] = [];
  const results: OrderResult[] = [];
  read.forEach(({ input, parsed, error }, index) => {
    const put = (status: OrderStatus, reason: string | null, order: Order | null): void => {
      results[index] = { power: input.power, text: input.text, order: order === null ? null : formatOrder(order), status, reason };
    };
    if (parsed === null) return put('invalid', error, null);
    const power = input.power;
    const d = diff.get(power);
    if (d === undefined) return put('ignored', `unknown power ${power}`, parsed);
    const n = used.get(power) ?? 0;
    if (parsed.kind === 'build' || parsed.kind === 'waive') {
      if (d <= 0) return put('ignored', `${power} has no builds`, parsed);
      if (n >= d) return put('ignored', `${power} has used all ${d} build(s)`, parsed);
      if (parsed.kind === 'waive') {
        used.set(power, n + 1);
        return put('succeeded', null, parsed);
      }
      const province = provinceOf(parsed.at);
      const at = parsed.unit === 'army' ? province : parsed.at;
      const order: Order = { ...parsed, at };
      if (!map.homeCenters(power).includes(province)) return put('invalid', `${province} is not a home centre of ${power}`, order);
      if (ownerOf.get(province) !== power) return put('invalid', `${power} does not own ${province}`, order);
      if (units.has(province) || built.some((b) => provinceOf(b.at) === province)) return put('invalid', `${province} is occupied`, order);
      if (!map.canStand(parsed.unit, at)) {
        const p = map.province(province);
        return put(
          'invalid',
          parsed.unit === 'fleet' && p !== undefined && p.coasts.length > 0 && coastOf(at) === null
            ? `the coast of ${province} must be given`
            : `${TYPE_NAME[parsed.unit]} cannot be built at ${at}`,
          order,
        );
      }
      used.set(power, n + 1);
      built.push({ power, type: parsed.unit, at });
      return put('succeeded', null, order);
    }
    if (parsed.kind === 'remove') {
      const province = provinceOf(parsed.at);
      const unit = units.get(province);
      if (unit === undefined) return put('invalid', `no unit in ${province}`, parsed);
      const order = withUnit(parsed, unit);
      if (unit.power !== power) return put('ignored', `the unit in ${province} is not ${power}'s`, order);
      if (d >= 0) return put('ignored', `${power} has no units to remove`, order);
      if (removed.has(province)) return put('ignored', `${province} is already removed`, order);
      if (n >= -d) return put('ignored', `${power} has removed ${-d} unit(s) already`, order);
      if (options.strictUnitType === true && parsed.unit !== null && parsed.unit !== unit.type)
        return put('invalid', `the unit in ${province} is ${unit.type === 'army' ? 'an army' : 'a fleet'}`, order);
      used.set(power, n + 1);
      removed.add(province);
      return put('succeeded', null, order);
    }
    return put('ignored', 'not an adjustment order', parsed);
  });
  // Civil disorder: the removals not ordered.
  for (const power of map.powers) {
    const d = diff.get(power) as number;
    let missing = -d - (used.get(power) ?? 0);
    if (d >= 0 || missing <= 0) continue;
    for (const u of civilDisorderOrder(
      map,
      power,
      position.units.filter((x) => !removed.has(provinceOf(x.at))),
    )) {
      if (missing-- <= 0) break;
      removed.add(provinceOf(u.at));
    }
  }
  const after = [...position.units.filter((u) => !removed.has(provinceOf(u.at))), ...built];
  return {
    position: {
      phase: { season: 'spring', year: position.phase.year + 1, type: 'movement' },
      units: sortUnits(after),
      dislodged: [],
      contested: [],
      supplyCenterOwners: position.supplyCenterOwners,
      winner: null,
    },
    results,
  };
}

/**
 * `power`'s units among `units` in the order civil disorder removes them (§3.7): furthest from home
 * first (map.distanceHome), then fleets before armies, then by province name.
 */
export function civilDisorderOrder(map: GameMap, power: string, units: readonly Unit[]): Unit[] {
  return units
    .filter((u) => u.power === power)
    .map((u) => ({ u, distance: map.distanceHome(power, u.type, u.at), name: (map.province(provinceOf(u.at))?.name ?? u.at).toLowerCase() }))
    .sort((a, b) => b.distance - a.distance || (a.u.type === b.u.type ? 0 : a.u.type === 'fleet' ? -1 : 1) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((x) => x.u);
}

/** One checked order for `checkOrders`: its canonical text, or why it cannot stand. */
export interface CheckedOrder {
  readonly text: string;
  readonly order: string | null;
  readonly error: { readonly code: string; readonly message: string } | null;
}

/**
 * Checks one power's orders against a position without adjudicating: each
 * order's canonical text, or its error (bad_order, unknown_province, or
 * illegal_order for an order the rules do not allow for that unit).
 */
export function checkOrders(map: GameMap, position: Position, power: string, texts: readonly string[], options: RuleOptions = {}): CheckedOrder[] {
  const strict = options.strictUnitType === true;
  if (!map.powers.includes(power)) throw new FairtableError('bad_input', `unknown power ${power}`, { field: 'power' });
  const type = position.phase.type;
  const units = new Map<string, Unit>(position.units.map((u) => [provinceOf(u.at), u]));
  const dislodged = new Map<string, DislodgedUnit>(position.dislodged.map((d) => [provinceOf(d.at), d]));
  const occupied = new Set(units.keys());
  const seen = new Set<string>();
  return texts.map((text): CheckedOrder => {
    let parsed: Order;
    try {
      parsed = parseOrder(text, map, type);
    } catch (e) {
      if (e instanceof FairtableError) return { text, order: null, error: { code: e.code, message: e.message } };
      throw e;
    }
    const illegal = (message: string, order: Order): CheckedOrder => ({ text, order: formatOrder(order), error: { code: 'illegal_order', message } });
    const province = orderedProvince(parsed);
    if (type === 'movement') {
      const unit = province === null ? undefined : units.get(province);
      if (unit === undefined || unit.power !== power) return illegal(`${power} has no unit in ${province ?? '?'}`, parsed);
      if (seen.has(province as string)) return illegal(`${province} already has an order`, parsed);
      seen.add(province as string);
      const checked = checkMovement(map, units, unit, parsed, strict);
      return checked.ok ? { text, order: formatOrder(checked.order), error: null } : illegal(checked.reason, checked.order);
    }
    if (type === 'retreat') {
      const unit = province === null ? undefined : dislodged.get(province);
      if (unit === undefined || unit.power !== power) return illegal(`${power} has no dislodged unit in ${province ?? '?'}`, parsed);
      if (seen.has(province as string)) return illegal(`${province} already has an order`, parsed);
      seen.add(province as string);
      const order = withUnit(parsed, unit);
      if (strict && parsed.kind !== 'waive' && parsed.unit !== null && parsed.unit !== unit.type)
        return illegal(`the unit in ${province} is ${unit.type === 'army' ? 'an army' : 'a fleet'}`, order);
      if (order.kind === 'retreat') {
        const options = retreatOptions(map, unit, occupied, position.contested);
        const fits = options.filter((o) => (unit.type === 'army' || coastOf(order.to) === null ? provinceOf(o) === provinceOf(order.to) : o === order.to));
        if (fits.length !== 1) return illegal(`${unit.at} cannot retreat to ${order.to}`, order);
        return { text, order: formatOrder({ ...order, to: fits[0] as string }), error: null };
      }
      return { text, order: formatOrder(order), error: null };
    }
    // adjustment: the full check needs the other orders; adjudicate() makes it.
    if (parsed.kind === 'remove') {
      const unit = province === null ? undefined : units.get(province);
      if (unit === undefined || unit.power !== power) return illegal(`${power} has no unit in ${province ?? '?'}`, parsed);
      return { text, order: formatOrder(withUnit(parsed, unit)), error: null };
    }
    if (parsed.kind === 'build') {
      const p = provinceOf(parsed.at);
      const at = parsed.unit === 'army' ? p : parsed.at;
      const order: Order = { ...parsed, at };
      if (!map.homeCenters(power).includes(p)) return illegal(`${p} is not a home centre of ${power}`, order);
      if (!position.supplyCenterOwners.some((o) => o.at === p && o.power === power)) return illegal(`${power} does not own ${p}`, order);
      if (occupied.has(p)) return illegal(`${p} is occupied`, order);
      if (!map.canStand(parsed.unit, at)) return illegal(`${TYPE_NAME[parsed.unit]} cannot be built at ${at}`, order);
      return { text, order: formatOrder(order), error: null };
    }
    return { text, order: formatOrder(parsed), error: null };
  });
}
