/**
 * The time rules (docs/spec/time.md): the tolerances every seat and every audit uses, and the checks on one
 * receipt time against what came before it. Pure: the local clock, where a rule needs it, is a parameter.
 */

/**
 * How far receipts may move a seat's clock forward (time.md §2): two seconds covers a relay's and a seat's
 * clocks both kept by NTP (typically within tens of milliseconds of each other) with room for a slow network,
 * and is small against every deadline through a relay (a claim waits half a timeout past the deadline, and
 * those games use timeouts of seconds to days).
 */
export const AHEAD_TOLERANCE_MS = 2000;

/**
 * How far a receipt time may be ahead of the seat's clock before it is a relay fault (time.md §2). Between
 * the two the seat believes two seconds and no more; a minute lets a device whose clock is off by seconds play
 * through an honest relay, and catches a relay an hour ahead.
 */
export const AHEAD_FAULT_MS = 60_000;

/** How far before the seat's own signed `time` the orderer may receipt its envelope before that is a relay fault (a seat's clock may run fast). */
export const SIGNED_TOLERANCE_MS = 60_000;

/** How far a setup's `created` may be from the seat's clock when the seat joins (time.md §4). */
export const CREATED_WINDOW_MS = 10 * 60_000;

/** What a receipt time shows the relay did with its clock. */
export type TimeFaultKind =
  /** A receipt time further ahead of the seat's clock than AHEAD_TOLERANCE_MS. */
  | 'clock_ahead'
  /** A receipt time earlier than the receipt of an earlier line of the same log. */
  | 'clock_backwards'
  /** A receipt time earlier than its own envelope's signed time, less SIGNED_TOLERANCE_MS, for an envelope whose signer's clock is known. */
  | 'clock_before_signed';

export interface TimeFault {
  readonly kind: TimeFaultKind;
  /** The line whose receipt time is wrong. */
  readonly line: number;
  /** The line of the earlier receipt it contradicts (`clock_backwards`). */
  readonly earlier?: number;
  readonly message: string;
}

/** A line's receipt time, with what the reader knows of it. */
export interface TimedLine {
  readonly line: number;
  /** The orderer's receipt time (ms). */
  readonly time: number;
  /** The envelope's own signed `time` (ms), when the reader trusts its signer's clock (a seat: its own envelopes). */
  readonly signed?: number;
  /** The reader's own clock when the receipt arrived (ms), for a live receipt. */
  readonly now?: number;
}

/**
 * The first fault one receipt time shows, given the receipt with the latest time before it in the log (or
 * undefined): null when it shows none.
 */
export function receiptTimeFault(latest: TimedLine | undefined, r: TimedLine): TimeFault | null {
  if (latest !== undefined && r.line > latest.line && r.time < latest.time)
    return {
      kind: 'clock_backwards',
      line: r.line,
      earlier: latest.line,
      message: `the relay receipted line ${r.line} at ${r.time}, before its receipt of line ${latest.line} at ${latest.time}: its clock went backwards`,
    };
  if (r.now !== undefined && r.time > r.now + AHEAD_FAULT_MS)
    return {
      kind: 'clock_ahead',
      line: r.line,
      message: `the relay receipted line ${r.line} at ${r.time}, ${r.time - r.now} ms ahead of this seat's clock (${r.now}); more than ${AHEAD_FAULT_MS} ms ahead is a fault`,
    };
  if (r.signed !== undefined && r.time < r.signed - SIGNED_TOLERANCE_MS)
    return {
      kind: 'clock_before_signed',
      line: r.line,
      message: `the relay receipted line ${r.line} at ${r.time}, ${r.signed - r.time} ms before this seat signed it (${r.signed}); it cannot have received it before it was signed`,
    };
  return null;
}

/** When the first phase starts on receipt times (time.md §4): the later of the setup's `created` and line 0's receipt. */
export function firstPhaseStart(created: number, receipt0: number | undefined): number {
  return receipt0 === undefined ? created : Math.max(created, receipt0);
}

/**
 * Why a seat refuses a setup's `created` (time.md §4), or null when it is within the window: more than
 * CREATED_WINDOW_MS ahead of the seat's clock, or away from line 0's receipt time (the orderer's word for when
 * the game was created; the seat's own clock when there is none). A game created long ago can still be joined:
 * its line 0 was receipted long ago too.
 */
export function createdError(created: number, now: number, receipt0?: number): string | null {
  const minutes = CREATED_WINDOW_MS / 60_000;
  if (created > now + CREATED_WINDOW_MS)
    return `the setup says it was created at ${created}, ${Math.round((created - now) / 1000)} s ahead of this seat's clock (${now}); at most ${minutes} minutes is accepted`;
  const reference = receipt0 ?? now;
  const what = receipt0 === undefined ? "this seat's clock" : "line 0's receipt time";
  if (Math.abs(created - reference) > CREATED_WINDOW_MS)
    return `the setup says it was created at ${created}, ${Math.round(Math.abs(created - reference) / 1000)} s ${created < reference ? 'before' : 'after'} ${what} (${reference}); at most ${minutes} minutes is accepted`;
  return null;
}
