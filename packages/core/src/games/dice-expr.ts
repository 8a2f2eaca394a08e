/**
 * Dice expressions as tabletop players write them (docs/spec/dice.md): `3d6+2`, `2d20kh1`, `4d6kh3`,
 * `1d20+1d4-1`. A pure reader with coded errors that give the position, the limits, and the evaluation of an
 * expression on a `Chance`: each dice term draws its dice in order with `chance.dice(count, sides)`, exactly as
 * the dice game draws `NdM`, so an expression's dice come from the fair stream the same way and an auditor
 * who replays the game recomputes the same result.
 *
 *   expression := sign? term (sign term)*        whitespace allowed between tokens
 *   term       := dice | constant
 *   dice       := count? ("d" | "D") sides keep?  (count 1 when left out: d20 = 1d20)
 *   keep       := ("kh" | "kl") n                 keep the n highest / lowest dice of the term
 *   sign       := "+" | "-"
 */
import type { Chance } from '../chance.js';
import { FairtableError } from '../errors.js';

/** The limits an expression must keep (docs/spec/dice.md §2). */
export const DICE_LIMITS = {
  /** Characters of the text, whitespace included. */
  length: 200,
  /** Terms, dice and constants together. */
  terms: 20,
  /** Dice in the whole expression. */
  dice: 100,
  minSides: 2,
  maxSides: 1000,
  /** Largest constant term. */
  constant: 10_000,
} as const;

export interface DiceTerm {
  readonly kind: 'dice';
  readonly sign: 1 | -1;
  readonly count: number;
  readonly sides: number;
  /** Keep the highest (`kh`) or lowest (`kl`) `n` dice; absent: every die counts. */
  readonly keep?: { readonly which: 'highest' | 'lowest'; readonly n: number };
}

export interface ConstantTerm {
  readonly kind: 'constant';
  readonly sign: 1 | -1;
  readonly value: number;
}

export type Term = DiceTerm | ConstantTerm;

export interface DiceExpression {
  /** The canonical text: lower case, no spaces, every count written, no leading "+". */
  readonly text: string;
  readonly terms: readonly Term[];
}

/** A reading error: the code `bad_dice_expression`, and where in the text (0-based). */
export class DiceExpressionError extends FairtableError {
  readonly position: number;
  constructor(message: string, position: number) {
    super('bad_dice_expression', `${message} at position ${position + 1}`, { field: 'roll' });
    this.position = position;
  }
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Reads a dice expression; throws `DiceExpressionError` naming what is wrong and where. */
export function parseDice(input: string): DiceExpression {
  if (input.length > DICE_LIMITS.length) throw new DiceExpressionError(`a dice expression has at most ${DICE_LIMITS.length} characters`, DICE_LIMITS.length);
  let at = 0;
  const skip = (): void => {
    while (input[at] === ' ' || input[at] === '\t') at++;
  };
  const number = (what: string, min: number, max: number): number => {
    const start = at;
    while (isDigit(input[at])) at++;
    if (at === start) throw new DiceExpressionError(`expected ${what}`, start);
    const digits = input.slice(start, at);
    const n = digits.length > 7 ? Infinity : Number(digits);
    if (n < min || n > max) throw new DiceExpressionError(`${what} must be ${min} to ${max}, not ${digits}`, start);
    return n;
  };
  const terms: Term[] = [];
  let dice = 0;
  skip();
  if (at === input.length) throw new DiceExpressionError('the dice expression is empty', 0);
  for (;;) {
    let sign: 1 | -1 = 1;
    const c = input[at];
    if (c === '+' || c === '-') {
      sign = c === '-' ? -1 : 1;
      at++;
      skip();
    } else if (terms.length > 0) {
      throw new DiceExpressionError(`expected "+" or "-" between terms, found "${c}"`, at);
    }
    if (terms.length === DICE_LIMITS.terms) throw new DiceExpressionError(`a dice expression has at most ${DICE_LIMITS.terms} terms`, at);
    const start = at;
    const count = isDigit(input[at]) ? number('a number', 0, Number.MAX_SAFE_INTEGER) : null;
    if (input[at] === 'd' || input[at] === 'D') {
      if (count !== null && (count < 1 || count > DICE_LIMITS.dice))
        throw new DiceExpressionError(`the number of dice must be 1 to ${DICE_LIMITS.dice}, not ${input.slice(start, at)}`, start);
      const n = count ?? 1;
      at++;
      const sides = number('the number of sides', DICE_LIMITS.minSides, DICE_LIMITS.maxSides);
      let keep: DiceTerm['keep'];
      if ((input[at] === 'k' || input[at] === 'K') && (input[at + 1] === 'h' || input[at + 1] === 'l' || input[at + 1] === 'H' || input[at + 1] === 'L')) {
        const which = input[at + 1]!.toLowerCase() === 'h' ? 'highest' : 'lowest';
        at += 2;
        keep = { which, n: number(`how many dice to keep (of ${n})`, 1, n) };
      } else if (input[at] === 'k' || input[at] === 'K') {
        throw new DiceExpressionError('expected "kh" (keep highest) or "kl" (keep lowest)', at);
      }
      dice += n;
      if (dice > DICE_LIMITS.dice) throw new DiceExpressionError(`a dice expression rolls at most ${DICE_LIMITS.dice} dice`, start);
      terms.push(keep === undefined ? { kind: 'dice', sign, count: n, sides } : { kind: 'dice', sign, count: n, sides, keep });
    } else if (count !== null) {
      if (count > DICE_LIMITS.constant) throw new DiceExpressionError(`a constant must be 0 to ${DICE_LIMITS.constant}`, start);
      terms.push({ kind: 'constant', sign, value: count });
    } else {
      throw new DiceExpressionError(at === input.length ? 'expected dice or a number at the end' : `expected dice or a number, found "${input[at]}"`, at);
    }
    skip();
    if (at === input.length) break;
  }
  return { text: termsText(terms), terms };
}

function termText(t: Term): string {
  if (t.kind === 'constant') return String(t.value);
  return `${t.count}d${t.sides}${t.keep === undefined ? '' : `${t.keep.which === 'highest' ? 'kh' : 'kl'}${t.keep.n}`}`;
}

function termsText(terms: readonly Term[]): string {
  return terms.map((t, i) => (t.sign < 0 ? '-' : i === 0 ? '' : '+') + termText(t)).join('');
}

/** How many dice a term counts: all of them, or the kept ones. */
const counted = (t: DiceTerm): number => t.keep?.n ?? t.count;

/** The smallest and largest result the expression can give. */
export function diceRange(e: DiceExpression): { min: number; max: number } {
  let min = 0;
  let max = 0;
  for (const t of e.terms) {
    const lo = t.kind === 'constant' ? t.value : counted(t);
    const hi = t.kind === 'constant' ? t.value : counted(t) * t.sides;
    if (t.sign > 0) {
      min += lo;
      max += hi;
    } else {
      min -= hi;
      max -= lo;
    }
  }
  return { min, max };
}

/** One term rolled: its faces in the order drawn, which of them count, and its value (before its sign). */
export interface TermRoll {
  readonly rolls: readonly number[];
  readonly kept: readonly boolean[];
  readonly value: number;
}

export interface DiceRoll {
  readonly expression: string;
  readonly terms: readonly TermRoll[];
  readonly total: number;
  /** "3d6+2: 4+1+6+2 = 13". */
  readonly text: string;
}

/**
 * The dice a keep rule keeps: sorted by face (highest first for `kh`, lowest first for `kl`), equal faces in the
 * order they were drawn, the first n kept.
 */
export function keptDice(rolls: readonly number[], keep: DiceTerm['keep']): boolean[] {
  if (keep === undefined) return rolls.map(() => true);
  const order = rolls.map((_, i) => i).sort((a, b) => (keep.which === 'highest' ? rolls[b]! - rolls[a]! : rolls[a]! - rolls[b]!) || a - b);
  const kept = rolls.map(() => false);
  for (const i of order.slice(0, keep.n)) kept[i] = true;
  return kept;
}

/** Rolls the expression: each dice term's dice drawn in order with `chance.dice`, constants as written. */
export function rollDice(e: DiceExpression, chance: Chance): DiceRoll {
  const terms = e.terms.map((t): TermRoll => {
    if (t.kind === 'constant') return { rolls: [], kept: [], value: t.value };
    const rolls = chance.dice(t.count, t.sides);
    const kept = keptDice(rolls, t.keep);
    return { rolls, kept, value: rolls.reduce((sum, r, i) => (kept[i] ? sum + r : sum), 0) };
  });
  const total = terms.reduce((sum, r, i) => sum + e.terms[i]!.sign * r.value, 0);
  return { expression: e.text, terms, total, text: rollText(e, terms, total) };
}

/** "3d6+2: 4+1+6+2 = 13", "4d6kh3: 6+5+3 (dropped 1) = 14", "1d20-1d4: 12-3 = 9", "1d8-2d4: 5-(3+2) = 0". */
export function rollText(e: DiceExpression, terms: readonly TermRoll[], total: number): string {
  const parts = e.terms.map((t, i) => {
    const r = terms[i]!;
    const sign = t.sign < 0 ? '-' : i === 0 ? '' : '+';
    if (t.kind === 'constant') return `${sign}${t.value}`;
    const kept = r.rolls.filter((_, j) => r.kept[j]);
    const dropped = r.rolls.filter((_, j) => !r.kept[j]);
    const body = t.sign < 0 && kept.length > 1 ? `(${kept.join('+')})` : kept.join('+');
    return `${sign}${body}${dropped.length === 0 ? '' : ` (dropped ${dropped.join(', ')})`}`;
  });
  return `${e.text}: ${parts.join('')} = ${total}`;
}
