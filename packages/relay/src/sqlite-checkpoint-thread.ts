/**
 * The thread that checkpoints the relay's SQLite WAL (docs/spec/relay.md, "The pipeline", "Checkpoints off the
 * writing thread"). Left to itself, SQLite checkpoints on the connection that commits, each time the WAL
 * holds 1,000 pages: the writing thread then copies every page of the WAL into the database and syncs it
 * before it takes the next batch, and every line waiting meanwhile waits for that too. Here a connection
 * of its own copies the WAL into the database every `everyMs` while the writing thread goes on committing
 * (a PASSIVE checkpoint takes no lock a writer needs). The writing thread still starts the WAL over from
 * its beginning, with SQLite's own checkpoint once the WAL holds `TAIL_PAGES` (sqlite-append-thread.ts), but
 * by then this thread has copied all but the pages of the last few commits, and those are all it copies.
 *
 * It never writes a line, and a failure here loses nothing: the writing thread's checkpoint then copies
 * everything, as SQLite does by default, only less often.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

export interface CheckpointOptions {
  readonly file: string;
  readonly synchronous: 'FULL' | 'NORMAL';
  /** Time between checkpoints, ms. */
  readonly everyMs: number;
}

const { file, synchronous, everyMs } = workerData as CheckpointOptions;
// Its work can wait: behind the event loop and the threads that verify and write, on a busy machine.
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 10);
} catch {
  // Not Linux (no /proc/thread-self): the thread keeps the process's priority.
}
const db = new Database(file, { timeout: 2_000 });
db.pragma(`synchronous = ${synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);

let timer: NodeJS.Timeout | null = setTimeout(checkpoint, everyMs);

function checkpoint(): void {
  db.pragma('wal_checkpoint(PASSIVE)');
  timer = setTimeout(checkpoint, everyMs);
}

parentPort!.on('message', (m: unknown) => {
  if (m !== 'stop') return;
  if (timer !== null) clearTimeout(timer);
  timer = null;
  db.close();
  parentPort!.close();
});
