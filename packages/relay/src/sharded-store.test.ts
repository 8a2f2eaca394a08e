/**
 * Games partitioned across two Postgres primaries (docs/spec/relay.md §4, "Beyond one Postgres"): the routing
 * rule against its vectors (testdata/shard-routing.json) and an independent SHA-256; the store contract over a
 * `ShardedStore` of two servers; each game's rows on its shard and nowhere else; a batch split across the shards;
 * leases kept by each game's shard; and a process given the shards in another order, or another number of them,
 * refused `shard_mismatch`.
 *
 * The servers are FAIRTABLE_TEST_DATABASE_URL's and FAIRTABLE_TEST_DATABASE_URL_2's (`.ci/postgres.sh start`, the
 * second with `PGPORT_TEST=<another port>`; .ci/run starts both). Without them the database tests are skipped,
 * saying why, except under CI, where their absence fails.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { signHoldingReceipt } from '@fairtable/core/order/holding.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PostgresStore } from './postgres-store.js';
import { ShardedStore, shardIndex, shardScore, type ShardedStoreOptions } from './sharded-store.js';
import { describeStoreContract, linesOf } from './store-contract.js';

const url1 = process.env.FAIRTABLE_TEST_DATABASE_URL;
const url2 = process.env.FAIRTABLE_TEST_DATABASE_URL_2;
const missing = url1 === undefined || url2 === undefined;
const skipReason =
  'skipped: FAIRTABLE_TEST_DATABASE_URL and FAIRTABLE_TEST_DATABASE_URL_2 name two Postgres servers (`eval "$(.ci/postgres.sh start)"`, and `PGPORT_TEST=55433 .ci/postgres.sh start` for the second, its URL exported as FAIRTABLE_TEST_DATABASE_URL_2)';

if (missing && process.env.CI !== undefined && process.env.CI !== '')
  describe('the sharded store under CI', () => {
    it('has two servers to test against', () => {
      throw new Error(
        'CI is set but FAIRTABLE_TEST_DATABASE_URL or FAIRTABLE_TEST_DATABASE_URL_2 is not: .ci/run starts two servers; the sharded store would go untested',
      );
    });
  });

describe('the routing rule', () => {
  const file = JSON.parse(readFileSync(new URL('./testdata/shard-routing.json', import.meta.url), 'utf8')) as {
    vectors: { game: string; count: number; scores: string[]; shard: number }[];
  };

  it('gives the scores and shards of its vectors, as an independent SHA-256 of the stated bytes does', () => {
    expect(file.vectors.length).toBeGreaterThanOrEqual(10);
    for (const v of file.vectors) {
      const independent = v.scores.map((_, i) => {
        const index = Buffer.alloc(4);
        index.writeUInt32BE(i);
        return createHash('sha256')
          .update(Buffer.concat([Buffer.from('fairtable/shard/v1\0', 'utf8'), Buffer.from(v.game, 'utf8'), index]))
          .digest('hex');
      });
      expect(independent).toEqual(v.scores);
      expect(v.scores.map((_, i) => Buffer.from(shardScore(v.game, i)).toString('hex'))).toEqual(v.scores);
      expect(shardIndex(v.game, v.count)).toBe(v.shard);
      expect(v.scores.indexOf([...v.scores].sort().at(-1)!)).toBe(v.shard);
    }
    // Both shards of a pair appear among the vectors, so a rule that always answered one would fail.
    expect(new Set(file.vectors.filter((v) => v.count === 2).map((v) => v.shard))).toEqual(new Set([0, 1]));
  });

  it('spreads games evenly, and a shard added at the end takes about 1/(N+1) of them, all from the others to it alone', () => {
    const games = Array.from({ length: 2000 }, (_, i) => createHash('sha256').update(`game ${i}`).digest('hex'));
    for (const n of [2, 3, 4]) {
      const counts = new Array<number>(n).fill(0);
      let moved = 0;
      for (const g of games) {
        const before = shardIndex(g, n);
        counts[before]!++;
        const after = shardIndex(g, n + 1);
        if (after !== before) {
          moved++;
          expect(after).toBe(n);
        }
      }
      for (const c of counts) expect(Math.abs(c - games.length / n)).toBeLessThan(games.length / n / 5);
      expect(Math.abs(moved - games.length / (n + 1))).toBeLessThan(games.length / (n + 1) / 5);
    }
  });
});

let schemas = 0;
const freshSchema = (): string => `s_${process.pid}_${Date.now().toString(36)}_${schemas++}`;

async function onServer<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const dropEverywhere = async (schema: string): Promise<void> => {
  for (const u of [url1!, url2!]) await onServer(u, (c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
};

/** Game ids (64 hex) whose shard of two is `shard`. */
function gamesOn(shard: number, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const g = createHash('sha256').update(`sharded test game ${i}`).digest('hex');
    if (shardIndex(g, 2) === shard) out.push(g);
  }
  return out;
}

describe.skipIf(missing)(`the sharded store over two Postgres servers${missing ? ` (${skipReason})` : ''}`, () => {
  describeStoreContract(
    'sharded over two Postgres servers',
    () => {
      const schema = freshSchema();
      return Promise.resolve({ open: () => new ShardedStore({ urls: [url1!, url2!], schema }), remove: () => dropEverywhere(schema) });
    },
    { perGame: true },
  );

  const stores: { close(): Promise<void> }[] = [];
  const used: string[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close().catch(() => {});
  });
  afterAll(async () => {
    for (const s of used.splice(0)) await dropEverywhere(s);
  });
  const schemaForTest = (): string => {
    const s = freshSchema();
    used.push(s);
    return s;
  };
  const sharded = (options: ShardedStoreOptions): ShardedStore => {
    const s = new ShardedStore(options);
    stores.push(s);
    return s;
  };
  const single = (url: string, schema: string): PostgresStore => {
    const s = new PostgresStore({ url, schema });
    stores.push(s);
    return s;
  };
  const rowsOn = (url: string, schema: string, table: string, game: string): Promise<number> =>
    onServer(url, async (c) => Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.${table} WHERE game = $1`, [game])).rows[0]!.n));

  it("keeps each game's row, lines, held envelopes, talk and lease on the shard its id names, and nothing of it on the other", async () => {
    const schema = schemaForTest();
    const store = sharded({ urls: [url1!, url2!], schema, lease: { holder: 'node-a', ttlMs: 60_000 } });
    const [a] = gamesOn(0, 1);
    const [b] = gamesOn(1, 1);
    for (const g of [a!, b!]) {
      expect(await store.createGame(g, 'chain', linesOf(g, 0, 1)[0]!)).toBe(true);
      await store.append(linesOf(g, 1, 3));
      await store.appendTalk(g, 1, '{"talk":1}');
      await store.hold(g, {
        text: '{}',
        receipt: signHoldingReceipt({ v: 1, game: g, hash: 'ab'.repeat(32), time: 1, until: 2 }, new Uint8Array(32).fill(9), nativeSign),
      });
    }
    const urls = [url1!, url2!];
    for (const [g, home] of [
      [a!, 0],
      [b!, 1],
    ] as const) {
      for (const [table, rows] of [
        ['games', 1],
        ['lines', 4],
        ['talk', 1],
        ['held', 1],
        ['game_leases', 1],
      ] as const) {
        expect(await rowsOn(urls[home]!, schema, table, g)).toBe(rows);
        expect(await rowsOn(urls[1 - home]!, schema, table, g)).toBe(0);
      }
    }
    expect((await store.listGames()).map((s) => s.game).sort()).toEqual([a!, b!].sort());
    expect(await store.gamesHolding()).toEqual([a!, b!].sort());
    expect(
      store
        .heldLeases()
        .map((l) => l.game)
        .sort(),
    ).toEqual([a!, b!].sort());
    // What names no game is on shard 0 only: the relay's key and the lobbies.
    const key = await store.relayKey();
    await store.saveLobby({ id: 'l1', created: 1, body: '{}' });
    const globalRows = (u: string): Promise<number[]> =>
      onServer(u, async (c) =>
        Promise.all(['relay_key', 'lobbies'].map(async (t) => Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.${t}`)).rows[0]!.n))),
      );
    expect(await globalRows(url1!)).toEqual([1, 1]);
    expect(await globalRows(url2!)).toEqual([0, 0]);
    // Reopened, the same again (as a restarted process finds it).
    await store.close();
    const again = sharded({ urls: [url1!, url2!], schema });
    expect(await again.relayKey()).toEqual(key);
    expect(await again.readLines(b!, 0, 10)).toEqual(linesOf(b!, 0, 4).map(({ line, text, receipt }) => ({ line, text, receipt })));
    expect(await again.listLobbies()).toHaveLength(1);
  });

  it("splits a batch by shard: one shard's failure rejects the append once both have settled, and leaves the other shard's part committed", async () => {
    const schema = schemaForTest();
    const store = sharded({ urls: [url1!, url2!], schema });
    const [a] = gamesOn(0, 1);
    const [b, b2] = gamesOn(1, 2);
    for (const g of [a!, b!, b2!]) await store.createGame(g, 'chain', linesOf(g, 0, 1)[0]!);
    await store.append(linesOf(b!, 1, 1));
    // Line 1 of b is stored already: shard 1's part (b, and b2 with it) fails whole; shard 0's part (a) commits.
    await expect(store.append([...linesOf(a!, 1, 2), ...linesOf(b2!, 1, 1), ...linesOf(b!, 1, 2)])).rejects.toThrow();
    expect(await store.lineCount(a!)).toBe(3);
    expect(await store.lineCount(b!)).toBe(2);
    expect(await store.lineCount(b2!)).toBe(1);
    // Lines of one game stay in order within their shard's part.
    await store.append([...linesOf(b2!, 1, 1), ...linesOf(a!, 3, 1), ...linesOf(b2!, 2, 2)]);
    expect((await store.readLines(b2!, 0, 10)).map((l) => l.line)).toEqual([0, 1, 2, 3]);
  });

  it('fences leases per shard: a game taken over on its shard refuses its old holder, and renewal reports it lost', async () => {
    const schema = schemaForTest();
    const ttlMs = 60_000;
    const first = sharded({ urls: [url1!, url2!], schema, lease: { holder: 'node-a', ttlMs } });
    const second = sharded({ urls: [url1!, url2!], schema, lease: { holder: 'node-b', ttlMs } });
    const [a] = gamesOn(0, 1);
    const [b] = gamesOn(1, 1);
    for (const g of [a!, b!]) await first.createGame(g, 'chain', linesOf(g, 0, 1)[0]!);
    expect(await second.acquireLease(b!)).toBe(false);
    // b's lease runs out on its shard (shard 1); b is taken over; a is untouched.
    await onServer(url2!, (c) => c.query(`UPDATE ${schema}.game_leases SET expires = 0 WHERE game = $1`, [b]));
    expect(await second.acquireLease(b!)).toBe(true);
    expect(await first.renewLeases()).toEqual([b!]);
    await expect(first.append(linesOf(b!, 1, 1))).rejects.toMatchObject({ code: 'lease_lost' });
    await first.append(linesOf(a!, 1, 1));
    // A batch failing on both shards, b's lease lost on shard 1 and a's line 1 already stored on shard 0: the
    // failed write is the one reported (the relay stops writes for it, not for a lost lease).
    await expect(first.append([...linesOf(b!, 1, 1), ...linesOf(a!, 1, 1)])).rejects.toMatchObject({ code: 'store_failed' });
    await second.append(linesOf(b!, 1, 1));
    expect(first.heldLeases().map((l) => l.game)).toEqual([a!]);
    expect(second.heldLeases().map((l) => l.game)).toEqual([b!]);
  });

  it('refuses, shard_mismatch, a process given the shards in another order or another number of them, and a shard opened alone', async () => {
    const schema = schemaForTest();
    // Two processes starting at once agree on one service.
    const both = [sharded({ urls: [url1!, url2!], schema }), sharded({ urls: [url1!, url2!], schema })];
    await Promise.all(both.map((s) => s.start()));
    const [g] = gamesOn(1, 1);
    await both[0]!.createGame(g!, 'chain', linesOf(g!, 0, 1)[0]!);
    expect(await both[1]!.lineCount(g!)).toBe(1);

    const swapped = sharded({ urls: [url2!, url1!], schema });
    await expect(swapped.lineCount(g!)).rejects.toMatchObject({ code: 'shard_mismatch', message: expect.stringMatching(/shard 1 of 2/) as string });
    await expect(swapped.createGame(g!, 'chain', linesOf(g!, 0, 1)[0]!)).rejects.toMatchObject({ code: 'shard_mismatch' });
    // The same database twice: the second place is not the first's.
    await expect(sharded({ urls: [url1!, url1!], schema }).start()).rejects.toMatchObject({ code: 'shard_mismatch' });
    // A list of three (the first database again as the third) is refused by shard 0 itself, which records two.
    await expect(sharded({ urls: [url1!, url2!, url1!], schema }).start()).rejects.toMatchObject({
      code: 'shard_mismatch',
      message: expect.stringMatching(/shard 0 of 3, is shard 0 of 2/) as string,
    });
    // A shard opened as the one database of a relay is refused: it holds only part of the service's games.
    await expect(single(url2!, schema).lineCount(g!)).rejects.toMatchObject({ code: 'shard_mismatch' });
    // Nothing was written by the refused ones.
    expect(await rowsOn(url2!, schema, 'lines', g!)).toBe(1);
    expect(await rowsOn(url1!, schema, 'lines', g!)).toBe(0);
  });

  it("refuses to make a shard of a database holding a single-database relay's games (moving them is not built)", async () => {
    const schema = schemaForTest();
    const alone = single(url2!, schema);
    const [g] = gamesOn(0, 1);
    await alone.createGame(g!, 'chain', linesOf(g!, 0, 1)[0]!);
    await alone.close();
    await expect(sharded({ urls: [url1!, url2!], schema }).start()).rejects.toMatchObject({
      code: 'shard_mismatch',
      message: expect.stringMatching(/not built/) as string,
    });
    // And it still serves as the one database it was, and so does the other database: nothing was recorded on either.
    expect(await single(url2!, schema).lineCount(g!)).toBe(1);
    expect(await single(url1!, schema).lineCount(g!)).toBe(0);
  });
});
