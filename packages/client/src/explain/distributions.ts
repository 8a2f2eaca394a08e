/**
 * The outcome chart (docs/spec/explain.md §3): the outcomes of a game of
 * chance counted by category against what fair play gives on average, with
 * Pearson's chi-square. Dice faces and sums, Snakes & Ladders rolls,
 * Monopoly's dice and cards, Signidice's lucky numbers, the hex digits of
 * beacon seeds and Rochambeau's assigned states; the samples come from the
 * same walk that explains each outcome (provenance.ts).
 */
import { parseDice } from '@fairtable/core/games/dice-expr.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import * as chanceOnly from '@fairtable/core/games/monopoly-chance.js';
import * as whole from '@fairtable/core/games/monopoly/index.js';
import type { VerifyFn } from '@fairtable/core/transcript.js';
import { analyse, type Samples } from './provenance.js';
import type { Distribution, DistributionCategory } from './types.js';

/** Dice faces are charted up to this many sides, sums up to this many categories: beyond, a chart says nothing. */
const MAX_CATEGORIES = 200;

/** A distribution from observed counts and expected counts, Pearson's statistic over the categories expected at all. */
export function distribution(label: string, names: readonly string[], observed: readonly number[], expected: readonly number[]): Distribution {
  const categories: DistributionCategory[] = names.map((name, i) => ({ name, observed: observed[i] ?? 0, expected: expected[i] ?? 0 }));
  let chiSquare = 0;
  let counted = 0;
  for (const c of categories) {
    if (c.expected <= 0) continue;
    counted++;
    chiSquare += (c.observed - c.expected) ** 2 / c.expected;
  }
  return { label, categories, chiSquare, degreesOfFreedom: Math.max(0, counted - 1) };
}

/** Uniform over `size` categories named by `name(i)`. */
function uniform(label: string, size: number, values: readonly number[], name: (i: number) => string, offset = 0): Distribution {
  const counts = new Array<number>(size).fill(0);
  for (const v of values) if (v - offset >= 0 && v - offset < size) counts[v - offset]!++;
  return distribution(
    label,
    Array.from({ length: size }, (_, i) => name(i + offset)),
    counts,
    counts.map(() => values.length / size),
  );
}

/** P(sum = s) for `dice` fair dice of `sides` faces, s = dice … dice·sides, by convolution. */
export function diceSumProbabilities(dice: number, sides: number): number[] {
  let p = [1];
  for (let d = 0; d < dice; d++) {
    const next = new Array<number>(p.length + sides - 1).fill(0);
    for (let i = 0; i < p.length; i++) for (let f = 0; f < sides; f++) next[i + f]! += p[i]! / sides;
    p = next;
  }
  return p;
}

function sums(label: string, dice: number, sides: number, values: readonly number[]): Distribution | null {
  const p = diceSumProbabilities(dice, sides);
  if (p.length > MAX_CATEGORIES || dice < 2) return null;
  const counts = new Array<number>(p.length).fill(0);
  for (const v of values) if (v - dice >= 0 && v - dice < p.length) counts[v - dice]!++;
  return distribution(
    label,
    p.map((_, i) => String(i + dice)),
    counts,
    p.map((q) => q * values.length),
  );
}

const num = (v: JsonValue | undefined, fallback: number): number => (typeof v === 'number' ? v : fallback);

function turnDistributions(samples: Samples): Distribution[] {
  const out: Distribution[] = [];
  const byGame = new Map<string, Samples['turns']>();
  for (const t of samples.turns) {
    const list = byGame.get(t.game);
    if (list === undefined) byGame.set(t.game, [t]);
    else list.push(t);
  }
  const dice = byGame.get('dice');
  const expression = dice?.[0]?.params.roll;
  if (dice !== undefined && typeof expression === 'string') {
    // A dice expression (docs/spec/dice.md): every face drawn, charted per die size; each face is uniform on its
    // die whatever is kept. The sums of an expression with keep rules and constants are not charted.
    const bySides = new Map<number, number[]>();
    const terms = (() => {
      try {
        return parseDice(expression).terms;
      } catch {
        return []; // a setup whose expression does not read is no game: nothing to chart
      }
    })();
    for (const t of dice) {
      const faces = (t.summary as { roll?: number[] }).roll ?? [];
      let at = 0;
      for (const term of terms) {
        if (term.kind !== 'dice') continue;
        const list = bySides.get(term.sides) ?? [];
        list.push(...faces.slice(at, at + term.count));
        bySides.set(term.sides, list);
        at += term.count;
      }
    }
    for (const [sides, faces] of [...bySides].sort((a, b) => a[0] - b[0]))
      if (sides <= MAX_CATEGORIES) out.push(uniform(`Die faces (d${sides}, ${expression})`, sides, faces, String, 1));
  } else if (dice !== undefined) {
    const n = num(dice[0]!.params.dice, 2);
    const sides = num(dice[0]!.params.sides, 6);
    const faces: number[] = [];
    const totals: number[] = [];
    for (const t of dice) {
      const s = t.summary as { roll?: number[]; sum?: number };
      faces.push(...(s.roll ?? []));
      if (typeof s.sum === 'number') totals.push(s.sum);
    }
    if (sides <= MAX_CATEGORIES) out.push(uniform(`Die faces (d${sides})`, sides, faces, String, 1));
    const d = sums(`Sums of ${n}d${sides}`, n, sides, totals);
    if (d !== null) out.push(d);
  }
  const snakes = byGame.get('snakes');
  if (snakes !== undefined) {
    out.push(
      uniform(
        'Die rolls (d6)',
        6,
        snakes.map((t) => (t.summary as { roll: number }).roll),
        String,
        1,
      ),
    );
  }
  // The whole game and the chance-only one draw alike; each from its own piles.
  for (const [name, decks] of [
    ['monopoly', whole],
    ['monopoly-chance', chanceOnly],
  ] as const) {
    const monopoly = byGame.get(name);
    if (monopoly === undefined) continue;
    const faces: number[] = [];
    const totals: number[] = [];
    const cards = { chance: [] as string[], chest: [] as string[] };
    for (const t of monopoly) {
      for (const e of (t.summary as { events?: { roll?: number[]; card?: string; pile?: 'chance' | 'chest' }[] }).events ?? []) {
        if (Array.isArray(e.roll)) {
          faces.push(...e.roll);
          totals.push(e.roll.reduce((a, b) => a + b, 0));
        }
        if (typeof e.card === 'string' && (e.pile === 'chance' || e.pile === 'chest')) cards[e.pile].push(e.card);
      }
    }
    out.push(uniform('Die faces (d6)', 6, faces, String, 1));
    const d = sums('Sums of 2d6', 2, 6, totals);
    if (d !== null) out.push(d);
    for (const [pile, label, deck] of [
      ['chance', 'Chance cards', decks.CHANCE],
      ['chest', 'Community Chest cards', decks.COMMUNITY_CHEST],
    ] as const) {
      const drawn = cards[pile];
      if (drawn.length === 0) continue;
      // A wording printed on two cards (the nearest railroad) is one category, expected twice as often.
      const names = [...new Set(deck.map((c) => c.text))];
      const copies = names.map((n) => deck.filter((c) => c.text === n).length);
      out.push(
        distribution(
          label,
          names,
          names.map((n) => drawn.filter((c) => c === n).length),
          copies.map((k) => (drawn.length * k) / deck.length),
        ),
      );
    }
  }
  return out;
}

/** The distributions a transcript's outcomes can be charted in, each against fair play's expectation. */
export function outcomeDistributions(lines: readonly string[], options: { verify?: VerifyFn } = {}): Distribution[] {
  const { samples } = analyse(lines, options.verify);
  const out = turnDistributions(samples);
  const roulette = samples.lucky.filter((l) => l.wheel === 'roulette').map((l) => l.value);
  if (roulette.length > 0) out.push(uniform('Roulette numbers', 37, roulette, String));
  const wheelDice = samples.lucky.filter((l) => l.wheel === 'dice').map((l) => l.value);
  if (wheelDice.length > 0) out.push(uniform('Dice faces (Signidice)', 6, wheelDice, String, 1));
  if (samples.seeds.length > 0) {
    const digits = samples.seeds.flatMap((s) => [...s].map((c) => parseInt(c, 16)));
    out.push(uniform('Hex digits of the beacon seeds', 16, digits, (i) => i.toString(16)));
  }
  if (samples.states.length > 0) {
    const N = samples.states[0]!.N;
    if (BigInt(N) <= BigInt(MAX_CATEGORIES)) {
      out.push(
        uniform(
          `Rochambeau assigned states (N = ${N})`,
          Number(N),
          samples.states.map((s) => Number(s.value)),
          String,
        ),
      );
    }
  }
  return out.filter((d) => d.categories.some((c) => c.observed > 0));
}
