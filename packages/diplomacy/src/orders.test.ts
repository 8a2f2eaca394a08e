/**
 * The order parser and the canonical text (docs/spec/diplomacy.md §2).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FairtableError } from '@fairtable/core/errors.js';
import { formatOrder, parseOrder, type PhaseType } from './orders.js';
import { startingPosition } from './position.js';
import { randomOrders, seededBelow } from './random-orders.js';
import { adjudicate } from './adjudicate.js';
import { standardMap as map } from './standard.js';

const canon = (text: string, phase: PhaseType = 'movement'): string => formatOrder(parseOrder(text, map, phase));

function errorOf(text: string, phase: PhaseType = 'movement'): FairtableError {
  try {
    parseOrder(text, map, phase);
  } catch (e) {
    if (e instanceof FairtableError) return e;
    throw e;
  }
  throw new Error(`parsed: ${text}`);
}

describe('parseOrder: movement', () => {
  it.each([
    ['A par-bur', 'A par - bur'],
    ['A Par -> Bur', 'A par - bur'],
    ['army paris moves to burgundy', 'A par - bur'],
    ['a PAR move bur', 'A par - bur'],
    ['Paris - Burgundy', 'par - bur'],
    ['F StP/sc - bot', 'F stp/sc - bot'],
    ['F St. Petersburg (south coast) -> Gulf of Bothnia', 'F stp/sc - bot'],
    ['F mid - spa/nc', 'F mao - spa/nc'],
    ['F Mid-Atlantic Ocean - Spain(nc)', 'F mao - spa/nc'],
    ['F mid-atlantic - spa (nc)', 'F mao - spa/nc'],
    ['fleet gol-spa/sc', 'F lyo - spa/sc'],
    ['A lon - nwy via convoy', 'A lon - nwy via convoy'],
    ['A bel - lon via Convoy', 'A bel - lon via convoy'],
    ['A lon-nwy by convoy', 'A lon - nwy via convoy'],
    ['A ven H', 'A ven H'],
    ['A ven HOLD', 'A ven H'],
    ['a ven holds', 'A ven H'],
    ['f mid', 'F mao H'],
    ['A wal SUPPORTS F lon-yor', 'A wal S F lon - yor'],
    ['F den Supports A ber - kie', 'F den S A ber - kie'],
    ['A mun S ber-sil', 'A mun S ber - sil'],
    ['F por supports f mid - spa/nc', 'F por S F mao - spa/nc'],
    ['A bud S F rum', 'A bud S F rum'],
    ['A bud support F rum H', 'A bud S F rum'],
    ['F nth C A lon-bel', 'F nth C A lon - bel'],
    ['F nth convoys A yor - yor', 'F nth C A yor - yor'],
    ['England: F nth Convoys A lon - bel', 'F nth C A lon - bel'],
    ['F North Sea convoys army London to Belgium', 'F nth C A lon - bel'],
    ['A Par - Bur.', 'A par - bur'],
    ['F St. Petersburg (nc) - Barents Sea;', 'F stp/nc - bar'],
    ['A Tyrolia - Vienna', 'A tyr - vie'],
    ['F Gulf of Lyon - Tyrrhenian Sea', 'F lyo - tys'],
  ])('%s → %s', (text, expected) => {
    expect(canon(text)).toBe(expected);
  });
});

describe('parseOrder: retreats and adjustments', () => {
  it.each([
    ['A mar-gas', 'retreat', 'A mar R gas'],
    ['A mar R gas', 'retreat', 'A mar R gas'],
    ['a mar retreats to gascony', 'retreat', 'A mar R gas'],
    ['F nth D', 'retreat', 'F nth D'],
    ['disband F nth', 'retreat', 'F nth D'],
    ['Build F stp/nc', 'adjustment', 'Build F stp/nc'],
    ['B A par', 'adjustment', 'Build A par'],
    ['A par B', 'adjustment', 'Build A par'],
    ['build fleet St Petersburg (north coast)', 'adjustment', 'Build F stp/nc'],
    ['Remove gol', 'adjustment', 'Remove lyo'],
    ['A par D', 'adjustment', 'Remove A par'],
    ['disband army paris', 'adjustment', 'Remove A par'],
    ['Waive', 'adjustment', 'Waive'],
  ] as const)('%s (%s) → %s', (text, phase, expected) => {
    expect(canon(text, phase)).toBe(expected);
  });
});

describe('parseOrder: errors say what and where', () => {
  it.each([
    ['A par - xyz', 'unknown_province', 'character 9'],
    ['A xyz H', 'unknown_province', 'character 3'],
    ['A par S', 'bad_order', 'at the end'],
    ['A par X bur', 'bad_order', 'character 7'],
    ['F spa/ec - mao', 'bad_order', 'no coast "ec"'],
    ['F bul(nc) H', 'bad_order', 'no coast "nc"'],
    ['F nth C F lon - bel', 'bad_order', 'only armies'],
    ['A par - bur extra', 'bad_order', 'unexpected "extra"'],
    ['', 'bad_order', 'empty order'],
    ['A par # bur', 'bad_order', 'unexpected character "#"'],
    ['Narnia: A par H', 'bad_order', 'unknown power'],
    ['A mun - ber - sil', 'bad_order', 'unexpected "-" at character 13'],
    ['F nth C A lon', 'bad_order', 'expected "-" after the convoyed army'],
  ] as const)('%s → %s', (text, code, fragment) => {
    const e = errorOf(text);
    expect(e.code).toBe(code);
    expect(e.field).toBe('order');
    expect(e.message).toContain(fragment);
    expect(e.message).toContain(`"${text}"`);
  });

  it('a build needs its unit type', () => {
    expect(errorOf('Build par', 'adjustment').code).toBe('bad_order');
  });
});

describe('canonical text', () => {
  it('parses back to itself, for many random orders in every phase', () => {
    const below = seededBelow(7);
    let position = startingPosition(map);
    let seen = 0;
    for (let phase = 0; phase < 60; phase++) {
      const orders = map.powers.flatMap((power) => randomOrders(map, position, power, below).map((text) => ({ power, text })));
      for (const { text } of orders) {
        expect(canon(text, position.phase.type)).toBe(text);
        expect(canon(text.toLowerCase(), position.phase.type)).toBe(text);
        seen++;
      }
      position = adjudicate(map, position, orders).position;
    }
    expect(seen).toBeGreaterThan(1000);
  });
});

describe('parseOrder on any text', () => {
  const words = fc.constantFrom(
    'A',
    'F',
    'par',
    'bur',
    'stp',
    '/',
    'sc',
    '(',
    'nc',
    ')',
    '-',
    '->',
    'S',
    'C',
    'H',
    'via',
    'convoy',
    'Build',
    'Remove',
    'Waive',
    'R',
    'D',
    'spain',
    'north',
    'coast',
    'england:',
    ':',
    'x',
    '.',
    ' ',
  );
  const phases = fc.constantFrom<PhaseType>('movement', 'retreat', 'adjustment');
  const check = (text: string, phase: PhaseType): void => {
    try {
      const order = parseOrder(text, map, phase);
      // Whatever parses has a canonical text that parses back to itself.
      expect(canon(formatOrder(order), phase)).toBe(formatOrder(order));
    } catch (e) {
      expect(e).toBeInstanceOf(FairtableError);
      expect(['bad_order', 'unknown_province']).toContain((e as FairtableError).code);
    }
  };
  it('either parses or throws a coded error, for arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), phases, (text, phase) => check(text, phase)),
      { numRuns: 1000 },
    );
  });
  it('either parses or throws a coded error, for strings of order words', () => {
    fc.assert(
      fc.property(fc.array(words, { maxLength: 9 }), phases, (parts, phase) => check(parts.join(' '), phase)),
      { numRuns: 1000 },
    );
  });
});
