/**
 * The V8 setting a relay process runs with (docs/spec/relay.md, "The pipeline": "Nothing a line needs
 * outlives it in the old generation", cause 3). `fairtable relay` applies it before it starts; a program
 * that embeds the relay may too.
 *
 * V8 watches, for each place in the code that makes an object, how many of those objects outlive a young
 * collection, and once most do it makes them in the old generation from then on ("pretenuring"). The relay's
 * batches are short-lived, but a few slow turns (a major collection, a burst) can make them look long-lived,
 * and the decision sticks: from then on the arrays a batch is built in are born old, and everything pushed
 * into them is kept through every young collection by the dead old array until the next major collection.
 * Measured on the relay bench at 5,000 lines/s (with awaiting.ts and ws-fragments.ts in place): one of two
 * runs tipped over and moved a median 1.16 MB to the old generation per young collection, the other 0.10 MB;
 * with pretenuring off, three runs of three moved 0.13 MB, and none had a major collection in its 24 s.
 */
import { setFlagsFromString } from 'node:v8';

/** Turns V8's allocation-site pretenuring off for this process (process-wide; calling it again changes nothing). */
export function relayHeapSettings(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
