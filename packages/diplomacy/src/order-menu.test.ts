/**
 * A unit's offered orders grouped for a menu (order-menu.ts): every order offered lands in exactly one
 * group, in the offered order, and the groups name what the order does.
 */
import { describe, expect, it } from 'vitest';
import { menuGroup, orderMenu } from './order-menu.js';
import { orderChoices } from './protocol/options.js';
import type { Position } from './position.js';
import { startingPosition } from './position.js';
import { standardMap as map } from './standard.js';

const lonPor: Position = {
  phase: { season: 'spring', year: 1901, type: 'movement' },
  units: [
    { power: 'england', type: 'army', at: 'lon' },
    { power: 'england', type: 'fleet', at: 'eng' },
    { power: 'england', type: 'fleet', at: 'mao' },
    { power: 'france', type: 'army', at: 'spa' },
  ],
  dislodged: [],
  contested: [],
  supplyCenterOwners: [],
  winner: null,
};

const values = (position: Position, power: string, at: string): string[] => {
  const f = orderChoices(map, position, power).fields[at];
  return f?.type === 'one-of' ? f.values.map(String) : [];
};

describe('orderMenu', () => {
  it('groups a fleet mid-chain: hold, moves, supports by unit, convoys by army', () => {
    const menu = orderMenu(values(lonPor, 'england', 'mao'))!;
    const labels = menu.map((g) => g.label);
    expect(labels.slice(0, 2)).toEqual(['Hold', 'Move']);
    expect(labels).toEqual(expect.arrayContaining(['Support A lon', 'Support F eng', 'Support A spa', 'Convoy A lon', 'Convoy A spa']));
    expect(menu.find((g) => g.label === 'Convoy A lon')!.orders).toContain('F mao C A lon - por');
    expect(menuGroup('A lon - por via convoy')).toBe('Move by convoy');
    expect(menuGroup('F gas S F mao - spa/nc')).toBe('Support F mao');
    expect(menuGroup('A mar R gas')).toBe('Retreat');
    expect(menuGroup('F kie D')).toBe('Disband');
  });

  it('keeps every offered order exactly once, for every unit of every power at the start', () => {
    for (const power of map.powers)
      for (const at of Object.keys(orderChoices(map, startingPosition(map), power).fields)) {
        const offered = values(startingPosition(map), power, at);
        const menu = orderMenu(offered);
        expect(menu, `${power} ${at}`).not.toBeNull();
        expect(menu!.flatMap((g) => g.orders).sort()).toEqual([...offered].sort());
        expect(new Set(menu!.map((g) => g.label)).size).toBe(menu!.length);
      }
  });

  it('gives no groups for values that are not unit orders, or for one group', () => {
    expect(orderMenu(['Waive', 'Build A par'])).toBeNull();
    expect(orderMenu(['A par H'])).toBeNull();
    expect(orderMenu([1, 2])).toBeNull();
  });
});
