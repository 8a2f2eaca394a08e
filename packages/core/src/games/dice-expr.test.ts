/**
 * Dice expressions (docs/spec/dice.md): the reader's coded errors with their positions, the limits, keep
 * highest/lowest, results always within the expression's range, the vectors file byte for byte, and the dice game
 * rolling an expression through a whole protocol whose audit recomputes it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ScriptedChance, type Chance } from '../chance.js';
import { DICE_LIMITS, DiceExpressionError, diceRange, keptDice, parseDice, rollDice } from './dice-expr.js';
import { diceGame } from './dice.js';
import { simulate } from '../sim/simulate.js';
import { auditLines } from '../audit.js';

const VECTORS = new URL('./vectors/dice-expr.json', import.meta.url);

/** A chance that answers below(n) from a list of fractions in [0, 1). */
class FractionChance {
  static of(fractions: readonly number[]): Chance {
    let i = 0;
    return new (class extends ScriptedChance {
      override below(n: number): number {
        return Math.floor((fractions[i++ % fractions.length] ?? 0) * n);
      }
    })([]);
  }
}

function errorOf(text: string): DiceExpressionError {
  try {
    parseDice(text);
  } catch (e) {
    if (e instanceof DiceExpressionError) return e;
    throw e;
  }
  throw new Error(`${text} was read`);
}

describe('reading a dice expression', () => {
  it('reads the usual forms and writes them canonically', () => {
    expect(parseDice('3d6+2').text).toBe('3d6+2');
    expect(parseDice(' 2D20 KH1 '.replace(' KH', 'KH')).text).toBe('2d20kh1');
    expect(parseDice('d20 + 1d4 - 1').text).toBe('1d20+1d4-1');
    expect(parseDice('+4d6kl3').text).toBe('4d6kl3');
    expect(parseDice('-2+d8').terms).toEqual([
      { kind: 'constant', sign: -1, value: 2 },
      { kind: 'dice', sign: 1, count: 1, sides: 8 },
    ]);
  });

  it('refuses what is not an expression, with the code and the position', () => {
    const cases: [string, number, RegExp][] = [
      ['', 0, /empty/],
      ['3d6+', 4, /at the end/],
      ['3d', 2, /number of sides/],
      ['3x6', 1, /"\+" or "-"/],
      ['3d6 2', 4, /"\+" or "-"/],
      ['3d1', 2, /sides must be 2 to 1000/],
      ['1d1001', 2, /sides must be 2 to 1000/],
      ['0d6', 0, /number of dice must be 1 to 100/],
      ['101d6', 0, /number of dice must be 1 to 100/],
      ['60d6+41d6', 5, /at most 100 dice/],
      ['2d20kh3', 6, /keep \(of 2\) must be 1 to 2/],
      ['2d20kh0', 6, /must be 1 to 2/],
      ['2d20k1', 4, /"kh".*"kl"/],
      ['1d6+10001', 4, /constant must be 0 to 10000/],
      ['3d6++2', 4, /found "\+"/],
    ];
    for (const [text, position, message] of cases) {
      const e = errorOf(text);
      expect(e.code, text).toBe('bad_dice_expression');
      expect(e.position, text).toBe(position);
      expect(e.message, text).toMatch(message);
      expect(e.message, text).toContain(`at position ${position + 1}`);
    }
    expect(
      errorOf(
        Array(DICE_LIMITS.terms + 1)
          .fill('1')
          .join('+'),
      ).message,
    ).toMatch(/at most 20 terms/);
    expect(errorOf('1'.repeat(DICE_LIMITS.length + 1)).message).toMatch(/at most 200 characters/);
  });
});

describe('rolling a dice expression', () => {
  it('draws each term with chance.dice, in order, and adds the constants', () => {
    const e = parseDice('3d6+2');
    const chance = new ScriptedChance([
      [6, 3],
      [6, 0],
      [6, 5],
    ]);
    const r = rollDice(e, chance);
    expect(chance.exhausted).toBe(true);
    expect(r.total).toBe(13);
    expect(r.text).toBe('3d6+2: 4+1+6+2 = 13');
  });

  it('keeps the highest or lowest dice; equal faces kept in the order drawn', () => {
    expect(keptDice([3, 6, 1, 5], { which: 'highest', n: 3 })).toEqual([true, true, false, true]);
    expect(keptDice([3, 6, 1, 5], { which: 'lowest', n: 1 })).toEqual([false, false, true, false]);
    expect(keptDice([4, 4, 4], { which: 'highest', n: 2 })).toEqual([true, true, false]);
    expect(keptDice([2, 5, 2], { which: 'lowest', n: 1 })).toEqual([true, false, false]);
    const r = rollDice(
      parseDice('2d20kh1'),
      new ScriptedChance([
        [20, 3],
        [20, 16],
      ]),
    );
    expect(r.text).toBe('2d20kh1: 17 (dropped 4) = 17');
    const sub = rollDice(
      parseDice('1d8-2d4'),
      new ScriptedChance([
        [8, 4],
        [4, 2],
        [4, 1],
      ]),
    );
    expect(sub.text).toBe('1d8-2d4: 5-(3+2) = 0');
  });

  const termArb = fc.oneof(
    fc
      .record({
        count: fc.integer({ min: 1, max: 8 }),
        sides: fc.integer({ min: 2, max: 1000 }),
        keep: fc.option(fc.tuple(fc.boolean(), fc.nat()), { nil: null }),
      })
      .map((t) => `${t.count}d${t.sides}${t.keep === null ? '' : `${t.keep[0] ? 'kh' : 'kl'}${1 + (t.keep[1] % t.count)}`}`),
    fc.integer({ min: 0, max: 10_000 }).map(String),
  );
  const exprArb = fc
    .tuple(fc.array(fc.tuple(fc.boolean(), termArb), { minLength: 1, maxLength: 6 }))
    .map(([terms]) => terms.map(([minus, t], i) => (minus ? '-' : i === 0 ? '' : '+') + t).join(''));

  it('any expression: the result lies in [min, max], the kept dice are the highest (or lowest), the canonical text reads back the same', () => {
    fc.assert(
      fc.property(exprArb, fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1, maxLength: 60 }), (text, fractions) => {
        const e = parseDice(text);
        expect(e.text).toBe(text);
        expect(parseDice(e.text)).toEqual(e);
        const r = rollDice(e, FractionChance.of(fractions));
        const { min, max } = diceRange(e);
        expect(r.total).toBeGreaterThanOrEqual(min);
        expect(r.total).toBeLessThanOrEqual(max);
        e.terms.forEach((t, i) => {
          if (t.kind !== 'dice') return;
          const { rolls, kept } = r.terms[i]!;
          expect(rolls).toHaveLength(t.count);
          expect(kept.filter(Boolean)).toHaveLength(t.keep?.n ?? t.count);
          const keptFaces = rolls.filter((_, j) => kept[j]);
          const dropped = rolls.filter((_, j) => !kept[j]);
          for (const k of keptFaces) for (const d of dropped) expect(t.keep?.which === 'lowest' ? k <= d : k >= d).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('every die on its lowest face, then on its highest, gives the sums worked out term by term; both ends of the range are reached', () => {
    fc.assert(
      fc.property(exprArb, (text) => {
        const e = parseDice(text);
        const sum = (face: (sides: number) => number): number =>
          e.terms.reduce((s, t) => s + t.sign * (t.kind === 'constant' ? t.value : (t.keep?.n ?? t.count) * face(t.sides)), 0);
        const low = rollDice(e, FractionChance.of([0])).total;
        const high = rollDice(e, FractionChance.of([0.999999])).total;
        expect(low).toBe(sum(() => 1));
        expect(high).toBe(sum((sides) => sides));
        const { min, max } = diceRange(e);
        if (e.terms.every((t) => t.sign > 0)) expect([low, high]).toEqual([min, max]);
      }),
    );
  });
});

type Vectors = {
  cases: {
    input: string;
    draws: [number, number][];
    expression: string;
    terms: { rolls: number[]; kept: boolean[]; value: number }[];
    total: number;
    text: string;
  }[];
  errors: { input: string; code: string; position: number }[];
};

describe('vectors/dice-expr.json', () => {
  const file = readFileSync(VECTORS, 'utf8');
  const vectors = JSON.parse(file) as Vectors;

  it('every case recomputes, and the file is what these cases write, byte for byte', () => {
    expect(vectors.cases.length).toBeGreaterThanOrEqual(8);
    const cases = vectors.cases.map((c) => {
      const chance = new ScriptedChance(c.draws);
      const r = rollDice(parseDice(c.input), chance);
      expect(chance.exhausted, c.input).toBe(true);
      return { input: c.input, draws: c.draws, expression: r.expression, terms: r.terms, total: r.total, text: r.text };
    });
    const errors = vectors.errors.map((x) => {
      const e = errorOf(x.input);
      return { input: x.input, code: e.code, position: e.position };
    });
    expect(`${JSON.stringify({ cases, errors }, null, 2)}\n`).toBe(file);
  });
});

describe('the dice game with a roll expression', () => {
  it('adds each turn the expression result; standing and turns in words', () => {
    let s = diceGame.init(['a', 'b'], { rounds: 1, roll: '4d6kh3 + 1' });
    expect(s.roll).toBe('4d6kh3+1');
    const turn = diceGame.play(
      s,
      'a',
      new ScriptedChance([
        [6, 2],
        [6, 5],
        [6, 0],
        [6, 4],
      ]),
      null,
    );
    s = turn.state;
    expect(s.scores.a).toBe(3 + 6 + 5 + 1);
    expect(diceGame.turnText!('a', turn.summary)).toBe('a rolled 4d6kh3+1: 3+6+5 (dropped 1)+1 = 15');
    expect(diceGame.standing!(s)[0]).toBe('Dice: 4d6kh3+1 a turn, 1 round; 1 of 2 turns played.');
    expect(() => diceGame.init(['a'], { roll: '3d6+' })).toThrow(DiceExpressionError);
    expect(() => diceGame.init(['a'], { roll: 3 })).toThrow(/dice expression/);
  });

  it('a whole chain game rolls the expression; the audit recomputes every roll and names nobody, and a cheater is named', () => {
    const seed = new Uint8Array(32).fill(7);
    const r = simulate({ protocol: 'dice', players: 3, seed, turns: 2, params: { roll: '2d20kh1+1d4-1' } });
    const verdict = auditLines(r.lines);
    expect(verdict.violations).toEqual([]);
    expect(verdict.valid).toBe(true);
    expect(verdict.outcome?.winners).toEqual(r.outcome?.winners);
    const scores = (verdict.outcome?.summary as { state?: { scores?: Record<string, number> } } | null)?.state?.scores ?? {};
    expect(Object.keys(scores)).toHaveLength(3);
    // Two turns each of 2d20kh1+1d4-1: between 2·1 and 2·23.
    for (const v of Object.values(scores)) expect(v >= 2 && v <= 46).toBe(true);

    const cheat = simulate({ protocol: 'dice', players: 3, seed, turns: 2, params: { roll: '2d20kh1+1d4-1' }, cheat: 'wrong-opening', cheater: 'p1' });
    const caught = auditLines(cheat.lines);
    expect(caught.violations.length).toBeGreaterThan(0);
    expect(new Set(caught.violations.map((v) => v.player))).toEqual(new Set(['p1']));
  });
});
