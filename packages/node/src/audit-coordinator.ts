/** The coordinating thread of `auditFile` (see there): runs the audit and posts progress and the verdict. */
import { parentPort, workerData } from 'node:worker_threads';
import { auditFileHere } from './audit-here.js';

const { path, workers, batch } = workerData as { path: string; workers: number | null; batch: number | null };
let last = 0;
auditFileHere(path, {
  ...(workers !== null ? { workers } : {}),
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
