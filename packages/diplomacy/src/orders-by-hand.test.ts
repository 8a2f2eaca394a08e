/**
 * A person's orders file read against the phase's choices (docs/spec/diplomacy-by-hand.md).
 */
import { describe, expect, it } from 'vitest';
import { checkChoice } from '@fairtable/core/protocols/machine.js';
import { defaultOrders, describeChoices, describePosition, formatOrdersFile, readOrdersFile } from './orders-by-hand.js';
import { startingPosition, type Position } from './position.js';
import { orderChoices } from './protocol/options.js';
import { standardMap as map } from './standard.js';
import { randomOrders, seededBelow } from './random-orders.js';
import { adjudicate } from './adjudicate.js';

const start = startingPosition(map);

describe('readOrdersFile', () => {
  it("reads seed notation into the decision's answer, comments and blank lines skipped", () => {
    const file = '# France, spring 1901\nA Par-Bur\n\nA Mar S A Par-Bur   # support the move\nF Bre-MAO\n';
    const r = readOrdersFile(file, map, start, 'france', 'ignore-unit-letter');
    expect(r.problems).toEqual([]);
    expect(r.notes).toEqual([]);
    expect(r.defaulted).toEqual([]);
    expect(Object.values(r.answer).sort()).toEqual(['A mar S A par - bur', 'A par - bur', 'F bre - mao']);
    // The answer is one the machine accepts for the decision.
    checkChoice(orderChoices(map, start, 'france'), r.answer, 'orders');
    expect(formatOrdersFile(r.answer).trim().split('\n')).toHaveLength(3);
  });

  it('names the line of each bad order, and its unit keeps the default', () => {
    const r = readOrdersFile('A Par-Bur\nA Mar-Bux\nF Bre-Kie\nF Lon-Nth\nfoo bar baz', map, start, 'france', 'ignore-unit-letter');
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

  it('applies the typo rule to a wrong unit letter', () => {
    const lenient = readOrdersFile('A Bre-MAO', map, start, 'france', 'ignore-unit-letter');
    expect(lenient.problems).toEqual([]);
    expect(lenient.answer.bre).toBe('F bre - mao');
    expect(lenient.notes[0]).toMatchObject({ line: 1, text: 'A Bre-MAO' });
    expect(lenient.notes[0]!.message).toContain('a fleet');
    const strict = readOrdersFile('A Bre-MAO', map, start, 'france', 'strict');
    expect(strict.problems).toMatchObject([{ line: 1, code: 'illegal_order' }]);
    expect(strict.answer.bre).toBe('F bre H');
  });

  it('refuses a second order for a unit, and names units left out', () => {
    const r = readOrdersFile('A Par-Bur\nA Par-Pic', map, start, 'france', 'ignore-unit-letter');
    expect(r.problems).toMatchObject([{ line: 2, code: 'illegal_order' }]);
    expect(r.answer.par).toBe('A par - bur');
    expect(r.defaulted.map((d) => d.field).sort()).toEqual(['bre', 'mar']);
  });

  it('fills builds in order, refuses one too many, and waives those left out', () => {
    const position: Position = {
      phase: { season: 'fall', year: 1901, type: 'adjustment' },
      units: [
        { power: 'france', type: 'fleet', at: 'mao' },
        { power: 'france', type: 'army', at: 'spa' },
      ],
      dislodged: [],
      contested: [],
      supplyCenterOwners: ['bre', 'mar', 'par', 'spa', 'por'].map((at) => ({ power: 'france', at })),
      winner: null,
    };
    const r = readOrdersFile('Build F bre\nBuild A bre\nBuild A par\nBuild A mar\nWaive', map, position, 'france', 'ignore-unit-letter');
    expect(r.problems.map((p) => [p.line, p.code])).toEqual([
      [2, 'illegal_order'],
      [5, 'too_many_orders'],
    ]);
    expect(r.answer).toEqual({ 'build 1': 'Build F bre', 'build 2': 'Build A par', 'build 3': 'Build A mar' });
    expect(readOrdersFile('Build F bre', map, position, 'france', 'strict').answer['build 2']).toBe('Waive');
    expect(describePosition(map, position, 'france')).toContain('france (you): 5 centres, 2 units: 3 build(s)');
  });

  it('removes by the civil disorder rule what the file leaves out', () => {
    const position: Position = {
      phase: { season: 'fall', year: 1901, type: 'adjustment' },
      units: [
        { power: 'france', type: 'army', at: 'par' },
        { power: 'france', type: 'fleet', at: 'nao' },
        { power: 'france', type: 'army', at: 'mun' },
      ],
      dislodged: [],
      contested: [],
      supplyCenterOwners: [{ power: 'france', at: 'par' }],
      winner: null,
    };
    const none = defaultOrders(map, position, 'france');
    // The furthest from home go first: the fleet in the North Atlantic and the army in Munich.
    expect(Object.values(none).sort()).toEqual(['Remove A mun', 'Remove F nao']);
    const r = readOrdersFile('Remove A par', map, position, 'france', 'strict');
    expect(r.problems).toEqual([]);
    expect(r.answer['remove 1']).toBe('Remove A par');
    expect(r.answer['remove 2']).toBe('Remove F nao');
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
            const r = readOrdersFile(String(v), map, position, power, 'strict');
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

describe('describePosition', () => {
  it('lists units and centres per power, and the choices per unit', () => {
    const text = describePosition(map, start, 'france');
    expect(text.split('\n')[0]).toBe('Spring 1901 movement');
    expect(text).toContain('france (you): F bre, A mar, A par');
    expect(text).toContain('france (you) 3: bre mar par');
    const choices = describeChoices(map, start, 'france');
    expect(choices).toContain('  par: A par H | A par - bre | A par - bur');
  });
});
