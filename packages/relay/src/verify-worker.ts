/**
 * A verifying thread of the relay (docs/spec/relay.md, "The pipeline"): reads, hashes and checks the signature of
 * batches of submitted lines with `prepareLine` (SPEC §4) under the key the relay names for each, on
 * OpenSSL's fast path with noble's verdict (SPEC §3.2). It judges nothing: the order-dependent rules
 * stay with the game's door on the relay's main thread.
 */
import { parentPort } from 'node:worker_threads';
import { fromHex } from '@fairtable/core/bytes.js';
import { prepareLine } from '@fairtable/core/transcript.js';
import { useNativeSha256 } from '@fairtable/node/native-hash.js';
import { nativeVerify } from '@fairtable/node/native-verify.js';
import type { VerifyBatch, VerifyResults } from './verify-pool.js';

useNativeSha256();

// The keys of the games being played: few, and each asked for again and again.
const keys = new Map<string, Uint8Array>();
const MAX_KEYS = 100_000;

parentPort!.on('message', (batch: VerifyBatch) => {
  const n = batch.texts.length;
  const results: VerifyResults = { id: batch.id, hashes: new Array<string | null>(n), ok: new Uint8Array(n), shapeErrors: new Array<string | null>(n) };
  for (let i = 0; i < n; i++) {
    const keyHex = batch.keys[i]!;
    let key = keys.get(keyHex);
    if (key === undefined) {
      if (keys.size >= MAX_KEYS) keys.clear();
      key = fromHex(keyHex);
      keys.set(keyHex, key);
    }
    const from = batch.froms[i]!;
    const p = prepareLine(0, batch.texts[i]!, new Map([[from, key]]), nativeVerify);
    results.hashes[i] = p.hash;
    results.ok[i] = p.sigOk ? 1 : 0;
    results.shapeErrors[i] = p.shapeError;
  }
  parentPort!.postMessage(results);
});
