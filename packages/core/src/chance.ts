/**
 * Chance: the calls a game makes on randomness (docs/SPEC.md §6.2).
 *
 * Games ask only for `below(n)`; dice, shuffles and weighted choices are built
 * on it exactly as the random stream specifies. So a game can be run on the
 * real stream, on a recording of it (to publish what was drawn), or on a
 * script of claimed draws (to follow a game whose stream is only revealed at
 * an audit, seed 000), and all three agree by construction.
 */
import { FairtableError } from './errors.js';

export abstract class Chance {
  abstract below(n: number): number;

  die(sides: number): number {
    return this.below(sides) + 1;
  }

  dice(count: number, sides: number): number[] {
    return Array.from({ length: count }, () => this.die(sides));
  }

  shuffle<T>(items: readonly T[]): T[] {
    const a = items.slice();
    for (let i = a.length - 1; i >= 1; i--) {
      const j = this.below(i + 1);
      const t = a[i]!;
      a[i] = a[j]!;
      a[j] = t;
    }
    return a;
  }

  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) {
      if (!Number.isSafeInteger(w) || w < 0) throw new FairtableError('out_of_range', 'weights must be non-negative integers', { field: 'weights' });
      total += w;
    }
    if (total < 1 || total > 2 ** 53) throw new FairtableError('out_of_range', 'weights must sum to between 1 and 2^53', { field: 'weights' });
    const r = this.below(total);
    let cumulative = 0;
    for (let i = 0; i < weights.length; i++) {
      cumulative += weights[i]!;
      if (r < cumulative) return i;
    }
    throw new Error('unreachable: r < total');
  }
}

/** Records every draw of an inner source, as `[n, value]` pairs. */
export class RecordingChance extends Chance {
  readonly draws: [number, number][] = [];
  constructor(private readonly inner: Chance) {
    super();
  }
  below(n: number): number {
    const value = this.inner.below(n);
    this.draws.push([n, value]);
    return value;
  }
}

export class ScriptMismatch extends Error {}

/** Replays claimed draws; throws ScriptMismatch when the game asks for something the script does not hold. */
export class ScriptedChance extends Chance {
  private at = 0;
  constructor(private readonly script: readonly (readonly [number, number])[]) {
    super();
  }
  below(n: number): number {
    const step = this.script[this.at++];
    if (step === undefined) throw new ScriptMismatch(`the claim holds ${this.script.length} draws, the game needs more`);
    const [m, value] = step;
    if (m !== n || !Number.isInteger(value) || value < 0 || value >= n) {
      throw new ScriptMismatch(`draw ${this.at - 1}: claimed [${m}, ${value}], the game asks below(${n})`);
    }
    return value;
  }
  get exhausted(): boolean {
    return this.at === this.script.length;
  }
}
