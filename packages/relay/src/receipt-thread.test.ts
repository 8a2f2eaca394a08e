/**
 * Receipts signed on the SQLite writing thread (docs/spec/relay.md, "The pipeline"; sqlite-append-thread.ts): the
 * store signs, stores and answers with the very receipts the event loop would have signed, verifiable under
 * the relay's key; the relay sends them as they are stored; and a writing thread that dies loses no line
 * whose append had been answered (the only lines the relay acknowledges).
 */
import type { Worker } from 'node:worker_threads';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { fromHex, toHex } from '@fairtable/core/bytes.js';
import { canonicalize } from '@fairtable/core/jcs.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { checkReceipt, firstLogHash, nextLogHash, signReceipt, signReceiptBatch, type UnsignedReceipt } from '@fairtable/core/order/receipt.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { startRelay, type Relay } from './relay.js';
import { SqliteStore } from './sqlite-store.js';
import type { LineToSign } from './store.js';
import { createGame, diceGame, noteEnvelopes, WireClient } from './test-helpers.js';
import { ThreadedSqliteStore } from './threaded-sqlite-store.js';

const dirs: string[] = [];
const stores: { close(): Promise<void> }[] = [];
const relays: Relay[] = [];
afterEach(async () => {
  for (const r of relays.splice(0)) await r.close();
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'fairtable-receipt-thread-'));
  dirs.push(d);
  return d;
};

/** `count` lines of one game after its setup line, with the receipts' unsigned parts (the log chained as the relay does). */
function lines(game: string, from: number, count: number, log: string): LineToSign[] {
  const out: LineToSign[] = [];
  for (let line = from; line < from + count; line++) {
    const hash = toHex(new Uint8Array(32).fill(line));
    log = nextLogHash(log, hash);
    const receipt: UnsignedReceipt = { v: 2, game, line, hash, log, time: 1_700_000_000_000 + line };
    out.push({ game, line, text: `{"line":${line},"note":"a \\"quoted\\" text"}`, receipt });
  }
  return out;
}

async function storeWithGame(dir: string): Promise<{ store: ThreadedSqliteStore; key: Uint8Array; game: string; log0: string }> {
  const store = new ThreadedSqliteStore(dir);
  stores.push(store);
  const key = await store.relayKey();
  const game = 'ab'.repeat(32);
  const setupHash = 'cd'.repeat(32);
  const log0 = firstLogHash(game, setupHash);
  const setup = signReceipt({ v: 1, game, line: 0, hash: setupHash, log: log0, time: 1 }, key, nativeSign);
  expect(await store.createGame(game, 'chain', { game, line: 0, text: '{"setup":true}', receipt: setup })).toBe(true);
  return { store, key, game, log0 };
}

describe('receipts signed on the writing thread', () => {
  it("are byte for byte the receipts the event loop signs, verify under the relay's key, and are stored with their lines", async () => {
    const { store, key, game, log0 } = await storeWithGame(tempDir());
    const batch = lines(game, 1, 50, log0);
    const signed = await store.appendSigning(batch, key);
    expect(signed.paths).toHaveLength(50);
    const publicKey = generateKeyPair(key).publicKey;
    const stored = await store.readLines(game, 1, 100);
    expect(stored).toHaveLength(50);
    // One signature for the batch (relay.md §2), and each line's inclusion proof.
    const onLoopBatch = signReceiptBatch(
      batch.map((l) => l.receipt),
      key,
      nativeSign,
    );
    for (const [i, l] of batch.entries()) {
      const onLoop = onLoopBatch[i]!;
      expect(signed.sig).toBe(onLoop.sig);
      expect(signed.paths[i]).toEqual(onLoop.batch!.path);
      expect(onLoop.batch).toMatchObject({ index: i, size: 50 });
      expect(stored[i]!.text).toBe(l.text);
      // The stored text is JSON.stringify of the receipt the event loop signs: the same bytes a reader is served.
      expect(JSON.stringify(stored[i]!.receipt)).toBe(JSON.stringify(onLoop));
      expect(checkReceipt(stored[i]!.receipt, publicKey)).toEqual(onLoop);
    }
    // Another key gives other signatures: the thread signs with the key it is given.
    const other = await store.appendSigning(lines(game, 51, 1, stored[49]!.receipt.log), new Uint8Array(32).fill(9));
    const alone = { ...lines(game, 51, 1, stored[49]!.receipt.log)[0]!.receipt, batch: { index: 0, size: 1, path: other.paths[0] }, sig: other.sig };
    expect(() => checkReceipt(alone, publicKey)).toThrow(/does not verify/);
  });

  it('a thread that dies loses no line whose append was answered, and answers no append it did not commit', async () => {
    const dir = tempDir();
    const { store, key, game, log0 } = await storeWithGame(dir);
    const acknowledged: LineToSign[] = [];
    let log = log0;
    let next = 1;
    const settled: Promise<void>[] = [];
    for (let round = 0; round < 40; round++) {
      const batch = lines(game, next, 25, log);
      next += 25;
      log = batch[batch.length - 1]!.receipt.log;
      const appended = store.appendSigning(batch, key).then(
        () => void acknowledged.push(...batch),
        () => {},
      );
      // Half the appends are answered one by one; the thread is killed with the rest in its hands.
      if (round < 20) await appended;
      else settled.push(appended);
      if (round === 30) void (store as unknown as { worker: Worker }).worker.terminate();
    }
    await Promise.all(settled);
    expect(acknowledged.length).toBeGreaterThanOrEqual(20 * 25);
    await expect(store.appendSigning(lines(game, next, 1, log), key)).rejects.toThrow();
    const reopened = new SqliteStore(dir);
    stores.push(reopened);
    const stored = await reopened.readLines(game, 1, 10_000);
    const publicKey = generateKeyPair(key).publicKey;
    // Every acknowledged line is there, in order, with a receipt that verifies (a line may be stored unacknowledged, never the reverse).
    expect(stored.slice(0, acknowledged.length).map((l) => l.text)).toEqual(acknowledged.map((l) => l.text));
    for (const l of stored) checkReceipt(l.receipt, publicKey);
  });
});

describe('a database made by an earlier relay', () => {
  it('whose lines table is WITHOUT ROWID is read and written the same', async () => {
    const dir = tempDir();
    const old = new Database(join(dir, 'relay.sqlite'));
    old.exec(
      'CREATE TABLE lines (game TEXT NOT NULL, line INTEGER NOT NULL, text TEXT NOT NULL, receipt TEXT NOT NULL, PRIMARY KEY (game, line)) WITHOUT ROWID',
    );
    old.close();
    const { store, key, game, log0 } = await storeWithGame(dir);
    const signed = await store.appendSigning(lines(game, 1, 3, log0), key);
    expect(signed.paths).toHaveLength(3);
    const back = await store.readLines(game, 0, 10);
    expect(back.map((l) => l.line)).toEqual([0, 1, 2, 3]);
    for (const l of back) expect(checkReceipt(l.receipt, generateKeyPair(key).publicKey)).toEqual(l.receipt);
    expect(await store.lineCount(game)).toBe(4);
    // The table is the one it found: a second line 2 is still refused by its key.
    await expect(store.appendSigning(lines(game, 2, 1, log0), key)).rejects.toThrow(/UNIQUE|constraint/);
  });
  it('and a new one keeps its lines in a rowid table keyed by an index on (game, line)', async () => {
    const dir = tempDir();
    await storeWithGame(dir);
    const db = new Database(join(dir, 'relay.sqlite'), { readonly: true });
    const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'lines'").get() as { sql: string }).sql;
    db.close();
    expect(sql).toMatch(/PRIMARY KEY \(game, line\)/);
    expect(sql).not.toMatch(/WITHOUT ROWID/);
  });
});

describe('the relay with its receipts signed on the writing thread', () => {
  it('acknowledges and fans out receipts that verify under its key, the same ones it serves afterwards', async () => {
    const dir = tempDir();
    const r = await startRelay({ port: 0, dataDir: dir, logger: pino({ level: 'silent' }) });
    relays.push(r);
    const g = diceGame(2, 41);
    expect((await createGame(r.url, g.setupLine)).status).toBe(201);
    const a = await WireClient.join(r.url, g, 0);
    const b = await WireClient.join(r.url, g, 1);
    const setup = JSON.parse(g.setupLine) as Envelope;
    const line = envelopeLine(
      signEnvelope(
        { v: 1, game: g.id, from: 'p1', seq: 0, prev: g.id, at: 1, head: envelopeHash(setup), time: 1000, body: { type: 'note', n: 1 } },
        g.keys[1]!.secretKey,
      ),
    );
    b.send({ kind: 'submit', text: line });
    const accepted = await b.next('accepted');
    const entry = await a.next('entry');
    const publicKey = fromHex(r.publicKey);
    const receipt = checkReceipt(accepted.receipt, publicKey);
    // Version 2: signed with its batch (here a batch of one line), as the writing thread signs.
    expect(receipt).toMatchObject({ v: 2, batch: { index: 0, size: 1, path: [] } });
    expect(entry.receipt).toEqual(receipt);
    expect(receipt.log).toBe(nextLogHash(firstLogHash(g.id, envelopeHash(setup)), envelopeHash(JSON.parse(line) as Envelope)));
    const served = (await (await fetch(`${r.url}/games/${g.id}/receipts`)).text()).trim().split('\n');
    expect(JSON.parse(served[1]!)).toEqual(receipt);
  });

  // python3 is on every machine CI runs on (.ci/run installs it); skipped only where it is missing.
  it.skipIf(spawnSync('python3', ['--version']).status !== 0)(
    'serves receipts of several games, signed a batch at a time, that an independent checker verifies (test/python/receipt_check.py)',
    async () => {
      const dir = tempDir();
      const r = await startRelay({ port: 0, dataDir: dir, logger: pino({ level: 'silent' }) });
      relays.push(r);
      // Twelve games whose lines arrive together, so that the relay's batches hold lines of several games.
      const games = Array.from({ length: 12 }, (_, i) => diceGame(2, 60 + i));
      const clients: WireClient[] = [];
      for (const g of games) {
        expect((await createGame(r.url, g.setupLine)).status).toBe(201);
        clients.push(await WireClient.join(r.url, g, 1));
      }
      // One note from each game's p1, all sent before any is answered.
      for (const [i, c] of clients.entries()) c.send({ kind: 'submit', text: noteEnvelopes(games[i]!, 1, 1)[0] });
      for (const c of clients) await c.next('accepted');
      let batched = 0;
      for (const g of games) {
        const receipts = (await (await fetch(`${r.url}/games/${g.id}/receipts`)).text())
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { v: number; batch: { size: number }; sig: string });
        expect(receipts).toHaveLength(2);
        batched += receipts.filter((x) => x.v === 2 && x.batch.size > 1).length;
        const file = join(dir, `${g.id}.json`);
        const cases = receipts.map((x) => {
          const { sig: _s, batch: _b, ...unsigned } = x;
          return { receipt: x, signedText: canonicalize(unsigned) };
        });
        writeFileSync(file, JSON.stringify({ ordererPublicKey: r.publicKey, game: g.id, receipts: cases }));
        const py = spawnSync('python3', [fileURLToPath(new URL('../../../test/python/receipt_check.py', import.meta.url)), file], { encoding: 'utf8' });
        expect(py.status, py.stdout + py.stderr).toBe(0);
        expect(JSON.parse(py.stdout)).toMatchObject({ ok: true, receipts: 2 });
      }
      expect(batched).toBeGreaterThan(0);
    },
  );
});
