/**
 * The SQLite store (docs/spec/relay.md §4): the store contract (store-contract.ts), run on the store alone and
 * with its writing thread; and a game created while another connection (the writing thread's) holds the
 * database's write lock waits for it rather than failing SQLITE_BUSY.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { firstLogHash, signReceipt } from '@fairtable/core/order/receipt.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { SqliteStore } from './sqlite-store.js';
import { describeStoreContract } from './store-contract.js';
import { ThreadedSqliteStore } from './threaded-sqlite-store.js';

const dirs: string[] = [];
const stores: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'fairtable-sqlite-store-'));
  dirs.push(d);
  return d;
};

describe('creating a game while another connection writes', () => {
  it('waits for the write lock instead of failing with SQLITE_BUSY', async () => {
    const dir = tempDir();
    const store = new SqliteStore(dir);
    stores.push(store);
    // Another thread takes the write lock and holds it for 300 ms (as the writing thread holds it for a commit).
    const holder = new Worker(
      `const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
       const { parentPort, workerData } = require('node:worker_threads');
       const db = new Database(workerData);
       db.exec('BEGIN IMMEDIATE');
       parentPort.postMessage('held');
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
       db.exec('COMMIT');
       db.close();`,
      { eval: true, workerData: join(dir, 'relay.sqlite') },
    );
    const exited = new Promise((r) => holder.once('exit', r));
    await new Promise((r) => holder.once('message', r));
    const id = 'ab'.repeat(32);
    const hash = 'cd'.repeat(32);
    const setup = signReceipt({ v: 1, game: id, line: 0, hash, log: firstLogHash(id, hash), time: 1_700_000_000_000 }, new Uint8Array(32).fill(9), nativeSign);
    const started = performance.now();
    expect(await store.createGame(id, 'chain', { game: id, line: 0, text: '{"setup":true}', receipt: setup })).toBe(true);
    // It waited for the lock rather than being refused at once.
    expect(performance.now() - started).toBeGreaterThan(100);
    expect(await store.readLines(id, 0, 1)).toHaveLength(1);
    await exited;
  });
});

describeStoreContract('SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fairtable-store-contract-'));
  return Promise.resolve({
    open: () => new SqliteStore(dir),
    remove: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  });
});

describeStoreContract('SQLite with its writing thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fairtable-store-contract-'));
  return Promise.resolve({
    open: () => new ThreadedSqliteStore(dir),
    remove: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  });
});
