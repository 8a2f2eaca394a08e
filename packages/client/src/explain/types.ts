/**
 * What "where did this roll come from?" and the outcome chart show
 * (docs/spec/explain.md §1–§3): plain data a page renders as it is.
 */
import type { JsonValue } from '@fairtable/core/jcs.js';

/** One input of a random outcome, recomputed from the transcript. */
export interface ProvenanceInput {
  readonly label: string;
  /** The value as text (hex, a number, canonical JSON). */
  readonly value: string;
  /** The line that carries it, when one does. */
  readonly line?: number;
  /**
   * true: recomputed and checked; false: the check failed; absent: a plain fact (a published value), or a
   * check that the transcript cannot make yet (a keyed stream before its secret is revealed), `says` tells which.
   */
  ok?: boolean;
  /** One plain sentence saying what was checked and what was found. */
  says?: string;
}

/** A random outcome and every input it came from. */
export interface Provenance {
  /** The line on which the outcome was settled (or refused). */
  readonly line: number;
  readonly label: string;
  /** The outcome in words ("rolled 3 + 5 = 8", "lucky number 17"). */
  readonly outcome: string;
  readonly inputs: ProvenanceInput[];
  /** False when any input's check failed. */
  ok: boolean;
  readonly protocol: string;
  /** The player the outcome is for, when it is one player's. */
  readonly player?: string;
  /** The machine's own record of the outcome (a turn's summary, a spin), for a page that draws it. */
  readonly detail?: JsonValue;
}

export interface DistributionCategory {
  readonly name: string;
  readonly observed: number;
  readonly expected: number;
}

/** Outcomes of one kind counted against what fair play gives on average. */
export interface Distribution {
  readonly label: string;
  readonly categories: readonly DistributionCategory[];
  /** Pearson's statistic over the categories with a positive expectation. */
  readonly chiSquare: number;
  /** Categories with a positive expectation, less one. */
  readonly degreesOfFreedom: number;
}
