/**
 * Worker thread of the file auditor: parses, hashes and verifies batches of
 * transcript lines in parallel (docs/SPEC.md §9). The coordinator cuts the
 * lines (core's lines.ts, §4.5), so no line a worker sees is over 1 MiB; it
 * keeps the order-dependent checks and the protocol machine.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readSetupLine, prepareLine } from '@fairtable/core/transcript.js';
import { fromHex } from '@fairtable/core/bytes.js';
import { nativeVerify } from './native-verify.js';
import { useNativeCrypto } from './native-crypto.js';

useNativeCrypto();

const { setupLine } = workerData as { setupLine: string };
const { setup } = readSetupLine(setupLine);
const keys = new Map(setup.players.map((p) => [p.id, fromHex(p.key)]));

parentPort!.on('message', (batch: { id: number; start: number; texts: string[] }) => {
  const results = batch.texts.map((text, i) => {
    const p = prepareLine(batch.start + i, text, keys, nativeVerify);
    return { hash: p.hash, sigOk: p.sigOk, shapeError: p.shapeError };
  });
  parentPort!.postMessage({ id: batch.id, results });
});
