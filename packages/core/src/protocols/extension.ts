/**
 * Agreed deadline extensions (docs/SPEC.md §7.4.1), one mechanism for every machine, kept by the referee.
 *
 * A seat proposes `{type: "extend", phase, until}`: the phase now running and the new deadline (ms, on the
 * clock deadlines are judged by). Every other active seat accepts with its own signed `{type:
 * "extend-accept", phase, until}`. Once every active seat has signed (the proposal counts as its author's
 * acceptance), and all of it before the deadline in force, the deadline of that phase moves to `until`:
 * - a deadline claim for that phase timed before `until`, signed by a seat that had seen the agreement in
 *   the log, is `false_deadline_claim`, and the machine never sees it;
 * - one signed before the agreement showed (a race with the last acceptance) is stale: nobody is named;
 * - a seat's own clock claims nothing before `until` and the usual half-timeout of grace.
 * An acceptance is only ever its signer's: one signed by another key never reaches here (bad_signature at
 * the envelope layer), so no seat can accept for another. A proposal or acceptance that comes after the
 * deadline in force, for another phase, or from a seat that is out, changes nothing and names nobody.
 * The extension lapses when the phase ends (the machine's `phaseStart` changes).
 */
import type { Body } from '../envelope.js';
import type { JsonValue } from '../jcs.js';
import type { Accepted } from '../transcript.js';
import type { GameEvent, Stepper } from './machine.js';
import { isDeadlineBody } from './machine.js';
import { bodyProblem, EXTENSION_MESSAGES } from './messages.js';

/** The longest an agreed extension may add beyond the deadline it moves: a week. */
export const MAX_EXTENSION_MS = 7 * 24 * 3600 * 1000;

/** The message types of this mechanism, checked here for every protocol (their schemas: messages.ts). */
export const EXTENSION_TYPES: readonly string[] = Object.keys(EXTENSION_MESSAGES);

export interface ExtendBody extends Body {
  readonly type: 'extend' | 'extend-accept';
  readonly phase: string;
  readonly until: number;
}

/** What an extension needs of a machine's state: its phase, when it began, its timeout. */
interface PhaseView {
  readonly phase?: unknown;
  readonly phaseStart?: unknown;
  readonly timeoutMs?: unknown;
}

/** An extension as JSON (a referee's snapshot keeps it). */
export interface ExtensionState {
  /** The open proposal: its phase, the phase's start, the new deadline, and who has signed it so far. */
  readonly open: { readonly phase: string; readonly phaseStart: number; readonly until: number; readonly signed: readonly string[] } | null;
  /** The agreed extension in force, and the line the last acceptance stands on. */
  readonly agreed: { readonly phase: string; readonly phaseStart: number; readonly until: number; readonly line: number } | null;
}

export const NO_EXTENSION: ExtensionState = { open: null, agreed: null };

function phaseOf(state: unknown): { phase: string; phaseStart: number; timeoutMs: number } | null {
  const s = state as PhaseView | null;
  if (s === null || typeof s !== 'object') return null;
  if (typeof s.phase !== 'string' || typeof s.phaseStart !== 'number' || typeof s.timeoutMs !== 'number') return null;
  return { phase: s.phase, phaseStart: s.phaseStart, timeoutMs: s.timeoutMs };
}

/** The agreed extension still in force on `state`, or null (it lapses when the phase ends). */
export function extensionInForce(ext: ExtensionState, state: unknown): ExtensionState['agreed'] {
  const p = phaseOf(state);
  const a = ext.agreed;
  return a !== null && p !== null && a.phase === p.phase && a.phaseStart === p.phaseStart ? a : null;
}

/** The proposal waiting for signatures on the phase now running on `state`, or null (one for an ended phase is void). */
export function extensionOpen(ext: ExtensionState, state: unknown): ExtensionState['open'] {
  const p = phaseOf(state);
  const o = ext.open;
  return o !== null && p !== null && o.phase === p.phase && o.phaseStart === p.phaseStart ? o : null;
}

/** The deadline in force for the phase now running on `state`: the agreed `until`, or its own. */
export function deadlineInForce(ext: ExtensionState, state: unknown): number | null {
  const p = phaseOf(state);
  if (p === null) return null;
  return extensionInForce(ext, state)?.until ?? p.phaseStart + p.timeoutMs;
}

/** True when a seat's own clock must not claim yet: an agreed extension holds until `until` and its grace. */
export function holdsClaims(ext: ExtensionState, state: unknown, now: number): boolean {
  const a = extensionInForce(ext, state);
  const p = phaseOf(state);
  return a !== null && p !== null && now < a.until + Math.floor(p.timeoutMs / 2);
}

/** A body that belongs to this mechanism: `extend` or `extend-accept`. */
export function isExtensionBody(body: Body): boolean {
  return EXTENSION_TYPES.includes(body.type);
}

/**
 * Takes an `extend` or `extend-accept` line: returns the mechanism's next state. `active` is every seat that
 * must sign (the players not out). Malformed bodies are named `unexpected_message`.
 */
export function takeExtension(ext: ExtensionState, msg: Accepted, state: unknown, active: readonly string[], st: Stepper): ExtensionState {
  const body = msg.envelope.body;
  const from = msg.envelope.from;
  const problem = bodyProblem(EXTENSION_MESSAGES, body);
  if (problem !== null) {
    st.violation('unexpected_message', from, msg, `${from}'s "${body.type}" is not {type, phase, until} with until a whole number of ms: ${problem}`);
    return ext;
  }
  const b = body as ExtendBody;
  const p = phaseOf(state);
  const deadline = deadlineInForce(ext, state);
  // Another phase, a seat that is out, or too late: changes nothing, names nobody (a race, or a seat behind).
  if (p === null || deadline === null || b.phase !== p.phase || !active.includes(from) || msg.time >= deadline) return ext;
  if (b.type === 'extend') {
    if (b.until <= deadline || b.until > deadline + MAX_EXTENSION_MS) {
      st.violation(
        'unexpected_message',
        from,
        msg,
        `${from} proposed a deadline of ${b.until}: it must be after ${deadline} and at most ${MAX_EXTENSION_MS} ms later`,
      );
      return ext;
    }
    st.emit({ type: 'extension-proposed', by: from, phase: b.phase, until: b.until });
    return settle({ ...ext, open: { phase: b.phase, phaseStart: p.phaseStart, until: b.until, signed: [from] } }, msg, active, st);
  }
  const open = ext.open;
  if (open === null || open.phase !== b.phase || open.phaseStart !== p.phaseStart || open.until !== b.until || open.signed.includes(from)) return ext;
  return settle({ ...ext, open: { ...open, signed: [...open.signed, from] } }, msg, active, st);
}

function settle(ext: ExtensionState, msg: Accepted, active: readonly string[], st: Stepper): ExtensionState {
  const open = ext.open!;
  if (!active.every((p) => open.signed.includes(p))) return ext;
  const event: GameEvent = { type: 'extended', phase: open.phase, until: open.until, by: [...open.signed] as JsonValue };
  st.emit(event);
  return { open: null, agreed: { phase: open.phase, phaseStart: open.phaseStart, until: open.until, line: msg.line } };
}

/**
 * A deadline claim under an agreed extension: `pass` when the machine should judge it as usual, `stale` when
 * it was signed before the agreement showed (ignored, nobody named), or `false` when its signer had seen the
 * agreement and claimed before `until` (false_deadline_claim, named here).
 */
export function judgeUnderExtension(ext: ExtensionState, msg: Accepted, state: unknown, st: Stepper): 'pass' | 'stale' | 'false' {
  const body = msg.envelope.body;
  const a = extensionInForce(ext, state);
  if (a === null || !isDeadlineBody(body) || body.phase !== a.phase || msg.time >= a.until) return 'pass';
  if (msg.envelope.at <= a.line) return 'stale';
  const from = msg.envelope.from;
  st.violation(
    'false_deadline_claim',
    from,
    msg,
    `${from} claimed [${body.missing.join(', ')}] missed the ${body.phase} deadline at ${msg.time}, after every active seat agreed (line ${a.line}) to move it to ${a.until}`,
  );
  return 'false';
}
