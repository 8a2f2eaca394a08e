/**
 * What a power may order in a phase, as a decision's choices (docs/spec/diplomacy.md §10.3): one field per
 * unit (or per build or removal due), each a one-of of canonical orders that `checkOrders` accepts. A user
 * interface renders them as menus; an automatic player draws from them; the player's answer becomes the
 * orders file it commits to. Whether an order succeeds is the adjudicator's business, not this list's.
 */
import type { Choices } from '@fairtable/core/protocols/machine.js';
import { coastOf, provinceOf, type GameMap } from '../map.js';
import { formatOrder, type Order } from '../orders.js';
import { retreatOptions } from '../adjudicate.js';
import type { Position, Unit } from '../position.js';

type Field = Extract<Choices, { type: 'one-of' }>;

function oneOf(orders: readonly Order[]): Field {
  return { type: 'one-of', values: [...new Set(orders.map(formatOrder))] };
}

/** Provinces a unit could move to (ignoring coasts), the way supports are checked (DATC 6.A.10). */
function targets(map: GameMap, unit: Unit): string[] {
  return unit.type === 'army' ? [...map.armyNeighbours(provinceOf(unit.at))] : [...new Set([...map.fleetNeighbours(unit.at)].map(provinceOf))];
}

function movementFields(map: GameMap, position: Position, power: string): Record<string, Field> {
  const fields: Record<string, Field> = {};
  const units = position.units;
  for (const unit of units) {
    if (unit.power !== power) continue;
    const here = provinceOf(unit.at);
    const orders: Order[] = [{ kind: 'hold', unit: unit.type, at: unit.at }];
    if (unit.type === 'army') {
      for (const to of map.armyNeighbours(here)) orders.push({ kind: 'move', unit: 'army', at: unit.at, to, viaConvoy: false });
      // By convoy through one fleet at sea next to it, to a coast that fleet touches and the army cannot walk to.
      for (const sea of units) {
        if (sea.type !== 'fleet' || map.province(provinceOf(sea.at))?.kind !== 'sea' || !map.reaches('fleet', sea.at, here)) continue;
        for (const n of map.fleetNeighbours(sea.at)) {
          const p = provinceOf(n);
          if (p !== here && map.province(p)?.kind === 'coastal' && !map.reaches('army', here, p))
            orders.push({ kind: 'move', unit: 'army', at: unit.at, to: p, viaConvoy: true });
        }
      }
    } else {
      for (const to of map.fleetNeighbours(unit.at)) orders.push({ kind: 'move', unit: 'fleet', at: unit.at, to, viaConvoy: false });
    }
    for (const other of units) {
      if (other === unit) continue;
      const there = provinceOf(other.at);
      if (map.reaches(unit.type, unit.at, there)) orders.push({ kind: 'support', unit: unit.type, at: unit.at, target: other.type, from: there, to: null });
      for (const p of targets(map, other)) {
        if (p !== here && map.reaches(unit.type, unit.at, p))
          orders.push({ kind: 'support', unit: unit.type, at: unit.at, target: other.type, from: there, to: p });
      }
    }
    if (unit.type === 'fleet' && map.province(here)?.kind === 'sea') {
      for (const army of units) {
        if (army.type !== 'army' || !map.reaches('fleet', unit.at, provinceOf(army.at))) continue;
        for (const n of map.fleetNeighbours(unit.at)) {
          const p = provinceOf(n);
          if (p !== provinceOf(army.at) && map.province(p)?.kind === 'coastal')
            orders.push({ kind: 'convoy', unit: 'fleet', at: unit.at, from: provinceOf(army.at), to: p });
        }
      }
    }
    fields[unit.at] = oneOf(orders);
  }
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
