/**
 * The web app's Diplomacy map (apps/web/src/diplomacy-map.ts) is the rules' map: every province is a region, two
 * provinces share a border on the drawing exactly when the rules make them neighbours (Switzerland, impassable,
 * borders its neighbours and is nobody's neighbour). And the board's colours (apps/web/src/palette.ts) stay apart
 * for people with protanopia or deuteranopia as well as full colour vision. The board's history replays a game's
 * phases only while each gives the position its event names, and says each order's result in words.
 */
import { adjudicate } from '@fairtable/diplomacy/adjudicate.js';
import { positionHash, startingPosition } from '@fairtable/diplomacy/position.js';
import { standardMap } from '@fairtable/diplomacy/standard.js';
import { describe, expect, it } from 'vitest';
import { diplomacyFixture } from '../bench/lib/diplomacy-fixture.js';
import { replay, resultWords } from '../apps/web/src/diplomacy-history.js';
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

describe('the board’s history and results in words', () => {
  const game = diplomacyFixture(10, 11);

  it('replays every phase of a game from its adjudicated events, each position hashing as the event says', () => {
    const h = replay(game.events);
    expect(h.unreplayed).toBe(0);
    expect(h.steps.map((s) => s.phase)).toEqual(game.events.map((e) => e.phase));
    h.steps.forEach((s, k) => {
      expect(positionHash(standardMap, s.before)).toBe(positionHash(standardMap, game.positions[k]!));
      expect(positionHash(standardMap, s.after)).toBe(game.events[k]!.hash);
    });
    // Again with one more phase: the earlier ones are the same steps, not adjudicated again.
    const again = replay(game.events);
    expect(again.steps[3]).toBe(h.steps[3]);
  });

  it('stops the history at a phase whose orders do not give the position its event names, and says how many are left', () => {
    const k = game.events.findIndex((e, i) => i > 0 && e.results.some((r) => / - /.test(r.order) && r.status === 'succeeded'));
    const moved = game.events[k]!.results.findIndex((r) => / - /.test(r.order) && r.status === 'succeeded');
    const unit = game.events[k]!.results[moved]!.order.split(' - ')[0]!;
    // The event's orders altered (the unit held instead), its hash left as it was: the replay must not follow it.
    const altered = game.events.map((e, i) => (i !== k ? e : { ...e, results: e.results.map((r, j) => (j === moved ? { ...r, order: `${unit} H` } : r)) }));
    const h = replay(altered);
    expect(h.steps.length).toBe(k);
    expect(h.unreplayed).toBe(game.events.length - k);
    // A hash that names another position stops it too.
    expect(replay(game.events.map((e, i) => (i === 1 ? { ...e, hash: game.events[0]!.hash } : e))).unreplayed).toBe(game.events.length - 1);
  });

  it('says what became of each order: moved, bounced, dislodged, support cut, built, waived, not valid', () => {
    const start = startingPosition(standardMap);
    const bounce = adjudicate(standardMap, start, [
      { power: 'austria', text: 'A vie - gal' },
      { power: 'russia', text: 'A war - gal' },
      { power: 'france', text: 'A par - bur' },
      { power: 'italy', text: 'A ven - mos' },
    ]);
    const said = (
      order: string,
      r: { results: readonly { order: string | null; text: string; power: string; status: string; reason: string | null }[]; position: typeof start },
    ): string => {
      const x = r.results.find((y) => (y.order ?? y.text) === order)!;
      return resultWords({ power: x.power, order: x.order ?? x.text, status: x.status, reason: x.reason }, r.position);
    };
    expect(said('A vie - gal', bounce)).toBe('bounced');
    expect(said('A war - gal', bounce)).toBe('bounced');
    expect(said('A par - bur', bounce)).toBe('moved');
    expect(said('A ven - mos', bounce)).toMatch(/^not valid \(.+\): the unit holds$/);
    // Germany takes Vienna with support; Austria's support from Galicia is cut by Russia.
    const attack = {
      ...start,
      units: [
        { power: 'austria', type: 'army' as const, at: 'vie' },
        { power: 'austria', type: 'army' as const, at: 'gal' },
        { power: 'germany', type: 'army' as const, at: 'boh' },
        { power: 'germany', type: 'army' as const, at: 'tyr' },
        { power: 'russia', type: 'army' as const, at: 'war' },
      ],
    };
    const taken = adjudicate(standardMap, attack, [
      { power: 'austria', text: 'A vie H' },
      { power: 'austria', text: 'A gal S A vie' },
      { power: 'germany', text: 'A boh - vie' },
      { power: 'germany', text: 'A tyr S A boh - vie' },
      { power: 'russia', text: 'A war - gal' },
    ]);
    expect(said('A vie H', taken)).toBe('dislodged');
    expect(said('A gal S A vie', taken)).toBe('support cut');
    expect(said('A tyr S A boh - vie', taken)).toBe('supported');
    expect(said('A boh - vie', taken)).toBe('moved');
    expect(resultWords({ power: 'france', order: 'Build A par', status: 'succeeded' }, null)).toBe('built');
    expect(resultWords({ power: 'france', order: 'Waive', status: 'succeeded' }, null)).toBe('build waived');
    expect(resultWords({ power: 'france', order: 'F bre R mao', status: 'succeeded' }, null)).toBe('retreated');
    expect(resultWords({ power: 'france', order: 'Remove F bre', status: 'succeeded' }, null)).toBe('removed');
  });
});
