/**
 * The relay's verifying threads (docs/spec/relay.md, "The pipeline"): a small pool of worker threads that read, hash
 * and verify submitted lines (`verify-worker.ts`), so that Ed25519 verification, the relay's largest
 * cost per line, leaves the event loop. Requests made during one turn of the event loop go out as one
 * message per thread, which pays the cost of `postMessage` once per batch rather than once per line.
 *
 * The pool only ever answers "what `prepareLine` says of this text under this key"; a thread that fails
 * answers `null` for what it held, and a pool with no thread left answers `null` at once: the caller
 * then verifies on its own thread, so the pool can make the relay slower but never change a verdict.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/** What a verifying thread found in one line: `prepareLine`'s answer less the envelope (the caller parsed it). */
export interface Read {
  readonly hash: string | null;
  readonly sigOk: boolean;
  readonly shapeError: string | null;
}

/** One message to a thread: parallel arrays (one structured clone of three arrays, not of many objects). */
export interface VerifyBatch {
  readonly id: number;
  readonly texts: string[];
  readonly froms: string[];
  /** The public key of each line's claimed author, hex. */
  readonly keys: string[];
}

export interface VerifyResults {
  readonly id: number;
  readonly hashes: (string | null)[];
  readonly ok: Uint8Array;
  readonly shapeErrors: (string | null)[];
}

type Done = (read: Read | null) => void;

/** Batches a thread holds at once. */
const IN_FLIGHT = 2;

interface Thread {
  readonly worker: Worker;
  /** Batches sent and not answered, by id. */
  readonly waiting: Map<number, Done[]>;
  lines: number;
  alive: boolean;
}

/** The built worker: beside this module in dist, or in dist when this module runs from src (the tests). */
function workerFile(): string | null {
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith('.ts')
    ? fileURLToPath(new URL('../dist/verify-worker.js', import.meta.url))
    : fileURLToPath(new URL('./verify-worker.js', import.meta.url));
  return existsSync(file) ? file : null;
}

export class VerifyPool {
  private readonly threads: Thread[] = [];
  private texts: string[] = [];
  private froms: string[] = [];
  private keys: string[] = [];
  private dones: Done[] = [];
  private scheduled = false;
  private nextId = 0;
  private closed = false;

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
      const t: Thread = { worker, waiting: new Map(), lines: 0, alive: true };
      worker.on('message', (r: VerifyResults) => {
        const dones = t.waiting.get(r.id);
        if (dones === undefined) return;
        t.waiting.delete(r.id);
        t.lines -= dones.length;
        for (let k = 0; k < dones.length; k++) dones[k]!({ hash: r.hashes[k] ?? null, sigOk: r.ok[k] === 1, shapeError: r.shapeErrors[k] ?? null });
        this.send();
      });
      const fail = (e: unknown): void => {
        if (!t.alive) return;
        t.alive = false;
        if (!this.closed) this.onFailure(e);
        const held = [...t.waiting.values()];
        t.waiting.clear();
        t.lines = 0;
        for (const dones of held) for (const d of dones) d(null);
        // What waited for this thread goes to another, or is answered null.
        this.send();
      };
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`a verifying thread exited (${code})`)));
      this.threads.push(t);
    }
  }

  /** Threads still running. */
  get size(): number {
    return this.threads.filter((t) => t.alive).length;
  }

  /** Asks for `text` read as an envelope from `from` under `keyHex`; `done` gets the answer, or `null` (verify it yourself). */
  request(text: string, from: string, keyHex: string, done: Done): void {
    if (this.size === 0) return done(null);
    this.texts.push(text);
    this.froms.push(from);
    this.keys.push(keyHex);
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
    const { texts, froms, keys, dones } = this;
    this.texts = [];
    this.froms = [];
    this.keys = [];
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
      t.waiting.set(id, dones.slice(from, to));
      t.lines += to - from;
      const batch: VerifyBatch = { id, texts: texts.slice(from, to), froms: froms.slice(from, to), keys: keys.slice(from, to) };
      t.worker.postMessage(batch);
    }
  }

  /** Stops every thread; what they held is answered `null`. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
