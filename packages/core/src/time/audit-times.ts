/**
 * What a receipt-timed audit believes about time (docs/spec/time.md §3): the orderer's receipt times, checked
 * against each other. A time earlier than an earlier line's receipt is the relay's clock going backwards, a
 * relay fault named by its own two signed receipts; from that line on no deadline is judged on its times.
 * A signer's time is a second clock the audit cannot rank against the orderer's, and is not used to judge it.
 */
import { receiptTimeFault, type TimedLine, type TimeFault } from './rules.js';

/** The first line whose receipt time goes back before an earlier line's, or null. Lines without a time are skipped. */
export function firstBackwards(times: readonly (number | undefined)[]): TimeFault | null {
  let latest: TimedLine | undefined;
  for (let line = 0; line < times.length; line++) {
    const time = times[line];
    if (time === undefined) continue;
    const fault = receiptTimeFault(latest, { line, time });
    if (fault !== null) return fault;
    if (latest === undefined || time >= latest.time) latest = { line, time };
  }
  return null;
}
