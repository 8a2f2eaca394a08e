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
import { toHex } from '@fairtable/core/bytes.js';
import { verify as nobleVerify } from '@fairtable/core/identity.js';

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

/** Answers remembered per verifier, by signer key and line text; a page explains a growing log again and again. */
const remembered = new WeakMap<VerifyFn, Map<string, boolean>>();
/** Lines remembered per verifier before the memory starts over: a few games' worth. */
const REMEMBERED_LINES = 20_000;

/**
 * Feeds every line of `lines` (cut by docs/SPEC.md §4.5, as the auditor does) to a referee, calling `visit`
 * after each. A line's signature is checked once per verifier and text: the same text under the same key
 * is the same envelope, so its answer cannot change.
 */
export function walk<S>(lines: readonly string[], visit: (step: Step<S>, referee: Referee<S>) => void, verify: VerifyFn = nobleVerify): Walk<S> {
  let referee: Referee<S> | null = null;
  let n = 0;
  let answers = remembered.get(verify);
  if (answers === undefined) remembered.set(verify, (answers = new Map()));
  const memory = answers;
  let text = '';
  const once: VerifyFn = (signature, message, publicKey) => {
    const id = `${toHex(publicKey)}:${text}`;
    let ok = memory.get(id);
    if (ok === undefined) {
      ok = verify(signature, message, publicKey);
      if (memory.size >= REMEMBERED_LINES) memory.clear();
      memory.set(id, ok);
    }
    return ok;
  };
  for (let i = 0; i < lines.length; i++) {
    for (const line of splitText(lines[i]!, i === 0)) {
      if (referee === null) {
        text = line.text;
        referee = new Referee<S>(setupText(line), null, OBSERVER_CTX, { verify: once });
        n = 1;
        continue;
      }
      text = line.text;
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
