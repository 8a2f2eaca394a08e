/**
 * The file audit's verifying threads (docs/SPEC.md §9), started before the auditor's modules are loaded: the
 * coordinating thread starts them first thing, so that their own start (loading the modules they need, ~85 ms
 * of CPU) runs on the other cores while the coordinator loads the auditor and reads the setup line, instead of
 * after it. This module loads nothing of the auditor. A thread learns the setup line by its first message.
 */
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';

/** How many verifying threads an audit asked for `workers` starts: the cores less one when not given, at least one. */
export function verifierCount(workers: number | undefined): number {
  return workers === 0 ? 0 : Math.max(1, workers ?? availableParallelism() - 1);
}

/** Starts `count` verifying threads, which wait for the setup line (`{ setupLine }`) before their first batch. */
export function startVerifiers(count: number): Worker[] {
  const url = new URL('./verify-worker.js', import.meta.url);
  // Small heaps: a verifying thread holds one batch at a time, and a large young generation only grows the RSS.
  return Array.from({ length: count }, () => new Worker(url, { resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 } }));
}
