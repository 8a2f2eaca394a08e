/**
 * The thread that writes the relay's lines to SQLite (docs/spec/relay.md §4 and "The pipeline"): its own connection to
 * the relay's database, one transaction per batch it is sent, and an answer once the transaction has
 * committed. better-sqlite3 blocks the thread that calls it; here that is not the event loop.
 *
 * It also signs the receipts of the lines it is sent unsigned (relay.md §2): the relay's Ed25519 signature,
 * its largest cost per line after the author's signature check, so leaves the event loop. The receipt is
 * made by the core's `signReceipt`, byte for byte what the event loop would sign, stored with its line in
 * the same transaction, and its signature goes back with the commit's answer: a receipt exists only for
 * a stored line, and is given out only once stored.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { signReceipt } from '@fairtable/core/order/receipt.js';
import { nativeSign } from '@fairtable/node/native-verify.js';

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
  /** For a `SignBatch`: the receipts' signatures (hex), one for each line, in order. */
  readonly sigs?: string[];
}

const { file, synchronous } = workerData as { file: string; synchronous: 'FULL' | 'NORMAL' };
const db = new Database(file, { timeout: 10_000 });
db.pragma('journal_mode = WAL');
db.pragma(`synchronous = ${synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
const insert = db.prepare<[string, number, string, string]>('INSERT INTO lines (game, line, text, receipt) VALUES (?, ?, ?, ?)');
const appendAll = db.transaction((rows: (string | number)[]) => {
  for (let i = 0; i < rows.length; i += 4) insert.run(rows[i] as string, rows[i + 1] as number, rows[i + 2] as string, rows[i + 3] as string);
});
const signAndAppend = db.transaction((rows: (string | number)[], key: Uint8Array, sigs: string[]) => {
  for (let i = 0, k = 0; i < rows.length; i += 6, k++) {
    const game = rows[i] as string;
    const line = rows[i + 1] as number;
    const receipt = signReceipt({ v: 1, game, line, hash: rows[i + 3] as string, log: rows[i + 4] as string, time: rows[i + 5] as number }, key, nativeSign);
    insert.run(game, line, rows[i + 2] as string, JSON.stringify(receipt));
    sigs[k] = receipt.sig;
  }
});

parentPort!.on('message', (batch: AppendBatch | SignBatch) => {
  let done: AppendDone;
  try {
    if ('sign' in batch) {
      const sigs = new Array<string>(batch.sign.length / 6);
      signAndAppend(batch.sign, batch.key, sigs);
      done = { id: batch.id, sigs };
    } else {
      appendAll(batch.rows);
      done = { id: batch.id };
    }
  } catch (e) {
    done = { id: batch.id, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(done);
});
