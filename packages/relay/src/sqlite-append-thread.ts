/**
 * The thread that writes the relay's lines to SQLite (docs/spec/relay.md §4 and "The pipeline"): its own connection to
 * the relay's database, one transaction per batch it is sent, and an answer once the transaction has
 * committed. better-sqlite3 blocks the thread that calls it; here that is not the event loop.
 *
 * It also signs the receipts of the lines it is sent unsigned (relay.md §2): one Ed25519 signature for the
 * whole batch, over the root of a Merkle tree of its receipts (version 2), so the relay's signing costs a
 * transaction, not a line, and leaves the event loop. The receipts are made by the core's `signReceiptBatch`,
 * byte for byte what the event loop would make, stored with their lines in the same transaction, and the
 * signature and each line's inclusion proof go back with the commit's answer: a receipt exists only for a
 * stored line, and is given out only once stored.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { signReceiptBatch, type UnsignedReceipt } from '@fairtable/core/order/receipt.js';
import { useNativeCrypto } from '@fairtable/node/native-crypto.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { nameThisThread } from '@fairtable/node/thread-name.js';

export interface AppendBatch {
  readonly id: number;
  /** game, line, text, receipt (JSON), repeated: one flat array clones faster than many small objects. */
  readonly rows: (string | number)[];
}

/** Lines whose receipts this thread signs: game, line, text, hash, log, time, repeated. */
export interface SignBatch {
  readonly id: number;
  readonly sign: (string | number)[];
  /** The relay's Ed25519 secret key (32 bytes). */
  readonly key: Uint8Array;
}

export interface AppendDone {
  readonly id: number;
  readonly error?: string;
  /** For a `SignBatch`: the batch's one receipt signature (hex)… */
  readonly sig?: string;
  /** …and each line's inclusion proof, in order. */
  readonly paths?: string[][];
}

// The leaves and nodes of the receipts' tree are SHA-256: OpenSSL's, the same bytes as noble's.
useNativeCrypto();
nameThisThread('ft-store');

const { file, synchronous } = workerData as { file: string; synchronous: 'FULL' | 'NORMAL' };
const db = new Database(file, { timeout: 10_000 });
db.pragma('journal_mode = WAL');
db.pragma(`synchronous = ${synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
const insert = db.prepare<[string, number, string, string]>('INSERT INTO lines (game, line, text, receipt) VALUES (?, ?, ?, ?)');
const appendAll = db.transaction((rows: (string | number)[]) => {
  for (let i = 0; i < rows.length; i += 4) insert.run(rows[i] as string, rows[i + 1] as number, rows[i + 2] as string, rows[i + 3] as string);
});
const signAndAppend = db.transaction((rows: (string | number)[], key: Uint8Array): { sig: string; paths: string[][] } => {
  const unsigned: UnsignedReceipt[] = [];
  for (let i = 0; i < rows.length; i += 6)
    unsigned.push({
      v: 2,
      game: rows[i] as string,
      line: rows[i + 1] as number,
      hash: rows[i + 3] as string,
      log: rows[i + 4] as string,
      time: rows[i + 5] as number,
    });
  const receipts = signReceiptBatch(unsigned, key, nativeSign);
  const paths: string[][] = [];
  for (let i = 0, k = 0; i < rows.length; i += 6, k++) {
    const receipt = receipts[k]!;
    insert.run(receipt.game, receipt.line, rows[i + 2] as string, JSON.stringify(receipt));
    paths.push(receipt.batch!.path as string[]);
  }
  return { sig: receipts[0]!.sig, paths };
});

parentPort!.on('message', (batch: AppendBatch | SignBatch) => {
  let done: AppendDone;
  try {
    if ('sign' in batch) {
      const { sig, paths } = signAndAppend(batch.sign, batch.key);
      done = { id: batch.id, sig, paths };
    } else {
      appendAll(batch.rows);
      done = { id: batch.id };
    }
  } catch (e) {
    done = { id: batch.id, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(done);
});
