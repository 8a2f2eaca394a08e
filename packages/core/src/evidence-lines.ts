/**
 * The audit's second pass (docs/SPEC.md §4.2): a violation's evidence may name a line by its number alone, and the
 * line's envelope is then put in from the transcript, read by the strict reader, since a line named as evidence
 * may be anything (20,000 levels deep, say). A line that is not an envelope is shown by its first 200 characters,
 * so what is attached stays small and shallow enough to pass between threads and to print. The file auditor
 * (packages/node) and the page's auditor (packages/client) read the lines their own way and share these steps.
 */
import type { Evidence, Violation } from './errors.js';
import { parseJson, type JsonValue } from './jcs.js';
import type { TranscriptLine } from './lines.js';

/** What a line named as evidence adds to it. */
export type LineEvidence = { readonly envelope: JsonValue } | { readonly note: string };

const bare = (e: Evidence): boolean => e.line !== undefined && e.envelope === undefined && e.note === undefined;

/** The numbers of the lines that evidence names with neither its envelope nor a note. */
export function linesNamed(violations: readonly Violation[]): Set<number> {
  const wanted = new Set<number>();
  for (const v of violations) for (const e of v.evidence) if (bare(e)) wanted.add(e.line!);
  return wanted;
}

/** Line `n`'s envelope, or its first characters when it is not one. */
export function evidenceOfLine(line: TranscriptLine, n: number): LineEvidence {
  try {
    if (line.problem !== null) throw new Error(line.problem);
    return { envelope: parseJson(line.text, `line ${n}`) };
  } catch {
    return { note: line.text.slice(0, 200) };
  }
}

/** The violations with what was found put into each evidence that named its line alone. */
export function withLineEvidence(violations: readonly Violation[], found: ReadonlyMap<number, LineEvidence>): Violation[] {
  return violations.map((v) => ({
    ...v,
    evidence: v.evidence.map((e) => {
      const filled = bare(e) ? found.get(e.line!) : undefined;
      return filled === undefined ? e : { ...e, ...filled };
    }),
  }));
}
