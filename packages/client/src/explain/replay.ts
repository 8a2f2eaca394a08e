/**
 * One walk through a transcript with core's referee (docs/spec/explain.md §1):
 * each line is fed to the same `Referee` every seat and the auditor run, and
 * the caller sees the machine's state before and after the line, the envelope
 * if the transcript took it, and the events and violations it caused. The
 * explainers read the machines' own states this way instead of re-running any
 * protocol rule.
 */
import type { Envelope } from '@fairtable/core/envelope.js';
import type { Violation } from '@fairtable/core/errors.js';
import { splitText } from '@fairtable/core/lines.js';
import type { GameEvent } from '@fairtable/core/protocols/machine.js';
import { OBSERVER_CTX, Referee } from '@fairtable/core/referee.js';
import { setupText } from '@fairtable/core/audit.js';
import { emptyTranscript } from '@fairtable/core/audit.js';
import { unreadableLine, type VerifyFn } from '@fairtable/core/transcript.js';

export interface Step<S> {
  readonly line: number;
  /** The envelope of this line when the transcript took it at this position (null for a refused, repeated or unreadable line). */
  readonly envelope: Envelope | null;
  readonly before: S;
  readonly after: S;
  readonly events: readonly GameEvent[];
  readonly violations: readonly Violation[];
}

export interface Walk<S> {
  readonly referee: Referee<S>;
  readonly lines: number;
}

/** Feeds every line of `lines` (cut by docs/SPEC.md §4.5, as the auditor does) to a referee, calling `visit` after each. */
export function walk<S>(lines: readonly string[], visit: (step: Step<S>, referee: Referee<S>) => void, verify?: VerifyFn): Walk<S> {
  let referee: Referee<S> | null = null;
  let n = 0;
  for (let i = 0; i < lines.length; i++) {
    for (const line of splitText(lines[i]!, i === 0)) {
      if (referee === null) {
        referee = new Referee<S>(setupText(line), null, OBSERVER_CTX, verify === undefined ? {} : { verify });
        n = 1;
        continue;
      }
      const prepared = line.problem === null ? referee.prepare(n, line.text) : unreadableLine(n, line.text, line.problem);
      const from = prepared.envelope?.from;
      const count = from === undefined ? null : (referee.checker.authorPosition(from)?.count ?? null);
      const before = referee.state;
      const r = referee.feed(prepared, OBSERVER_CTX);
      const taken = from !== undefined && count !== null && (referee.checker.authorPosition(from)?.count ?? count) > count;
      visit({ line: n, envelope: taken ? prepared.envelope : null, before, after: referee.state, events: r.events, violations: r.violations }, referee);
      n++;
    }
  }
  if (referee === null) throw emptyTranscript();
  return { referee, lines: n };
}
