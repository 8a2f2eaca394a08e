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
 */
import type { IncomingMessage, Server } from 'node:http';
import { availableParallelism } from 'node:os';
import type { Duplex } from 'node:stream';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { pino, type Logger } from 'pino';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { fromHex, isHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { Door, type Admission } from '@fairtable/core/door.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { UNKNOWN_GAME_CLOSE, verifyHello } from '@fairtable/core/order/hello.js';
import { firstLogHash, MAX_RECEIPT_BATCH, nextLogHash, signReceiptBatch, type Receipt, type UnsignedReceipt } from '@fairtable/core/order/receipt.js';
import { sealedRule } from '@fairtable/core/order/sealer.js';
import { checkSetupWitnesses } from '@fairtable/core/order/witness-url.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { BatchWriter } from './batch-writer.js';
import { framePayload, textFrame } from './frame.js';
import { Intake } from './intake.js';
import { Metrics } from './metrics.js';
import { lobbyRoutes, lobbyStoreOf, DEFAULT_LOBBY_LIMITS, type LobbyLimits } from './lobby.js';
import { servePage } from './page.js';
import { SealedRoom, type RoomHost } from './sealed.js';
import type { BatchSignature, LineToSign, Store } from './store.js';
import { ThreadedSqliteStore } from './threaded-sqlite-store.js';
import { VerifyPool } from './verify-pool.js';
import { MemoryWitnessStore, SqliteWitnessStore, witnessRoutes, type WitnessLimits, type WitnessStore } from './witness.js';
import { clientKey, rateLimited, RateLimiter, remoteAddress } from './rate-limit.js';
import { CreatorCounts, DEFAULT_QUOTAS, emptyUsage, overQuota, type GameUsage, type QuotaLimits } from './quotas.js';
import { DEFAULT_READ_LIMITS, lineCost, PageQueue, readPage, ReadGate, serveLines, SyncPacer, type ReadLimits } from './reads.js';
import { DEFAULT_STORAGE_LIMITS, isStorageError, readDisk, renderStorage, StorageWatch, type DiskReading, type StorageLimits } from './storage-watch.js';
import { freshFragmentsOnRead } from './ws-fragments.js';

export interface RelayLimits {
  /** Longest frame (and line) taken from a client, bytes; a longer one is answered `line_too_long` and the connection closed. */
  readonly maxFrameBytes: number;
  /** Time a new connection has to send a valid hello. */
  readonly helloTimeoutMs: number;
  /** Open WebSocket connections at once; when full, the oldest without a hello gives way, or the newcomer is refused. */
  readonly maxConnections: number;
  /** Sustained messages a second from one connection, and the burst above it. */
  readonly messagesPerSecond: number;
  readonly messageBurst: number;
  /** Output waiting for a connection above which it is dropped (`slow_reader`). */
  readonly maxOutputBytes: number;
  /** A connection that sends nothing (not even a pong) for this long is closed. */
  readonly idleMs: number;
  /** Lines one `sync` answer carries at most. */
  readonly syncBatch: number;
  /** A game with no connection and nothing waiting to be stored leaves memory after this long (it is rebuilt from the store when asked for). */
  readonly unloadAfterMs: number;
  /** Client addresses whose HTTP rate buckets (witness and lobby routes, `messagesPerSecond`/`messageBurst` each) are kept at once. */
  readonly httpClients: number;
  /** Games one client address may create (`POST /games`) a minute, sustained, and the burst above it; more are answered `429 rate_limited`. */
  readonly gamesPerMinute: number;
  readonly gameBurst: number;
  /** Open WebSocket connections from one client address; one more is refused `429 too_many_connections_from_address`. */
  readonly connectionsPerAddress: number;
}

export const DEFAULT_LIMITS: RelayLimits = {
  maxFrameBytes: 1 << 20,
  helloTimeoutMs: 10_000,
  maxConnections: 10_000,
  messagesPerSecond: 200,
  messageBurst: 400,
  maxOutputBytes: 8 << 20,
  idleMs: 120_000,
  syncBatch: 256,
  unloadAfterMs: 60_000,
  httpClients: 100_000,
  gamesPerMinute: 30,
  gameBurst: 30,
  connectionsPerAddress: 300,
};

export interface RelayOptions {
  readonly host?: string;
  /** 0: any free port. */
  readonly port?: number;
  /** Where the SQLite store and the relay's key live (default ./data); ignored when `store` is given. */
  readonly dataDir?: string;
  readonly store?: Store;
  /** Where the relay keeps what it witnesses for games other relays order (relay.md §8); in memory when `store` is given. */
  readonly witnessStore?: WitnessStore;
  /** Bounds on what the relay keeps as a witness (relay.md §8, "Limits"). */
  readonly witnessLimits?: Partial<WitnessLimits>;
  /** Bounds on lobbies (web.md §2). */
  readonly lobbyLimits?: Partial<LobbyLimits>;
  readonly limits?: Partial<RelayLimits>;
  /** What one game may hold, and how many games one key or address may create (relay.md §5, "Quotas"). */
  readonly quotas?: Partial<QuotaLimits>;
  /** Bounds on reads built from stored lines: transcripts, receipts, `sync` (relay.md §5, "Reads"). */
  readonly reads?: Partial<ReadLimits>;
  /**
   * When writes stop for want of space (relay.md §5, "Storage"); `readDisk` replaces the look at the data
   * directory's file system (the default; with `store` given and no `readDisk`, only failed writes stop writes).
   */
  readonly storage?: Partial<StorageLimits> & { readonly readDisk?: () => Promise<DiskReading> };
  readonly logger?: Logger;
  /** The relay's clock for receipts (ms). */
  readonly clock?: () => number;
  /**
   * The witness relays this relay's operator names (their URLs; `WITNESSES`, `fairtable relay --witness`),
   * published at `GET /relay` with the relay's key for clients to put in new setups (docs/spec/time.md §5).
   */
  readonly witnesses?: readonly string[];
  /**
   * Told of each append the store failed. The relay goes on: writes are refused `storage_full` until the
   * storage watch finds room, and each game whose lines were lost leaves memory (its connections are closed
   * with `storage_full`), to be rebuilt from what was stored (relay.md §4).
   */
  readonly onStoreFailure?: (error: unknown) => void;
  /** The built web app served at `/` (default apps/web/dist of this checkout; the CLI's page when absent). */
  readonly webDir?: string;
  /** Threads that verify submitted lines (relay.md, "The pipeline"); 0 verifies on the event loop. Default: the cores less one, 1 to 4. */
  readonly verifyThreads?: number;
  /** SQLite's `synchronous` for the appends (relay.md, "The pipeline"): FULL (default) survives a power loss, NORMAL only a killed process. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** Hosts a setup's witnesses may be reached on over plain `http:` besides loopback (relay.md §8, "Which URLs"). */
  readonly httpWitnessHosts?: readonly string[];
}

export interface Relay {
  readonly port: number;
  readonly url: string;
  /** The relay's public key, hex. */
  readonly publicKey: string;
  readonly metrics: Metrics;
  /** Stops accepting, stores and acknowledges what was admitted, closes every connection and the store. */
  close(): Promise<void>;
}

/** A game as the relay holds it in memory. */
interface Game {
  readonly id: string;
  readonly door: Door;
  readonly protocol: string;
  readonly players: readonly { readonly id: string; readonly key: string }[];
  /** L_n of the last admitted line. */
  log: string;
  /** Lines committed to the store (the log a reader is shown). */
  committed: number;
  /** Lines admitted and not yet stored. */
  unstored: number;
  unloadTimer: NodeJS.Timeout | null;
  /** Out of memory: a connection that finds it so must load the game again. */
  unloaded: boolean;
  readonly connections: Set<Connection>;
  /** Sealed mode (docs/spec/sealed.md), when the setup asks for it. */
  sealed: SealedRoom | null;
  /** What the game holds against its quota. */
  readonly usage: GameUsage;
}

interface Connection {
  readonly ws: WebSocket;
  readonly game: Game;
  /** The client key (rate-limit.ts) its open connections are counted under. */
  readonly address: string;
  readonly nonce: string;
  who: string | null;
  tokens: number;
  refilledAt: number;
  lastHeard: number;
  helloTimer: NodeJS.Timeout | null;
  closed: boolean;
  /** Its `sync` answers, paced (reads.ts). */
  readonly sync: SyncPacer;
}

interface Pending extends LineToSign {
  /**
   * The receipt's signature, hex, and where the line sits in its batch (relay.md §2): made with the batch's
   * append (by the store's thread when it can), known once it has committed.
   */
  sig: string;
  index: number;
  size: number;
  path: readonly string[];
  /** The submitter to acknowledge; null for a released sealed line (its author learns of it from the entry). */
  readonly from: Connection | null;
  readonly entry: Game;
}

/** A coded HTTP error body. */
const failure = (code: string, message: string) => ({ error: { code, message } });

function plainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export async function startRelay(options: RelayOptions = {}): Promise<Relay> {
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
  const store = options.store ?? new ThreadedSqliteStore(options.dataDir ?? './data', { synchronous: options.synchronous ?? 'FULL' });
  const secretKey = await store.relayKey();
  const publicKey = toHex(generateKeyPair(secretKey).publicKey);
  const metrics = new Metrics();
  const dataDir = options.dataDir ?? './data';
  const storage = new StorageWatch(
    { ...DEFAULT_STORAGE_LIMITS, ...options.storage },
    options.storage?.readDisk ?? (options.store === undefined ? () => readDisk(dataDir) : null),
    (full) => (full === null ? log.warn('storage: writes are let in again') : log.error({ reason: full }, 'storage: writes are refused')),
    clock,
  );
  const witnessStore = options.witnessStore ?? (options.store !== undefined ? new MemoryWitnessStore() : new SqliteWitnessStore(options.dataDir ?? './data'));
  const games = new Map<string, Promise<Game | null>>();
  let loadedGames = 0;

  /**
   * A game's door holds its log's index in memory; one nobody is connected to leaves memory after
   * `unloadAfterMs`, so memory follows the games being played, not every game ever hosted.
   */
  function unloadLater(g: Game): void {
    if (g.unloadTimer !== null) clearTimeout(g.unloadTimer);
    g.unloadTimer = setTimeout(() => {
      g.unloadTimer = null;
      if (g.connections.size > 0) return;
      if (g.unstored > 0 || (g.sealed?.size ?? 0) > 0) return unloadLater(g);
      void games.get(g.id)?.then((held) => {
        if (held === g && g.connections.size === 0 && g.unstored === 0) {
          games.delete(g.id);
          sealedGames.delete(g.id);
          g.unloaded = true;
          loadedGames--;
        }
      });
    }, limits.unloadAfterMs);
    g.unloadTimer.unref();
  }
  let closing = false;

  /**
   * A game whose admitted lines the store lost (a failed append): it leaves memory at once, its connections
   * told why, so that its door is rebuilt from what was stored when it is next asked for.
   */
  function forget(g: Game, message: string): void {
    if (g.unloaded) return;
    g.unloaded = true;
    g.unstored = 0;
    g.sealed?.stop();
    void games.get(g.id)?.then((held) => {
      if (held === g) games.delete(g.id);
    });
    if (sealedGames.get(g.id) === g) sealedGames.delete(g.id);
    loadedGames--;
    for (const c of [...g.connections]) drop(c, 'storage_full', message);
    if (g.unloadTimer !== null) clearTimeout(g.unloadTimer);
    g.unloadTimer = null;
  }

  /** A line's receipt alone: a batch of one. */
  const receipt = (game: string, line: number, hash: string, logHash: string, time = clock()): Receipt =>
    signReceiptBatch([{ v: 2, game, line, hash, log: logHash, time }], secretKey, nativeSign)[0]!;
  /** What a line admitted now will be receipted with, once its batch is stored (the signature comes with the append). */
  const pending = (g: Game, line: number, hash: string, text: string, time: number, from: Connection | null): Pending => {
    g.log = nextLogHash(g.log, hash);
    g.unstored++;
    g.usage.lines++;
    g.usage.bytes += text.length;
    const unsigned: UnsignedReceipt = { v: 2, game: g.id, line, hash, log: g.log, time };
    return { game: g.id, line, text, receipt: unsigned, sig: '', index: 0, size: 0, path: [], from, entry: g };
  };

  /** The game, from memory or rebuilt from the store (every stored line passes the door again). */
  function loadGame(id: string): Promise<Game | null> {
    let found = games.get(id);
    if (found === undefined) {
      found = (async (): Promise<Game | null> => {
        const first = await store.readLines(id, 0, 1);
        const setup = first[0];
        if (setup === undefined) return null;
        const door = new Door(setup.text, { verify: nativeVerify });
        // The room's host finds its game through this, once it is made (a forgotten game's room records nothing).
        const made: { game?: Game } = {};
        const sealed = SealedRoom.of(
          id,
          door,
          roomHost(id, () => made.game),
        );
        let logHash = setup.receipt.log;
        const usage = emptyUsage();
        usage.lines = 1;
        usage.bytes = setup.text.length;
        let at = 1;
        for (;;) {
          // Pages bounded in bytes: a game at its quota is rebuilt a few MiB at a time.
          const batch = await readPage(store, id, at, 1024, 4 * readLimits.pageBytes);
          for (const l of batch) {
            const from = (JSON.parse(l.text) as { from: string }).from;
            const a = door.admit(l.text, from);
            if (!a.ok || a.duplicate || a.line !== l.line)
              throw new FairtableError('bad_journal', `game ${id}: stored line ${l.line} does not pass the door again`);
            sealed?.observe(l.text);
            logHash = l.receipt.log;
            usage.lines++;
            usage.bytes += l.text.length;
          }
          at += batch.length;
          if (batch.length === 0) break;
        }
        loadedGames++;
        const game: Game = {
          id,
          door,
          protocol: door.checker.setup.protocol,
          players: door.checker.setup.players.map((p) => ({ id: p.id, key: p.key })),
          log: logHash,
          committed: door.length,
          unstored: 0,
          unloadTimer: null,
          unloaded: false,
          connections: new Set(),
          sealed,
          usage,
        };
        made.game = game;
        if (sealed !== null) {
          sealedGames.set(id, game);
          await sealed.restore();
        }
        unloadLater(game);
        return game;
      })();
      games.set(id, found);
      // A game the store does not hold is not remembered: the map holds only games that exist.
      void found.then(
        (g) => {
          if (g === null) games.delete(id);
        },
        () => games.delete(id),
      );
    }
    return found;
  }

  // -------------------------------------------------------------------------
  // The pipeline (relay.md, "The pipeline"): the intake (each line read once on a verifying thread, the door in arrival order),
  // then group commit, then the acknowledgement and the fan-out of what committed.
  // -------------------------------------------------------------------------
  const pool = new VerifyPool(options.verifyThreads ?? Math.max(1, Math.min(4, availableParallelism() - 1)), (e) =>
    log.error({ err: e }, 'a verifying thread failed; its lines are verified on the event loop'),
  );
  const intake = new Intake<Connection>(pool, (c, text, a) => {
    c.game.usage.comingLines--;
    c.game.usage.comingBytes -= text.length;
    admitted(c, text, a);
  });
  /**
   * A batch's append: the store signs the receipts on its writing thread when it can (`appendSigning`),
   * else they are signed here and stored with `append`. Either way they are `signReceiptBatch`'s: one
   * signature for the batch (relay.md §2).
   */
  const appendBatch = async (batch: Pending[]): Promise<void> => {
    let signed: BatchSignature;
    if (store.appendSigning !== undefined) signed = await store.appendSigning(batch, secretKey);
    else {
      const receipts = signReceiptBatch(
        batch.map((p) => p.receipt),
        secretKey,
        nativeSign,
      );
      await store.append(batch.map((p, i) => ({ game: p.game, line: p.line, text: p.text, receipt: receipts[i]! })));
      signed = { sig: receipts[0]!.sig, paths: receipts.map((r) => r.batch!.path) };
    }
    for (let i = 0; i < batch.length; i++) {
      const p = batch[i]!;
      p.sig = signed.sig;
      p.index = i;
      p.size = batch.length;
      p.path = signed.paths[i]!;
    }
  };
  const writer = new BatchWriter<Pending>(
    appendBatch,
    (batch, seconds) => {
      metrics.storeFlush(seconds, batch.length);
      for (const p of batch) {
        p.entry.committed = p.line + 1;
        p.entry.unstored--;
        metrics.linesAccepted++;
        // The receipt encoded once, for the submitter's answer and every reader's entry; one buffer for all readers.
        // The same text as JSON.stringify of the receipt (hex and integers need no escaping), without building the object.
        const r = p.receipt;
        const path = p.path.length === 0 ? '[]' : `["${p.path.join('","')}"]`;
        const receiptText = `{"v":2,"game":"${r.game}","line":${r.line},"hash":"${r.hash}","log":"${r.log}","time":${r.time},"batch":{"index":${p.index},"size":${p.size},"path":${path}},"sig":"${p.sig}"}`;
        // The submitter's socket is corked for its line: its acknowledgement and its entry leave in one write.
        const corked = p.from === null ? null : cork(p.from);
        if (p.from !== null) sendFrame(p.from, textFrame(`{"kind":"accepted","line":${p.line},"receipt":`, receiptText, '}'));
        // One whole frame, written as it is to every reader.
        const entry = textFrame(`{"kind":"entry","line":${p.line},"text":`, JSON.stringify(p.text), ',"receipt":', receiptText, '}');
        for (const c of p.entry.connections) if (c.who !== null) sendFrame(c, entry);
        corked?.uncork();
      }
    },
    (e: unknown, lost: Pending[]) => {
      // The doors of the lost lines' games are ahead of the store: nothing of them was acknowledged, and the
      // only safe state is the stored one. Writes stop until there is room, and each of those games leaves
      // memory, to be rebuilt from the store when it is next asked for; every other game goes on.
      storage.writeFailed(e);
      log.error(
        { err: e, lines: lost.length, storageError: isStorageError(e) },
        'the store failed to append; the games it held lines of are rebuilt from the store',
      );
      for (const g of new Set(lost.map((p) => p.entry)))
        forget(g, `the relay could not store this game's last lines (${(e as Error).message ?? e}); reconnect and submit again`);
      options.onStoreFailure?.(e);
    },
    // One receipt signature covers at most MAX_RECEIPT_BATCH lines (relay.md §2); more wait for the next append.
    MAX_RECEIPT_BATCH,
  );

  /** The socket under `c`'s WebSocket (ws keeps it as `_socket`), for frames written whole and for corking. */
  const socketOf = (c: Connection): Duplex | undefined => (c.ws as unknown as { _socket?: Duplex })._socket;

  /** `c`'s socket, corked, when it is open and not corked already. */
  function cork(c: Connection): Duplex | null {
    const socket = socketOf(c);
    if (socket === undefined || socket.writableCorked > 0 || c.ws.readyState !== c.ws.OPEN) return null;
    socket.cork();
    return socket;
  }

  /**
   * Sends a frame made by `textFrame`, written whole to the socket. ws writes each of its own frames
   * whole and at once (no compression, no fragments), so a frame written here never lands inside one of
   * its; `bufferedAmount` counts what waits in the socket, so the slow-reader bound holds.
   */
  function sendFrame(c: Connection, frame: Buffer): void {
    if (c.closed || c.ws.readyState !== c.ws.OPEN) return;
    const socket = socketOf(c);
    if (socket === undefined) return send(c, framePayload(frame));
    socket.write(frame);
    if (c.ws.bufferedAmount > limits.maxOutputBytes) {
      drop(c, 'slow_reader', `${c.ws.bufferedAmount} bytes wait to be written to this connection; it does not read what it is sent`);
    }
  }

  // -------------------------------------------------------------------------
  // HTTP.
  // -------------------------------------------------------------------------
  const app = new Hono();
  app.onError((e, c) => {
    if (e instanceof FairtableError) return c.json(failure(e.code, e.message), 400);
    log.error({ err: e }, 'request failed');
    return c.json(failure('internal', 'the relay could not answer this request'), 500);
  });
  app.notFound((c) => c.json(failure('not_found', `no such route: ${c.req.method} ${c.req.path}`), 404));
  servePage(app, publicKey, options.webDir);
  // One bucket per client address for the HTTP routes that keep what they are given (relay.md §5).
  const httpLimiter = new RateLimiter({ perSecond: limits.messagesPerSecond, burst: limits.messageBurst, maxClients: limits.httpClients });
  const httpRefused = (code: string): void => metrics.refused(code);
  /** A write refused for want of space (relay.md §5, "Storage"). */
  const storageFull = (c: import('hono').Context) => {
    metrics.refused('storage_full');
    c.header('Retry-After', String(Math.max(1, Math.ceil(storage.limits.checkMs / 1000))));
    return c.json(failure('storage_full', `the relay stores nothing now: ${storage.full}`), 503);
  };
  // Lobbies and witnessed lines are written too: while writes are refused, so are they.
  app.use('*', async (c, next) => {
    if (c.req.method === 'POST' && storage.full !== null && (c.req.path.startsWith('/witness/') || c.req.path.startsWith('/lobbies'))) return storageFull(c);
    await next();
    return undefined;
  });
  app.route(
    '/lobbies',
    lobbyRoutes(clock, { ...DEFAULT_LOBBY_LIMITS, ...options.lobbyLimits }, { store: lobbyStoreOf(store), rateLimiter: httpLimiter, onRefused: httpRefused }),
  );
  // Serving is health: a relay that refuses writes for want of space still serves reads, and says so.
  app.get('/health', (c) =>
    c.json(
      { ok: !closing, ...(storage.full === null ? {} : { writable: false, storage: { code: 'storage_full', message: storage.full } }) },
      closing ? 503 : 200,
    ),
  );
  // What a client binds a new game to (docs/spec/time.md §5): the key its receipts are signed with, and the witnesses.
  app.get('/relay', (c) => c.json({ relay: publicKey, witnesses: options.witnesses ?? [] }, 200));
  app.get('/metrics', (c) =>
    c.text(metrics.render({ connections: connections.size, games: loadedGames }) + renderStorage(storage), 200, {
      'content-type': 'text/plain; version=0.0.4',
    }),
  );
  // Each game created costs a stored setup and a door: one address creates at most so many a minute (relay.md §5).
  const gameLimiter = new RateLimiter({ perSecond: limits.gamesPerMinute / 60, burst: limits.gameBurst, maxClients: limits.httpClients });
  app.post(
    '/games',
    rateLimited(gameLimiter, httpRefused, `more than ${limits.gamesPerMinute} games a minute (burst ${limits.gameBurst}) created from this address`),
    bodyLimit({ maxSize: limits.maxFrameBytes, onError: (c) => c.json(failure('line_too_long', `the setup line is over ${limits.maxFrameBytes} bytes`), 413) }),
    async (c) => {
      if (closing) return c.json(failure('shutting_down', 'the relay is shutting down'), 503);
      if (storage.full !== null) return storageFull(c);
      const text = (await c.req.text()).replace(/\r?\n$/, '');
      let door: Door;
      try {
        // The door reads the setup (SPEC §4.1) and checks its creator's signature: one reading, no second.
        door = new Door(text, { verify: nativeVerify });
      } catch (e) {
        const code = e instanceof FairtableError ? e.code : 'bad_setup';
        metrics.refused(code);
        return c.json(failure(code, (e as Error).message), 400);
      }
      const setup = door.checker.setup;
      try {
        // Every seat posts to the witnesses the setup names: an address no client may post to is refused here.
        checkSetupWitnesses(setup.params, { httpHosts: options.httpWitnessHosts ?? [] });
      } catch (e) {
        metrics.refused('bad_witness_url');
        return c.json(failure('bad_witness_url', (e as Error).message), 400);
      }
      try {
        if (sealedRule(setup) !== null && store.hold === undefined)
          return c.json(failure('sealed_unsupported', "this relay's store cannot hold sealed envelopes"), 400);
      } catch (e) {
        metrics.refused('bad_setup');
        return c.json(failure('bad_setup', (e as Error).message), 400);
      }
      const id = door.checker.gameId;
      const hash = door.checker.hashOfLine(0)!;
      const logHash = firstLogHash(id, hash);
      const creator = door.checker.keys.get((JSON.parse(text) as { from: string }).from);
      const address = clientKey(remoteAddress(c));
      const tooMany = creators.refusal(creator === undefined ? '' : toHex(creator), address);
      if (tooMany !== null) {
        metrics.refused(tooMany.code);
        return c.json(failure(tooMany.code, tooMany.message), 429);
      }
      let created: boolean;
      try {
        created = await store.createGame(id, setup.protocol, { game: id, line: 0, text, receipt: receipt(id, 0, hash, logHash) });
      } catch (e) {
        if (!isStorageError(e)) throw e;
        storage.writeFailed(e);
        return storageFull(c);
      }
      if (created) creators.created(creator === undefined ? '' : toHex(creator), address);
      if (!created) {
        const existing = await store.readLines(id, 0, 1);
        if (existing[0]?.text !== text) return c.json(failure('game_exists', `game ${id} exists with another setup line`), 409);
        return c.json({ game: id, relay: publicKey }, 200);
      }
      log.info({ game: id, protocol: setup.protocol }, 'game created');
      return c.json({ game: id, relay: publicKey }, 201);
    },
  );
  const witness = witnessRoutes({
    store: witnessStore,
    secretKey,
    publicKey,
    clock,
    maxBodyBytes: limits.maxFrameBytes,
    limits: options.witnessLimits ?? {},
    rateLimiter: httpLimiter,
    onRefused: httpRefused,
    readGate,
  });
  app.route('/witness', witness);
  const gameParam = (id: string): string => {
    if (!isHex(id, 32)) throw new FairtableError('unknown_game', 'a game id is 64 hex digits', { field: 'game' });
    return id;
  };
  app.get('/games/:game', async (c) => {
    const g = await loadGame(gameParam(c.req.param('game')));
    if (g === null) return c.json(failure('unknown_game', 'no such game on this relay'), 404);
    return c.json({ game: g.id, protocol: g.protocol, players: g.players, lines: g.committed });
  });
  /** Streams one column of a game's stored lines as JSON Lines, a page at a time (reads.ts). */
  const jsonLines = (what: (l: { text: string; receipt: Receipt }) => string, size: (g: Game) => number) => async (c: import('hono').Context) => {
    const id = gameParam(c.req.param('game')!);
    const g = await loadGame(id);
    if (g === null) return c.json(failure('unknown_game', 'no such game on this relay'), 404);
    const address = clientKey(remoteAddress(c));
    return serveLines(readGate, readLimits, { store, game: id, upTo: g.committed, bytes: size(g), address, render: what, queue: pageQueue }, httpRefused);
  };
  app.get(
    '/games/:game/transcript',
    jsonLines(
      (l) => l.text,
      (g) => g.usage.bytes + g.usage.lines,
    ),
  );
  // A receipt is some 300 bytes and its inclusion proof up to 9 hashes of 67: an estimate from above.
  app.get(
    '/games/:game/receipts',
    jsonLines(
      (l) => JSON.stringify(l.receipt),
      (g) => g.usage.lines * 900,
    ),
  );

  const server = createAdaptorServer({ fetch: app.fetch }) as Server;

  // -------------------------------------------------------------------------
  // WebSocket.
  // -------------------------------------------------------------------------
  // ws closes with 1009 above its own cap; frames between the relay's limit and that cap are read and
  // answered with a coded error, so a client that is merely too big learns why.
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxFrameBytes * 2, perMessageDeflate: false });
  const connections = new Set<Connection>();
  /** Open connections by client key; an address leaves the map with its last connection. */
  const perAddress = new Map<string, number>();

  /** Sends a message (a string or a buffer is sent as it is: an encoded message, perhaps shared by several connections). */
  function send(c: Connection, value: unknown, last = false): void {
    if (c.closed && !last) return;
    if (c.ws.readyState !== c.ws.OPEN) return;
    if (Buffer.isBuffer(value)) c.ws.send(value, { binary: false });
    else c.ws.send(typeof value === 'string' ? value : JSON.stringify(value));
    if (!last && c.ws.bufferedAmount > limits.maxOutputBytes) {
      drop(c, 'slow_reader', `${c.ws.bufferedAmount} bytes wait to be written to this connection; it does not read what it is sent`);
    }
  }

  function drop(c: Connection, code: string, message: string): void {
    if (c.closed) return;
    metrics.dropped(code);
    log.info({ game: c.game.id, player: c.who, code }, message);
    send(c, { kind: 'error', code, message }, true);
    end(c, 1008);
  }

  function end(c: Connection, status: number, reason = ''): void {
    if (c.closed) return;
    c.closed = true;
    if (c.helloTimer !== null) clearTimeout(c.helloTimer);
    // A connection refused before it was counted is not uncounted.
    if (connections.delete(c)) {
      const n = (perAddress.get(c.address) ?? 1) - 1;
      if (n > 0) perAddress.set(c.address, n);
      else perAddress.delete(c.address);
    }
    c.game.connections.delete(c);
    if (c.game.connections.size === 0) unloadLater(c.game);
    c.ws.close(status, reason);
    // A peer that never answers the close handshake is cut off.
    setTimeout(() => c.ws.terminate(), 2000).unref();
  }

  function refuse(c: Connection, code: string, message: string): void {
    metrics.refused(code);
    log.debug({ game: c.game.id, player: c.who, code }, message);
    send(c, { kind: 'refused', code, message });
  }

  async function onMessage(c: Connection, data: RawData, isBinary: boolean): Promise<void> {
    if (c.closed) return;
    const now = Date.now();
    c.lastHeard = now;
    c.tokens = Math.min(limits.messageBurst, c.tokens + ((now - c.refilledAt) * limits.messagesPerSecond) / 1000);
    c.refilledAt = now;
    if (c.tokens < 1) return drop(c, 'rate_limited', `more than ${limits.messagesPerSecond} messages a second (burst ${limits.messageBurst})`);
    c.tokens -= 1;
    const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data instanceof ArrayBuffer ? data.byteLength : data.length;
    if (size > limits.maxFrameBytes) return drop(c, 'line_too_long', `a frame of ${size} bytes; the limit is ${limits.maxFrameBytes}`);
    if (isBinary) return drop(c, 'bad_message', 'frames are JSON text');
    let msg: unknown;
    try {
      msg = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8'));
    } catch {
      return drop(c, 'bad_message', 'a frame that is not JSON');
    }
    if (!plainObject(msg) || typeof msg.kind !== 'string') return drop(c, 'bad_message', 'every message is a JSON object with a string "kind"');
    if (c.who === null) return hello(c, msg);
    if (msg.kind === 'submit') {
      if (typeof msg.text !== 'string') return refuse(c, 'bad_message', 'submit: text must be a string');
      if (closing) return refuse(c, 'shutting_down', 'the relay is shutting down; submit again to the relay when it is back');
      return submit(c, msg.text);
    }
    if (msg.kind === 'sync') {
      if (typeof msg.from !== 'number' || !Number.isSafeInteger(msg.from) || msg.from < 0)
        return refuse(c, 'bad_message', 'sync: from must be a non-negative integer');
      return c.sync.ask(msg.from);
    }
    return drop(c, 'bad_message', 'after hello, a client sends {kind: "submit", text} or {kind: "sync", from}');
  }

  function hello(c: Connection, msg: Record<string, unknown>): void {
    if (msg.kind !== 'hello') return drop(c, 'bad_hello', 'the first message is {kind: "hello", id, sig}');
    const id = msg.id;
    // A Map lookup: an id such as "__proto__" finds nothing.
    const key = typeof id === 'string' ? c.game.door.checker.keys.get(id) : undefined;
    const ok = key !== undefined && isHex(msg.sig, 64) && verifyHello(c.game.id, c.nonce, fromHex(msg.sig), key, nativeVerify);
    if (!ok) return drop(c, 'bad_hello', 'hello: not signed by a player of this game over this challenge');
    if (c.helloTimer !== null) clearTimeout(c.helloTimer);
    c.helloTimer = null;
    c.who = id as string;
    send(c, { kind: 'welcome', lines: c.game.committed });
  }

  function submit(c: Connection, text: string): void {
    const g = c.game;
    if (storage.full !== null) return refuse(c, 'storage_full', `the relay stores nothing now: ${storage.full}; submit again later`);
    const over = overQuota(g.usage, text.length, quotas);
    if (over !== null) return refuse(c, 'game_full', over);
    if (g.sealed !== null) {
      // A sealed game's lines take the event loop's own path, one at a time: the room checks a sealed envelope
      // against the door as it stands, so no earlier line of the game may still be on the verifying threads;
      // and one time for the whole submission, so a sealed set due by then is released before this line.
      const now = clock();
      if (g.sealed.submit(sealedPeer(c), text, now)) return;
      admitted(c, text, g.door.admit(text, c.who!), now);
      return;
    }
    g.usage.comingLines++;
    g.usage.comingBytes += text.length;
    intake.submit(g.door, c, c.who!, text);
  }

  /** The door's answer to a line `c` submitted, in the order the game's lines arrived. */
  function admitted(c: Connection, text: string, a: Admission, now = clock()): void {
    const g = c.game;
    // A game forgotten after a failed append: its door is not the one that will be rebuilt.
    if (g.unloaded) return;
    if (!a.ok) return refuse(c, a.code, a.message);
    if (a.duplicate) {
      // An honest resend: the submitter is told again where its line stands, once it is stored.
      if (a.line < g.committed) void store.readLines(g.id, a.line, 1).then((r) => r[0] && send(c, { kind: 'accepted', line: a.line, receipt: r[0].receipt }));
      return;
    }
    g.sealed?.observe(text);
    writer.add(pending(g, a.line, a.hash, text, now, c));
  }

  // Sealed mode: the room sees the relay through these (sealed.ts).
  /** Sealed games in memory, for their rooms' callbacks (which may run before loadGame's promise resolves). */
  const sealedGames = new Map<string, Game>();
  function roomHost(id: string, self: () => Game | undefined): RoomHost {
    return {
      store,
      secretKey,
      clock,
      log,
      record(text, author, time) {
        const g = self();
        // The room of a game forgotten after a failed append: the rebuilt game's room releases its sets.
        if (g === undefined || g.unloaded) return;
        const a = g.door.admit(text, author);
        if (!a.ok || a.duplicate) {
          // Only a view that fell out of the checker's window while held gets here (sealed.md §8): the relay
          // cannot keep its promise, and the author's holding receipt says so.
          log.error({ game: id, player: author, code: a.ok ? 'duplicate' : a.code }, 'a released sealed envelope no longer passes the door');
          return;
        }
        g.sealed?.observe(text);
        writer.add(pending(g, a.line, a.hash, text, time, null));
      },
      flush: () => writer.flush(),
    };
  }
  const sealedPeer = (c: Connection) => ({
    who: c.who!,
    send: (m: Record<string, unknown>) => send(c, m),
    refuse: (code: string, message: string) => send(c, { kind: 'refused', code, message }),
  });

  /** One `sync` answer: a page of stored lines from `from` on (reads.ts paces them); the bytes it sent. */
  async function syncPage(c: Connection, from: number, maxBytes: number): Promise<number> {
    const upTo = c.game.committed;
    if (from >= upTo || c.closed) return 0;
    const batch = await pageQueue.run(() => readPage(store, c.game.id, from, Math.min(limits.syncBatch, upTo - from), maxBytes));
    let bytes = 0;
    for (const l of batch) {
      bytes += lineCost(l);
      send(c, { kind: 'entry', line: l.line, text: l.text, receipt: l.receipt });
    }
    return bytes;
  }

  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const match = /^\/games\/([0-9a-f]{64})\/ws(?:\?.*)?$/.exec(req.url ?? '');
    /** A plain HTTP refusal; the connection caps say why in the relay's coded JSON body. */
    const reject = (status: number, text: string, code?: string, message?: string): void => {
      const body = code === undefined ? '' : JSON.stringify(failure(code, message ?? code));
      const type = body === '' ? '' : 'Content-Type: application/json\r\n';
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\n${type}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    };
    if (closing) return reject(503, 'Service Unavailable');
    if (match === null) return reject(404, 'Not Found');
    const address = clientKey(req.socket.remoteAddress);
    const fromAddress = `this address has ${limits.connectionsPerAddress} connections open, the most the relay serves to one address`;
    // Before the global cap: an address at its own cap makes no other connection give way.
    if ((perAddress.get(address) ?? 0) >= limits.connectionsPerAddress) {
      metrics.dropped('too_many_connections_from_address');
      return reject(429, 'Too Many Requests', 'too_many_connections_from_address', fromAddress);
    }
    if (connections.size >= limits.maxConnections) {
      // The oldest connection still without a hello makes room: idle connections cannot keep a player out.
      for (const other of connections) {
        if (other.who === null) {
          drop(other, 'too_many_connections', `the relay serves at most ${limits.maxConnections} connections; the oldest one without a hello gives way`);
          break;
        }
      }
    }
    if (connections.size >= limits.maxConnections) {
      metrics.dropped('too_many_connections');
      return reject(503, 'Service Unavailable', 'too_many_connections', `the relay serves at most ${limits.maxConnections} connections`);
    }
    let game: Game | null;
    try {
      game = await loadGame(match[1]!);
    } catch (e) {
      log.error({ err: e, game: match[1] }, 'cannot load game');
      return reject(500, 'Internal Server Error');
    }
    if (game === null) {
      // A coded close the client can tell from a network failure (relay.md §3): it does not reconnect.
      metrics.dropped('unknown_game');
      return wss.handleUpgrade(req, socket, head, (ws) => ws.close(UNKNOWN_GAME_CLOSE, 'unknown_game'));
    }
    const g = game;
    wss.handleUpgrade(req, socket, head, (ws) => {
      freshFragmentsOnRead(ws, socket);
      const now = Date.now();
      const c: Connection = {
        ws,
        game: g,
        address,
        nonce: toHex(randomBytes(32)),
        who: null,
        tokens: limits.messageBurst,
        refilledAt: now,
        lastHeard: now,
        helloTimer: null,
        closed: false,
        sync: new SyncPacer(readLimits, (from, max) => syncPage(c, from, max)),
      };
      if (closing) return void ws.close(1001, 'shutting down');
      // The game left memory while this upgrade was under way: one door per game, so the client comes again.
      if (g.unloaded) return void ws.close(1013, 'try again');
      // Upgrades from one address that passed the check above together, while their game was loading.
      if ((perAddress.get(address) ?? 0) >= limits.connectionsPerAddress) return drop(c, 'too_many_connections_from_address', fromAddress);
      connections.add(c);
      perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
      // Every connection of the game, with or without a hello, keeps the game in memory; entries go only to those with one.
      g.connections.add(c);
      c.helloTimer = setTimeout(() => drop(c, 'hello_timeout', `no valid hello within ${limits.helloTimeoutMs} ms`), limits.helloTimeoutMs);
      ws.on('message', (data, isBinary) => {
        onMessage(c, data, isBinary).catch((e: unknown) => {
          // Nothing a client sends may throw out of the relay; a fault here ends only this connection.
          log.error({ err: e, game: g.id }, 'message handling failed');
          drop(c, 'bad_message', `the relay could not process this message (${(e as Error).message})`);
        });
      });
      ws.on('pong', () => (c.lastHeard = Date.now()));
      ws.on('error', (e) => {
        const code = (e as { code?: string }).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 'line_too_long' : 'bad_message';
        metrics.dropped(code);
        end(c, code === 'line_too_long' ? 1009 : 1002);
      });
      ws.on('close', () => end(c, 1000));
      send(c, { kind: 'challenge', nonce: c.nonce, relay: publicKey });
    });
  }
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    onUpgrade(req, socket, head).catch(() => socket.destroy());
  });

  // Idle connections: pinged at half the idle time; one that answers nothing for idleMs is closed.
  const idleCheck = setInterval(
    () => {
      const now = Date.now();
      for (const c of connections) {
        if (now - c.lastHeard > limits.idleMs) drop(c, 'idle', `nothing from this connection for ${limits.idleMs} ms`);
        else if (c.ws.readyState === c.ws.OPEN) c.ws.ping();
      }
    },
    Math.max(50, Math.floor(limits.idleMs / 2)),
  );
  idleCheck.unref();

  // A relay started on a full disk starts refusing writes, and lets them in once there is room.
  await storage.start();
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
      if (closing) return;
      closing = true;
      log.info('shutting down: no new connections or games; storing and acknowledging what was admitted');
      clearInterval(idleCheck);
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
      await store.close();
      // And what the witness admitted since, before its store closes.
      await witness.flush();
      await witnessStore.close();
      log.info('relay stopped');
    },
  };
}
