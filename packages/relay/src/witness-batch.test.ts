/**
 * The witness's group commit (docs/spec/relay.md §8, "Storage"): envelopes posted together are stored in one
 * transaction a batch and each answered with its receipt only once its batch has committed; they are all in
 * the store after a restart; a resend during the commit gets the same receipt; the limits are counted per
 * envelope admitted, so a batch never passes one; a door with envelopes not yet committed stays in memory;
 * and a failed append answers every post it held (and those admitted behind it) `503 store_failed`, none
 * with a receipt, after which the same envelopes are taken again.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { fromHex } from '@fairtable/core/bytes.js';
import { envelopeHash, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { checkWitnessReceipt, type WitnessReceipt } from '@fairtable/core/order/witness.js';
import { startRelay, type Relay } from './relay.js';
import { diceGame, noteEnvelopes as envelopes } from './test-helpers.js';
import { SqliteWitnessStore, witnessRoutes, type WitnessedEnvelope, type WitnessLimits, type WitnessStore } from './witness.js';

const dirs: string[] = [];
const relays: Relay[] = [];
afterEach(async () => {
  for (const r of relays.splice(0)) await r.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(onDisk = false): string {
  const d = mkdtempSync(join(!onDisk && existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'fairtable-witness-batch-'));
  dirs.push(d);
  return d;
}

/** A SQLite witness store that counts its transactions and can be made to fail its next appends. */
class CountingStore extends SqliteWitnessStore {
  appends = 0;
  appended = 0;
  largest = 0;
  /** Appends to fail from now on, each after `failAfterMs` (so that posts can arrive while it is in flight). */
  failing = 0;
  failAfterMs = 0;
  /** How long each append that succeeds takes before it commits. */
  delayMs = 0;
  override async append(lines: readonly WitnessedEnvelope[]): Promise<void> {
    if (this.failing > 0) {
      this.failing--;
      await new Promise((r) => setTimeout(r, this.failAfterMs));
      throw new Error('disk full (simulated)');
    }
    this.appends++;
    this.appended += lines.length;
    this.largest = Math.max(this.largest, lines.length);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    await super.append(lines);
  }
}

interface Answer {
  readonly status: number;
  readonly body: { receipt?: WitnessReceipt; error?: { code: string } };
}

const key = generateKeyPair(new Uint8Array(32).fill(9));
const pub = key.publicKey;

function witnessOn(store: WitnessStore, limits: Partial<WitnessLimits> = {}) {
  const app = witnessRoutes({ store, secretKey: key.secretKey, publicKey: 'k', clock: () => 1000, maxBodyBytes: 1 << 20, limits });
  const post = async (path: string, body: string): Promise<Answer> => {
    const res = await app.request(path, { method: 'POST', body });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  };
  return { app, post };
}

const hashOf = (line: string): string => envelopeHash(JSON.parse(line) as Envelope);

describe('witness group commit (relay.md §8, "Storage")', () => {
  it('receipts many concurrent posts over HTTP in few transactions, and keeps every one across a restart', async () => {
    const dataDir = tempDir(true);
    const store = new CountingStore(dataDir);
    const start = (witnessStore?: WitnessStore) =>
      startRelay({
        host: '127.0.0.1',
        port: 0,
        dataDir,
        logger: pino({ level: 'silent' }),
        limits: { messagesPerSecond: 1e6, messageBurst: 1e6 },
        ...(witnessStore === undefined ? {} : { witnessStore }),
      });
    const r = await start(store);
    relays.push(r);
    const relayKey = fromHex(r.publicKey);
    const games = Array.from({ length: 12 }, (_, i) => diceGame(2, 30 + i));
    for (const g of games) expect((await fetch(`${r.url}/witness/games`, { method: 'POST', body: g.setupLine })).status).toBe(201);
    // Both players of every game post at once, each its envelopes in order (a post after the last one's answer).
    const streams = games.flatMap((g) => [0, 1].map((p) => ({ g, lines: envelopes(g, p, 8) })));
    const answers = await Promise.all(
      streams.map(async ({ g, lines }) => {
        const got: Answer[] = [];
        for (const line of lines) {
          const res = await fetch(`${r.url}/witness/games/${g.id}`, { method: 'POST', body: line });
          got.push({ status: res.status, body: (await res.json()) as Answer['body'] });
        }
        return got;
      }),
    );
    streams.forEach(({ g, lines }, s) =>
      lines.forEach((line, i) => {
        const a = answers[s]![i]!;
        expect(a.status).toBe(201);
        const receipt = checkWitnessReceipt(a.body.receipt, relayKey);
        expect([receipt.game, receipt.hash]).toEqual([g.id, hashOf(line)]);
      }),
    );
    const posted = streams.length * 8;
    expect(store.appended).toBe(posted);
    // Posts of 24 clients at once share transactions (a witness that committed each alone would make 192).
    expect(store.appends).toBeLessThan(posted);
    expect(store.largest).toBeGreaterThan(1);

    await r.close();
    relays.splice(0);
    const again = await start();
    relays.push(again);
    for (const g of games) {
      const held = (await (await fetch(`${again.url}/witness/games/${g.id}`)).text())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { text: string; receipt: WitnessReceipt });
      expect(held).toHaveLength(1 + 16);
      const texts = held.map((h) => h.text);
      for (const { lines } of streams.filter((s) => s.g === g)) {
        // Each author's envelopes in its own order.
        const at = lines.map((l) => texts.indexOf(l));
        expect(at.every((i) => i > 0)).toBe(true);
        expect([...at].sort((a, b) => a - b)).toEqual(at);
      }
      for (const h of held) expect(checkWitnessReceipt(h.receipt, relayKey).hash).toBe(hashOf(h.text));
    }
  });

  it('commits posts made together in one transaction; a resend meanwhile gets the same receipt', async () => {
    const store = new CountingStore(tempDir());
    const w = witnessOn(store);
    const games = Array.from({ length: 10 }, (_, i) => diceGame(2, 50 + i));
    for (const g of games) expect((await w.post('/games', g.setupLine)).status).toBe(201);
    const lines = games.map((g) => envelopes(g, 1, 1)[0]!);
    const answers = await Promise.all([...lines.map((l, k) => w.post(`/games/${games[k]!.id}`, l)), w.post(`/games/${games[0]!.id}`, lines[0]!)]);
    expect(answers.map((a) => a.status)).toEqual([...Array<number>(10).fill(201), 200]);
    expect(answers[10]!.body.receipt).toEqual(answers[0]!.body.receipt);
    for (const [k, a] of answers.slice(0, 10).entries()) expect(checkWitnessReceipt(a.body.receipt, pub).hash).toBe(hashOf(lines[k]!));
    expect([store.appends, store.appended]).toEqual([1, 10]);
    await store.close();
  });

  it('never lets a batch pass a limit: posts of one game, and of many, counted as they are admitted', async () => {
    const store = new CountingStore(tempDir());
    // A game holds 5 lines: its setup and 4 envelopes, of either player.
    const w = witnessOn(store, { maxGameLines: 5 });
    const g = diceGame(2, 61);
    expect((await w.post('/games', g.setupLine)).status).toBe(201);
    const mine = envelopes(g, 0, 3);
    const theirs = envelopes(g, 1, 3);
    const answers = await Promise.all([...mine.map((l) => w.post(`/games/${g.id}`, l)), ...theirs.map((l) => w.post(`/games/${g.id}`, l))]);
    const taken = answers.filter((a) => a.status === 201);
    expect(taken).toHaveLength(4);
    expect(answers.filter((a) => a.status !== 201).map((a) => [a.status, a.body.error?.code])).toEqual([
      [507, 'game_full'],
      [507, 'game_full'],
    ]);
    expect(store.appends).toBe(1);
    expect(await store.read(g.id)).toHaveLength(5);
    await store.close();

    // The witness's bytes: 8 games post a 2 KB envelope each at once into room for 3 and a half.
    const many = Array.from({ length: 8 }, (_, i) => diceGame(2, 70 + i));
    const big = many.map((h) => envelopes(h, 1, 1, 2000)[0]!);
    const size = Buffer.byteLength(big[0]!);
    expect(big.every((l) => Buffer.byteLength(l) === size)).toBe(true);
    const setups = many.reduce((n, h) => n + Buffer.byteLength(h.setupLine), 0);
    const room = setups + Math.floor(3.5 * size);
    const tightStore = new CountingStore(tempDir());
    const tight = witnessOn(tightStore, { maxBytes: room });
    for (const h of many) expect((await tight.post('/games', h.setupLine)).status).toBe(201);
    const before = (await tightStore.usage()).bytes;
    expect(before).toBe(setups);
    const got = await Promise.all(big.map((l, k) => tight.post(`/games/${many[k]!.id}`, l)));
    const fits = 3;
    expect(got.filter((a) => a.status === 201)).toHaveLength(fits);
    expect(got.filter((a) => a.status === 507 && a.body.error?.code === 'witness_full')).toHaveLength(big.length - fits);
    const after = (await tightStore.usage()).bytes;
    expect(after).toBeLessThanOrEqual(room);
    expect(after - before).toBe(fits * size);
    await tightStore.close();
  });

  it('keeps in memory the doors whose envelopes are not yet committed, however few doors it may cache', async () => {
    const store = new CountingStore(tempDir());
    const w = witnessOn(store, { cachedGames: 2, cachedLines: 6 });
    const games = Array.from({ length: 10 }, (_, i) => diceGame(2, 90 + i));
    for (const g of games) expect((await w.post('/games', g.setupLine)).status).toBe(201);
    const streams = games.flatMap((g) => [0, 1].map((p) => ({ g, lines: envelopes(g, p, 5) })));
    const answers = await Promise.all(
      streams.map(async ({ g, lines }) => {
        const statuses: number[] = [];
        for (const l of lines) statuses.push((await w.post(`/games/${g.id}`, l)).status);
        return statuses;
      }),
    );
    expect(answers.flat()).toEqual(Array<number>(100).fill(201));
    for (const g of games) expect(await store.read(g.id)).toHaveLength(11);
    expect(store.appends).toBeLessThan(100);

    // One door cached at most: while x's envelope is being committed, y's door is loaded, and x's must stay,
    // so that a resend of x's envelope meanwhile is known as one (and not taken again by a door rebuilt without it).
    const one = new CountingStore(tempDir());
    const v = witnessOn(one, { cachedGames: 1 });
    const [x, y] = [diceGame(2, 101), diceGame(2, 102)];
    for (const g of [x, y]) expect((await v.post('/games', g.setupLine)).status).toBe(201);
    const [x0, x1] = envelopes(x, 1, 2);
    expect((await v.post(`/games/${x.id}`, x0!)).status).toBe(201);
    one.delayMs = 50;
    const during = [v.post(`/games/${x.id}`, x1!), v.post(`/games/${y.id}`, envelopes(y, 1, 1)[0]!)];
    await new Promise((r) => setTimeout(r, 15));
    const resent = v.post(`/games/${x.id}`, x1!);
    expect((await Promise.all([...during, resent])).map((a) => a.status)).toEqual([201, 201, 200]);
    expect((await one.read(x.id)).map((l) => l.text)).toEqual([x.setupLine, x0, x1]);
    await store.close();
    await one.close();
  });

  it('answers every post of a failed append, and those admitted behind it, 503 store_failed with no receipt; they are taken again after', async () => {
    const store = new CountingStore(tempDir());
    const w = witnessOn(store, { maxGameLines: 3 });
    const games = Array.from({ length: 5 }, (_, i) => diceGame(2, 110 + i));
    for (const g of games) expect((await w.post('/games', g.setupLine)).status).toBe(201);
    const usage = await store.usage();
    const lines = games.map((g) => envelopes(g, 1, 2));
    store.failing = 1;
    store.failAfterMs = 50;
    const first = Promise.all(games.map((g, k) => w.post(`/games/${g.id}`, lines[k]![0]!)));
    // The second envelopes arrive while the failing append is in flight: admitted behind it, on doors it spoils.
    await new Promise((r) => setTimeout(r, 10));
    const second = Promise.all(games.map((g, k) => w.post(`/games/${g.id}`, lines[k]![1]!)));
    const failed = [...(await first), ...(await second)];
    for (const a of failed) {
      expect(a.status).toBe(503);
      expect(a.body.error?.code).toBe('store_failed');
      expect(a.body.receipt).toBeUndefined();
    }
    expect(store.appended).toBe(0);
    for (const g of games) expect(await store.read(g.id)).toHaveLength(1);
    expect(await store.usage()).toEqual(usage);

    // Nothing was counted: the same envelopes fill each game to its bound of 3 lines, in order.
    for (const i of [0, 1]) {
      const again = await Promise.all(games.map((g, k) => w.post(`/games/${g.id}`, lines[k]![i]!)));
      again.forEach((a, k) => {
        expect(a.status).toBe(201);
        expect(checkWitnessReceipt(a.body.receipt, pub).hash).toBe(hashOf(lines[k]![i]!));
      });
    }
    for (const g of games) expect(await store.read(g.id)).toHaveLength(3);
    await store.close();

    // The SQLite store itself failing (its file closed under the witness): the post is answered, not the process ended.
    const closing = new SqliteWitnessStore(tempDir());
    const u = witnessOn(closing);
    const h = diceGame(2, 120);
    expect((await u.post('/games', h.setupLine)).status).toBe(201);
    const [h0, h1] = envelopes(h, 1, 2);
    expect((await u.post(`/games/${h.id}`, h0!)).status).toBe(201);
    await closing.close();
    const lost = await u.post(`/games/${h.id}`, h1!);
    expect([lost.status, lost.body.error?.code, lost.body.receipt]).toEqual([503, 'store_failed', undefined]);
  });
});
