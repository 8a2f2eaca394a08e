/**
 * Auditing a transcript file (docs/SPEC.md §9): `auditFile` runs the audit (audit-here.ts) in a coordinating
 * worker thread, or on the calling thread for a small file. This module loads neither the auditor nor the
 * protocols: a thread that only starts the audit (the command line's own) does not pay for loading them.
 */
import { stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { Verdict } from '@fairtable/core/audit.js';
import { TranscriptError } from '@fairtable/core/errors.js';

export interface AuditFileOptions {
  /** Verifying threads: the cores less one when not given; 0 verifies on the auditing thread itself. */
  readonly workers?: number;
  readonly batch?: number;
  readonly onProgress?: (bytesRead: number, totalBytes: number, lines: number) => void;
}

/**
 * A file of at most this many bytes, with no number of workers asked for, is audited on the calling thread
 * with no thread of its own: starting the coordinator and a verifying thread loads the modules twice more,
 * about 0.6 s of CPU, more than checking a few hundred lines takes (a game of dice is a few kilobytes).
 */
export const ONE_THREAD_BYTES = 256 << 10;

/**
 * Audits a transcript file. The work runs in a coordinating worker thread with
 * a bounded heap (the main thread's heap limits cannot be changed once Node
 * has started, and an unbounded heap lets garbage pile up to several times
 * what the audit holds), which starts the verifying workers in turn (`workers`
 * of them; the cores less one when not given). A file of at most
 * `ONE_THREAD_BYTES` with `workers` not given is audited on the calling
 * thread alone, by the same code.
 */
export async function auditFile(path: string, options: AuditFileOptions = {}): Promise<Verdict> {
  // A file that cannot be read is reported as the threads report it.
  const size = await stat(path).then(
    (s) => s.size,
    () => Infinity,
  );
  if (options.workers === undefined && size <= ONE_THREAD_BYTES) {
    try {
      const { auditFileHere } = await import('./audit-here.js');
      return await auditFileHere(path, { ...options, workers: 0 });
    } catch (e) {
      // Errors as the coordinator's message turns them into.
      const err = e as { code?: string; message?: string };
      throw new TranscriptError((err.code ?? 'bad_input') as never, err.message ?? String(e));
    }
  }
  return auditInThreads(path, options);
}

function auditInThreads(path: string, options: AuditFileOptions): Promise<Verdict> {
  const worker = new Worker(new URL('./audit-coordinator.js', import.meta.url), {
    workerData: { path, workers: options.workers ?? null, batch: options.batch ?? null },
    resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 128 },
  });
  return new Promise((resolve, reject) => {
    worker.on(
      'message',
      (
        m:
          | { kind: 'progress'; bytes: number; total: number; lines: number }
          | { kind: 'verdict'; verdict: Verdict }
          | { kind: 'error'; code?: string; message: string },
      ) => {
        if (m.kind === 'progress') options.onProgress?.(m.bytes, m.total, m.lines);
        else if (m.kind === 'verdict') resolve(m.verdict);
        else reject(new TranscriptError((m.code ?? 'bad_input') as never, m.message));
      },
    );
    worker.on('error', reject);
    worker.on('exit', (code) => {
      if (code !== 0) reject(new TranscriptError('bad_input', `the audit thread stopped with code ${code}`));
    });
  });
}
