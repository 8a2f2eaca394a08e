/**
 * Worker thread of the file auditor: parses, hashes and verifies batches of
 * transcript lines in parallel (docs/SPEC.md §9). The coordinator cuts the
 * lines (core's lines.ts, §4.5), so no line a worker sees is over 1 MiB; it
 * keeps the order-dependent checks and the protocol machine. Its first
 * message is the setup line, whose players' keys check the lines.
 */
import { parentPort } from 'node:worker_threads';
import { readSetupLine, prepareLine } from '@fairtable/core/transcript.js';
import { fromHex } from '@fairtable/core/bytes.js';
import { nativeVerify } from './native-verify.js';
import { useNativeCrypto } from './native-crypto.js';
import type { PackedResults } from './audit-here.js';
import { nameThisThread } from './thread-name.js';

useNativeCrypto();
nameThisThread('ft-audit-verify');

let keys: ReadonlyMap<string, Uint8Array> = new Map();

parentPort!.on('message', (m: { setupLine: string } | { id: number; start: number; texts: string[] }) => {
  if ('setupLine' in m) {
    const { setup } = readSetupLine(m.setupLine);
    keys = new Map(setup.players.map((p) => [p.id, fromHex(p.key)]));
    return;
  }
  const n = m.texts.length;
  const results: PackedResults = { hashes: new Array<string | null>(n), sigOk: new Uint8Array(n), shapeErrors: [] };
  for (let i = 0; i < n; i++) {
    const p = prepareLine(m.start + i, m.texts[i]!, keys, nativeVerify);
    results.hashes[i] = p.hash;
    results.sigOk[i] = p.sigOk ? 1 : 0;
    if (p.shapeError !== null) results.shapeErrors.push([i, p.shapeError]);
  }
  parentPort!.postMessage({ id: m.id, results });
});
