/**
 * The audit's verdict in plain words for someone who has never read the spec
 * (docs/SPEC.md §9): what each violation code means (core's violation-words.ts,
 * shared with the web app), what it did to the outcome, the standing at the end,
 * and how the lines are counted. The codes and messages stay as they are: this only adds
 * sentences beside them.
 */
import type { Verdict } from '@fairtable/core/audit.js';
import { violationKind, type Violation } from '@fairtable/core/errors.js';
import { absenceConsequence, violationMeaning } from '@fairtable/core/violation-words.js';

/** The plain-words sentence for a code (core's table; of kind `absence`, "timed out"), or null when there is none. */
export const meaning = violationMeaning;

/** What a violation did to the outcome, in a sentence, or null when the verdict has no outcome to speak of. */
export function consequence(verdict: Verdict, player: string | null): string | null {
  if (player === null || verdict.outcome === null) return null;
  const forfeit = verdict.outcome.forfeits.find((f) => f.player === player);
  if (forfeit !== undefined) return `${player} forfeited for it: the outcome above already counts that.`;
  return `${player} was not put out of the game for it: the outcome above is the game as its rules settled it.`;
}

/** An absence in one line: "PLAYER timed out at line N: the game's consequence" (never "rule breaking"). */
export function timedOut(verdict: Verdict, v: Violation): string {
  const forfeited = v.player !== null && (verdict.outcome?.forfeits.some((f) => f.player === v.player) ?? false);
  return `${v.player ?? 'a player'} timed out (line ${v.seq}): ${absenceConsequence(verdict.protocol, forfeited)}`;
}

/** The verdict's findings split by kind (docs/SPEC.md §12): rules broken, and absences. */
export function byKind(verdict: Verdict): { readonly rules: readonly Violation[]; readonly absences: readonly Violation[] } {
  return {
    rules: verdict.violations.filter((v) => violationKind(v) === 'rule'),
    absences: verdict.violations.filter((v) => violationKind(v) === 'absence'),
  };
}

/**
 * `fairtable audit`'s exit code (docs/SPEC.md §9): 0 the game ended and no rule was broken (absences
 * allowed), 1 a rule broken (or the log altered), 3 no rule broken on the lines so far but the game is still
 * in progress. (2, input that cannot be audited at all, is decided before there is a verdict.)
 */
export function exitCode(verdict: Verdict): number {
  if (!verdict.valid) return 1;
  return verdict.inProgress ? 3 : 0;
}

/** Each player's number at the end (scores, squares, cash, balances), when the game's summary has one. */
export function standing(summary: unknown): string | null {
  const s = summary as { state?: Record<string, unknown> } & Record<string, unknown>;
  if (s === null || typeof s !== 'object') return null;
  for (const [key, label] of [
    ['scores', 'scores'],
    ['positions', 'squares'],
    ['cash', 'cash'],
    ['balances', 'balances'],
  ] as const) {
    const table = (s.state?.[key] ?? s[key]) as Record<string, unknown> | undefined;
    if (table === undefined || table === null || typeof table !== 'object') continue;
    const entries = Object.entries(table).filter((e): e is [string, number] => typeof e[1] === 'number');
    if (entries.length > 0) return `${label}: ${entries.map(([p, n]) => `${p} ${n}`).join(', ')}`;
  }
  return null;
}

/** How the verdict counts lines, said once with the first line it names, so that a reader finds it in an editor. */
export function lineNote(line: number): string {
  return `(lines count from 0, the setup: line ${line} is line ${line + 1} of the file, e.g. sed -n ${line + 1}p FILE)`;
}
