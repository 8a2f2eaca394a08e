/**
 * The relay's verifying threads (docs/spec/relay.md, "The pipeline"): a small pool of worker threads that parse, hash
 * and verify submitted lines (`relay-verify-worker.ts`), so that Ed25519 verification, the relay's largest
 * cost per line, and the line's only parse leave the event loop. Requests made during one turn of the
 * event loop go out as one message per thread, which pays the cost of `postMessage` once per batch
 * rather than once per line; the answers come back as parallel arrays, the numbers in transferred buffers.
 *
 * The pool only ever answers "what `readSubmitted` says of this text"; a thread that fails answers
 * `null` for what it held, and a pool with no thread left answers `null` at once: the caller then reads
 * the line on its own thread, so the pool can make the relay slower but never change a verdict.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Envelope } from '@fairtable/core/envelope.js';

import { Awaiting } from './awaiting.js';
import type { Read } from './read-submitted.js';

/** One message to a thread: parallel arrays (one structured clone of a few arrays, not of many objects). */
export interface VerifyBatch {
  readonly id: number;
  readonly texts: string[];
  /** The player of the connection each line came over. */
  readonly froms: string[];
  /** That player's public key, hex. */
  readonly keys: string[];
  /** The largest `seq` each line's envelope can have (`readSubmitted`). */
  readonly nexts: number[];
}

/** `Read['kind']` as a number, for the answers' typed array. */
export const KIND = { malformed: 0, other: 1, ahead: 2, read: 3 } as const;

/** A thread's answers, line by line, as parallel arrays. */
export interface VerifyResults {
  readonly id: number;
  readonly kinds: Uint8Array;
  /** `read`: the signature verifies. */
  readonly ok: Uint8Array;
  /** `malformed`: why; `other`: the envelope's author; `read`: the envelope's hash. */
  readonly strs: string[];
  /** seq, at and time of each line (`ahead`: seq only). */
  readonly nums: Float64Array;
  /** game, prev, head and body.type of each `read` line. */
  readonly hexes: string[];
  /** The whole body of each `read` line that keeps it (a `newcomer` line, read-submitted.ts), by index. */
  bodies?: Record<number, Envelope['body']>;
}

/** Line `k` of `r`, read over `who`'s connection. */
function decode(r: VerifyResults, k: number, who: string): Read {
  switch (r.kinds[k]) {
    case KIND.malformed:
      return { kind: 'malformed', shapeError: r.strs[k]! };
    case KIND.other:
      return { kind: 'other', from: r.strs[k]! };
    case KIND.ahead:
      return { kind: 'ahead', seq: r.nums[3 * k]! };
    default: {
      const h = r.hexes;
      const header = {
        game: h[4 * k]!,
        from: who,
        seq: r.nums[3 * k]!,
        prev: h[4 * k + 1]!,
        at: r.nums[3 * k + 1]!,
        head: h[4 * k + 2]!,
        time: r.nums[3 * k + 2]!,
        type: h[4 * k + 3]!,
        ...(r.bodies?.[k] === undefined ? {} : { body: r.bodies[k] }),
      };
      return { kind: 'read', header, hash: r.strs[k]!, sigOk: r.ok[k] === 1 };
    }
  }
}

export type { Read };

type Done = (read: Read | null) => void;

/** Batches a thread holds at once. */
const IN_FLIGHT = 2;

interface Thread {
  readonly worker: Worker;
  /** Batches sent and not answered, by id: who each line came from, and who waits for it. */
  /** Batches sent and not yet answered (not a Map: awaiting.ts says why). */
  readonly waiting: Awaiting<{ readonly froms: string[]; readonly dones: Done[] }>;
  lines: number;
  alive: boolean;
}

/** The built worker: beside this module in dist, or in dist when this module runs from src (the tests). */
function workerFile(): string | null {
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith('.ts')
    ? fileURLToPath(new URL('../dist/relay-verify-worker.js', import.meta.url))
    : fileURLToPath(new URL('./relay-verify-worker.js', import.meta.url));
  return existsSync(file) ? file : null;
}

export class VerifyPool {
  private readonly threads: Thread[] = [];
  private texts: string[] = [];
  private froms: string[] = [];
  private keys: string[] = [];
  private nexts: number[] = [];
  private dones: Done[] = [];
  private scheduled = false;
  private nextId = 0;
  private closed = false;
  private living = 0;

  /** `size` threads (0: none; every request is answered `null`). `onFailure` hears of a thread that failed. */
  constructor(
    size: number,
    private readonly onFailure: (error: unknown) => void = () => {},
  ) {
    const file = size > 0 ? workerFile() : null;
    if (file === null) return;
    for (let i = 0; i < size; i++) {
      // A small young generation: a thread holds one batch at a time, and a large one only grows the RSS.
      const worker = new Worker(file, { resourceLimits: { maxYoungGenerationSizeMb: 8 } });
      const t: Thread = { worker, waiting: new Awaiting(), lines: 0, alive: true };
      worker.on('message', (r: VerifyResults) => {
        const held = t.waiting.take(r.id);
        if (held === undefined) return;
        const { froms, dones } = held;
        t.lines -= dones.length;
        for (let k = 0; k < dones.length; k++) dones[k]!(decode(r, k, froms[k]!));
        this.send();
      });
      const fail = (e: unknown): void => {
        if (!t.alive) return;
        t.alive = false;
        this.living--;
        if (!this.closed) this.onFailure(e);
        const held = t.waiting.takeAll();
        t.lines = 0;
        for (const { dones } of held) for (const d of dones) d(null);
        // What waited for this thread goes to another, or is answered null.
        this.send();
      };
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`a verifying thread exited (${code})`)));
      this.threads.push(t);
      this.living++;
    }
  }

  /** Threads still running. */
  get size(): number {
    return this.living;
  }

  /** Asks for `readSubmitted(text, from, key, next)` with `from`'s key `keyHex`; `done` gets the answer, or `null` (read it yourself). */
  request(text: string, from: string, keyHex: string, next: number, done: Done): void {
    if (this.size === 0) return done(null);
    this.texts.push(text);
    this.froms.push(from);
    this.keys.push(keyHex);
    this.nexts.push(next);
    this.dones.push(done);
    if (!this.scheduled) {
      this.scheduled = true;
      // After the poll phase: every frame read in this turn of the loop goes in the one batch.
      setImmediate(() => {
        this.scheduled = false;
        this.send();
      });
    }
  }

  private send(): void {
    if (this.texts.length === 0) return;
    const alive = this.threads.filter((t) => t.alive);
    // Under load the threads are busy: requests wait for one of them to answer and go out together,
    // fewer and larger batches; two batches in flight per thread keep a thread from waiting on the loop.
    if (alive.length > 0 && alive.every((t) => t.waiting.size >= IN_FLIGHT)) return;
    const { texts, froms, keys, nexts, dones } = this;
    this.texts = [];
    this.froms = [];
    this.keys = [];
    this.nexts = [];
    this.dones = [];
    if (alive.length === 0) {
      for (const d of dones) d(null);
      return;
    }
    // Split across the threads that can take a batch, the least loaded first; a small batch is not worth splitting.
    const free = alive.filter((t) => t.waiting.size < IN_FLIGHT).sort((a, b) => a.lines - b.lines);
    const parts = Math.min(free.length, Math.ceil(texts.length / 64));
    const per = Math.ceil(texts.length / parts);
    for (let p = 0; p < parts; p++) {
      const t = free[p]!;
      const from = p * per;
      const to = Math.min(texts.length, from + per);
      const id = this.nextId++;
      const batch: VerifyBatch = { id, texts: texts.slice(from, to), froms: froms.slice(from, to), keys: keys.slice(from, to), nexts: nexts.slice(from, to) };
      t.waiting.add(id, { froms: batch.froms, dones: dones.slice(from, to) });
      t.lines += to - from;
      t.worker.postMessage(batch);
    }
  }

  /** Stops every thread; what they held is answered `null`. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
