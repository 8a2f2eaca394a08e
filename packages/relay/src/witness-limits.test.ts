/**
 * The witness's limits (docs/spec/relay.md §5 and §8, "Limits"): a flood of witness posts from one address is
 * refused `429 rate_limited` while another address's witness posts and a game ordered on the same relay go
 * through; a game and the witness as a whole are bounded (`507 game_full` / `witness_full`, a resend still
 * answered), the bound surviving a restart; and the heap stays bounded after thousands of witnessed envelopes.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { fromHex } from '@fairtable/core/bytes.js';
import { envelopeHash, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { auditLines } from '@fairtable/core/audit.js';
import { useNativeCrypto } from '@fairtable/node/native-crypto.js';
import { startRelay, type Relay } from './relay.js';
import { createGame, diceGame, noteEnvelopes as envelopes, RelaySeat, until } from './test-helpers.js';
import { SqliteWitnessStore, witnessRoutes, type WitnessLimits } from './witness.js';

// Hashing with node:crypto's SHA-256, as the `fairtable relay` command does (the same bytes as noble's): what is
// tested is the limits and the heap, not the hash.
useNativeCrypto();

const dirs: string[] = [];
const relays: Relay[] = [];
afterEach(async () => {
  for (const r of relays.splice(0)) await r.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  // tmpfs where there is one: these tests measure limits and memory, not the disk.
  const d = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'fairtable-witness-limits-'));
  dirs.push(d);
  return d;
}

interface Answer {
  readonly status: number;
  readonly body: { error?: { code: string }; receipt?: { hash: string } };
  readonly retryAfter: string | undefined;
}

/** POST from a given local address (127.0.0.1 and 127.0.0.2 are two clients to the relay). */
function postFrom(localAddress: string, url: string, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', localAddress, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => {
        const retry = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8')) as Answer['body'], retryAfter: retry });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('witness limits (relay.md §8, "Limits")', () => {
  it("limits a flood of witness posts from one address; another address's posts and an ordered game go through", async () => {
    const r = await startRelay({
      host: '127.0.0.1',
      port: 0,
      dataDir: tempDir(),
      logger: pino({ level: 'silent' }),
      limits: { messagesPerSecond: 20, messageBurst: 40 },
    });
    relays.push(r);
    // The flooder posts a game of its own to witness, then the same envelope again and again.
    const flooded = diceGame(2, 11);
    expect((await postFrom('127.0.0.1', `${r.url}/witness/games`, flooded.setupLine)).status).toBe(201);
    const [spam] = envelopes(flooded, 1, 1);
    const flood = Promise.all(Array.from({ length: 300 }, () => postFrom('127.0.0.1', `${r.url}/witness/games/${flooded.id}`, spam!)));

    // Meanwhile: another client's witness posts, and a game ordered on this relay, played to its end.
    const other = diceGame(2, 12);
    const otherPosts = (async () => {
      const answers = [await postFrom('127.0.0.2', `${r.url}/witness/games`, other.setupLine)];
      for (const line of envelopes(other, 1, 10)) answers.push(await postFrom('127.0.0.2', `${r.url}/witness/games/${other.id}`, line));
      return answers;
    })();
    const ordered = diceGame(2, 13);
    expect((await createGame(r.url, ordered.setupLine)).status).toBe(201);
    const seats = ordered.ids.map((_, i) => new RelaySeat(ordered, i, fromHex(r.publicKey)));
    for (const s of seats) await s.connect(r.url);

    const flooding = await flood;
    const limited = flooding.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(200);
    expect(limited.every((a) => a.body.error?.code === 'rate_limited' && a.retryAfter !== undefined)).toBe(true);
    // What was let through was answered as a witness answers (the first taken, the rest resends).
    expect(flooding.filter((a) => a.status !== 429).every((a) => a.status === 201 || a.status === 200)).toBe(true);

    const theirs = await otherPosts;
    expect(theirs.map((a) => a.status)).toEqual([201, ...Array<number>(10).fill(201)]);

    await until(() => seats.every((s) => s.seat.outcome() !== null), 20_000, 'the ordered game to end');
    for (const s of seats) s.stop();
    for (const s of seats) expect(s.problems).toEqual([]);
    const transcript = (await (await fetch(`${r.url}/games/${ordered.id}/transcript`)).text()).trim().split('\n');
    expect(auditLines(transcript).valid).toBe(true);
    const metrics = await (await fetch(`${r.url}/metrics`)).text();
    expect(metrics).toMatch(/fairtable_relay_refusals_total\{code="rate_limited"\} ([0-9]+)/);
    expect(Number(/fairtable_relay_refusals_total\{code="rate_limited"\} ([0-9]+)/.exec(metrics)![1])).toBe(limited.length);
  });

  it('bounds a game and the whole witness (507, coded), answers resends at the bound, and keeps the count across a restart', async () => {
    const dir = tempDir();
    const key = generateKeyPair(new Uint8Array(32).fill(3));
    const limits: Partial<WitnessLimits> = { maxGames: 2, maxGameLines: 4 };
    const open = () => {
      const store = new SqliteWitnessStore(dir);
      const app = witnessRoutes({ store, secretKey: key.secretKey, publicKey: 'k', clock: () => 1000, maxBodyBytes: 1 << 20, limits });
      const post = async (path: string, body: string) => {
        const res = await app.request(path, { method: 'POST', body });
        return { status: res.status, body: (await res.json()) as Answer['body'] };
      };
      return { store, post };
    };
    const w = open();
    const g = diceGame(2, 21);
    expect((await w.post('/games', g.setupLine)).status).toBe(201);
    const lines = envelopes(g, 1, 4);
    for (const l of lines.slice(0, 3)) expect((await w.post(`/games/${g.id}`, l)).status).toBe(201);
    const over = await w.post(`/games/${g.id}`, lines[3]!);
    expect([over.status, over.body.error?.code]).toEqual([507, 'game_full']);
    // A resend at the bound is still answered with its receipt.
    const again = await w.post(`/games/${g.id}`, lines[2]!);
    expect([again.status, again.body.receipt?.hash]).toEqual([200, envelopeHash(JSON.parse(lines[2]!) as Envelope)]);

    expect((await w.post('/games', diceGame(2, 22).setupLine)).status).toBe(201);
    const third = await w.post('/games', diceGame(2, 23).setupLine);
    expect([third.status, third.body.error?.code]).toEqual([507, 'witness_full']);
    // A game held is still answered: its setup again is not a new game.
    expect((await w.post('/games', g.setupLine)).status).toBe(200);
    await w.store.close();

    const reopened = open();
    expect(await reopened.store.usage()).toMatchObject({ games: 2 });
    expect((await reopened.post('/games', diceGame(2, 23).setupLine)).body.error?.code).toBe('witness_full');
    expect((await reopened.post(`/games/${g.id}`, lines[3]!)).body.error?.code).toBe('game_full');
    await reopened.store.close();

    // The bytes bound: a witness of 2 KiB in all takes the setup and refuses the envelope that would pass it.
    const small = new SqliteWitnessStore(tempDir());
    const tight = witnessRoutes({ store: small, secretKey: key.secretKey, publicKey: 'k', clock: () => 1, maxBodyBytes: 1 << 20, limits: { maxBytes: 2048 } });
    const h = diceGame(2, 24);
    expect((await tight.request('/games', { method: 'POST', body: h.setupLine })).status).toBe(201);
    const big = envelopes(h, 1, 1, 2048)[0]!;
    const refused = await tight.request(`/games/${h.id}`, { method: 'POST', body: big });
    expect([refused.status, ((await refused.json()) as Answer['body']).error?.code]).toEqual([507, 'witness_full']);
    await small.close();
  });

  it('keeps the heap bounded after thousands of witnessed envelopes (the real figure: bench/witness.bench.ts)', async () => {
    const store = new SqliteWitnessStore(tempDir());
    const key = generateKeyPair(new Uint8Array(32).fill(4));
    const app = witnessRoutes({
      store,
      secretKey: key.secretKey,
      publicKey: 'k',
      clock: () => 1,
      maxBodyBytes: 1 << 20,
      limits: { cachedGames: 8, cachedLines: 400 },
    });
    // The collector, exposed at run time, so that the heap measured is what is held and not garbage.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    // Twice with a pause: the requests' abort signals are let go by finalizers that run after a collection.
    const gc = async () => {
      for (let i = 0; i < 3; i++) {
        collect();
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const games = Array.from({ length: 30 }, (_, i) => diceGame(2, 40 + i));
    const lines = games.map((g) => envelopes(g, 1, 100, 4000));
    // A first game, so that what the first requests compile and cache is not counted.
    const warm = diceGame(2, 39);
    await app.request('/games', { method: 'POST', body: warm.setupLine });
    for (const l of envelopes(warm, 1, 50, 2000)) await app.request(`/games/${warm.id}`, { method: 'POST', body: l });
    await gc();
    const before = process.memoryUsage().heapUsed;
    for (const g of games) expect((await app.request('/games', { method: 'POST', body: g.setupLine })).status).toBe(201);
    // Twenty envelopes a game in turn, so that every door is evicted and rebuilt again and again.
    for (let from = 0; from < 100; from += 20)
      for (let k = 0; k < games.length; k++)
        for (let i = from; i < from + 20; i++) {
          const res = await app.request(`/games/${games[k]!.id}`, { method: 'POST', body: lines[k]![i]! });
          if (res.status !== 201) throw new Error(`envelope ${i} of game ${k}: ${res.status} ${await res.text()}`);
        }
    await gc();
    const grown = process.memoryUsage().heapUsed - before;
    console.log(`witness heap change over 3,000 envelopes: ${(grown / 2 ** 20).toFixed(1)} MiB`);
    // The envelopes posted were on the heap before; they stay on it until here, so that they are not counted as freed.
    expect(lines.flat().length).toBe(3000);
    const usage = await store.usage();
    expect(usage.games).toBe(31);
    expect(usage.bytes).toBeGreaterThan(12 << 20);
    // 3,000 envelopes of ~4.3 KB (over 12 MiB of lines) are on disk; the witness's heap holds at most 8 doors
    // of 400 hashes (about 40 KB). The bound is generous against the test runner's own heap, and still below what
    // keeping the lines in memory would take.
    expect(grown).toBeLessThan(6 << 20);
    await store.close();
  }, 60_000);
});
