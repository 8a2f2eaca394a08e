/**
 * The relay (docs/spec/relay.md): an untrusted orderer on the network. HTTP routes (hono) create games
 * and serve their transcripts and receipts; a WebSocket per connection (ws) carries the challenge-signed
 * hello (SPEC §10.4), submissions, fan-out and sync (relay.md §3). Each game has a core `Door` (SPEC
 * §10.1), rebuilt from the store the first time the game is asked for, and the running log hash its
 * receipts carry (relay.md §2). It runs no game logic.
 *
 * Durability before acknowledgement: a line the door admits gets its number, its log hash and its
 * receipt's time at once; the receipt is signed with the line's append (on the store's writing thread when
 * the store can), and the line is sent to no one until the store has committed it. Lines reach their doors
 * in arrival order after the verifying threads (intake.ts), go to the store in batches, one `append`
 * (one transaction) at a time (batch-writer.ts), and are then acknowledged (`accepted`) and fanned out
 * (`entry`) in log order (relay.md, "The pipeline").
 *
 * Hostile clients (relay.md §5): frame size, a message rate per connection, a hello deadline, caps on
 * connections (in all and per client address), a rate of game creation per address, a bound on what waits to be written to a connection, an idle timeout; every bad frame gets
 * a coded `refused` or `error`, and nothing a client sends can throw out of the relay.
 *
 * The parts: relay-options.ts (options and limits), http-routes.ts, ws-wire.ts, connections.ts, games.ts
 * (the doors in memory), pipeline.ts (intake, group commit, acknowledgement and fan-out).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { createAdaptorServer } from '@hono/node-server';
import { pino, type Logger } from 'pino';
import { toHex } from '@fairtable/core/bytes.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { openConnections } from './connections.js';
import { followGames } from './follow.js';
import { holdGames } from './games.js';
import { httpRoutes } from './http-routes.js';
import { Metrics } from './metrics.js';
import { markForwarded, trustedProxies } from './rate-limit.js';
import { linePipeline } from './pipeline.js';
import { CreatorCounts, DEFAULT_QUOTAS, type QuotaLimits } from './quotas.js';
import { DEFAULT_READ_LIMITS, PageQueue, ReadGate, type ReadLimits } from './reads.js';
import { LeaseKeeper, leasesOf } from './leases.js';
import { DEFAULT_LIMITS, type Relay, type RelayCore, type RelayLimits, type RelayOptions } from './relay-options.js';
import { DEFAULT_STORAGE_LIMITS, readDisk, StorageWatch, type DiskReading } from './storage-watch.js';
import { DEFAULT_LEASE_MS, PostgresStore } from './postgres-store.js';
import { ShardedStore } from './sharded-store.js';
import type { Store } from './store.js';
import { talkRoutes } from './talk.js';
import { ThreadedSqliteStore } from './threaded-sqlite-store.js';
import { MemoryWitnessStore, SqliteWitnessStore } from './witness.js';
import { webSocketWire } from './ws-wire.js';

export { DEFAULT_LIMITS, type Relay, type RelayLimits, type RelayOptions } from './relay-options.js';

/** The relay's own store: Postgres when a database is named, else SQLite in the data directory. */
function openStore(options: RelayOptions, log: Logger): Store {
  const db = options.database;
  if (db === undefined) return new ThreadedSqliteStore(options.dataDir ?? './data', { synchronous: options.synchronous ?? 'FULL' });
  const common = {
    ...(db.schema === undefined ? {} : { schema: db.schema }),
    ...(db.node === undefined ? {} : { lease: { holder: db.node, ttlMs: db.leaseMs ?? DEFAULT_LEASE_MS } }),
    onError: (e: Error) => log.warn({ err: e }, "an idle connection to the relay's database failed; the pool opens another"),
  };
  // More than one database: games partitioned across them by game id (relay.md §4, "Beyond one Postgres").
  if (db.shards !== undefined && db.shards.length > 0) return new ShardedStore({ urls: [db.url, ...db.shards], ...common });
  return new PostgresStore({ url: db.url, ...common });
}

/**
 * The storage watch's look for a relay on Postgres: the database answers, or writes stay refused (`storage_full`)
 * until it does, rather than each batch failing against a server that is down (relay.md §4, "On Postgres").
 */
const pingDatabase = (store: PostgresStore | ShardedStore) => async (): Promise<DiskReading> => {
  await store.ping();
  return { free: Number.POSITIVE_INFINITY, storeBytes: 0 };
};

export async function startRelay(options: RelayOptions = {}): Promise<Relay> {
  // Checked before anything is opened: a bad setting refuses to start, leaving no store or thread behind.
  const trusted = trustedProxies(options.trustProxy ?? []);
  const limits: RelayLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const quotas: QuotaLimits = { ...DEFAULT_QUOTAS, ...options.quotas };
  const readLimits: ReadLimits = { ...DEFAULT_READ_LIMITS, ...options.reads };
  const readGate = new ReadGate(readLimits);
  const pageQueue = new PageQueue(readLimits.readBytesPerSecond);
  const creators = new CreatorCounts(quotas);
  const log = options.logger ?? pino({ name: 'fairtable-relay' });
  // The system clock never runs backwards in receipts (docs/spec/time.md §3): after an NTP step back, receipts
  // keep the last time until the clock passes it again. A clock given in the options is taken as it is.
  let latest = 0;
  const clock = options.clock ?? (() => (latest = Math.max(latest, Date.now())));
  const store = options.store ?? openStore(options, log);
  // The key is the store's first use (on Postgres, its migrations run first): a store that cannot start is closed, not left open.
  const secretKey = await store.relayKey().catch(async (e: unknown) => {
    if (options.store === undefined) await store.close().catch(() => {});
    throw e;
  });
  const publicKey = toHex(generateKeyPair(secretKey).publicKey);
  const metrics = new Metrics();
  const dataDir = options.dataDir ?? './data';
  const storage = new StorageWatch(
    { ...DEFAULT_STORAGE_LIMITS, ...options.storage },
    options.storage?.readDisk ??
      (options.store !== undefined ? null : store instanceof PostgresStore || store instanceof ShardedStore ? pingDatabase(store) : () => readDisk(dataDir)),
    (full) => (full === null ? log.warn('storage: writes are let in again') : log.error({ reason: full }, 'storage: writes are refused')),
    clock,
  );
  const witnessStore = options.witnessStore ?? (options.store !== undefined ? new MemoryWitnessStore() : new SqliteWitnessStore(options.dataDir ?? './data'));
  const leaseStore = leasesOf(store);
  const leases = leaseStore === null ? null : new LeaseKeeper(leaseStore, (ids) => games.leaseLost(ids), log);
  const core: RelayCore = { options, limits, quotas, readLimits, log, clock, store, secretKey, publicKey, metrics, storage, leases };

  // The parts, each of one concern, in the order they need each other: the open connections, the pipeline
  // that writes to them, the games the pipeline's rooms and the connections belong to, the WebSocket wire
  // over all three, the HTTP routes. The two calls back against that order are off the per-line path: a
  // game's last connection ending, and a game forgotten after a failed append.
  const conns = openConnections({ core, unloadLater: (g) => games.unloadLater(g) });
  const { connections, send, end } = conns;
  const { pool, intake, writer, submit, roomHost } = linePipeline({ core, wire: conns, forget: (g, message, code) => games.forget(g, message, code) });
  // Several processes on one database (leases): a game another process orders is followed here (follow.ts).
  const db = options.database;
  const follow =
    leases === null || db?.node === undefined
      ? null
      : followGames({
          core,
          wire: conns,
          fanout: {
            url: db.url,
            node: db.node,
            ...(db.schema === undefined ? {} : { schema: db.schema }),
            ...(db.shards === undefined ? {} : { shards: db.shards }),
          },
          leaseMs: db.leaseMs ?? DEFAULT_LEASE_MS,
          submit,
          forget: (g, message, code) => games.forget(g, message, code),
          load: (id) => games.loadGame(id),
        });
  if (leases !== null) leases.fanout = follow;
  const games = holdGames({ core, drop: conns.drop, roomHost, fanout: () => follow });
  const { sealedGames, loadGame } = games;
  const wire = webSocketWire({ core, wire: conns, pageQueue, loadGame, submit: (c, text) => (c.game.follower ? follow!.forward(c, text) : submit(c, text)) });
  const { wss, onUpgrade } = wire;
  const { app, witness } = httpRoutes({
    core,
    witnessStore,
    readGate,
    pageQueue,
    creators,
    loadGame,
    connections,
    loaded: games.loaded,
    closing: wire.closing,
  });

  // Table talk beside each game's log (docs/spec/press.md §6), pushed over the game's WebSocket.
  // With several processes, every process pushes a game's talk from the store to its own sockets (talk-fanout.ts).
  app.route('/', talkRoutes({ core, loadGame, send: (c, value) => send(c, value), ...(follow === null ? {} : { stored: follow.talkStored }) }));

  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  // Before the routes see a request: its client, where a trusted reverse proxy names one.
  server.prependListener('request', (req: IncomingMessage) => markForwarded(req, trusted));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    markForwarded(req, trusted);
    socket.on('error', () => socket.destroy());
    onUpgrade(req, socket, head).catch(() => socket.destroy());
  });

  // A relay started on a full disk starts refusing writes, and lets them in once there is room.
  await storage.start();
  leases?.start();
  await follow?.start();
  // Games holding sealed envelopes come back into memory at once, so that their deadlines run.
  for (const id of (await store.gamesHolding?.()) ?? [])
    await loadGame(id).catch((e: unknown) => log.error({ err: e, game: id }, 'cannot load a game holding sealed envelopes'));

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) =>
      reject(new FairtableError('connection_failed', `cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 8080}: ${e.message}`, { cause: e })),
    );
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => resolve());
  }).catch(async (e: unknown) => {
    // The threads would keep the process alive.
    storage.stop();
    leases?.stop();
    await follow?.close();
    await pool.close();
    if (options.store === undefined) await store.close();
    throw e;
  });
  server.removeAllListeners('error');
  server.on('error', (e) => log.error({ err: e }, 'server error'));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? 8080);
  const shownHost = options.host === undefined || options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  log.info({ port, relay: publicKey }, 'relay listening');

  return {
    port,
    url: `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`,
    publicKey,
    metrics,
    async close() {
      if (wire.closing()) return;
      wire.beginClosing();
      log.info('shutting down: no new connections or games; storing and acknowledging what was admitted');
      conns.stopIdleCheck();
      storage.stop();
      for (const g of sealedGames.values()) g.sealed?.stop();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // What was submitted goes through its door, and what the doors admitted is stored and
      // acknowledged, before any connection closes.
      await intake.drained();
      await writer.flush();
      await witness.flush();
      await pool.close();
      for (const c of [...connections]) {
        send(c, { kind: 'error', code: 'shutting_down', message: 'the relay is shutting down; reconnect and sync when it is back' }, true);
        end(c, 1001, 'shutting down');
      }
      wss.close();
      server.closeAllConnections();
      await stopped;
      leases?.stop();
      await follow?.close();
      await store.close();
      // And what the witness admitted since, before its store closes.
      await witness.flush();
      await witnessStore.close();
      log.info('relay stopped');
    },
  };
}
