/**
 * A person's orders file read against the phase's choices, and the position as text
 * (docs/spec/diplomacy-by-hand.md §2, docs/spec/mail.md §11).
 */
import { describe, expect, it } from 'vitest';
import { checkChoice } from '@fairtable/core/protocols/machine.js';
import { adjudicate } from './adjudicate.js';
import { orderChoices } from './protocol/options.js';
import { defaultOrders, legalOrdersText, lineText, phaseCodeName, phaseName, positionText, readOrdersFile, readOrdersFileOrThrow } from './orders-file.js';
import { startingPosition, type Position } from './position.js';
import { randomOrders, seededBelow } from './random-orders.js';
import { standardMap as map } from './standard.js';

const start = startingPosition(map);

/** Fall 1901: Germany's army moved from Munich into Burgundy and dislodged the French one. */
const retreat: Position = {
  phase: { season: 'fall', year: 1901, type: 'retreat' },
  units: [
    { power: 'france', type: 'fleet', at: 'bre' },
    { power: 'france', type: 'army', at: 'par' },
    { power: 'france', type: 'army', at: 'mar' },
    { power: 'germany', type: 'army', at: 'bur' },
    { power: 'germany', type: 'army', at: 'ber' },
    { power: 'germany', type: 'fleet', at: 'kie' },
  ],
  dislodged: [{ power: 'france', type: 'army', at: 'bur', attackerFrom: 'mun', attackerViaConvoy: false }],
  contested: ['pic'],
  supplyCenterOwners: [
    { power: 'france', at: 'bre' },
    { power: 'france', at: 'par' },
    { power: 'france', at: 'mar' },
    { power: 'germany', at: 'ber' },
    { power: 'germany', at: 'kie' },
    { power: 'germany', at: 'mun' },
  ],
  winner: null,
};

/** A winter 1901 adjustment phase: France's units (`A par`, `F bre`) and centres, and Germany's. */
function adjustment(units: string[], centres: string[], germany: { units: string[]; centres: string[] } = { units: [], centres: [] }): Position {
  const unitsOf = (power: string, list: string[]): Position['units'] =>
    list.map((u) => ({ power, type: u.startsWith('F') ? ('fleet' as const) : ('army' as const), at: u.slice(2) }));
  return {
    phase: { season: 'fall', year: 1901, type: 'adjustment' },
    units: [...unitsOf('france', units), ...unitsOf('germany', germany.units)],
    dislodged: [],
    contested: [],
    supplyCenterOwners: [...centres.map((at) => ({ power: 'france', at })), ...germany.centres.map((at) => ({ power: 'germany', at }))],
    winner: null,
  };
}

/** Winter 1901: France owns five centres with three units away from home (two builds); Germany lost Munich (one removal). */
const winter = adjustment(['F por', 'A spa', 'A bur'], ['bre', 'par', 'mar', 'spa', 'por'], { units: ['A ruh', 'A ber', 'F kie'], centres: ['ber', 'kie'] });

/** The answer is one the machine's decision takes. */
const accepted = (position: Position, power: string, choice: Record<string, string>): void => {
  expect(() => checkChoice(orderChoices(map, position, power), choice, 'orders')).not.toThrow();
};

/** The first problem, thrown: the code, `line N` as the field, the message naming the line. */
const thrown = (position: Position, power: string, text: string, typos?: 'strict'): unknown => {
  try {
    readOrdersFileOrThrow(map, position, power, text, typos);
  } catch (e) {
    return e;
  }
  return null;
};

describe('readOrdersFile', () => {
  it('reads orders in the usual notation, skipping comments and blank lines; units without an order hold', () => {
    const r = readOrdersFile(map, start, 'france', '# France, spring 1901\r\nA Par-Bur\n\n  a marseilles supports a paris to burgundy  \n');
    expect(r.answer).toEqual({ bre: 'F bre H', mar: 'A mar S A par - bur', par: 'A par - bur' });
    // In the decision's field order, whatever order the file gives.
    expect(Object.values(r.answer)).toEqual(['F bre H', 'A mar S A par - bur', 'A par - bur']);
    expect(r.problems).toEqual([]);
    expect(r.notes).toEqual([]);
    expect(r.defaulted).toEqual([{ field: 'bre', order: 'F bre H' }]);
    accepted(start, 'france', r.answer);
  });

  it("reads seed notation into the decision's answer, a # comment ending a line", () => {
    const file = '# France, spring 1901\nA Par-Bur\n\nA Mar S A Par-Bur   # support the move\nF Bre-MAO\n';
    const r = readOrdersFile(map, start, 'france', file, 'ignore-unit-letter');
    expect(r.problems).toEqual([]);
    expect(r.notes).toEqual([]);
    expect(r.defaulted).toEqual([]);
    expect(Object.values(r.answer).sort()).toEqual(['A mar S A par - bur', 'A par - bur', 'F bre - mao']);
    accepted(start, 'france', r.answer);
  });

  it('applies the typo rule: a wrong unit letter is read as the unit and said, or a problem at its line under the strict rule', () => {
    const r = readOrdersFile(map, start, 'france', 'A Par-Bur\nA Bre-MAO\nA Mar-Spa\n');
    expect(r.problems).toEqual([]);
    expect(r.answer.bre).toBe('F bre - mao');
    expect(r.notes.map(lineText)).toEqual(['line 2: "A Bre-MAO": the unit is a fleet: read as "F bre - mao" (this game ignores unit letters)']);
    const support = readOrdersFile(map, start, 'france', 'A Mar S F Par-Bur\n');
    expect(support.answer.mar).toBe('A mar S A par - bur');
    expect(lineText(support.notes[0]!)).toBe(
      'line 1: "A Mar S F Par-Bur": the supported unit is an army: read as "A mar S A par - bur" (this game ignores unit letters)',
    );
    const strict = readOrdersFile(map, start, 'france', 'A Bre-MAO', 'strict');
    expect(strict.problems).toEqual([{ line: 1, text: 'A Bre-MAO', code: 'illegal_order', message: 'the unit in bre is a fleet' }]);
    expect(strict.answer.bre).toBe('F bre H');
    expect(thrown(start, 'france', 'A Par-Bur\nA Bre-MAO\n', 'strict')).toMatchObject({
      code: 'illegal_order',
      field: 'line 2',
      message: 'line 2: "A Bre-MAO": the unit in bre is a fleet',
    });
    expect(readOrdersFileOrThrow(map, start, 'france', 'F Bre-MAO\n', 'strict').answer.bre).toBe('F bre - mao');
  });

  it('names the line of each bad order, with its code; thrown, the first', () => {
    const cases: [string, string, string][] = [
      ['A Par-Bur\nA Par-Pic', 'illegal_order', 'line 2: "A Par-Pic": par already has an order'],
      ['A Par-Xyz', 'unknown_province', 'line 1: "A Par-Xyz": order "A Par-Xyz": unknown province "xyz" (expected a destination) at character 7'],
      ['A Par S', 'bad_order', 'line 1: "A Par S"'],
      ['A Par-Mun', 'illegal_order', 'line 1: "A Par-Mun": par does not border mun'],
      ['\n\nF Kie-Hol', 'illegal_order', 'line 3: "F Kie-Hol": france has no unit in kie'],
      ['Build A Par', 'unknown_province', 'line 1: "Build A Par"'],
    ];
    for (const [text, code, message] of cases) {
      const error = thrown(start, 'france', text);
      expect(error, text).toMatchObject({ code, field: message.split(':')[0] });
      expect((error as Error).message.startsWith(message), (error as Error).message).toBe(true);
    }
  });

  it('lists every bad line, and its unit keeps the default', () => {
    const r = readOrdersFile(map, start, 'france', 'A Par-Bur\nA Mar-Bux\nF Bre-Kie\nF Lon-Nth\nfoo bar baz', 'ignore-unit-letter');
    expect(r.problems.map((p) => [p.line, p.code])).toEqual([
      [2, 'unknown_province'],
      [3, 'illegal_order'],
      [4, 'illegal_order'],
      [5, 'unknown_province'],
    ]);
    expect(r.answer['a mar']).toBeUndefined();
    expect(r.answer.mar).toBe('A mar H');
    expect(r.answer.bre).toBe('F bre H');
    expect(r.defaulted.map((d) => d.order).sort()).toEqual(['A mar H', 'F bre H']);
  });

  it('refuses a second order for a unit, and names units left out', () => {
    const r = readOrdersFile(map, start, 'france', 'A Par-Bur\nA Par-Pic', 'ignore-unit-letter');
    expect(r.problems).toMatchObject([{ line: 2, code: 'illegal_order' }]);
    expect(r.answer.par).toBe('A par - bur');
    expect(r.defaulted.map((d) => d.field).sort()).toEqual(['bre', 'mar']);
  });

  it('reads retreats and disbands; a dislodged unit with no order disbands', () => {
    const r = readOrdersFile(map, retreat, 'france', 'A Bur-Gas\n');
    expect(r.answer).toEqual({ bur: 'A bur R gas' });
    accepted(retreat, 'france', r.answer);
    expect(readOrdersFile(map, retreat, 'france', 'A Bur D').answer).toEqual({ bur: 'A bur D' });
    expect(readOrdersFile(map, retreat, 'france', '').answer).toEqual({ bur: 'A bur D' });
    // Not where the attacker came from, nor where a standoff left the province empty.
    expect(thrown(retreat, 'france', 'A Bur-Mun')).toMatchObject({ code: 'illegal_order', field: 'line 1' });
    expect(thrown(retreat, 'france', 'A Bur-Pic')).toMatchObject({ code: 'illegal_order', field: 'line 1' });
    expect((thrown(retreat, 'france', 'A Par-Pic') as Error).message).toMatch(/france has no dislodged unit in par/);
  });

  it('reads builds, waives and removals; builds not written are waived, removals not written made by civil disorder', () => {
    const r = readOrdersFile(map, winter, 'france', 'Build A Par\nbuild fleet brest\n');
    expect(Object.values(r.answer)).toEqual(['Build A par', 'Build F bre']);
    accepted(winter, 'france', r.answer);
    const one = readOrdersFile(map, winter, 'france', 'Build A Mar\n');
    expect(Object.values(one.answer)).toEqual(['Build A mar', 'Waive']);
    expect(one.defaulted).toEqual([{ field: 'build 2', order: 'Waive' }]);
    expect(Object.values(readOrdersFile(map, winter, 'france', 'Waive\nWaive').answer)).toEqual(['Waive', 'Waive']);
    expect((thrown(winter, 'france', 'Build A Par\nbuild army paris') as Error).message).toMatch(/^line 2: "build army paris": a second build in par/);
    expect(thrown(winter, 'france', 'Build A Par\nBuild A Mar\nBuild F Bre')).toMatchObject({
      code: 'too_many_orders',
      field: 'line 3',
      message: 'line 3: "Build F Bre": france has 2 builds due, and this is one more',
    });
    expect((thrown(winter, 'france', 'Build A Spa') as Error).message).toMatch(/spa is not a home centre of france/);
    const g = readOrdersFile(map, winter, 'germany', 'Remove A Ruh\n');
    expect(Object.values(g.answer)).toEqual(['Remove A ruh']);
    accepted(winter, 'germany', g.answer);
    // No removal written: the one civil disorder makes, the unit furthest from home.
    const none = readOrdersFileOrThrow(map, winter, 'germany', '# nothing');
    expect(none.answer).toEqual({ 'remove 1': 'Remove A ruh' });
    expect(none.defaulted).toEqual([{ field: 'remove 1', order: 'Remove A ruh' }]);
    expect(thrown(winter, 'germany', 'Remove A Ruh\nRemove F Kie')).toMatchObject({
      code: 'too_many_orders',
      message: 'line 2: "Remove F Kie": germany has 1 removal due, and this is one more',
    });
    expect(thrown(winter, 'germany', 'Build A Mun')).toMatchObject({ field: 'line 1' });
  });

  it('fills builds in order, refuses one too many, and waives those left out', () => {
    const position = adjustment(['F mao', 'A spa'], ['bre', 'mar', 'par', 'spa', 'por']);
    const r = readOrdersFile(map, position, 'france', 'Build F bre\nBuild A bre\nBuild A par\nBuild A mar\nWaive', 'ignore-unit-letter');
    expect(r.problems.map((p) => [p.line, p.code])).toEqual([
      [2, 'illegal_order'],
      [5, 'too_many_orders'],
    ]);
    expect(r.answer).toEqual({ 'build 1': 'Build F bre', 'build 2': 'Build A par', 'build 3': 'Build A mar' });
    expect(readOrdersFile(map, position, 'france', 'Build F bre', 'strict').answer['build 2']).toBe('Waive');
    expect(positionText(map, position, { france: 'you' })).toContain('  France 5: bre, mar, par, spa, por; builds 3\n');
  });

  it('removes by the civil disorder rule what the file leaves out', () => {
    const position = adjustment(['A par', 'F nao', 'A mun'], ['par']);
    const none = defaultOrders(map, position, 'france');
    // The furthest from home go first: the fleet in the North Atlantic and the army in Munich.
    expect(Object.values(none).sort()).toEqual(['Remove A mun', 'Remove F nao']);
    const r = readOrdersFile(map, position, 'france', 'Remove A par', 'strict');
    expect(r.problems).toEqual([]);
    expect(r.answer['remove 1']).toBe('Remove A par');
    expect(r.answer['remove 2']).toBe('Remove F nao');
    expect(readOrdersFile(map, position, 'france', 'Remove A par\nremove army paris').problems).toMatchObject([
      { line: 2, code: 'illegal_order', message: 'par is already removed' },
    ]);
  });

  it('reads every order the choices offer back to itself, over random phases', () => {
    let position = start;
    const below = seededBelow(7);
    for (let phase = 0; phase < 12; phase++) {
      for (const power of map.powers) {
        const fields = orderChoices(map, position, power).fields;
        for (const [name, f] of Object.entries(fields)) {
          if (f.type !== 'one-of') continue;
          for (const v of f.values) {
            if (name.startsWith('build') || name.startsWith('remove')) continue;
            const r = readOrdersFile(map, position, power, String(v), 'strict');
            expect(r.problems, `${power} ${String(v)}`).toEqual([]);
            expect(r.answer[name]).toBe(v);
          }
        }
      }
      const orders = map.powers.flatMap((power) => randomOrders(map, position, power, below).map((text) => ({ power, text })));
      position = adjudicate(map, position, orders).position;
    }
  });
});

describe('the position and the orders offered as text', () => {
  it('names the phase, lists units and centres per power, and every order offered', () => {
    expect(phaseName(start)).toBe('Spring 1901, movement');
    expect(phaseName(retreat)).toBe('Fall 1901, retreats');
    expect(phaseName(winter)).toBe('Winter 1901, builds');
    expect(['S1901M', 'F1901R', 'W1901A', 'F1902M', 'S1901X', 'powers'].map(phaseCodeName)).toEqual([
      'Spring 1901, movement',
      'Fall 1901, retreats',
      'Winter 1901, builds',
      'Fall 1902, movement',
      'S1901X',
      'powers',
    ]);
    const text = positionText(map, start, { france: 'ann' });
    expect(text).toContain('Spring 1901, movement\nUnits:\n  Austria: A bud, F tri, A vie\n');
    expect(text).toContain('  France (ann): F bre, A mar, A par\n');
    expect(text).toContain('  Russia 4: mos, sev, stp, war\n');
    expect(text).toContain('  unowned 12: bel, bul, den, gre, hol, nwy, por, rum, ser, spa, swe, tun\n');
    expect(positionText(map, start, { france: 'you' })).toContain('  France (you): F bre, A mar, A par\n');
    expect(positionText(map, retreat)).toContain('  France: F bre, A par, A mar, A bur (dislodged from mun)\n');
    expect(positionText(map, retreat)).toContain('Left empty by a standoff (no retreat there): pic');
    expect(positionText(map, winter)).toContain('  France 5: bre, par, mar, spa, por; builds 2\n');
    expect(positionText(map, winter)).toContain('  Germany 2: ber, kie; removes 1\n');
    const legal = legalOrdersText(map, start, 'france');
    expect(legal.split('\n').slice(0, 3)).toEqual(['F bre:', '    F bre H', '    F bre - eng']);
    expect(legal).toContain('A par:\n    A par H\n    A par - bre\n    A par - bur\n');
    // Every line offered is read back as itself.
    for (const line of legal.split('\n').filter((l) => l.startsWith('    ')))
      expect(Object.values(readOrdersFile(map, start, 'france', line).answer)).toContain(line.trim());
    expect(legalOrdersText(map, winter, 'france')).toMatch(/^2 builds \(or Waive\):\n {4}Waive\n {4}Build A bre\n {4}Build F bre\n/);
    expect(legalOrdersText(map, winter, 'germany')).toMatch(/^1 removal:\n {4}Remove A ruh\n/);
    expect(legalOrdersText(map, retreat, 'germany')).toBe('Germany has nothing to order in Fall 1901, retreats: its orders file is empty.\n');
  });
});
