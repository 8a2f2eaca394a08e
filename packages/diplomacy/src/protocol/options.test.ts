/**
 * The orders offered (docs/spec/diplomacy.md §10.3): every order `checkOrders` accepts that could count is
 * offered, in its offered spelling, and nothing else is; the orders-file reader every front end shares
 * reads each order of the DATC cases to the order offered.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkChoice } from '@fairtable/core/protocols/machine.js';
import cases from '../testdata/datc-v2.4.json' with { type: 'json' };
import { adjudicate, checkOrders } from '../adjudicate.js';
import { provinceOf, type UnitType } from '../map.js';
import { formatOrder, parseOrder } from '../orders.js';
import { readOrdersFile } from '../orders-file.js';
import { readPosition, type Position, type Unit } from '../position.js';
import { standardMap as map } from '../standard.js';
import { orderChoices } from './options.js';

const LETTER = { army: 'A', fleet: 'F' } as const;

function movementPosition(units: readonly { power: string; type: UnitType; at: string }[]): Position {
  return { phase: { season: 'spring', year: 1901, type: 'movement' }, units: [...units], dislodged: [], contested: [], supplyCenterOwners: [], winner: null };
}

/** Every order offered to `power`, across its fields. */
function offered(position: Position, power: string): Set<string> {
  const out = new Set<string>();
  for (const f of Object.values(orderChoices(map, position, power).fields)) if (f.type === 'one-of') for (const v of f.values) out.add(String(v));
  return out;
}

const accepted = (position: Position, power: string, text: string): string | null => {
  const [c] = checkOrders(map, position, power, [text]);
  return c !== undefined && c.error === null ? c.order : null;
};

/**
 * Written here from the rule (§3.3), not taken from the engine: whether some chain of fleets at sea, each
 * next to the one before, links `from` to `to`, and if `through` is given, passes through it.
 */
function chain(position: Position, from: string, to: string, through?: Unit): boolean {
  const fleets = position.units.filter((u) => u.type === 'fleet' && map.province(provinceOf(u.at))?.kind === 'sea');
  const closure = (end: string): Set<Unit> => {
    const seen = new Set(fleets.filter((f) => map.reaches('fleet', f.at, end)));
    let grew = true;
    while (grew) {
      grew = false;
      for (const f of fleets)
        if (!seen.has(f) && [...seen].some((g) => map.reaches('fleet', g.at, provinceOf(f.at)))) {
          seen.add(f);
          grew = true;
        }
    }
    return seen;
  };
  const a = closure(from);
  const b = closure(to);
  return through === undefined ? fleets.some((f) => a.has(f) && b.has(f)) : a.has(through) && b.has(through);
}

/**
 * The offered spelling of an accepted order: an army's move to a province it cannot walk to is by convoy
 * (`via convoy`); `via convoy` with no chain of fleets at sea that could carry it is the move by land.
 */
function offeredSpelling(position: Position, canonical: string): string {
  const o = parseOrder(canonical, map, 'movement');
  if (o.kind !== 'move' || o.unit !== 'army') return canonical;
  const here = provinceOf(o.at);
  const viaConvoy = !map.reaches('army', here, o.to) || (o.viaConvoy && chain(position, here, o.to));
  return formatOrder({ ...o, viaConvoy });
}

/** Whether an accepted order could ever count: a support of a move its unit can be ordered to make, a convoy on a chain that could carry the army. */
function couldCount(position: Position, canonical: string): boolean {
  const o = parseOrder(canonical, map, 'movement');
  if (o.kind === 'support' && o.to !== null) {
    const target = position.units.find((u) => provinceOf(u.at) === o.from)!;
    const p = map.province(provinceOf(o.to))!;
    const tos = target.type === 'fleet' && o.to === p.id ? [p.id, ...p.coasts.map((c) => `${p.id}/${c}`)] : [o.to];
    return tos.some((to) => accepted(position, target.power, `${LETTER[target.type]} ${target.at} - ${to}`) !== null);
  }
  if (o.kind === 'convoy') {
    const army = position.units.find((u) => provinceOf(u.at) === o.from)!;
    const fleet = position.units.find((u) => provinceOf(u.at) === provinceOf(o.at))!;
    return accepted(position, army.power, `A ${army.at} - ${o.to} via convoy`) !== null && chain(position, o.from, o.to, fleet);
  }
  return true;
}

/** Candidate orders for a unit, far wider than what is legal: every verb towards every location of the map. */
function candidatesFor(position: Position, unit: Unit): string[] {
  const locations = [...map.provinces.values()].flatMap((p) => [p.id, ...p.coasts.map((c) => `${p.id}/${c}`)]);
  const me = `${LETTER[unit.type]} ${unit.at}`;
  const out = [`${me} H`];
  for (const l of locations) out.push(`${me} - ${l}`, `${me} - ${l} via convoy`);
  for (const other of position.units) {
    if (other === unit) continue;
    const them = `${LETTER[other.type]} ${provinceOf(other.at)}`;
    out.push(`${me} S ${them}`);
    for (const l of locations) out.push(`${me} S ${them} - ${l}`);
    if (other.type === 'army') for (const p of map.provinces.keys()) out.push(`${me} C A ${provinceOf(other.at)} - ${p}`);
  }
  return out;
}

/** The offered set against the accepted set, for every unit of `power`. */
function compare(position: Position, power: string): void {
  const menu = offered(position, power);
  for (const order of menu) {
    expect(accepted(position, power, order), order).toBe(order);
    expect(offeredSpelling(position, order), order).toBe(order);
    expect(couldCount(position, order), order).toBe(true);
  }
  for (const unit of position.units.filter((u) => u.power === power))
    for (const text of candidatesFor(position, unit)) {
      const canonical = accepted(position, power, text);
      if (canonical === null) continue;
      const spelling = offeredSpelling(position, canonical);
      expect(menu.has(spelling), `${text} → ${spelling}`).toBe(couldCount(position, spelling));
    }
}

describe('the orders offered', () => {
  // England's army in London, fleets in the Channel and the Mid-Atlantic; France's in Spain and Brest.
  const lonPor = movementPosition([
    { power: 'england', type: 'army', at: 'lon' },
    { power: 'england', type: 'fleet', at: 'eng' },
    { power: 'england', type: 'fleet', at: 'mao' },
    { power: 'france', type: 'army', at: 'spa' },
    { power: 'france', type: 'fleet', at: 'bre' },
    { power: 'france', type: 'fleet', at: 'gas' },
  ]);

  it('offers a convoy through two fleets, the convoy orders of both, and supports of the convoyed move; adjudicated, the army arrives', () => {
    const england = orderChoices(map, lonPor, 'england').fields;
    const values = (at: string): string[] => (england[at]?.type === 'one-of' ? england[at].values.map(String) : []);
    expect(values('lon')).toContain('A lon - por via convoy');
    expect(values('lon')).toContain('A lon - naf via convoy');
    expect(values('mao')).toContain('F mao C A lon - por');
    expect(values('eng')).toContain('F eng C A lon - por');
    // A chain may pass a fleet and come back (lon, eng, mao, eng, wal): both fleets may convoy to Wales.
    expect(values('eng')).toContain('F eng C A lon - wal');
    expect(values('mao')).toContain('F mao C A lon - wal');
    expect(values('mao')).toContain('F mao C A spa - por');
    expect(values('mao')).not.toContain('F mao C A spa - mun');
    expect(values('mao')).toContain('F mao S A spa - por');
    const france = orderChoices(map, lonPor, 'france').fields;
    const spa = france.spa?.type === 'one-of' ? france.spa.values.map(String) : [];
    expect(spa).toContain('A spa S A lon - por');
    // A support of a fleet's move, with the coast and without.
    const gas = france.gas?.type === 'one-of' ? france.gas.values.map(String) : [];
    expect(gas).toEqual(expect.arrayContaining(['F gas S F mao - spa', 'F gas S F mao - spa/nc', 'F gas S F mao - spa/sc']));
    const orders = ['A lon - por via convoy', 'F eng C A lon - por', 'F mao C A lon - por'];
    const reading = readOrdersFile(map, lonPor, 'england', 'A Lon - Por\nF ENG C A Lon - Por\nF MAO C A Lon - Por\n');
    expect(reading.problems).toEqual([]);
    expect(reading.answer).toEqual({ lon: orders[0], eng: orders[1], mao: orders[2] });
    expect(() => checkChoice(orderChoices(map, lonPor, 'england'), reading.answer, 'orders')).not.toThrow();
    const next = adjudicate(map, lonPor, [...orders.map((text) => ({ power: 'england', text })), { power: 'france', text: 'A spa S A lon - por' }]).position;
    expect(next.units).toContainEqual({ power: 'england', type: 'army', at: 'por' });
  });

  it('leaves out, with a reason, what could never count, and reads a move by convoy written without "via convoy"', () => {
    const r = readOrdersFile(map, lonPor, 'france', 'A spa S A lon - mar\nF bre S F eng - gas\n');
    expect(r.problems.map((p) => [p.line, p.code])).toEqual([
      [1, 'illegal_order'],
      [2, 'illegal_order'],
    ]);
    expect(r.problems[0]!.message).toContain('cannot be ordered to mar');
    const e = readOrdersFile(map, lonPor, 'england', 'F eng C A lon - bre\nA lon - wal via convoy');
    expect(e.problems).toEqual([]);
    expect(e.answer.eng).toBe('F eng C A lon - bre');
    const convoyOff = readOrdersFile(map, lonPor, 'england', 'F mao C A spa - mun\n');
    expect(convoyOff.problems[0]?.message).toContain('no chain of fleets at sea through mao links spa to mun');
    // Without fleets at sea, "via convoy" to a neighbour is the move by land (§3.3).
    const alone = movementPosition([{ power: 'france', type: 'army', at: 'par' }]);
    expect(readOrdersFile(map, alone, 'france', 'A par - bur via convoy').answer).toEqual({ par: 'A par - bur' });
  });

  it('equals what checkOrders accepts and could count, in the offered spelling, for the DATC-like position above', () => {
    compare(lonPor, 'england');
    compare(lonPor, 'france');
  });

  it('equals what checkOrders accepts and could count, over random positions', () => {
    const provinces = [...map.provinces.values()];
    const unitArb = fc.record({
      province: fc.integer({ min: 0, max: provinces.length - 1 }),
      fleet: fc.boolean(),
      coast: fc.integer({ min: 0, max: 1 }),
      power: fc.constantFrom('england', 'france', 'germany'),
    });
    fc.assert(
      fc.property(fc.array(unitArb, { minLength: 2, maxLength: 12 }), (drawn) => {
        const units: Unit[] = [];
        for (const d of drawn) {
          const p = provinces[d.province]!;
          if (units.some((u) => provinceOf(u.at) === p.id)) continue;
          const type: UnitType = p.kind === 'sea' || (d.fleet && p.kind === 'coastal') ? 'fleet' : 'army';
          const at = type === 'fleet' && p.coasts.length > 0 ? `${p.id}/${p.coasts[d.coast % p.coasts.length]}` : p.id;
          if (map.canStand(type, at)) units.push({ power: d.power, type, at });
        }
        const position = movementPosition(units);
        compare(position, 'england');
      }),
      { numRuns: 25, seed: 26 },
    );
  });
});

interface DatcCase {
  id: string;
  phase: { season: string; year: number; type: string };
  pre: {
    units: { power: string; type: string; at: string }[];
    dislodged: { power: string; type: string; at: string; attackerFrom?: string | null; attackerViaConvoy?: boolean }[];
    supplyCenterOwners: { power: string; at: string }[] | null;
    contested?: string[];
  };
  orders: { power: string; text: string }[];
}

describe('every order of the DATC cases through the shared orders reader', () => {
  it('reads each accepted order that could count to an order offered, and refuses the rest with a reason', () => {
    const tally = { offered: 0, neverCounts: 0, refusedByRules: 0 };
    for (const c of cases as unknown as DatcCase[]) {
      const position = readPosition(map, {
        phase: c.phase,
        units: c.pre.units,
        dislodged: c.pre.dislodged.map((d) => ({ ...d, attackerFrom: d.attackerFrom ?? null, attackerViaConvoy: d.attackerViaConvoy ?? false })),
        contested: c.pre.contested ?? [],
        supplyCenterOwners: c.pre.supplyCenterOwners,
      });
      const type = position.phase.type;
      for (const { power, text } of c.orders) {
        const p = power.toLowerCase();
        const canonical = accepted(position, p, text);
        if (canonical === null) {
          tally.refusedByRules++;
          continue;
        }
        const spelling = type === 'movement' ? offeredSpelling(position, canonical) : canonical;
        const fields = orderChoices(map, position, p).fields;
        const inMenu = Object.values(fields).some((f) => f.type === 'one-of' && f.values.includes(spelling));
        // A winter's builds and removals are offered while some are due; a movement order while it could count.
        const due = type !== 'adjustment' || Object.keys(fields).some((k) => k.startsWith(canonical.startsWith('Remove') ? 'remove' : 'build'));
        const counts = due && (type !== 'movement' || couldCount(position, spelling));
        expect(inMenu, `${c.id}: ${text} → ${spelling}`).toBe(counts);
        const r = readOrdersFile(map, position, p, text);
        if (counts) {
          tally.offered++;
          expect(r.problems, `${c.id}: ${text}`).toEqual([]);
          expect(Object.values(r.answer), `${c.id}: ${text}`).toContain(spelling);
        } else {
          tally.neverCounts++;
          expect(
            r.problems.map((x) => x.code),
            `${c.id}: ${text}`,
          ).toEqual([expect.stringMatching(/^(illegal_order|too_many_orders)$/)]);
        }
      }
    }
    // 649 orders: 587 offered; 55 illegal; 7 that could never count (6.A.5 twice, 6.D.23, 6.D.24, 6.F.1 twice,
    // 6.G.7: a support of a move into the unit's own province or to a coast it cannot reach, convoys off every chain).
    expect(tally).toEqual({ offered: 587, neverCounts: 7, refusedByRules: 55 });
  });
});
