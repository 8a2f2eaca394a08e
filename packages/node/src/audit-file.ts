/**
 * Auditing a transcript file (docs/SPEC.md §9.2): streams the file line by
 * line (constant memory whatever its length), prepares lines in worker
 * threads with native verification, and feeds them in order to the core
 * auditor. Evidence envelopes that the streaming pass no longer holds are
 * fetched in a second pass over the file, only when a violation names them.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { Auditor, type Verdict } from '@fairtable/core/audit.js';
import { prepareLine, TranscriptError, type PreparedLine } from '@fairtable/core/transcript.js';
import { nativeVerify } from './native-verify.js';
import type { Envelope } from '@fairtable/core/envelope.js';
import type { Violation } from '@fairtable/core/errors.js';
import { useNativeSha256 } from './native-hash.js';

export interface AuditFileOptions {
  readonly workers?: number;
  readonly batch?: number;
  readonly onProgress?: (bytesRead: number, totalBytes: number, lines: number) => void;
}

type Prepared = { hash: string | null; sigOk: boolean; shapeError: string | null };

/**
 * Audits a transcript file. The work runs in a coordinating worker thread with
 * a bounded heap (the main thread's heap limits cannot be changed once Node
 * has started, and an unbounded heap lets garbage pile up to several times
 * what the audit holds), which starts the verifying workers in turn.
 */
export function auditFile(path: string, options: AuditFileOptions = {}): Promise<Verdict> {
  const worker = new Worker(new URL('./audit-coordinator.js', import.meta.url), {
    workerData: { path, workers: options.workers ?? null, batch: options.batch ?? null },
    resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 128 },
  });
  return new Promise((resolve, reject) => {
    worker.on('message', (m: { kind: 'progress'; bytes: number; total: number; lines: number } | { kind: 'verdict'; verdict: Verdict } | { kind: 'error'; code?: string; message: string }) => {
      if (m.kind === 'progress') options.onProgress?.(m.bytes, m.total, m.lines);
      else if (m.kind === 'verdict') resolve(m.verdict);
      else reject(m.code === undefined ? new Error(m.message) : new TranscriptError(m.code as never, m.message));
    });
    worker.on('error', reject);
    worker.on('exit', (code) => {
      if (code !== 0) reject(new Error(`the audit thread stopped with code ${code}`));
    });
  });
}

/** The audit itself, on the current thread (the coordinator runs this). */
export async function auditFileHere(path: string, options: AuditFileOptions = {}): Promise<Verdict> {
  useNativeSha256();
  const total = (await stat(path)).size;
  let bytes = 0;
  let auditor = null as Auditor | null; // set by handleLine on line 0
  let workers: Worker[] = [];
  let keys: ReadonlyMap<string, Uint8Array> | null = null;
  const batchSize = options.batch ?? 512;
  let pending: string[] = [];
  let nextStart = 1;
  let batchId = 0;
  const inflight: Promise<{ start: number; texts: string[]; results: Prepared[] }>[] = [];
  const waiting = new Map<number, (r: Prepared[]) => void>();
  const maxInflight = 6;

  const dispatch = (): void => {
    if (pending.length === 0) return;
    const texts = pending;
    const start = nextStart;
    pending = [];
    nextStart += texts.length;
    const id = batchId++;
    // The coordinator prepares one batch in (workers + 2) itself: with as many threads as cores, none is
    // oversubscribed, and its share balances its own ordered work against the workers' (docs/SPEC.md §9).
    if (id % (workers.length + 2) === workers.length + 1) {
      const results = texts.map((text, i) => {
        const p = prepareLine(start + i, text, keys!, nativeVerify);
        return { hash: p.hash, sigOk: p.sigOk, shapeError: p.shapeError };
      });
      inflight.push(Promise.resolve({ start, texts, results }));
      return;
    }
    const worker = workers[id % workers.length]!;
    inflight.push(
      new Promise((resolve) => {
        waiting.set(id, (results) => resolve({ start, texts, results }));
        worker.postMessage({ id, start, texts });
      }),
    );
  };
  const drainOne = async (): Promise<void> => {
    const done = await inflight.shift()!;
    for (let i = 0; i < done.texts.length; i++) {
      const text = done.texts[i]!;
      const r = done.results[i]!;
      let envelope: Envelope | null = null;
      if (r.shapeError === null) envelope = JSON.parse(text) as Envelope;
      const prepared: PreparedLine = { line: done.start + i, text, envelope, shapeError: r.shapeError, hash: r.hash, sigOk: r.sigOk };
      auditor!.addPrepared(prepared);
    }
    options.onProgress?.(bytes, total, auditor!.nextLine);
  };

  const handleLine = async (text: string): Promise<void> => {
    if (auditor === null) {
      auditor = new Auditor(text);
      keys = auditor.referee.checker.keys;
      const count = Math.max(1, options.workers ?? availableParallelism() - 1);
      const workerUrl = new URL('./verify-worker.js', import.meta.url);
      // Small heaps: a worker holds one batch at a time, and a large young generation only grows the RSS.
      workers = Array.from(
        { length: count },
        () => new Worker(workerUrl, { workerData: { setupLine: text }, resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 } }),
      );
      for (const w of workers) {
        w.on('message', (m: { id: number; results: Prepared[] }) => {
          waiting.get(m.id)?.(m.results);
          waiting.delete(m.id);
        });
      }
      return;
    }
    if (text.length === 0) return;
    pending.push(text);
    if (pending.length >= batchSize) {
      dispatch();
      if (inflight.length >= maxInflight) await drainOne();
    }
  };

  try {
    // Iterating the stream itself (not readline's event queue) keeps back-pressure: nothing more is read
    // while the workers are behind, so memory stays flat however long the file is.
    let carry = '';
    for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 18 }) as AsyncIterable<string>) {
      bytes += Buffer.byteLength(chunk, 'utf8');
      const parts = (carry + chunk).split('\n');
      carry = parts.pop()!;
      for (const text of parts) await handleLine(text.endsWith('\r') ? text.slice(0, -1) : text);
    }
    if (carry.length > 0) await handleLine(carry);
    if (auditor === null) throw new TranscriptError('bad_input', `${path} is empty: a transcript starts with its setup envelope`);
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
  const wanted = new Set<number>();
  for (const v of violations) for (const e of v.evidence) if (e.line !== undefined && e.envelope === undefined && e.note === undefined) wanted.add(e.line);
  if (wanted.size === 0) return [...violations];
  const found = new Map<number, unknown>();
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  for await (const text of lines) {
    if (wanted.has(n)) {
      try {
        found.set(n, JSON.parse(text));
      } catch {
        found.set(n, text);
      }
    }
    n++;
  }
  return violations.map((v) => ({
    ...v,
    evidence: v.evidence.map((e) => (e.line !== undefined && e.envelope === undefined && found.has(e.line) ? { ...e, envelope: found.get(e.line) } : e)),
  }));
}
