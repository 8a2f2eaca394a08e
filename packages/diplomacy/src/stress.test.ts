/**
 * Dense random movement phases (docs/spec/diplomacy.md §3.4): many units
 * packed on the board with supports and convoys that mostly match, so that
 * cuts, head-to-head battles, circular movement and convoy paradoxes occur.
 * Every outcome must be a consistent resolution (the self-check re-decides
 * each decision against the final ones), must not depend on the order the
 * orders arrive in, and must leave one unit per province.
 */
import { describe, expect, it } from 'vitest';
import { adjudicate, type OrderInput } from './adjudicate.js';
import { provinceOf } from './map.js';
import { formatOrder, type Order } from './orders.js';
import { positionHash, readPosition, type Unit } from './position.js';
import { seededBelow, type Below } from './random-orders.js';
import { standardMap as map } from './standard.js';

function scenario(below: Below): { units: Unit[]; orders: OrderInput[] } {
  const provinces = [...map.provinces.values()].filter((p) => p.kind !== 'impassable');
  const units: Unit[] = [];
  const count = 30 + below(36);
  const pool = [...provinces];
  while (units.length < count && pool.length > 0) {
    const [p] = pool.splice(below(pool.length), 1) as [(typeof provinces)[number]];
    const power = map.powers[below(map.powers.length)] as string;
    const fleet = p.kind === 'sea' || (p.kind === 'coastal' && below(2) === 0);
    const at = fleet && p.coasts.length > 0 ? `${p.id}/${p.coasts[below(p.coasts.length)] as string}` : p.id;
    if (fleet && map.fleetNeighbours(at).size === 0) continue;
    units.push({ power, type: fleet ? 'fleet' : 'army', at });
  }
  const byProvince = new Map(units.map((u) => [provinceOf(u.at), u]));
  const seaFleets = units.filter((u) => u.type === 'fleet' && map.province(provinceOf(u.at))?.kind === 'sea');
  const orders = new Map<Unit, Order>();
  // Moves first.
  for (const u of units) {
    const here = provinceOf(u.at);
    if (below(10) >= 5) continue;
    if (u.type === 'fleet') {
      const to = [...map.fleetNeighbours(u.at)];
      orders.set(u, { kind: 'move', unit: 'fleet', at: u.at, to: to[below(to.length)] as string, viaConvoy: false });
      continue;
    }
    // Places reachable through fleets at sea, whatever they are ordered.
    const reached = new Set<string>();
    const chain = seaFleets.filter((f) => map.reaches('fleet', f.at, here));
    const seen = new Set(chain);
    for (let q = 0; q < chain.length; q++) {
      const f = chain[q] as Unit;
      for (const n of map.fleetNeighbours(f.at)) {
        const p = provinceOf(n);
        if (map.province(p)?.kind === 'coastal' && p !== here) reached.add(p);
        const g = byProvince.get(p);
        if (g !== undefined && seaFleets.includes(g) && !seen.has(g)) {
          seen.add(g);
          chain.push(g);
        }
      }
    }
    const land = [...map.armyNeighbours(here)];
    const viaSea = [...reached];
    if (viaSea.length > 0 && below(3) === 0) {
      const to = viaSea[below(viaSea.length)] as string;
      orders.set(u, { kind: 'move', unit: 'army', at: u.at, to, viaConvoy: map.reaches('army', here, to) ? below(2) === 0 : false });
    } else if (land.length > 0) orders.set(u, { kind: 'move', unit: 'army', at: u.at, to: land[below(land.length)] as string, viaConvoy: false });
  }
  // Then supports and convoys, mostly of orders that exist.
  for (const u of units) {
    if (orders.has(u)) continue;
    const roll = below(10);
    const here = provinceOf(u.at);
    if (roll < 6) {
      const candidates = units.filter(
        (t) =>
          t !== u &&
          (map.reaches(u.type, u.at, provinceOf(t.at)) ||
            (orders.get(t)?.kind === 'move' && map.reaches(u.type, u.at, provinceOf((orders.get(t) as { to: string }).to)))),
      );
      const t = candidates[below(candidates.length + 1)];
      if (t !== undefined) {
        const o = orders.get(t);
        const to = o?.kind === 'move' ? provinceOf(o.to) : null;
        const supportMove = to !== null && to !== here && map.reaches(u.type, u.at, to) && below(5) !== 0;
        orders.set(u, { kind: 'support', unit: u.type, at: u.at, target: t.type, from: provinceOf(t.at), to: supportMove ? to : null });
        continue;
      }
    } else if (seaFleets.includes(u)) {
      const armies = units.filter((a) => a.type === 'army' && orders.get(a)?.kind === 'move');
      const a = armies[below(armies.length + 1)];
      if (a !== undefined) {
        orders.set(u, { kind: 'convoy', unit: 'fleet', at: u.at, from: provinceOf(a.at), to: provinceOf((orders.get(a) as { to: string }).to) });
        continue;
      }
    }
    if (below(2) === 0) orders.set(u, { kind: 'hold', unit: u.type, at: u.at });
  }
  // Often plant the makings of a paradox: an army convoyed by a fleet at sea into a unit that supports an attack on that fleet.
  if (below(2) === 0) {
    for (const f of seaFleets) {
      const sea = provinceOf(f.at);
      const a = units.find((u) => u.type === 'army' && map.reaches('fleet', f.at, provinceOf(u.at)));
      const s = units.find(
        (u) =>
          u !== a &&
          u !== f &&
          map.reaches('fleet', f.at, provinceOf(u.at)) &&
          map.province(provinceOf(u.at))?.kind === 'coastal' &&
          map.reaches(u.type, u.at, sea),
      );
      const x = units.find((u) => u !== a && u !== f && u !== s && map.reaches(u.type, u.at, sea));
      if (a === undefined || s === undefined || x === undefined) continue;
      const to = provinceOf(s.at);
      orders.set(a, { kind: 'move', unit: 'army', at: a.at, to, viaConvoy: true });
      orders.set(f, { kind: 'convoy', unit: 'fleet', at: f.at, from: provinceOf(a.at), to });
      orders.set(x, { kind: 'move', unit: x.type, at: x.at, to: x.type === 'fleet' ? (map.fleetTargets(x.at, sea)[0] as string) : sea, viaConvoy: false });
      orders.set(s, { kind: 'support', unit: s.type, at: s.at, target: x.type, from: provinceOf(x.at), to: sea });
      break;
    }
  }
  return { units, orders: [...orders].map(([u, o]) => ({ power: u.power, text: formatOrder(o) })) };
}

// DIPLOMACY_STRESS=40000 for a longer run by hand; the thresholds below scale with it.
const PHASES = Number(process.env['DIPLOMACY_STRESS'] ?? 3000);

describe('dense random movement phases', () => {
  it(
    `${PHASES} phases: consistent, order-independent, one unit per province`,
    () => {
      const below = seededBelow(12 + PHASES);
      const tally = { dislodged: 0, paradoxes: 0, convoyed: 0, cut: 0 };
      for (let k = 0; k < PHASES; k++) {
        const { units, orders } = scenario(below);
        const position = readPosition(map, { phase: { season: 'spring', year: 1901, type: 'movement' }, units, supplyCenterOwners: null });
        const { position: next, results } = adjudicate(map, position, orders, { selfCheck: true });
        const reversed = adjudicate(map, position, [...orders].reverse(), { selfCheck: true });
        expect(positionHash(map, reversed.position)).toBe(positionHash(map, next));
        const provinces = next.units.map((u) => provinceOf(u.at));
        expect(new Set(provinces).size).toBe(provinces.length);
        expect(next.units.length + next.dislodged.length).toBeLessThanOrEqual(units.length);
        for (const d of next.dislodged) {
          expect(next.units.some((u) => provinceOf(u.at) === provinceOf(d.at) && u.power !== d.power)).toBe(true);
        }
        tally.dislodged += units.length - next.units.length;
        for (const r of results) {
          if (r.reason === 'convoy paradox') tally.paradoxes++;
          if (r.reason === 'cut') tally.cut++;
          if (r.status === 'succeeded' && r.order?.endsWith('via convoy') === true) tally.convoyed++;
        }
      }
      // The generator must reach the hard cases, or the test says little.
      expect(tally.dislodged).toBeGreaterThan(PHASES * 0.6);
      expect(tally.cut).toBeGreaterThan(PHASES * 0.6);
      expect(tally.paradoxes).toBeGreaterThan(PHASES * 0.05);
      expect(tally.convoyed).toBeGreaterThan(PHASES * 0.03);
    },
    Math.max(60_000, PHASES * 20),
  );
});
