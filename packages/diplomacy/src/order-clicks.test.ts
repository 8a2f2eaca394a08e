/**
 * Orders by clicks (order-clicks.ts, docs/spec/diplomacy.md §10.3.3): every offered order of every DATC position is
 * reached by its clicks, written here from the click grammar over the parsed order, with a choice from a short
 * list where the clicks end several orders; random clicks on random positions never produce an order outside the
 * menu.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import cases from './testdata/datc-v2.4.json' with { type: 'json' };
import { provinceOf, type UnitType } from './map.js';
import { parseOrder, type PhaseType } from './orders.js';
import { readOrdersFile } from './orders-file.js';
import { readPosition, type Position, type Unit } from './position.js';
import { standardMap as map } from './standard.js';
import { orderChoices } from './protocol/options.js';
import { clickChoose, clickProvince, clickStart, convoyFollowUps, orderWords, placeOrder, type ClickMenu, type ClickStep } from './order-clicks.js';

function menuOf(position: Position, power: string): ClickMenu {
  const out: Record<string, string[]> = {};
  for (const [k, f] of Object.entries(orderChoices(map, position, power).fields)) if (f.type === 'one-of') out[k] = f.values.map(String);
  return out;
}

/** The clicks for an order, from the grammar (§10.3.3) over the order as the parser reads it. */
function grammarClicks(order: string, type: PhaseType): string[] {
  const o = parseOrder(order, map, type);
  switch (o.kind) {
    case 'hold':
    case 'disband':
      return [provinceOf(o.at), provinceOf(o.at)];
    case 'move':
    case 'retreat':
      return [provinceOf(o.at), provinceOf(o.to)];
    case 'support':
      return [provinceOf(o.at), o.from, provinceOf(o.to ?? o.from)];
    case 'convoy':
      return [provinceOf(o.at), o.from, o.to];
    case 'build':
    case 'remove':
      return [provinceOf(o.at)];
    case 'waive':
      return [];
  }
}

/** Clicks `clicks` one by one; returns the last step, or a complaint when a click is refused or settles too early. */
function clickThrough(menu: ClickMenu, clicks: readonly string[]): ClickStep {
  let step = clickStart(menu);
  clicks.forEach((p, i) => {
    if (step.order !== null) throw new Error(`settled ${step.order} before click ${i + 1} of ${clicks.join(' ')}`);
    step = clickProvince(menu, step.clicks, p);
    if (step.refused !== null) throw new Error(`click ${i + 1} of ${clicks.join(' ')} refused: ${step.refused}`);
  });
  return step;
}

/** Enters `order` by its clicks and, where the clicks end several orders, by choosing it; returns the choices seen. */
function enter(menu: ClickMenu, order: string, type: PhaseType): string[] {
  const step = clickThrough(menu, grammarClicks(order, type));
  if (step.order !== null) {
    if (step.order !== order) throw new Error(`the clicks of ${order} gave ${step.order}`);
    return [];
  }
  if (!step.choices.includes(order)) throw new Error(`the clicks of ${order} offer ${step.choices.join('; ')}`);
  if (clickChoose(menu, step.clicks, order).order !== order) throw new Error(`choosing ${order} gave another order`);
  return [...step.choices];
}

const movement = (units: readonly Unit[]): Position => ({
  phase: { season: 'spring', year: 1901, type: 'movement' },
  units: [...units],
  dislodged: [],
  contested: [],
  supplyCenterOwners: [],
  winner: null,
});

describe('orders by clicks', () => {
  // England: A lon, F eng, F mao; France: A spa, F gas.
  const lonPor = movement([
    { power: 'england', type: 'army', at: 'lon' },
    { power: 'england', type: 'fleet', at: 'eng' },
    { power: 'england', type: 'fleet', at: 'mao' },
    { power: 'france', type: 'army', at: 'spa' },
    { power: 'france', type: 'fleet', at: 'gas' },
  ]);
  const england = menuOf(lonPor, 'england');

  it('moves a unit in two clicks, by convoy when no land route is offered; holds on a second click of the unit', () => {
    expect(clickStart(england).prompt).toBe('Click one of your units to order it.');
    const lon = clickProvince(england, [], 'lon');
    expect(lon.order).toBeNull();
    expect(lon.prompt).toBe('A Lon: click where it moves, itself to hold or a unit to support.');
    const por = clickProvince(england, lon.clicks, 'por');
    expect(por.order).toBe('A lon - por via convoy');
    expect(por.prompt).toBe('A Lon → Por via convoy.');
    expect(por.clicks).toEqual([]);
    expect(clickProvince(england, lon.clicks, 'lon').order).toBe('A lon H');
    // Both fleets of the chain are offered their convoy orders in one step.
    expect(convoyFollowUps(england, {}, 'A lon - por via convoy').sort()).toEqual(['F eng C A lon - por', 'F mao C A lon - por']);
    expect(convoyFollowUps(england, { eng: 'F eng C A lon - por' }, 'A lon - por via convoy')).toEqual(['F mao C A lon - por']);
  });

  it('asks with a short list where the clicks end several orders: by land or by convoy, support or convoy, coasts', () => {
    expect(clickThrough(england, ['lon', 'wal']).choices).toEqual(['A lon - wal', 'A lon - wal via convoy']);
    expect(orderWords('A lon - wal')).toBe('A Lon → Wal by land');
    const eng = clickThrough(england, ['eng', 'lon', 'wal']);
    expect([...eng.choices].sort()).toEqual(['F eng C A lon - wal', 'F eng S A lon - wal']);
    expect(eng.prompt).toContain('F Eng supports or convoys the unit in Lon');
    expect(clickThrough(england, ['mao', 'spa']).choices).toEqual(['F mao - spa/nc', 'F mao - spa/sc']);
    const france = menuOf(lonPor, 'france');
    expect(clickThrough(france, ['gas', 'mao', 'spa']).choices).toEqual(['F gas S F mao - spa', 'F gas S F mao - spa/nc', 'F gas S F mao - spa/sc']);
    expect(orderWords('F gas S F mao - spa/nc')).toBe('F Gas supports F Mao → Spa (north coast)');
    // A click on a unit the selected one can move to or support: the move is offered, and further clicks go on.
    const engOnLon = clickThrough(england, ['eng', 'lon']);
    expect(engOnLon.choices).toEqual(['F eng - lon']);
    expect(engOnLon.more).toBe(true);
    // Support to hold: the supported unit clicked again.
    expect(clickThrough(france, ['spa', 'gas', 'gas']).order).toBe('A spa S F gas');
  });

  it('starts over from another unit of yours, refuses a click that leads nowhere, and refuses a choice not offered', () => {
    const lon = clickProvince(england, [], 'lon');
    const mos = clickProvince(england, lon.clicks, 'mos');
    expect(mos.refused).toBe('A Lon has no order that goes on with Mos.');
    expect(mos.clicks).toEqual(['lon']);
    expect(clickProvince(england, [], 'spa').refused).toBe('No order of yours starts with Spa.');
    // Sweden: nothing there for England, so a click on it does not start anything; eng does.
    expect(clickProvince(england, ['lon', 'swe'], 'eng').clicks).toEqual(['eng']);
    expect(() => clickChoose(england, ['lon', 'wal'], 'A lon - por via convoy')).toThrow(/not one of the orders/);
    expect(clickStart(england, ['lon', 'mos']).clicks).toEqual([]);
  });

  it('retreats, disbands, builds with a choice of army, fleet and coast, removes, and waives', () => {
    const retreat = readPosition(map, {
      phase: { season: 'spring', year: 1901, type: 'retreat' },
      units: [{ power: 'germany', type: 'army', at: 'mun' }],
      dislodged: [{ power: 'austria', type: 'army', at: 'mun', attackerFrom: 'boh', attackerViaConvoy: false }],
      contested: [],
      supplyCenterOwners: null,
    });
    const austria = menuOf(retreat, 'austria');
    expect(clickStart(austria).prompt).toBe('Click a dislodged unit of yours to retreat or disband it.');
    expect(clickThrough(austria, ['mun', 'bur']).order).toBe('A mun R bur');
    expect(clickThrough(austria, ['mun', 'mun']).order).toBe('A mun D');
    const winter = readPosition(map, {
      phase: { season: 'winter', year: 1901, type: 'adjustment' },
      units: [{ power: 'russia', type: 'army', at: 'war' }],
      dislodged: [],
      contested: [],
      supplyCenterOwners: ['stp', 'mos', 'war', 'sev', 'swe'].map((at) => ({ power: 'russia', at })),
    });
    const russia = menuOf(winter, 'russia');
    expect(clickStart(russia).choices).toEqual(['Waive']);
    expect(clickThrough(russia, ['stp']).choices).toEqual(['Build A stp', 'Build F stp/nc', 'Build F stp/sc']);
    expect(orderWords('Build F stp/nc')).toBe('Build a fleet in Stp (north coast)');
    let answer: Record<string, string> = { 'build 1': 'Waive', 'build 2': 'Waive', 'build 3': 'Waive', 'build 4': 'Waive' };
    answer = placeOrder(russia, answer, 'Build A stp');
    answer = placeOrder(russia, answer, 'Build A mos');
    // Another build in St Petersburg replaces the one there.
    answer = placeOrder(russia, answer, 'Build F stp/sc');
    expect(answer).toEqual({ 'build 1': 'Build F stp/sc', 'build 2': 'Build A mos', 'build 3': 'Waive', 'build 4': 'Waive' });
    expect(() => placeOrder(russia, answer, 'Build A war')).toThrow(/not offered/);
    const spring = menuOf(
      { ...winter, supplyCenterOwners: [{ power: 'russia', at: 'mos' }], units: [...winter.units, { power: 'russia', type: 'army', at: 'ukr' }] },
      'russia',
    );
    expect(clickThrough(spring, ['ukr']).order).toBe('Remove A ukr');
    expect(placeOrder(spring, { 'remove 1': 'Remove A war', vote: 'none' }, 'Remove A ukr')).toEqual({ 'remove 1': 'Remove A ukr', vote: 'none' });
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

describe('every offered order of the DATC positions by clicks', () => {
  it('reaches each one, exactly, with at most three orders to choose from', () => {
    let orders = 0;
    let asked = 0;
    let several = 0;
    let written = 0;
    let menus = 0;
    for (const c of cases as unknown as DatcCase[]) {
      const position = readPosition(map, {
        phase: c.phase,
        units: c.pre.units,
        dislodged: c.pre.dislodged.map((d) => ({ ...d, attackerFrom: d.attackerFrom ?? null, attackerViaConvoy: d.attackerViaConvoy ?? false })),
        contested: c.pre.contested ?? [],
        supplyCenterOwners: c.pre.supplyCenterOwners,
      });
      const powers = new Set([...position.units, ...position.dislodged].map((u) => u.power));
      for (const o of position.supplyCenterOwners) powers.add(o.power);
      const byPower = new Map<string, ClickMenu>();
      for (const power of powers) {
        const menu = menuOf(position, power);
        byPower.set(power, menu);
        const offered = new Set(Object.values(menu).flat());
        if (offered.size === 0) continue;
        menus++;
        for (const order of offered) {
          const choices = enter(menu, order, position.phase.type);
          orders++;
          if (choices.length > 0) asked++;
          if (choices.length > 1) several++;
          if (choices.length > 3 || choices.some((x) => !offered.has(x))) throw new Error(`${c.id} ${order}: ${choices.join('; ')}`);
        }
      }
      // The case's own orders, read as the orders form reads them: each one taken is an order of a menu entered above.
      for (const { power, text } of c.orders) {
        const r = readOrdersFile(map, position, power.toLowerCase(), text);
        if (r.problems.length > 0) continue;
        const offered = Object.values(byPower.get(power.toLowerCase()) ?? {}).flat();
        if (Object.values(r.answer).every((v) => typeof v === 'string' && offered.includes(v))) written++;
      }
    }
    // 337 menus (a power in a case); 13,689 orders, 4,519 of them ended by a choice: 3,303 from two or three
    // orders, the rest a move onto a unit the clicks could also go on from. The cases' own 587 offered orders among them.
    expect({ menus, orders, asked, several, written }).toEqual({ menus: 337, orders: 13689, asked: 4519, several: 3303, written: 587 });
  });
});

describe('random positions and random clicks', () => {
  const provinces = [...map.provinces.values()];
  const unitArb = fc.record({
    province: fc.integer({ min: 0, max: provinces.length - 1 }),
    fleet: fc.boolean(),
    coast: fc.integer({ min: 0, max: 1 }),
    power: fc.constantFrom('england', 'france', 'germany'),
  });
  const positionOf = (drawn: readonly { province: number; fleet: boolean; coast: number; power: string }[]): Position => {
    const units: Unit[] = [];
    for (const d of drawn) {
      const p = provinces[d.province]!;
      if (units.some((u) => provinceOf(u.at) === p.id)) continue;
      const type: UnitType = p.kind === 'sea' || (d.fleet && p.kind === 'coastal') ? 'fleet' : 'army';
      const at = type === 'fleet' && p.coasts.length > 0 ? `${p.id}/${p.coasts[d.coast % p.coasts.length]}` : p.id;
      if (map.canStand(type, at)) units.push({ power: d.power, type, at });
    }
    return movement(units);
  };

  it('reaches every offered order, and no clicks or choices produce one outside the menu', () => {
    fc.assert(
      fc.property(
        fc.array(unitArb, { minLength: 2, maxLength: 12 }),
        fc.array(fc.record({ province: fc.integer({ min: 0, max: provinces.length - 1 }), choose: fc.nat() }), { maxLength: 12 }),
        (drawn, clicks) => {
          const position = positionOf(drawn);
          const menu = menuOf(position, 'england');
          const offered = new Set(Object.values(menu).flat());
          for (const order of offered) enter(menu, order, 'movement');
          // Clicks on any province, nearby or not, with a choice taken now and then: only offered orders come out.
          const near = [...new Set(position.units.flatMap((u) => [provinceOf(u.at), ...map.armyNeighbours(provinceOf(u.at))]))];
          let step = clickStart(menu);
          for (const k of clicks) {
            const pool = k.choose % 2 === 0 && near.length > 0 ? near : provinces.map((p) => p.id);
            step = clickProvince(menu, step.clicks, pool[k.province % pool.length]!);
            if (step.order === null && step.choices.length > 0 && k.choose % 3 === 0)
              step = clickChoose(menu, step.clicks, step.choices[k.choose % step.choices.length]!);
            if (step.order !== null) expect(offered.has(step.order), step.order).toBe(true);
            for (const x of step.choices) expect(offered.has(x), x).toBe(true);
          }
        },
      ),
      { numRuns: 30, seed: 103 },
    );
  });
});
