/**
 * Phase sequencing, centre ownership, victory and the defaults for missing
 * orders (docs/spec/diplomacy.md §3.6–3.8); DATC covers the rest.
 */
import { describe, expect, it } from 'vitest';
import { FairtableError } from '@fairtable/core/errors.js';
import { adjudicate, checkOrders } from './adjudicate.js';
import { readPosition, startingPosition, type Phase } from './position.js';
import { standardMap as map } from './standard.js';

const phase = (season: Phase['season'], year: number, type: Phase['type']): Phase => ({ season, year, type });

describe('phases', () => {
  it('spring movement with no dislodgement goes to fall movement; units without orders hold', () => {
    const { position, results } = adjudicate(map, startingPosition(map), [{ power: 'france', text: 'A par - bur' }]);
    expect(position.phase).toEqual(phase('fall', 1901, 'movement'));
    expect(position.units.find((u) => u.power === 'france' && u.type === 'army' && u.at === 'bur')).toBeDefined();
    expect(position.units).toHaveLength(22);
    expect(results).toEqual([{ power: 'france', text: 'A par - bur', order: 'A par - bur', status: 'succeeded', reason: null }]);
  });

  it("orders for another power's unit, unreadable orders and second orders are reported, not obeyed", () => {
    const { results } = adjudicate(map, startingPosition(map), [
      { power: 'germany', text: 'A par - bur' },
      { power: 'france', text: 'A par - xyz' },
      { power: 'france', text: 'A mar - bur' },
      { power: 'france', text: 'A mar - spa' },
    ]);
    // mar has two different legal orders: they cancel out and it holds (DATC 4.D.3).
    expect(results.map((r) => r.status)).toEqual(['ignored', 'invalid', 'invalid', 'invalid']);
  });

  it('one order per unit: an illegal order does not count, the same order twice is one order', () => {
    const { position, results } = adjudicate(map, startingPosition(map), [
      { power: 'france', text: 'A par - mao' },
      { power: 'france', text: 'A par - bur' },
      { power: 'germany', text: 'A mun - ruh' },
      { power: 'germany', text: 'army munich moves to ruhr' },
    ]);
    expect(results.map((r) => r.status)).toEqual(['invalid', 'succeeded', 'succeeded', 'ignored']);
    expect(position.units.filter((u) => u.at === 'bur' || u.at === 'ruh')).toHaveLength(2);
  });

  it('a wrong unit letter is ignored, unless the game agreed on the strict reading', () => {
    const orders = [{ power: 'france', text: 'A bre - mao' }];
    const lenient = adjudicate(map, startingPosition(map), orders);
    expect(lenient.results[0]).toMatchObject({ order: 'F bre - mao', status: 'succeeded' });
    const strict = adjudicate(map, startingPosition(map), orders, { strictUnitType: true });
    expect(strict.results[0]?.status).toBe('invalid');
    expect(strict.position.units.some((u) => u.at === 'bre')).toBe(true);
    expect(checkOrders(map, startingPosition(map), 'france', ['A bre - mao'])[0]).toMatchObject({ order: 'F bre - mao', error: null });
    expect(checkOrders(map, startingPosition(map), 'france', ['A bre - mao'], { strictUnitType: true })[0]?.error?.code).toBe('illegal_order');
  });

  it('fall: centres change hands, then adjustments; the builds follow', () => {
    const fall = readPosition(map, {
      phase: phase('fall', 1901, 'movement'),
      units: [
        { power: 'france', type: 'army', at: 'bur' },
        { power: 'germany', type: 'army', at: 'ruh' },
      ],
      supplyCenterOwners: null,
    });
    const { position } = adjudicate(map, fall, [{ power: 'france', text: 'A bur - bel' }]);
    expect(position.phase).toEqual(phase('fall', 1901, 'adjustment'));
    expect(position.supplyCenterOwners.find((o) => o.at === 'bel')).toEqual({ power: 'france', at: 'bel' });
    const built = adjudicate(map, position, [
      { power: 'france', text: 'Build F bre' },
      { power: 'france', text: 'Build A par' },
      { power: 'germany', text: 'Waive' },
    ]);
    expect(built.results.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(built.position.phase).toEqual(phase('spring', 1902, 'movement'));
    expect(built.position.units.filter((u) => u.power === 'france').map((u) => u.at)).toEqual(['bel', 'bre', 'par']);
    // Germany waived one of its two builds and sent nothing for the other, which is waived too.
    expect(built.position.units.filter((u) => u.power === 'germany')).toHaveLength(1);
  });

  it('no adjustments due: fall goes straight to the next spring', () => {
    const { position } = adjudicate(map, { ...startingPosition(map), phase: phase('fall', 1901, 'movement') }, []);
    expect(position.phase).toEqual(phase('spring', 1902, 'movement'));
  });

  it('a retreat phase: missing retreat orders disband', () => {
    const spring = readPosition(map, {
      phase: phase('spring', 1901, 'movement'),
      units: [
        { power: 'germany', type: 'army', at: 'mun' },
        { power: 'germany', type: 'army', at: 'ruh' },
        { power: 'france', type: 'army', at: 'bur' },
      ],
      supplyCenterOwners: null,
    });
    const moved = adjudicate(map, spring, [
      { power: 'germany', text: 'A mun - bur' },
      { power: 'germany', text: 'A ruh S A mun - bur' },
    ]);
    expect(moved.position.phase).toEqual(phase('spring', 1901, 'retreat'));
    expect(moved.position.dislodged).toEqual([{ power: 'france', type: 'army', at: 'bur', attackerFrom: 'mun', attackerViaConvoy: false }]);
    const retreat = adjudicate(map, moved.position, []);
    expect(retreat.position.phase).toEqual(phase('fall', 1901, 'movement'));
    expect(retreat.position.units.map((u) => u.at)).toEqual(['bur', 'ruh']);
    const two = adjudicate(map, moved.position, [
      { power: 'france', text: 'A bur - par' },
      { power: 'france', text: 'A bur - gas' },
    ]);
    expect(two.results.map((r) => r.status)).toEqual(['invalid', 'invalid']);
    expect(two.position.units).toHaveLength(2);
    const one = adjudicate(map, moved.position, [
      { power: 'france', text: 'A bur - mun' },
      { power: 'france', text: 'A bur - gas' },
    ]);
    expect(one.results.map((r) => r.status)).toEqual(['invalid', 'succeeded']);
    expect(one.position.units.map((u) => u.at)).toEqual(['bur', 'gas', 'ruh']);
  });

  it('eighteen centres after the fall win, and the game stops', () => {
    const centres = map.supplyCenters.filter((c) => c !== 'mos' && c !== 'war');
    const owners = centres.slice(0, 17).map((at) => ({ power: 'russia', at }));
    const fall = readPosition(map, {
      phase: phase('fall', 1910, 'movement'),
      units: [{ power: 'russia', type: 'army', at: 'ukr' }],
      supplyCenterOwners: owners,
    });
    const { position } = adjudicate(map, fall, [{ power: 'russia', text: 'A ukr - war' }]);
    expect(position.supplyCenterOwners.filter((o) => o.power === 'russia')).toHaveLength(18);
    expect(position.winner).toBe('russia');
    expect(() => adjudicate(map, position, [])).toThrow(FairtableError);
    const seventeen = adjudicate(map, fall, [{ power: 'russia', text: 'A ukr H' }]).position;
    expect(seventeen.winner).toBeNull();
  });
});

describe('civil disorder distance (DATC version 2: armies through any province, fleets as fleets move)', () => {
  it('measures armies over land and sea and fleets along their own moves', () => {
    expect(map.distanceHome('russia', 'army', 'ber')).toBe(2);
    expect(map.distanceHome('russia', 'fleet', 'ber')).toBe(3);
    expect(map.distanceHome('italy', 'army', 'gre')).toBe(2);
    expect(map.distanceHome('italy', 'fleet', 'ion')).toBe(1);
    expect(map.distanceHome('russia', 'fleet', 'stp/nc')).toBe(0);
  });

  it('removes a fleet that is as far by sea as an army is by land', () => {
    const position = readPosition(map, {
      phase: phase('fall', 1901, 'adjustment'),
      units: [
        { power: 'russia', type: 'army', at: 'mos' },
        { power: 'russia', type: 'fleet', at: 'ber' },
        { power: 'russia', type: 'army', at: 'tyr' },
      ],
      supplyCenterOwners: [
        { power: 'russia', at: 'mos' },
        { power: 'russia', at: 'stp' },
      ],
    });
    // Both are three moves away; fleets go first. Counting the fleet through land would make it two, and remove the army.
    expect(adjudicate(map, position, []).position.units.map((u) => u.at)).toEqual(['mos', 'tyr']);
  });
});

describe('checkOrders', () => {
  it('gives each order its canonical form or its error', () => {
    const checked = checkOrders(map, startingPosition(map), 'russia', [
      'F StP/sc moves to Gulf of Bothnia',
      'A war - ber',
      'A mos - nowhere',
      'A par H',
      'F sev S A war - ukr',
      'A mos - stp',
    ]);
    expect(checked.map((c) => c.order)).toEqual(['F stp/sc - bot', 'A war - ber', null, 'A par H', 'F sev S A war - ukr', 'A mos - stp']);
    expect(checked.map((c) => c.error?.code ?? null)).toEqual([null, 'illegal_order', 'unknown_province', 'illegal_order', 'illegal_order', null]);
  });

  it('an army move over water is legal only if fleets at sea could carry it', () => {
    const position = readPosition(map, {
      phase: phase('spring', 1901, 'movement'),
      units: [
        { power: 'england', type: 'army', at: 'lon' },
        { power: 'france', type: 'fleet', at: 'eng' },
      ],
      supplyCenterOwners: null,
    });
    const checked = [...checkOrders(map, position, 'england', ['A lon - bre']), ...checkOrders(map, position, 'england', ['A lon - nwy'])];
    expect(checked.map((c) => c.error?.code ?? null)).toEqual([null, 'illegal_order']);
    expect(checked[1]?.error?.message).toContain('no fleets at sea could convoy');
  });
});
