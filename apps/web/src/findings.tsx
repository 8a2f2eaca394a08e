/**
 * What a page shows while a game runs, before any audit (docs/spec/web.md §4): a seat's live findings split by kind
 * (docs/SPEC.md §12) and the audit's progress bar. Kept apart from audit.tsx so that the first load does without
 * the auditor.
 */
import { violationKind, type Violation } from '@fairtable/core/errors.js';

export function Progress({ fraction }: { fraction: number | null }) {
  if (fraction === null) return null;
  return (
    <label class="field">
      Auditing…
      <progress max={1} value={fraction} />
    </label>
  );
}

/**
 * What a seat's referee found while the game runs, split by kind (docs/SPEC.md §12): rules broken under "Rule
 * breaking seen", missed deadlines under "Timed out", never together.
 */
export function LiveFindings({ violations }: { violations: readonly Violation[] }) {
  const rules = violations.filter((v) => violationKind(v) === 'rule');
  const absences = violations.filter((v) => violationKind(v) === 'absence');
  return (
    <>
      {rules.length > 0 ? (
        <section aria-label="Rule breaking seen" class="violations-live">
          <h3>Rule breaking seen</h3>
          <ul>
            {rules.map((v, i) => (
              <li key={i}>
                {v.code} by {v.player ?? 'nobody named'} at line {v.seq}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {absences.length > 0 ? (
        <section aria-label="Timed out" class="absences-live">
          <h3>Timed out</h3>
          <ul>
            {absences.map((v, i) => (
              <li key={i}>
                {v.player ?? 'a player'} timed out at line {v.seq}: {v.message}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
