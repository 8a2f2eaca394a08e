/**
 * The web app's Diplomacy map (apps/web/src/diplomacy-map.ts) is the rules' map: every province is a region, two
 * provinces share a border on the drawing exactly when the rules make them neighbours (Switzerland, impassable,
 * borders its neighbours and is nobody's neighbour). And the board's colours (apps/web/src/palette.ts) stay apart
 * for people with protanopia or deuteranopia as well as full colour vision.
 */
import { standardMap } from '@fairtable/diplomacy/standard.js';
import { describe, expect, it } from 'vitest';
import { drawMap, HEIGHT, WIDTH } from '../apps/web/src/diplomacy-map.js';
import { closestPair, distance, inkOn, LAND, POWER_COLOUR, SEA, simulate, linearRgb, type Vision } from '../apps/web/src/palette.js';

const drawing = drawMap();
const pair = (a: string, b: string): string => [a, b].sort().join('-');
const provinceOf = (at: string): string => at.split('/')[0]!;

describe('the drawn map', () => {
  it('draws every province of the standard map, and nothing else, inside the frame', () => {
    expect([...drawing.regions.keys()].sort()).toEqual([...standardMap.provinces.keys()].sort());
    for (const r of drawing.regions.values()) {
      expect(r.path).toMatch(/^M[\d. L]+Z/);
      expect(r.at[0]).toBeGreaterThan(0);
      expect(r.at[0]).toBeLessThan(WIDTH);
      expect(r.at[1]).toBeGreaterThan(0);
      expect(r.at[1]).toBeLessThan(HEIGHT);
    }
  });

  it('gives every two neighbours under the rules a border, and no border to provinces that are not neighbours', () => {
    const rules = new Set<string>();
    for (const p of standardMap.provinces.keys()) {
      for (const n of standardMap.armyNeighbours(p)) rules.add(pair(p, n));
      for (const at of [p, ...(standardMap.provinces.get(p)?.coasts ?? []).map((c) => `${p}/${c}`)])
        for (const n of standardMap.fleetNeighbours(at)) rules.add(pair(p, provinceOf(n)));
    }
    const drawn = new Set(drawing.borders.filter((b) => b[4] !== '' && b[5] !== '').map((b) => pair(b[4], b[5])));
    expect([...rules].filter((x) => !drawn.has(x))).toEqual([]);
    const impassable = [...standardMap.provinces.values()].filter((p) => p.kind === 'impassable').map((p) => p.id);
    expect(impassable).toEqual(['swi']);
    expect([...drawn].filter((x) => !rules.has(x) && !x.split('-').includes('swi'))).toEqual([]);
    expect(rules.size).toBeGreaterThan(200);
  });

  it('draws land outside the game (Ireland, Africa, Asia) bordering the seas', () => {
    expect(drawing.offBoard).toMatch(/^M/);
    const offBoard = new Set(drawing.borders.filter((b) => b[4] === '' || b[5] === '').flatMap((b) => [b[4], b[5]]));
    for (const p of ['iri', 'nao', 'naf', 'tun', 'ion', 'eas', 'syr']) expect(offBoard).toContain(p);
  });
});

describe('the board’s colours', () => {
  const colours = [...Object.values(POWER_COLOUR), LAND];

  it('has a colour for each of the seven powers', () => {
    expect(Object.keys(POWER_COLOUR).sort()).toEqual([...standardMap.powers].sort());
  });

  for (const vision of ['normal', 'protanopia', 'deuteranopia'] as Vision[])
    it(`keeps every two powers, and each power and unowned land, at least 20 ΔE apart (${vision})`, () => {
      const closest = closestPair(colours, vision);
      expect(closest.distance, `${closest.a} and ${closest.b}`).toBeGreaterThanOrEqual(20);
      expect(distance(LAND, SEA, vision)).toBeGreaterThanOrEqual(15);
    });

  it('measures: red and green that anyone with full colour vision tells apart come close for dichromats', () => {
    const red = '#d62728';
    const green = '#6b8e23';
    expect(distance(red, green)).toBeGreaterThan(50);
    expect(distance(red, green, 'deuteranopia')).toBeLessThan(20);
    expect(closestPair([red, green, '#0000ff'], 'deuteranopia').a).toBe(red);
  });

  it('would have failed the board’s earlier palette, whose Austria and Russia a deuteranope could not tell apart', () => {
    const earlier = ['#c0392b', '#6c3483', '#2471a3', '#4d4d4d', '#1e8449', '#7d6608', '#b9770e', '#f4ecd8'];
    expect(closestPair(earlier, 'normal').distance).toBeGreaterThan(20);
    const deuteranope = closestPair(earlier, 'deuteranopia');
    expect([deuteranope.a, deuteranope.b]).toEqual(['#c0392b', '#7d6608']);
    expect(deuteranope.distance).toBeLessThan(10);
    expect(closestPair(earlier, 'protanopia').distance).toBeLessThan(20);
  });

  it('leaves greys as they are and spans about 100 ΔE from black to white', () => {
    const grey = linearRgb('#808080');
    for (const v of ['protanopia', 'deuteranopia'] as Vision[]) simulate(grey, v).forEach((c, i) => expect(c).toBeCloseTo(grey[i]!, 2));
    expect(distance('#000000', '#ffffff')).toBeCloseTo(100, 0);
    expect(() => linearRgb('red')).toThrow(/#rrggbb/);
  });

  it('writes units’ letters in black or white, whichever reads on the colour', () => {
    expect(inkOn(POWER_COLOUR.germany!)).toBe('#fff');
    expect(inkOn(POWER_COLOUR.russia!)).toBe('#111');
    expect(inkOn(POWER_COLOUR.turkey!)).toBe('#111');
  });
});
