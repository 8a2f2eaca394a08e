/**
 * A relay on two Postgres primaries (docs/spec/relay.md §4, "Beyond one Postgres"): several games played through
 * one process at once, each game's log found whole on the shard its id names and nowhere else; the service
 * restarted as `fairtable relay` given the shards in DATABASE_URLS, serving every log back byte for byte under
 * the same key; and a process given the shards in the other order refused `shard_mismatch` before it listens.
 * The servers are FAIRTABLE_TEST_DATABASE_URL's and FAIRTABLE_TEST_DATABASE_URL_2's (sharded-store.test.ts says
 * how they are started, and why the suite fails under CI without them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { fromHex } from '@fairtable/core/bytes.js';
import { auditLines } from '@fairtable/core/audit.js';
import { startRelay, type Relay } from './relay.js';
import { shardIndex } from './sharded-store.js';
import { createGame, diceGame, postTalk, RelaySeat, until, WireClient, type TestGame } from './test-helpers.js';

const url1 = process.env.FAIRTABLE_TEST_DATABASE_URL;
const url2 = process.env.FAIRTABLE_TEST_DATABASE_URL_2;
const missing = url1 === undefined || url2 === undefined;
const skipReason = 'skipped: FAIRTABLE_TEST_DATABASE_URL and FAIRTABLE_TEST_DATABASE_URL_2 must name two Postgres servers (sharded-store.test.ts says how)';

const main = fileURLToPath(new URL('../../cli/bin/fairtable.js', import.meta.url));
const schema = `sr_${process.pid}_${Date.now().toString(36)}`;
const relays: Relay[] = [];
const seats: RelaySeat[] = [];
const children: ChildProcess[] = [];

async function onServer<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

afterEach(async () => {
  for (const s of seats.splice(0)) s.stop();
  for (const r of relays.splice(0)) await r.close();
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  if (!missing) for (const u of [url1!, url2!]) await onServer(u, (c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
});

const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', (code) => r(code)));

/** `fairtable relay` with `args` and `env`; resolves with its URL and key once it listens. */
function cliRelay(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; listening: Promise<{ url: string; key: string }>; stderr: () => string } {
  const child = spawn(process.execPath, [main, 'relay', '--port', '0', '--host', '127.0.0.1', '--database-schema', schema, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DATABASE_URL: '', DATABASE_URLS: '', ...env },
  });
  children.push(child);
  let said = '';
  child.stderr!.on('data', (d: Buffer) => (said += d.toString()));
  const listening = new Promise<{ url: string; key: string }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const log = JSON.parse(line) as { msg?: string; port?: number; relay?: string };
      if (log.msg === 'relay listening') resolve({ url: `http://127.0.0.1:${log.port}`, key: log.relay! });
    });
    child.once('exit', (code) => reject(new Error(`the relay exited (${code}) before listening: ${said}`)));
  });
  listening.catch(() => {});
  return { child, listening, stderr: () => said };
}

const text = async (u: string): Promise<string[]> => (await (await fetch(u)).text()).trim().split('\n');

/** Dice games of three, two whose ids name shard 0 and two shard 1. */
function gamesOnBothShards(): TestGame[] {
  const on: TestGame[][] = [[], []];
  for (let seed = 1; on.some((s) => s.length < 2); seed = (seed % 15) + 1) {
    const g = diceGame(3, seed, 3);
    const list = on[shardIndex(g.id, 2)]!;
    if (list.length < 2 && !on.flat().some((h) => h.id === g.id)) list.push(g);
  }
  return on.flat();
}

describe.skipIf(missing)(`a relay on two Postgres primaries${missing ? ` (${skipReason})` : ''}`, () => {
  it("plays several games at once, each game's log whole on its shard and absent from the other; restarted as `fairtable relay` it serves them back; the shards in another order are refused", async () => {
    const relay = await startRelay({
      port: 0,
      database: { url: url1!, shards: [url2!], schema, node: 'node-a' },
      logger: pino({ level: 'silent' }),
      verifyThreads: 0,
    });
    relays.push(relay);
    const games = gamesOnBothShards();
    for (const g of games) expect((await createGame(relay.url, g.setupLine)).status).toBe(201);
    const playing = new Map<string, RelaySeat[]>();
    for (const g of games) {
      const ss = g.ids.map((_, i) => new RelaySeat(g, i, fromHex(relay.publicKey)));
      seats.push(...ss);
      playing.set(g.id, ss);
    }
    // All the games at once, so that the relay's batches hold lines of games on both shards.
    await Promise.all([...playing.values()].flat().map((s) => s.connect(relay.url)));
    await until(() => [...playing.values()].flat().every((s) => s.seat.outcome() !== null), 60_000, 'every game to end');

    const urls = [url1!, url2!];
    const transcripts = new Map<string, string[]>();
    for (const g of games) {
      const ss = playing.get(g.id)!;
      for (const s of ss) expect(s.problems).toEqual([]);
      const transcript = await text(`${relay.url}/games/${g.id}/transcript`);
      expect(transcript).toEqual(ss[0]!.seat.lines);
      expect(transcript.length).toBeGreaterThan(10);
      const verdict = auditLines(transcript);
      expect(verdict.violations).toEqual([]);
      expect(verdict.valid).toBe(true);
      transcripts.set(g.id, transcript);
      // The whole log on its shard, in order, and nothing of the game on the other.
      const home = shardIndex(g.id, 2);
      const stored = await onServer(
        urls[home]!,
        async (c) => (await c.query<{ text: string }>(`SELECT text FROM ${schema}.lines WHERE game = $1 ORDER BY line`, [g.id])).rows,
      );
      expect(stored.map((r) => r.text)).toEqual(transcript);
      for (const table of ['games', 'lines', 'game_leases'])
        expect(
          await onServer(urls[1 - home]!, async (c) =>
            Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.${table} WHERE game = $1`, [g.id])).rows[0]!.n),
          ),
        ).toBe(0);
    }
    // The relay's key is shard 0's, and only there.
    for (const [i, u] of urls.entries())
      expect(await onServer(u, async (c) => Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.relay_key`)).rows[0]!.n))).toBe(
        i === 0 ? 1 : 0,
      );
    for (const s of seats.splice(0)) s.stop();
    await relay.close();
    relays.splice(0);

    // A process given the shards in the other order refuses to start, before it listens.
    const swapped = cliRelay(['--database', url2!, '--database', url1!, '--node', 'node-c'], {});
    expect(await exited(swapped.child)).not.toBe(0);
    expect(swapped.stderr()).toContain('[shard_mismatch]');
    await expect(swapped.listening).rejects.toThrow(/before listening/);

    // DATABASE_URL and DATABASE_URLS both set: refused, as one of them would be ignored.
    const both = cliRelay([], { DATABASE_URL: url1!, DATABASE_URLS: `${url1!},${url2!}` });
    expect(await exited(both.child)).not.toBe(0);
    expect(both.stderr()).toContain('DATABASE_URLS');

    // Restarted as `fairtable relay` given the shards in DATABASE_URLS: every log back byte for byte, under the one key.
    const restarted = cliRelay(['--node', 'node-b'], { DATABASE_URLS: `${url1!},${url2!}` });
    const again = await restarted.listening;
    expect(again.key).toBe(relay.publicKey);
    for (const g of games) {
      expect(await text(`${again.url}/games/${g.id}/transcript`)).toEqual(transcripts.get(g.id));
      const receipts = (await text(`${again.url}/games/${g.id}/receipts`)).map((r) => JSON.parse(r) as unknown);
      expect(receipts).toEqual(playing.get(g.id)![0]!.receipts);
    }
    const health = (await (await fetch(`${again.url}/health`)).json()) as { node: string; leases: { game: string }[] };
    expect(health.node).toBe('node-b');
    expect(health.leases.map((l) => l.game).sort()).toEqual(games.map((g) => g.id).sort());
    restarted.child.kill('SIGTERM');
    expect(await exited(restarted.child)).toBe(0);
    // Four games of three on a shared machine: more than the default minute when the machine is loaded.
  }, 180_000);

  it('serves a game from either of two processes on the two primaries: seats split across them, a game on each shard, followed through its own primary', async () => {
    const relayAs = async (node: string): Promise<Relay> => {
      const r = await startRelay({
        port: 0,
        database: { url: url1!, shards: [url2!], schema, node, leaseMs: 3000 },
        logger: pino({ level: 'silent' }),
        verifyThreads: 0,
      });
      relays.push(r);
      return r;
    };
    const a = await relayAs('node-a');
    const b = await relayAs('node-b');
    // One game whose home is shard 0 and one whose home is shard 1, both created on A (which orders them).
    const games = gamesOnBothShards();
    const pair = [games.find((g) => shardIndex(g.id, 2) === 0)!, games.find((g) => shardIndex(g.id, 2) === 1)!];
    for (const g of pair) expect((await createGame(a.url, g.setupLine)).status).toBe(201);
    const playing = pair.map((g) => g.ids.map((_, i) => new RelaySeat(g, i, fromHex(a.publicKey))));
    seats.push(...playing.flat());
    // Seat 0 of each game on A, the others on B: B follows both games, each through the primary that holds it.
    for (const ss of playing) {
      await ss[0]!.connect(a.url);
      for (const s of ss.slice(1)) await s.connect(b.url);
    }
    await until(() => playing.flat().every((s) => s.seat.outcome() !== null), 60_000, 'both games to end');
    for (const [k, g] of pair.entries()) {
      const transcript = await text(`${b.url}/games/${g.id}/transcript`);
      for (const s of playing[k]!) {
        expect(s.problems).toEqual([]);
        expect(s.seat.lines).toEqual(transcript);
        expect(s.seat.outcome()?.forfeits).toEqual([]);
      }
      const verdict = auditLines(transcript);
      expect(verdict.violations).toEqual([]);
      expect(verdict.valid).toBe(true);
    }
    const hb = (await (await fetch(`${b.url}/health`)).json()) as { leases: unknown[]; fanout: Record<string, number> };
    expect(hb.leases).toEqual([]);
    expect(hb.fanout.followed).toBe(2);
    expect(hb.fanout.forwarded).toBeGreaterThan(0);
  });

  it("pushes a game's table talk to its sockets on both processes, notified through the game's own primary", async () => {
    const relayAs = async (node: string): Promise<Relay> => {
      const r = await startRelay({
        port: 0,
        database: { url: url1!, shards: [url2!], schema, node, leaseMs: 3000 },
        logger: pino({ level: 'silent' }),
        verifyThreads: 0,
      });
      relays.push(r);
      return r;
    };
    const a = await relayAs('node-a');
    const b = await relayAs('node-b');
    // Press games until one has its home on each shard.
    const press: TestGame[] = [];
    for (let seed = 40; press.length < 2; seed++) {
      const g = diceGame(2, seed, 2, true);
      if (shardIndex(g.id, 2) === press.length) press.push(g);
    }
    const sockets: WireClient[] = [];
    try {
      for (const g of press) {
        expect((await createGame(a.url, g.setupLine)).status).toBe(201);
        const onA = await WireClient.join(a.url, g, 0);
        const onB = await WireClient.join(b.url, g, 1);
        sockets.push(onA, onB);
        const sent = [await postTalk(a.url, g, 0, 1, 'To A.'), await postTalk(b.url, g, 1, 1, 'To B.')];
        expect(sent.map((s) => s.index)).toEqual([0, 1]);
        for (const c of [onA, onB]) {
          const got = [await c.next('talk'), await c.next('talk')];
          expect(got.map((m) => m.text)).toEqual(sent.map((s) => s.text));
        }
      }
    } finally {
      for (const c of sockets) c.close();
    }
  });
});
