/**
 * The coordinating thread of `auditFile` (see there): starts the verifying threads, then loads the auditor and
 * runs the audit, and posts progress and the verdict. The verifying threads start first so that they load their
 * modules while this thread loads its own (verifiers.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { nameThisThread } from './thread-name.js';
import { startVerifiers, verifierCount } from './verifiers.js';

nameThisThread('ft-audit');

const { path, workers, batch } = workerData as { path: string; workers: number | null; batch: number | null };
const verifiers = startVerifiers(verifierCount(workers ?? undefined));
const { auditFileHere } = await import('./audit-here.js');
let last = 0;
auditFileHere(path, {
  verifiers,
  ...(batch !== null ? { batch } : {}),
  onProgress: (bytes, total, lines) => {
    const now = Date.now();
    if (now - last < 100) return;
    last = now;
    parentPort!.postMessage({ kind: 'progress', bytes, total, lines });
  },
}).then(
  (verdict) => parentPort!.postMessage({ kind: 'verdict', verdict }),
  (e: unknown) => {
    const err = e as { code?: string; message?: string };
    parentPort!.postMessage({ kind: 'error', ...(err.code !== undefined ? { code: err.code } : {}), message: err.message ?? String(e) });
  },
);
