/**
 * Checkpoints off the writing thread (docs/spec/relay.md, "The pipeline"; sqlite-checkpoint-thread.ts): while lines
 * are appended, the checkpointing thread keeps the WAL small (the writing thread alone would let it grow to
 * 4,000 pages); every line is still there after the store closes and opens again; and a game
 * created while another connection holds the database's write lock waits for it rather than failing.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { firstLogHash, nextLogHash, signReceipt, type Receipt } from '@fairtable/core/order/receipt.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { SqliteStore } from './sqlite-store.js';
import type { LineToStore } from './store.js';
import { ThreadedSqliteStore } from './threaded-sqlite-store.js';

const dirs: string[] = [];
const stores: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'fairtable-checkpoint-'));
  dirs.push(d);
  return d;
};

const key = new Uint8Array(32).fill(9);
/** A line of about 2 KB: what a game with large bodies stores. */
const TEXT = `{"note":"${'x'.repeat(2000)}"}`;

function receipt(game: string, line: number, log: string): Receipt {
  return signReceipt({ v: 1, game, line, hash: toHex(new Uint8Array(32).fill(line % 256)), log, time: 1_700_000_000_000 + line }, key, nativeSign);
}

/** Creates `games` games and appends `batches` batches of one line to each, a few milliseconds apart. */
async function play(store: SqliteStore, games: number, batches: number): Promise<string[]> {
  const ids = Array.from({ length: games }, (_, g) => toHex(new Uint8Array(32).fill(g + 1)));
  const logs = ids.map((id) => firstLogHash(id, 'cd'.repeat(32)));
  for (const [g, id] of ids.entries()) await store.createGame(id, 'chain', { game: id, line: 0, text: TEXT, receipt: receipt(id, 0, logs[g]!) });
  for (let line = 1; line <= batches; line++) {
    const batch: LineToStore[] = ids.map((id, g) => {
      logs[g] = nextLogHash(logs[g]!, toHex(new Uint8Array(32).fill(line % 256)));
      return { game: id, line, text: TEXT, receipt: receipt(id, line, logs[g]!) };
    });
    await store.append(batch);
    await new Promise((r) => setTimeout(r, 5));
  }
  return ids;
}

const walBytes = (dir: string): number => statSync(join(dir, 'relay.sqlite-wal')).size;

describe('checkpoints off the writing thread', () => {
  it('keep the WAL small while lines are appended, and lose none of them', async () => {
    const dir = tempDir();
    const store = new ThreadedSqliteStore(dir, { checkpointEveryMs: 20 });
    // 40 games × 150 lines of 2 KB: 12 MB of lines, and more in the WAL (pages, the index).
    const ids = await play(store, 40, 150);
    // RESTART starts the WAL again from its beginning: the file keeps the largest size it reached, which
    // stays far below what was written (the writing thread alone would let it grow to 4,000 pages, 16 MB, before copying it).
    expect(walBytes(dir)).toBeLessThan(6 << 20);
    await store.close();
    const again = new SqliteStore(dir);
    stores.push(again);
    for (const id of ids) expect((await again.readLines(id, 0, 1000)).map((l) => l.line)).toEqual(Array.from({ length: 151 }, (_, i) => i));
  });

  it('with no checkpointing thread, the writing thread checkpoints as SQLite does by default', async () => {
    const dir = tempDir();
    const store = new ThreadedSqliteStore(dir, { checkpointEveryMs: 0 });
    stores.push(store);
    await play(store, 40, 150);
    // SQLite's own checkpoint starts once the WAL holds 1,000 pages (4 MB).
    expect(walBytes(dir)).toBeLessThan(6 << 20);
  });
});

describe('creating a game while another connection writes', () => {
  it('waits for the write lock instead of failing with SQLITE_BUSY', async () => {
    const dir = tempDir();
    const store = new SqliteStore(dir);
    stores.push(store);
    // Another thread takes the write lock and holds it for 300 ms (as the writing thread holds it for a commit).
    const holder = new Worker(
      `const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
       const { parentPort, workerData } = require('node:worker_threads');
       const db = new Database(workerData);
       db.exec('BEGIN IMMEDIATE');
       parentPort.postMessage('held');
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
       db.exec('COMMIT');
       db.close();`,
      { eval: true, workerData: join(dir, 'relay.sqlite') },
    );
    await new Promise((r) => holder.once('message', r));
    const id = 'ab'.repeat(32);
    const setup = receipt(id, 0, firstLogHash(id, 'cd'.repeat(32)));
    const started = performance.now();
    expect(await store.createGame(id, 'chain', { game: id, line: 0, text: TEXT, receipt: setup })).toBe(true);
    // It waited for the lock rather than being refused at once.
    expect(performance.now() - started).toBeGreaterThan(100);
    expect(await store.readLines(id, 0, 1)).toHaveLength(1);
    await new Promise((r) => holder.once('exit', r));
  });
});
