/**
 * The file audit itself (docs/SPEC.md §9), on the thread that runs it: `auditFile`'s coordinating thread, or
 * the calling thread for a small file (audit-file.ts). Streams the file's bytes, cuts them into lines by the
 * rule of core's lines.ts (§4.5, the rule the core auditor uses on a string), prepares lines in worker threads
 * with native verification, and feeds them in order to the core auditor. Memory is bounded whatever the file
 * holds: a line is never held beyond 1 MiB, batches are cut by size as well as count, and violations beyond
 * the first thousand are only counted. Evidence envelopes that the streaming pass no longer holds are fetched
 * in a second pass over the file, cut by the same rule, only when a violation names them.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Worker } from 'node:worker_threads';
import { Auditor, emptyTranscript, setupText, type Verdict } from '@fairtable/core/audit.js';
import { LineSplitter, type TranscriptLine } from '@fairtable/core/lines.js';
import { evidenceOfLine, linesNamed, withLineEvidence, type LineEvidence } from '@fairtable/core/evidence-lines.js';
import { prepareLine, unreadableLine, type PreparedLine } from '@fairtable/core/transcript.js';
import { nativeVerify } from './native-verify.js';
import type { Envelope } from '@fairtable/core/envelope.js';
import type { Violation } from '@fairtable/core/errors.js';
import { useNativeCrypto } from './native-crypto.js';
import type { AuditFileOptions } from './audit-file.js';
import { startVerifiers, verifierCount } from './verifiers.js';

/** `auditFile`'s options, and the verifying threads when the caller started them already (verifiers.ts). */
export interface AuditHereOptions extends AuditFileOptions {
  /** Verifying threads waiting for the setup line; `workers` is then not read. They are stopped when the audit ends. */
  readonly verifiers?: Worker[];
}

/** The coordinator's answer for a line of its own share, with the envelope it parsed (no second parse). */
type Prepared = { hash: string | null; sigOk: boolean; shapeError: string | null; envelope: Envelope | null };

/**
 * A verifying thread's answers for a batch, one array a value: structured cloning an object a line cost
 * ~1.3 µs a line across the two threads, these arrays ~0.1 µs (docs/BENCHMARKS.md, "Digests read as strings, fixed shapes, a copy by members").
 */
export interface PackedResults {
  readonly hashes: (string | null)[];
  /** 1 where the line's signature checked. */
  readonly sigOk: Uint8Array;
  /** The lines of the batch whose envelope has no valid shape, with why: [index in the batch, problem]. */
  readonly shapeErrors: [number, string][];
}

/** A batch's answers: the coordinator's own, or a verifying thread's, as `drainOne` reads them. */
type BatchResults = { readonly own: Prepared[] } | { readonly packed: PackedResults };

/** A batch goes to a worker at this many lines or this many characters, whichever comes first. */
const BATCH_CHARS = 4 << 20;
/**
 * Batches a verifying thread may hold (one in hand, the rest queued) before the coordinator prepares the next
 * one itself. Two left the verifying thread idle at times; three kept both cores busy 95 – 97 % of the audit's
 * wall time against 91 – 96 % for a fixed share of one batch in (threads + 2) (docs/BENCHMARKS.md).
 */
const QUEUED = 3;
/** Characters in flight at most, whatever the number of threads: the six batches' worth of the coordinator's bounded heap. */
const INFLIGHT_CHARS = 6 * BATCH_CHARS;

/** Reads `path` and hands each transcript line to `take`, in order, with back-pressure. */
async function eachLine(path: string, take: (line: TranscriptLine) => Promise<void>, onBytes?: (n: number) => void): Promise<void> {
  const splitter = new LineSplitter();
  const ready: TranscriptLine[] = [];
  const collect = (line: TranscriptLine): void => {
    ready.push(line);
  };
  // Iterating the stream itself (not an event queue) keeps back-pressure: nothing more is read
  // while the consumer is behind.
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 18 }) as AsyncIterable<Buffer>) {
    onBytes?.(chunk.length);
    splitter.push(chunk, collect);
    for (const line of ready.splice(0)) await take(line);
  }
  splitter.end(collect);
  for (const line of ready.splice(0)) await take(line);
}

/** The audit itself, on the current thread (the coordinator runs this); `workers: 0` verifies on this thread too. */
export async function auditFileHere(path: string, options: AuditHereOptions = {}): Promise<Verdict> {
  useNativeCrypto();
  let total = 0;
  let bytes = 0;
  let auditor = null as Auditor | null; // set by handleLine on line 0
  /** The verifying threads: the caller's, or started on line 0. */
  let workers: Worker[] = options.verifiers ?? [];
  let keys: ReadonlyMap<string, Uint8Array> | null = null;
  const batchSize = options.batch ?? 512;
  let pending: TranscriptLine[] = [];
  let pendingChars = 0;
  let nextStart = 1;
  let batchId = 0;
  /** Batches sent to the verifying threads, which take them in turn. */
  let sent = 0;
  const inflight: Promise<{ start: number; lines: TranscriptLine[]; results: BatchResults }>[] = [];
  /** The characters of each batch in flight, in order, and their sum. */
  const inflightSizes: number[] = [];
  let inflightChars = 0;
  const waiting = new Map<number, { resolve: (r: PackedResults) => void; reject: (e: unknown) => void }>();
  /** Batches in flight: QUEUED a verifying thread and as many again on the coordinator, at least six (and INFLIGHT_CHARS). */
  let maxInflight = 6;

  const dispatch = (): void => {
    if (pending.length === 0) return;
    const lines = pending;
    // Unreadable lines are the coordinator's (drainOne); the workers get an empty text in their place.
    const texts = lines.map((l) => (l.problem === null ? l.text : ''));
    const start = nextStart;
    inflightSizes.push(pendingChars);
    inflightChars += pendingChars;
    pending = [];
    pendingChars = 0;
    nextStart += texts.length;
    const id = batchId++;
    // The coordinator prepares a batch itself whenever the verifying threads already hold QUEUED batches
    // each: its share then follows how fast its own ordered work goes against theirs, and a verifying thread
    // still has a batch queued while the coordinator spends a batch's time on one of its own (docs/SPEC.md §9).
    if (workers.length === 0 || waiting.size >= QUEUED * workers.length) {
      const own = texts.map((text, i) => {
        const p = prepareLine(start + i, text, keys!, nativeVerify);
        return { hash: p.hash, sigOk: p.sigOk, shapeError: p.shapeError, envelope: p.envelope };
      });
      inflight.push(Promise.resolve({ start, lines, results: { own } }));
      return;
    }
    const worker = workers[sent++ % workers.length]!;
    inflight.push(
      new Promise((resolve, reject) => {
        waiting.set(id, { resolve: (packed) => resolve({ start, lines, results: { packed } }), reject });
        worker.postMessage({ id, start, texts });
      }),
    );
  };
  const drainOne = async (): Promise<void> => {
    const done = await inflight.shift()!;
    inflightChars -= inflightSizes.shift()!;
    const results = done.results;
    const shapeErrors = 'packed' in results ? new Map(results.packed.shapeErrors) : null;
    for (let i = 0; i < done.lines.length; i++) {
      const line = done.lines[i]!;
      if (line.problem !== null) {
        auditor!.addPrepared(unreadableLine(done.start + i, line.text, line.problem));
        continue;
      }
      let r: Prepared;
      if ('own' in results) r = results.own[i]!;
      else {
        const shapeError = shapeErrors!.get(i) ?? null;
        // A prepared line without a shape error is the canonical text of an envelope: this parse cannot fail.
        const envelope = shapeError !== null ? null : (JSON.parse(line.text) as Envelope);
        r = { hash: results.packed.hashes[i] ?? null, sigOk: results.packed.sigOk[i] === 1, shapeError, envelope };
      }
      const envelope = r.envelope;
      const prepared: PreparedLine = { line: done.start + i, text: line.text, envelope, shapeError: r.shapeError, hash: r.hash, sigOk: r.sigOk };
      // A newcomer's line (docs/SPEC.md §4.6): the workers know the setup's keys only, the checker's map has it by now.
      if (envelope !== null && !r.sigOk && keys!.has(envelope.from)) auditor!.addPrepared(prepareLine(done.start + i, line.text, keys!, nativeVerify));
      else auditor!.addPrepared(prepared);
    }
    options.onProgress?.(bytes, total, auditor!.nextLine);
  };

  const handleLine = async (line: TranscriptLine): Promise<void> => {
    if (auditor === null) {
      const text = setupText(line);
      auditor = new Auditor(text);
      keys = auditor.referee.checker.keys;
      if (options.verifiers === undefined) workers = startVerifiers(verifierCount(options.workers));
      maxInflight = Math.max(6, QUEUED * (workers.length + 1));
      for (const w of workers) {
        w.on('message', (m: { id: number; results: PackedResults }) => {
          waiting.get(m.id)?.resolve(m.results);
          waiting.delete(m.id);
        });
        // A verifying thread that dies fails the audit instead of leaving it waiting forever.
        w.on('error', (e) => {
          for (const pending of waiting.values()) pending.reject(e);
          waiting.clear();
        });
        w.postMessage({ setupLine: text });
      }
      return;
    }
    pending.push(line);
    pendingChars += line.text.length;
    if (pending.length >= batchSize || pendingChars >= BATCH_CHARS) {
      dispatch();
      while (inflight.length >= maxInflight || (inflight.length > 0 && inflightChars >= INFLIGHT_CHARS)) await drainOne();
    }
  };

  try {
    // Inside the try: a file that cannot be read still stops the verifying threads.
    total = (await stat(path)).size;
    await eachLine(path, handleLine, (n) => {
      bytes += n;
    });
    if (auditor === null) throw emptyTranscript();
    dispatch();
    while (inflight.length > 0) await drainOne();
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  const verdict = auditor.verdict();
  return { ...verdict, violations: await fillEvidence(path, verdict.violations) };
}

/** Second pass: puts the envelope of every evidence line that names only its line number. */
async function fillEvidence(path: string, violations: readonly Violation[]): Promise<Violation[]> {
  const wanted = linesNamed(violations);
  if (wanted.size === 0) return [...violations];
  const found = new Map<number, LineEvidence>();
  let n = 0;
  await eachLine(path, async (line) => {
    if (wanted.has(n)) found.set(n, evidenceOfLine(line, n));
    n++;
  });
  return withLineEvidence(violations, found);
}
