/**
 * The thread that writes the relay's lines to SQLite (docs/spec/relay.md §4 and "The pipeline"): its own connection to
 * the relay's database, one transaction per batch it is sent, and an answer once the transaction has
 * committed. better-sqlite3 blocks the thread that calls it; here that is not the event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

export interface AppendBatch {
  readonly id: number;
  /** game, line, text, receipt (JSON), repeated: one flat array clones faster than many small objects. */
  readonly rows: (string | number)[];
}

export interface AppendDone {
  readonly id: number;
  readonly error?: string;
}

const { file, synchronous } = workerData as { file: string; synchronous: 'FULL' | 'NORMAL' };
const db = new Database(file, { timeout: 10_000 });
db.pragma('journal_mode = WAL');
db.pragma(`synchronous = ${synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
const insert = db.prepare<[string, number, string, string]>('INSERT INTO lines (game, line, text, receipt) VALUES (?, ?, ?, ?)');
const appendAll = db.transaction((rows: (string | number)[]) => {
  for (let i = 0; i < rows.length; i += 4) insert.run(rows[i] as string, rows[i + 1] as number, rows[i + 2] as string, rows[i + 3] as string);
});

parentPort!.on('message', (batch: AppendBatch) => {
  let done: AppendDone;
  try {
    appendAll(batch.rows);
    done = { id: batch.id };
  } catch (e) {
    done = { id: batch.id, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(done);
});
