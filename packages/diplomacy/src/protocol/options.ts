/**
 * What a power may order in a phase, as a decision's choices (docs/spec/diplomacy.md §10.3): one field per
 * unit (or per build or removal due), each a one-of of canonical orders: every order `checkOrders` accepts
 * that could count, in one spelling (§10.3.1; options.test.ts holds the two sets against each other). A user
 * interface renders them as menus; an automatic player draws from them; the player's answer becomes the
 * orders file it commits to. Whether an order succeeds is the adjudicator's business, not this list's.
 */
import type { Choices } from '@fairtable/core/protocols/machine.js';
import { coastOf, provinceOf, type GameMap } from '../map.js';
import { formatOrder, type Order } from '../orders.js';
import { fleetsAtSea, onRoute, retreatOptions } from '../adjudicate.js';
import type { Position, Unit } from '../position.js';

type Field = Extract<Choices, { type: 'one-of' }>;

function oneOf(orders: readonly Order[]): Field {
  return { type: 'one-of', values: [...new Set(orders.map(formatOrder))] };
}

/**
 * Where armies could be convoyed in this position: for an army's province, each coastal province some
 * chain of fleets at sea links it to, with the fleets on such chains (`onRoute`, the rule `checkOrders`
 * applies to a move by convoy, §3.2). Computed once per province asked.
 */
function convoyRoutes(map: GameMap, units: readonly Unit[]): (from: string) => ReadonlyMap<string, readonly Unit[]> {
  const atSea = fleetsAtSea(map, new Map(units.map((u) => [provinceOf(u.at), u])));
  const coastal = [...map.provinces.values()].filter((p) => p.kind === 'coastal').map((p) => p.id);
  const cache = new Map<string, ReadonlyMap<string, readonly Unit[]>>();
  return (from) => {
    let routes = cache.get(from);
    if (routes === undefined) {
      const found = new Map<string, readonly Unit[]>();
      if (map.province(from)?.kind === 'coastal' && atSea.some((f) => map.reaches('fleet', f.at, from)))
        for (const p of coastal) {
          if (p === from) continue;
          const route = onRoute(map, atSea, from, p);
          if (route.length > 0) found.set(p, route);
        }
      routes = found;
      cache.set(from, routes);
    }
    return routes;
  };
}

/**
 * Every move a unit could be ordered to make: an army's to each province next to it and, by convoy, to
 * each coastal province a chain of fleets at sea links it to; a fleet's to each location next to it
 * (coast included). A move by convoy is written `via convoy`.
 */
function movesOf(map: GameMap, unit: Unit, routes: ReturnType<typeof convoyRoutes>): Extract<Order, { kind: 'move' }>[] {
  const here = provinceOf(unit.at);
  if (unit.type === 'fleet') return [...map.fleetNeighbours(unit.at)].map((to) => ({ kind: 'move', unit: 'fleet', at: unit.at, to, viaConvoy: false }));
  const moves: Extract<Order, { kind: 'move' }>[] = [];
  for (const to of map.armyNeighbours(here)) moves.push({ kind: 'move', unit: 'army', at: unit.at, to, viaConvoy: false });
  for (const to of routes(here).keys()) moves.push({ kind: 'move', unit: 'army', at: unit.at, to, viaConvoy: true });
  return moves;
}

/**
 * A unit's orders in a movement phase (docs/spec/diplomacy.md §10.3): hold; every move `movesOf` gives;
 * support to hold of every unit in a province it reaches; support of every move another unit could be
 * ordered to make into a province it reaches (a fleet's move both with its coast and without); for a
 * fleet at sea, a convoy of every move by convoy whose chains of fleets at sea it lies on.
 */
function unitOrders(map: GameMap, units: readonly Unit[], unit: Unit, routes: ReturnType<typeof convoyRoutes>): Order[] {
  const here = provinceOf(unit.at);
  const orders: Order[] = [{ kind: 'hold', unit: unit.type, at: unit.at }, ...movesOf(map, unit, routes)];
  for (const other of units) {
    if (other === unit) continue;
    const there = provinceOf(other.at);
    if (map.reaches(unit.type, unit.at, there)) orders.push({ kind: 'support', unit: unit.type, at: unit.at, target: other.type, from: there, to: null });
    for (const move of movesOf(map, other, routes)) {
      const p = provinceOf(move.to);
      if (p === here || !map.reaches(unit.type, unit.at, p)) continue;
      orders.push({ kind: 'support', unit: unit.type, at: unit.at, target: other.type, from: there, to: p });
      if (move.to !== p) orders.push({ kind: 'support', unit: unit.type, at: unit.at, target: other.type, from: there, to: move.to });
    }
  }
  if (unit.type === 'fleet' && map.province(here)?.kind === 'sea') {
    for (const army of units) {
      if (army.type !== 'army') continue;
      for (const [to, route] of routes(provinceOf(army.at)))
        if (route.includes(unit)) orders.push({ kind: 'convoy', unit: 'fleet', at: unit.at, from: provinceOf(army.at), to });
    }
  }
  return orders;
}

function movementFields(map: GameMap, position: Position, power: string): Record<string, Field> {
  const fields: Record<string, Field> = {};
  const routes = convoyRoutes(map, position.units);
  for (const unit of position.units) if (unit.power === power) fields[unit.at] = oneOf(unitOrders(map, position.units, unit, routes));
  return fields;
}

function retreatFields(map: GameMap, position: Position, power: string): Record<string, Field> {
  const occupied = new Set(position.units.map((u) => provinceOf(u.at)));
  const fields: Record<string, Field> = {};
  for (const d of position.dislodged) {
    if (d.power !== power) continue;
    const orders: Order[] = [{ kind: 'disband', unit: d.type, at: d.at }];
    for (const to of retreatOptions(map, d, occupied, position.contested)) orders.push({ kind: 'retreat', unit: d.type, at: d.at, to });
    fields[d.at] = oneOf(orders);
  }
  return fields;
}

function adjustmentFields(map: GameMap, position: Position, power: string): Record<string, Field> {
  const owned = position.supplyCenterOwners.filter((o) => o.power === power).map((o) => o.at);
  const mine = position.units.filter((u) => u.power === power);
  const due = owned.length - mine.length;
  const fields: Record<string, Field> = {};
  if (due < 0) {
    const removals = oneOf(mine.map((u): Order => ({ kind: 'remove', unit: u.type, at: u.at })));
    for (let k = 1; k <= -due; k++) fields[`remove ${k}`] = removals;
    return fields;
  }
  const occupied = new Set(position.units.map((u) => provinceOf(u.at)));
  const builds: Order[] = [{ kind: 'waive' }];
  for (const at of map.homeCenters(power)) {
    if (!owned.includes(at) || occupied.has(at)) continue;
    if (map.canStand('army', at)) builds.push({ kind: 'build', unit: 'army', at });
    const p = map.province(at);
    const fleetAt = p === undefined || p.kind !== 'coastal' ? [] : p.coasts.length === 0 ? [at] : p.coasts.map((c) => `${at}/${c}`);
    for (const l of fleetAt)
      if (map.canStand('fleet', l) && (coastOf(l) !== null || map.fleetNeighbours(l).size > 0)) builds.push({ kind: 'build', unit: 'fleet', at: l });
  }
  // A power with more builds due than free home centres can use at most as many as it has centres to build on.
  const usable = Math.min(due, builds.length - 1);
  for (let k = 1; k <= usable; k++) fields[`build ${k}`] = oneOf(builds);
  return fields;
}

/** The choices of `power`'s orders in `position`'s phase: a record of one-of fields, possibly with none. */
export function orderChoices(map: GameMap, position: Position, power: string): Extract<Choices, { type: 'record' }> {
  const type = position.phase.type;
  const fields =
    type === 'movement'
      ? movementFields(map, position, power)
      : type === 'retreat'
        ? retreatFields(map, position, power)
        : adjustmentFields(map, position, power);
  return { type: 'record', fields };
}
