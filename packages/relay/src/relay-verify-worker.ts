/**
 * A verifying thread of the relay (docs/spec/relay.md, "The pipeline"): reads batches of submitted lines with
 * `readSubmitted` (the line's one parse, the checks that need no signature, then SPEC §4's canonical form,
 * hash and signature under the key the relay names for each), on OpenSSL's fast path with noble's verdict
 * (SPEC §3.2). It judges nothing: the order-dependent rules stay with the game's door on the relay's main
 * thread, which gets back only what the door reads of each line.
 */
import { parentPort } from 'node:worker_threads';
import { fromHex } from '@fairtable/core/bytes.js';
import { useNativeCrypto } from '@fairtable/node/native-crypto.js';
import { nativeVerify } from '@fairtable/node/native-verify.js';
import { nameThisThread } from '@fairtable/node/thread-name.js';
import { readSubmitted } from './read-submitted.js';
import { KIND, type VerifyBatch, type VerifyResults } from './verify-pool.js';

useNativeCrypto();
nameThisThread('ft-verify');

// The keys of the games being played: few, and each asked for again and again.
const keys = new Map<string, Uint8Array>();
const MAX_KEYS = 100_000;

parentPort!.on('message', (batch: VerifyBatch) => {
  const n = batch.texts.length;
  const kinds = new Uint8Array(n);
  const ok = new Uint8Array(n);
  const nums = new Float64Array(3 * n);
  const results: VerifyResults = { id: batch.id, kinds, ok, strs: new Array<string>(n).fill(''), nums, hexes: new Array<string>(4 * n).fill('') };
  for (let i = 0; i < n; i++) {
    const keyHex = batch.keys[i]!;
    let key = keys.get(keyHex);
    if (key === undefined) {
      if (keys.size >= MAX_KEYS) keys.clear();
      key = fromHex(keyHex);
      keys.set(keyHex, key);
    }
    const r = readSubmitted(batch.texts[i]!, batch.froms[i]!, key, batch.nexts[i]!, nativeVerify);
    results.kinds[i] = KIND[r.kind];
    switch (r.kind) {
      case 'malformed':
        results.strs[i] = r.shapeError;
        break;
      case 'other':
        results.strs[i] = r.from;
        break;
      case 'ahead':
        results.nums[3 * i] = r.seq;
        break;
      case 'read':
        results.strs[i] = r.hash;
        results.ok[i] = r.sigOk ? 1 : 0;
        results.nums[3 * i] = r.header.seq;
        results.nums[3 * i + 1] = r.header.at;
        results.nums[3 * i + 2] = r.header.time;
        results.hexes[4 * i] = r.header.game;
        results.hexes[4 * i + 1] = r.header.prev;
        results.hexes[4 * i + 2] = r.header.head;
        results.hexes[4 * i + 3] = r.header.type;
        if (r.header.body !== undefined) (results.bodies ??= {})[i] = r.header.body;
    }
  }
  parentPort!.postMessage(results, [kinds.buffer, ok.buffer, nums.buffer]);
});
