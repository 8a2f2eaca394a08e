import { describe, expect, it } from 'vitest';
import { checkChoice } from '@fairtable/core/protocols/machine.js';
import { orderChoices } from './protocol/options.js';
import { legalOrdersText, phaseName, positionText, readOrdersFile } from './orders-file.js';
import { startingPosition, type Position } from './position.js';
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

/** Winter 1901: France owns five centres with three units away from home (two builds); Germany lost Munich (one removal). */
const winter: Position = {
  phase: { season: 'fall', year: 1901, type: 'adjustment' },
  units: [
    { power: 'france', type: 'fleet', at: 'por' },
    { power: 'france', type: 'army', at: 'spa' },
    { power: 'france', type: 'army', at: 'bur' },
    { power: 'germany', type: 'army', at: 'ruh' },
    { power: 'germany', type: 'army', at: 'ber' },
    { power: 'germany', type: 'fleet', at: 'kie' },
  ],
  dislodged: [],
  contested: [],
  supplyCenterOwners: ['bre', 'par', 'mar', 'spa', 'por'].map((at) => ({ power: 'france', at })).concat(['ber', 'kie'].map((at) => ({ power: 'germany', at }))),
  winner: null,
};

/** The answer is one the machine's decision takes. */
const accepted = (position: Position, power: string, choice: Record<string, string>): void => {
  expect(() => checkChoice(orderChoices(map, position, power), choice, 'orders')).not.toThrow();
};

describe('orders files (docs/spec/mail.md §11)', () => {
  it('reads orders in the usual notation, skipping comments and blank lines; units without an order hold', () => {
    const r = readOrdersFile(map, start, 'france', '# France, spring 1901\r\nA Par-Bur\n\n  a marseilles supports a paris to burgundy  \n');
    expect(r.choice).toEqual({ bre: 'F bre H', mar: 'A mar S A par - bur', par: 'A par - bur' });
    expect(r.orders).toEqual(['F bre H', 'A mar S A par - bur', 'A par - bur']);
    expect(r.notes).toEqual(['not written, so the default: F bre H']);
    accepted(start, 'france', r.choice);
  });

  it('applies the typo rule: a wrong unit letter is corrected, or refused at its line under the strict rule', () => {
    const r = readOrdersFile(map, start, 'france', 'A Par-Bur\nA Bre-MAO\nA Mar-Spa\n');
    expect(r.choice.bre).toBe('F bre - mao');
    expect(r.notes).toEqual(['line 2: "A Bre-MAO" read as "F bre - mao" (this game ignores unit letters)']);
    const support = readOrdersFile(map, start, 'france', 'A Mar S F Par-Bur\n');
    expect(support.choice.mar).toBe('A mar S A par - bur');
    expect(support.notes[0]).toBe('line 1: "A Mar S F Par-Bur" read as "A mar S A par - bur" (this game ignores unit letters)');
    expect(() => readOrdersFile(map, start, 'france', 'A Par-Bur\nA Bre-MAO\n', 'strict')).toThrow(
      expect.objectContaining({ code: 'illegal_order', field: 'line 2', message: 'line 2: "A Bre-MAO": the unit in bre is a fleet' }),
    );
    expect(readOrdersFile(map, start, 'france', 'F Bre-MAO\n', 'strict').choice.bre).toBe('F bre - mao');
  });

  it('names the line of each bad order, with its code', () => {
    const cases: [string, string, string][] = [
      ['A Par-Bur\nA Par-Pic', 'illegal_order', 'line 2: "A Par-Pic": par already has an order'],
      ['A Par-Xyz', 'unknown_province', 'line 1: "A Par-Xyz": order "A Par-Xyz": unknown province "xyz" (expected a destination) at character 7'],
      ['A Par S', 'bad_order', 'line 1: "A Par S"'],
      ['A Par-Mun', 'illegal_order', 'line 1: "A Par-Mun": par does not border mun'],
      ['\n\nF Kie-Hol', 'illegal_order', 'line 3: "F Kie-Hol": france has no unit in kie'],
      ['Build A Par', 'unknown_province', 'line 1: "Build A Par"'],
    ];
    for (const [text, code, message] of cases) {
      let error: unknown = null;
      try {
        readOrdersFile(map, start, 'france', text);
      } catch (e) {
        error = e;
      }
      expect(error, text).toMatchObject({ code });
      expect((error as Error).message.startsWith(message), (error as Error).message).toBe(true);
    }
  });

  it('reads retreats and disbands; a dislodged unit with no order disbands', () => {
    const r = readOrdersFile(map, retreat, 'france', 'A Bur-Gas\n');
    expect(r.choice).toEqual({ bur: 'A bur R gas' });
    accepted(retreat, 'france', r.choice);
    expect(readOrdersFile(map, retreat, 'france', 'A Bur D').choice).toEqual({ bur: 'A bur D' });
    expect(readOrdersFile(map, retreat, 'france', '').choice).toEqual({ bur: 'A bur D' });
    // Not where the attacker came from, nor where a standoff left the province empty.
    expect(() => readOrdersFile(map, retreat, 'france', 'A Bur-Mun')).toThrow(expect.objectContaining({ code: 'illegal_order', field: 'line 1' }));
    expect(() => readOrdersFile(map, retreat, 'france', 'A Bur-Pic')).toThrow(expect.objectContaining({ code: 'illegal_order', field: 'line 1' }));
    expect(() => readOrdersFile(map, retreat, 'france', 'A Par-Pic')).toThrow(/france has no dislodged unit in par/);
  });

  it('reads builds, waives and removals; builds not written are waived, every removal due must be written', () => {
    const r = readOrdersFile(map, winter, 'france', 'Build A Par\nbuild fleet brest\n');
    expect(r.orders).toEqual(['Build A par', 'Build F bre']);
    accepted(winter, 'france', r.choice);
    const one = readOrdersFile(map, winter, 'france', 'Build A Mar\n');
    expect(one.orders).toEqual(['Build A mar', 'Waive']);
    expect(one.notes).toEqual(['not written, so the default: Waive']);
    expect(readOrdersFile(map, winter, 'france', 'Waive\nWaive').orders).toEqual(['Waive', 'Waive']);
    expect(() => readOrdersFile(map, winter, 'france', 'Build A Par\nbuild army paris')).toThrow(/^line 2: "build army paris": a second build in par/);
    expect(() => readOrdersFile(map, winter, 'france', 'Build A Par\nBuild A Mar\nBuild F Bre')).toThrow(
      expect.objectContaining({ code: 'illegal_order', field: 'line 3' }),
    );
    expect(() => readOrdersFile(map, winter, 'france', 'Build A Spa')).toThrow(/spa is not a home centre of france/);
    const g = readOrdersFile(map, winter, 'germany', 'Remove A Ruh\n');
    expect(g.orders).toEqual(['Remove A ruh']);
    accepted(winter, 'germany', g.choice);
    expect(() => readOrdersFile(map, winter, 'germany', '# nothing')).toThrow(
      expect.objectContaining({ code: 'illegal_order', message: 'germany must remove 1 unit this winter; the file names 0' }),
    );
    expect(() => readOrdersFile(map, winter, 'germany', 'Remove A Ruh\nRemove F Kie')).toThrow(/^line 2: "Remove F Kie": germany must remove 1 unit/);
    expect(() => readOrdersFile(map, winter, 'germany', 'Build A Mun')).toThrow(expect.objectContaining({ field: 'line 1' }));
  });

  it('writes the position and the orders offered as text', () => {
    expect(phaseName(start)).toBe('spring 1901 movement');
    expect(phaseName(retreat)).toBe('fall 1901 retreat');
    expect(phaseName(winter)).toBe('winter 1901 adjustment');
    const text = positionText(map, start, { france: 'ann' });
    expect(text).toContain('Spring 1901 movement\nUnits:\n  Austria: A bud, F tri, A vie\n');
    expect(text).toContain('  France (ann): F bre, A mar, A par\n');
    expect(text).toContain('  Russia 4: mos, sev, stp, war\n');
    expect(text).toContain('  unowned 12: bel, bul, den, gre, hol, nwy, por, rum, ser, spa, swe, tun\n');
    expect(positionText(map, retreat)).toContain('  France: F bre, A par, A mar, A bur (dislodged from mun)\n');
    expect(positionText(map, retreat)).toContain('Left empty by a standoff (no retreat there): pic');
    expect(positionText(map, winter)).toContain('  France 5: bre, par, mar, spa, por; builds 2\n');
    expect(positionText(map, winter)).toContain('  Germany 2: ber, kie; removes 1\n');
    const legal = legalOrdersText(map, start, 'france');
    expect(legal.split('\n').slice(0, 3)).toEqual(['F bre:', '    F bre H', '    F bre - eng']);
    // Every line offered is read back as itself.
    for (const line of legal.split('\n').filter((l) => l.startsWith('    '))) expect(readOrdersFile(map, start, 'france', line).orders).toContain(line.trim());
    expect(legalOrdersText(map, winter, 'france')).toMatch(/^2 builds \(or Waive\):\n {4}Waive\n {4}Build A bre\n {4}Build F bre\n/);
    expect(legalOrdersText(map, winter, 'germany')).toMatch(/^1 removal:\n {4}Remove A ruh\n/);
    expect(legalOrdersText(map, retreat, 'germany')).toBe('Germany has nothing to order in the fall 1901 retreat: its orders file is empty.\n');
  });
});
