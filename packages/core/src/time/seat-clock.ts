/**
 * What a seat believes about time (docs/spec/time.md §2): its own clock. Receipt times may hold its claims
 * back (a relay behind the seat moves the seat's clock back to it, so a claim is never early on the receipts),
 * and may move it forward by at most AHEAD_TOLERANCE_MS. A receipt time more than AHEAD_FAULT_MS ahead, earlier
 * than an earlier receipt of the log, or more than SIGNED_TOLERANCE_MS before the seat's own signed time for its
 * own envelope, is a relay fault: from then on the seat believes none of the relay's times.
 */
import { AHEAD_TOLERANCE_MS, receiptTimeFault, type TimedLine, type TimeFault } from './rules.js';

export class SeatClock {
  /** The largest (receipt time − local time) seen: how far the relay is at least ahead; null before any. */
  private sample: number | null = null;
  /** The receipt with the latest time so far. */
  private latest: TimedLine | undefined;
  /** The first fault the relay's receipt times showed, or null. */
  fault: TimeFault | null = null;

  constructor(private readonly local: () => number) {}

  /** The local clock, unmoved. */
  localNow(): number {
    return this.local();
  }

  /**
   * A verified receipt, in log order: `signed` only for the seat's own envelopes, `now` (the local clock)
   * filled in here. Returns the fault it shows, once; afterwards every receipt is ignored.
   */
  observe(r: { readonly line: number; readonly time: number; readonly signed?: number }): TimeFault | null {
    return this.see(r, this.local());
  }

  /** A receipt from a copy kept on disk: checked against the receipts before it and its signed time, not against the clock. */
  observeKept(r: { readonly line: number; readonly time: number; readonly signed?: number }): TimeFault | null {
    return this.see(r, undefined);
  }

  private see(r: { readonly line: number; readonly time: number; readonly signed?: number }, now: number | undefined): TimeFault | null {
    if (this.fault !== null) return null;
    const timed: TimedLine = now === undefined ? r : { ...r, now };
    const fault = receiptTimeFault(this.latest, timed);
    if (fault !== null) {
      this.fault = fault;
      return fault;
    }
    if (this.latest === undefined || r.time >= this.latest.time) this.latest = timed;
    if (now === undefined) return null;
    const sample = r.time - now;
    this.sample = this.sample === null ? sample : Math.max(this.sample, sample);
    return null;
  }

  /** How far the seat's clock is moved from the local one (ms): never more than AHEAD_TOLERANCE_MS forward; 0 once the relay is at fault. */
  get offset(): number {
    if (this.fault !== null || this.sample === null) return 0;
    return Math.min(this.sample, AHEAD_TOLERANCE_MS);
  }

  /** The seat's clock: what its claims and its envelopes' times are made on. */
  now(): number {
    return this.local() + this.offset;
  }
}
