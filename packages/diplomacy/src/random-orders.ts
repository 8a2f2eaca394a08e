/**
 * Random legal orders for one power in any phase: what the benchmark, the
 * tests and simulated players use (docs/spec/diplomacy.md §7). Randomness comes
 * in as `below(k)`, an integer in [0, k), so the caller decides its source.
 * Every order is statically legal for its unit (checkOrders accepts it);
 * whether it succeeds is up to the adjudicator.
 */
import { coastOf, provinceOf, type GameMap } from './map.js';
import { formatOrder, type Order } from './orders.js';
import { retreatOptions } from './adjudicate.js';
import type { Position, Unit } from './position.js';

export type Below = (k: number) => number;

function pick<T>(below: Below, items: readonly T[]): T | undefined {
  return items.length === 0 ? undefined : items[below(items.length)];
}

/** Canonical texts of random legal orders for `power`'s units in `position`'s phase. */
export function randomOrders(map: GameMap, position: Position, power: string, below: Below): string[] {
  const type = position.phase.type;
  if (type === 'retreat') {
    const occupied = new Set(position.units.map((u) => provinceOf(u.at)));
    return position.dislodged
      .filter((d) => d.power === power)
      .map((d) => {
        const to = pick(below, retreatOptions(map, d, occupied, position.contested));
        return formatOrder(to === undefined || below(5) === 0 ? { kind: 'disband', unit: d.type, at: d.at } : { kind: 'retreat', unit: d.type, at: d.at, to });
      });
  }
  if (type === 'adjustment') return randomAdjustments(map, position, power, below);
  const units = new Map<string, Unit>(position.units.map((u) => [provinceOf(u.at), u]));
  const orders: string[] = [];
  for (const unit of position.units) {
    if (unit.power !== power) continue;
    const here = provinceOf(unit.at);
    const moves: Order[] = [];
    if (unit.type === 'army') {
      for (const to of map.armyNeighbours(here)) moves.push({ kind: 'move', unit: 'army', at: unit.at, to, viaConvoy: false });
      // Convoyed moves one sea away, through a fleet that is there.
      for (const sea of position.units) {
        if (sea.type !== 'fleet' || map.province(provinceOf(sea.at))?.kind !== 'sea' || !map.reaches('fleet', sea.at, here)) continue;
        for (const n of map.fleetNeighbours(sea.at)) {
          const p = provinceOf(n);
          if (p !== here && map.province(p)?.kind === 'coastal' && !map.reaches('army', here, p))
            moves.push({ kind: 'move', unit: 'army', at: unit.at, to: p, viaConvoy: true });
        }
      }
    } else {
      for (const to of map.fleetNeighbours(unit.at)) moves.push({ kind: 'move', unit: 'fleet', at: unit.at, to, viaConvoy: false });
    }
    const roll = below(10);
    let order: Order | undefined;
    if (roll < 5) order = pick(below, moves);
    else if (roll < 8) {
      // Support a neighbour: to hold, or into a province both can reach.
      const neighbours = [...units.values()].filter((u) => u !== unit && map.reaches(unit.type, unit.at, provinceOf(u.at)));
      const other = pick(below, neighbours);
      if (other !== undefined) {
        const into = [...(other.type === 'army' ? map.armyNeighbours(provinceOf(other.at)) : [...map.fleetNeighbours(other.at)].map(provinceOf))].filter(
          (p) => p !== here && map.reaches(unit.type, unit.at, p),
        );
        const to = below(2) === 0 ? undefined : pick(below, into);
        order = { kind: 'support', unit: unit.type, at: unit.at, target: other.type, from: provinceOf(other.at), to: to ?? null };
      }
    } else if (roll < 9 && unit.type === 'fleet' && map.province(here)?.kind === 'sea') {
      const armies = [...units.values()].filter((u) => u.type === 'army' && map.reaches('fleet', unit.at, provinceOf(u.at)));
      const army = pick(below, armies);
      const to = pick(
        below,
        [...map.fleetNeighbours(unit.at)].map(provinceOf).filter((p) => army !== undefined && p !== provinceOf(army.at) && map.province(p)?.kind === 'coastal'),
      );
      if (army !== undefined && to !== undefined) order = { kind: 'convoy', unit: 'fleet', at: unit.at, from: provinceOf(army.at), to };
    }
    orders.push(formatOrder(order ?? { kind: 'hold', unit: unit.type, at: unit.at }));
  }
  return orders;
}

function randomAdjustments(map: GameMap, position: Position, power: string, below: Below): string[] {
  const owned = position.supplyCenterOwners.filter((o) => o.power === power).map((o) => o.at);
  const mine = position.units.filter((u) => u.power === power);
  const diff = owned.length - mine.length;
  const out: string[] = [];
  if (diff < 0) {
    const pool = [...mine];
    for (let k = 0; k < -diff && pool.length > 0; k++) {
      const [u] = pool.splice(below(pool.length), 1) as [Unit];
      out.push(formatOrder({ kind: 'remove', unit: u.type, at: u.at }));
    }
    return out;
  }
  const occupied = new Set(position.units.map((u) => provinceOf(u.at)));
  const free = map.homeCenters(power).filter((h) => owned.includes(h) && !occupied.has(h));
  for (let k = 0; k < diff && free.length > 0; k++) {
    const [at] = free.splice(below(free.length), 1) as [string];
    const p = map.province(at);
    const fleetAt = p === undefined || p.kind !== 'coastal' ? [] : p.coasts.length === 0 ? [at] : p.coasts.map((c) => `${at}/${c}`);
    const options = fleetAt.filter((l) => map.canStand('fleet', l) && (coastOf(l) !== null || map.fleetNeighbours(l).size > 0));
    const fleet = below(2) === 0 ? pick(below, options) : undefined;
    out.push(formatOrder(fleet === undefined ? { kind: 'build', unit: 'army', at } : { kind: 'build', unit: 'fleet', at: fleet }));
  }
  return out;
}

/** A small deterministic generator for tests and benchmarks (xorshift32); not for anything that must be unpredictable. */
export function seededBelow(seed: number): Below {
  let x = seed >>> 0 || 0x9e3779b9;
  return (k: number): number => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % k;
  };
}
