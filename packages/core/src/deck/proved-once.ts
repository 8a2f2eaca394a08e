/**
 * A simulation's keeper of deck proofs (docs/SPEC.md §3.2, docs/spec/deck.md §10.1). A proof is a pure function
 * of its statement, the prover's secret and the random bytes it draws; a simulation draws every seat's bytes
 * from a stream seeded by the simulation's seed, so two simulations from one seed make the same shuffles and
 * decryption shares until their games part (a cheat, a leaver). The keeper lets the second read the first's
 * proof instead of making it again.
 *
 * Only a simulation (sim/simulate.ts) hands a seat a keeper: the keys are the secrets themselves, in the clear.
 * A seat in play has none, and makes every proof afresh. The key is the canonical JSON of every input (RFC 8785),
 * random draws included, so two calls share a proof only when every input is the same; the caller has drawn those
 * bytes before asking, so its random source stands where it would have stood. Each answer is handed out as a copy,
 * so that a caller that changes what it got (a cheat) changes nothing kept. Bounded: cleared when full.
 */
import { answersKept } from '../escrow/kept.js';

/** `kept(inputs, prove)`: `prove()`'s answer, made once per canonical text of `inputs`. */
export type ProvedOnce = <T>(inputs: readonly unknown[], prove: () => T) => T;

/** A keeper of up to `limit` proofs. */
export function provedOnce(limit: number): ProvedOnce {
  const kept = answersKept<unknown>(limit);
  return <T>(inputs: readonly unknown[], prove: () => T): T => structuredClone(kept(inputs, prove) as T);
}

/** A random source that gives `drawn` once, to a call for exactly its length: the bytes a caller drew before asking a keeper. */
export function replayOnce(drawn: Uint8Array): (n: number) => Uint8Array {
  let used = false;
  return (n) => {
    if (used || n !== drawn.length) throw new Error(`replayOnce: ${drawn.length} bytes were drawn, ${n} asked`);
    used = true;
    return drawn;
  };
}
