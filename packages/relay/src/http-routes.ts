/**
 * The relay's HTTP routes (docs/spec/relay.md §3, hono): games created (`POST /games`), their summaries,
 * transcripts and receipts, `/health`, `/metrics`, `GET /relay` (its key and its operator's witnesses,
 * docs/spec/time.md §5), the lobbies (web.md §2), the witness routes (relay.md §8) and the page (web.md §1);
 * writes refused while storage is full (§5, "Storage").
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { isHex, toHex } from '@fairtable/core/bytes.js';
import { Door } from '@fairtable/core/door.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { firstLogHash, signReceiptBatch, type Receipt } from '@fairtable/core/order/receipt.js';
import { sealedRule } from '@fairtable/core/order/sealer.js';
import { checkSetupWitnesses } from '@fairtable/core/order/witness-url.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import type { Connection, Game } from './games.js';
import { lobbyRoutes, lobbyStoreOf, sharedLobbiesOf, DEFAULT_LOBBY_LIMITS } from './lobby.js';
import { servePage } from './page.js';
import type { CreatorCounts } from './quotas.js';
import { clientKey, rateLimited, RateLimiter, remoteAddress } from './rate-limit.js';
import { serveLines, type PageQueue, type ReadGate } from './reads.js';
import { failure, type RelayCore } from './relay-options.js';
import { isStorageError, renderStorage } from './storage-watch.js';
import { witnessRoutes, type WitnessApp, type WitnessStore } from './witness.js';

export interface HttpDeps {
  readonly core: RelayCore;
  readonly witnessStore: WitnessStore;
  readonly readGate: ReadGate;
  readonly pageQueue: PageQueue;
  readonly creators: CreatorCounts;
  readonly loadGame: (id: string) => Promise<Game | null>;
  /** The open WebSocket connections, counted in `/metrics`. */
  readonly connections: ReadonlySet<Connection>;
  /** Games in memory now. */
  readonly loaded: () => number;
  /** Whether the relay is shutting down. */
  readonly closing: () => boolean;
}

export function httpRoutes(deps: HttpDeps): { readonly app: Hono; readonly witness: WitnessApp } {
  const { options, limits, readLimits, log, clock, store, secretKey, publicKey, metrics, storage } = deps.core;
  const { witnessStore, readGate, pageQueue, creators, loadGame, connections, loaded, closing } = deps;
  /** A line's receipt alone: a batch of one. */
  const receipt = (game: string, line: number, hash: string, logHash: string, time = clock()): Receipt =>
    signReceiptBatch([{ v: 2, game, line, hash, log: logHash, time }], secretKey, nativeSign)[0]!;

  const app = new Hono();
  app.onError((e, c) => {
    // A game another process of the service orders (leases.ts), a database out of reach: not the client's fault, and it may pass.
    if (e instanceof FairtableError) return c.json(failure(e.code, e.message), e.code === 'lease_lost' || e.code === 'store_failed' ? 503 : 400);
    log.error({ err: e }, 'request failed');
    return c.json(failure('internal', 'the relay could not answer this request'), 500);
  });
  app.notFound((c) => c.json(failure('not_found', `no such route: ${c.req.method} ${c.req.path}`), 404));
  servePage(app, publicKey, options.webDir);
  // One bucket per client address for the HTTP routes that keep what they are given (relay.md §5).
  const httpLimiter = new RateLimiter({ perSecond: limits.messagesPerSecond, burst: limits.messageBurst, maxClients: limits.httpClients });
  const httpRefused = (code: string): void => metrics.refused(code);
  /** A write refused for want of space (relay.md §5, "Storage"). */
  const storageFull = (c: Context) => {
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
    lobbyRoutes(
      clock,
      { ...DEFAULT_LOBBY_LIMITS, ...options.lobbyLimits },
      { store: lobbyStoreOf(store), shared: sharedLobbiesOf(store), rateLimiter: httpLimiter, onRefused: httpRefused },
    ),
  );
  // Serving is health: a relay that refuses writes for want of space still serves reads, and says so.
  app.get('/health', (c) =>
    c.json(
      {
        ok: !closing(),
        ...(storage.full === null ? {} : { writable: false, storage: { code: 'storage_full', message: storage.full } }),
        ...(deps.core.leases === null ? {} : deps.core.leases.health()),
      },
      closing() ? 503 : 200,
    ),
  );
  // What a client binds a new game to (docs/spec/time.md §5): the key its receipts are signed with, and the witnesses.
  app.get('/relay', (c) => c.json({ relay: publicKey, witnesses: options.witnesses ?? [] }, 200));
  app.get('/metrics', (c) =>
    c.text(metrics.render({ connections: connections.size, games: loaded() }) + renderStorage(storage) + (deps.core.leases?.render() ?? ''), 200, {
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
      if (closing()) return c.json(failure('shutting_down', 'the relay is shutting down'), 503);
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
  const jsonLines = (what: (l: { text: string; receipt: Receipt }) => string, size: (g: Game) => number) => async (c: Context) => {
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
  return { app, witness };
}
