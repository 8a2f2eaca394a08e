/**
 * The relay as a witness (docs/spec/relay.md §8, "Storage" and "Limits"): envelopes of many games posted over
 * HTTP to `/witness/games/:game`, on the relay's SQLite witness store on disk, with the default witness limits.
 * Prints envelopes/s, the transactions they took and the heap before and after (collected first) for two loads:
 * 8 clients each posting one game's envelopes at a time (the load this bench always ran), and every game at
 * once with one post in flight each (as the clients of many games post: each its author's next after the
 * last one's receipt). Each load runs on the witness as it is (group commit: one transaction a batch) and,
 * as the baseline in the same run, on a store that commits each envelope in its own synced transaction (as
 * the witness did before group commit); then on a witness that keeps everything in memory
 * (`MemoryWitnessStore`): the witness's own heap does not grow with what it holds, only its store does.
 *
 * The load comes from one address, so the per-address rate limit is lifted for the run (it is what the
 * flood test of witness-limits.test.ts checks). Run with `node --expose-gc --import tsx bench/witness.bench.ts`
 * (npm run bench does); WITNESS_BENCH_GAMES and WITNESS_BENCH_PER_GAME size the load, WITNESS_BENCH_IN_FLIGHT
 * the posts in flight of the second load (every game's by default).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { MemoryWitnessStore, SqliteWitnessStore, startRelay, type WitnessedEnvelope, type WitnessStore } from '@fairtable/relay';

const GAMES = Number(process.env.WITNESS_BENCH_GAMES ?? 100);
const PER_GAME = Number(process.env.WITNESS_BENCH_PER_GAME ?? 50);
const CLIENTS = 8;
const IN_FLIGHT = Number(process.env.WITNESS_BENCH_IN_FLIGHT ?? GAMES);

const gc = (globalThis as { gc?: () => void }).gc;
async function heapMiB(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 20));
  }
  return process.memoryUsage().heapUsed / 2 ** 20;
}

interface Game {
  readonly id: string;
  readonly setupLine: string;
  readonly lines: string[];
}

/** A game of two and PER_GAME envelopes of its second player, ~1 KB each, signed before the clock starts. */
function makeGame(seed: number): Game {
  const keys = [0, 1].map((i) => generateKeyPair(new Uint8Array(32).fill(0).map((_, j) => (seed * 7 + i * 131 + j) & 0xff)));
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params: { timeoutMs: 60_000, rounds: 2 },
    players: ['p0', 'p1'].map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
    nonce: toHex(new Uint8Array(32).fill(seed & 0xff).map((b, j) => (b + j * (seed >> 8)) & 0xff)),
    created: 1,
  };
  const id = gameIdOf(setup);
  const setupEnvelope = createSetupEnvelope(setup, 'p0', keys[0]!);
  const lines: string[] = [];
  let prev = id;
  for (let seq = 0; seq < PER_GAME; seq++) {
    const e = signEnvelope(
      { v: 1, game: id, from: 'p1', seq, prev, at: 1, head: envelopeHash(setupEnvelope), time: 5, body: { type: 'note', note: 'n'.repeat(800) } },
      keys[1]!.secretKey,
      nativeSign,
    );
    lines.push(envelopeLine(e));
    prev = envelopeHash(e as Envelope);
  }
  return { id, setupLine: envelopeLine(setupEnvelope), lines };
}

/** The SQLite witness store, counting its transactions; `alone` commits each envelope of a batch in its own. */
class CountedStore extends SqliteWitnessStore {
  transactions = 0;
  /** Seconds spent in appends (the event loop waits for the disk meanwhile: better-sqlite3 is synchronous). */
  seconds = 0;
  constructor(
    dataDir: string,
    private readonly alone: boolean,
  ) {
    super(dataDir);
  }
  override async append(lines: readonly WitnessedEnvelope[]): Promise<void> {
    const started = performance.now();
    try {
      for (const batch of this.alone ? lines.map((l) => [l]) : [lines]) {
        this.transactions++;
        await super.append(batch);
      }
    } finally {
      this.seconds += (performance.now() - started) / 1000;
    }
  }
}

type Storage = 'group commit' | 'one transaction each' | 'in memory';
type Load = 'clients' | 'games';

/** 8 clients taking whole games in turn, or IN_FLIGHT games at once; each game's envelopes in order. */
async function post(url: string, games: readonly Game[], load: Load): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: load === 'clients' ? CLIENTS : IN_FLIGHT }, async () => {
      for (let k = next++; k < games.length; k = next++)
        for (const line of games[k]!.lines) {
          const res = await fetch(`${url}/witness/games/${games[k]!.id}`, { method: 'POST', body: line });
          if (res.status !== 201) throw new Error(`envelope: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
        }
    }),
  );
}

async function run(storage: Storage, load: Load, games: readonly Game[]): Promise<{ perSecond: number; grownMiB: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fairtable-witness-bench-'));
  const counted = storage === 'in memory' ? null : new CountedStore(dataDir, storage === 'one transaction each');
  const witnessStore: WitnessStore = counted ?? new MemoryWitnessStore();
  const relay = await startRelay({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    logger: pino({ level: 'silent' }),
    limits: { messagesPerSecond: 1e9, messageBurst: 1e9 },
    witnessStore,
  });
  try {
    for (const g of games) {
      const res = await fetch(`${relay.url}/witness/games`, { method: 'POST', body: g.setupLine });
      if (res.status !== 201) throw new Error(`setup: ${res.status} ${await res.text()}`);
    }
    const before = await heapMiB();
    const started = performance.now();
    await post(relay.url, games, load);
    const seconds = (performance.now() - started) / 1000;
    const after = await heapMiB();
    const n = games.length * PER_GAME;
    const result = { perSecond: n / seconds, grownMiB: after - before };
    const transactions =
      counted === null
        ? ''
        : `, ${counted.transactions} transactions (${(n / counted.transactions).toFixed(1)} envelopes each, ${counted.seconds.toFixed(1)} s in them)`;
    const label = `${storage}, ${load === 'clients' ? `${CLIENTS} clients` : `${IN_FLIGHT} games at once`}`;
    console.log(
      `${label.padEnd(40)} ${n} envelopes in ${seconds.toFixed(1)} s: ${result.perSecond.toFixed(0)} envelopes/s${transactions}; heap ${before.toFixed(1)} → ${after.toFixed(1)} MiB (${result.grownMiB >= 0 ? '+' : ''}${result.grownMiB.toFixed(1)} MiB)`,
    );
    return result;
  } finally {
    await relay.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (gc === undefined) console.log('(no --expose-gc: heap figures include garbage)');
const games = Array.from({ length: GAMES }, (_, i) => makeGame(i + 1));
const bytes = games.reduce((s, g) => s + g.lines.reduce((t, l) => t + Buffer.byteLength(l), 0), 0);
console.log(`${GAMES} games × ${PER_GAME} envelopes (${(bytes / 2 ** 20).toFixed(1)} MiB of lines)`);
let sqlite = { perSecond: 0, grownMiB: 0 };
for (const load of ['clients', 'games'] as const) {
  const alone = await run('one transaction each', load, games);
  const group = await run('group commit', load, games);
  console.log(`  group commit against one transaction each: ${(group.perSecond / alone.perSecond).toFixed(2)}× the envelopes/s`);
  sqlite = group;
}
const memory = await run('in memory', 'games', games);
console.log(
  `heap grown: ${sqlite.grownMiB.toFixed(1)} MiB on SQLite (group commit) vs ${memory.grownMiB.toFixed(1)} MiB in memory; speed ratio ${(sqlite.perSecond / memory.perSecond).toFixed(2)}`,
);
