/**
 * `npm run bench:shards -- [--lines N] [--batch B] [--writers W] [--text-bytes T]`: what one Postgres primary takes
 * of the relay's appends, and what a `ShardedStore` over two takes (docs/spec/relay.md §4, "Beyond one Postgres").
 * The servers are FAIRTABLE_TEST_DATABASE_URL's and FAIRTABLE_TEST_DATABASE_URL_2's (`.ci/postgres.sh start`,
 * the second on another PGPORT_TEST); without them the bench says so and exits.
 *
 * The load is the relay's group commit without the relay: W writers (as W relay processes, each with one append
 * in flight, batch-writer.ts), each appending batches of B lines, every line of another game (250 games a
 * writer, lines in log order), N lines in all, with receipts signed as the relay signs them (Ed25519, before the
 * clock starts) and texts of T bytes. Printed, one JSON line a configuration: lines a second, commits a second,
 * the p99 of one append's commit, and, read from the lines table after the run, the bytes a stored line takes
 * (the table with its index and TOAST, `pg_total_relation_size`) against the bytes of its text and receipt.
 */
import pg from 'pg';
import { toHex } from '@fairtable/core/bytes.js';
import { firstLogHash, nextLogHash, signReceipt } from '@fairtable/core/order/receipt.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { PostgresStore, ShardedStore, type LineToStore, type Store } from '@fairtable/relay';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : fallback;
};
const LINES = flag('lines', 40_000);
const BATCH = flag('batch', 100);
const WRITERS = flag('writers', 4);
const TEXT_BYTES = flag('text-bytes', 450);
const GAMES_PER_WRITER = 250;

const url1 = process.env.FAIRTABLE_TEST_DATABASE_URL;
const url2 = process.env.FAIRTABLE_TEST_DATABASE_URL_2;

const secret = new Uint8Array(32).fill(7);
const hashOf = (n: number): string => (n % 256).toString(16).padStart(2, '0').repeat(32);

/** Each writer's batches: lines of its games in turn, each game's in log order, receipts signed. */
function makeBatches(writer: number, lines: number): LineToStore[][] {
  const games = Array.from(
    { length: GAMES_PER_WRITER },
    (_, g) => toHex(new Uint8Array(32).fill(0)).slice(0, 56) + (writer * GAMES_PER_WRITER + g).toString(16).padStart(8, '0'),
  );
  const logs = games.map((g) => firstLogHash(g, hashOf(0)));
  const next = games.map(() => 1);
  const out: LineToStore[][] = [];
  let batch: LineToStore[] = [];
  for (let n = 0; n < lines; n++) {
    const g = n % GAMES_PER_WRITER;
    const game = games[g]!;
    const line = next[g]!++;
    const hash = hashOf(line + g);
    logs[g] = nextLogHash(logs[g]!, hash);
    const receipt = signReceipt({ v: 1, game, line, hash, log: logs[g]!, time: 1_700_000_000_000 + n }, secret, nativeSign);
    batch.push({ game, line, text: JSON.stringify({ line, pad: 'x'.repeat(Math.max(0, TEXT_BYTES - 24)) }), receipt });
    if (batch.length === BATCH) {
      out.push(batch);
      batch = [];
    }
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

async function run(label: string, store: Store, urls: string[], schema: string): Promise<void> {
  const perWriter = Math.ceil(LINES / WRITERS);
  const work = Array.from({ length: WRITERS }, (_, w) => makeBatches(w, perWriter));
  // Each game's setup line first (not timed): line 0, so that the timed appends are lines 1 on.
  for (const [w, batches] of work.entries()) {
    const seen = new Set<string>();
    for (const l of batches.flat())
      if (!seen.has(l.game)) {
        seen.add(l.game);
        await store.createGame(l.game, 'chain', { ...l, line: 0 });
      }
    void w;
  }
  const commits: number[] = [];
  const started = performance.now();
  await Promise.all(
    work.map(async (batches) => {
      for (const b of batches) {
        const t = performance.now();
        await store.append(b);
        commits.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  commits.sort((a, b) => a - b);
  const stored = work.flat(2).length;
  // The bytes a line takes on disk, from each shard's lines table.
  let relationBytes = 0;
  let rows = 0;
  let payload = 0;
  for (const u of urls) {
    const c = new pg.Client({ connectionString: u });
    await c.connect();
    try {
      await c.query(`VACUUM ANALYZE ${schema}.lines`);
      const r = await c.query<{ size: string; n: string; payload: string }>(
        `SELECT pg_total_relation_size('${schema}.lines') AS size, count(*) AS n, coalesce(sum(octet_length(text) + octet_length(receipt)), 0) AS payload FROM ${schema}.lines`,
      );
      relationBytes += Number(r.rows[0]!.size);
      rows += Number(r.rows[0]!.n);
      payload += Number(r.rows[0]!.payload);
    } finally {
      await c.end();
    }
  }
  process.stdout.write(
    `${JSON.stringify({
      store: label,
      lines: stored,
      writers: WRITERS,
      batch: BATCH,
      linesPerSecond: Math.round(stored / seconds),
      commitsPerSecond: Math.round(commits.length / seconds),
      commitP99Ms: Math.round(commits[Math.floor(commits.length * 0.99)] ?? 0),
      storedBytesPerLine: Math.round(relationBytes / rows),
      textAndReceiptBytesPerLine: Math.round(payload / rows),
    })}\n`,
  );
}

async function main(): Promise<void> {
  if (url1 === undefined || url2 === undefined) {
    process.stdout.write('skipped: FAIRTABLE_TEST_DATABASE_URL and FAIRTABLE_TEST_DATABASE_URL_2 must name two Postgres servers\n');
    return;
  }
  const schema = `bench_shards_${process.pid}`;
  const drop = async (): Promise<void> => {
    for (const u of [url1, url2]) {
      const c = new pg.Client({ connectionString: u });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    }
  };
  await drop();
  try {
    const one = new PostgresStore({ url: url1, schema });
    await run('postgres, one primary', one, [url1], schema);
    await one.close();
    await drop();
    const two = new ShardedStore({ urls: [url1, url2], schema });
    await run('sharded, two primaries (one machine)', two, [url1, url2], schema);
    await two.close();
  } finally {
    await drop();
  }
}

await main();
