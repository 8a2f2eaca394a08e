/**
 * Lobbies (docs/spec/web.md §2): where the players of a game that does not exist yet gather their public keys.
 * A game's setup names every player's key and its id is the setup's hash, so the keys must be known before the
 * game can be created; an invite link points at a lobby seat, the invited player's browser makes its key and
 * puts the public half there, and the creator's browser, once every seat is taken, signs the setup, creates the
 * game and writes its id into the lobby for the others to follow.
 *
 * The lobby is not trusted any more than the relay: it carries public keys only, and every player checks the
 * game's whole setup against the offer it accepted before it plays. What the lobby enforces itself, so that one
 * invite link cannot be used against the others: an offer fits core's `offerSchema` (`400 bad_offer`); each
 * seat is taken only with its own invite secret (the lobby keeps only its hash, `403 bad_invite`); the game id
 * is written only with the creator's signature over {lobby, game} (`403 bad_signature`).
 *
 * Lobbies are kept in memory and, when the relay's store can (`Store.saveLobby`…), in the store too, written
 * before each change is answered, so a restart on the same DATA_DIR finds every lobby still open (web.md §2).
 * Bounds: `maxLobbies` in all (expired ones leave first, then the oldest), `maxLobbiesPerClient` open at once
 * per client address, `maxSeats` and `maxOfferBytes` per lobby; a lobby expires `ttlMs` after it was opened,
 * on the relay's clock; the routes are rate-limited per address like the witness's (rate-limit.ts).
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { isHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { isPlayerId } from '@fairtable/core/envelope.js';
import { offerError, seatSecretHash, verifyLobbyGame } from '@fairtable/core/lobby.js';
import { clientKey, rateLimited, remoteAddress, type RateLimiter } from './rate-limit.js';
import type { Store, StoredLobby } from './store.js';

export interface LobbyLimits {
  /** Lobbies kept at once; the oldest gives way. */
  readonly maxLobbies: number;
  /** How long a lobby is kept after it was opened, ms. */
  readonly ttlMs: number;
  readonly maxSeats: number;
  /** The offer (protocol, parameters) as the creator wrote it, JSON bytes. */
  readonly maxOfferBytes: number;
  /** Lobbies one client address may have open at once (counted in memory: a restart forgets who opened which). */
  readonly maxLobbiesPerClient?: number;
}

export const DEFAULT_LOBBY_LIMITS: LobbyLimits = { maxLobbies: 10_000, ttlMs: 24 * 3_600_000, maxSeats: 16, maxOfferBytes: 8_192, maxLobbiesPerClient: 50 };

/** Where lobbies are kept beside memory: the relay's store, when it has the lobby methods. */
export type LobbyStore = Required<Pick<Store, 'saveLobby' | 'deleteLobby' | 'listLobbies'>>;

/** A store whose lobbies every process of the service reads on demand and changes over what it read. */
export type SharedLobbies = Required<Pick<Store, 'readLobby' | 'replaceLobby'>>;

export interface LobbyOptions {
  readonly store?: LobbyStore | undefined;
  /**
   * Lobbies shared with the other processes of the service through the store: each request reads its lobby
   * there, and a change is written only over what was read (another process's change meanwhile: read again).
   */
  readonly shared?: SharedLobbies | undefined;
  /** The per-address rate limit of the relay's HTTP routes; none when absent. */
  readonly rateLimiter?: RateLimiter;
  /** Counts a refusal by code (the relay's metrics). */
  readonly onRefused?: (code: string) => void;
}

/** The store's shared lobby methods, when it has them. */
export function sharedLobbiesOf(store: Store): SharedLobbies | undefined {
  const { readLobby, replaceLobby } = store;
  if (readLobby === undefined || replaceLobby === undefined) return undefined;
  return { readLobby: readLobby.bind(store), replaceLobby: replaceLobby.bind(store) };
}

/** The store's lobby methods, when it has all of them. */
export function lobbyStoreOf(store: Store): LobbyStore | undefined {
  const { saveLobby, deleteLobby, listLobbies } = store;
  if (saveLobby === undefined || deleteLobby === undefined || listLobbies === undefined) return undefined;
  return { saveLobby: saveLobby.bind(store), deleteLobby: deleteLobby.bind(store), listLobbies: listLobbies.bind(store) };
}

interface Lobby {
  readonly id: string;
  readonly created: number;
  /** What the creator proposes: opaque to the relay, shown to the invited. */
  readonly offer: unknown;
  /** The seat the creator plays; it signs the setup. */
  readonly creator: string;
  readonly seats: Map<string, string | null>;
  /** Each seat's invite-secret hash (null: a seat that cannot be taken, the creator's or one stored without). */
  readonly invites: Map<string, string | null>;
  game: string | null;
  /** The creator's signature over {lobby, game} (core's `signLobbyGame`). */
  gameSig: string | null;
  /** The client address that opened it (memory only, on the process that opened it), for `maxLobbiesPerClient`. */
  opener: string | null;
}

/** A lobby as the store keeps it: its id, its opening time and the rest as JSON. */
function stored(l: Lobby): StoredLobby {
  const body = { offer: l.offer, creator: l.creator, seats: [...l.seats], invites: [...l.invites], game: l.game, gameSig: l.gameSig };
  return { id: l.id, created: l.created, body: JSON.stringify(body) };
}

/** A stored lobby read back; null for one that is not readable (it is dropped, not served). */
function revive(s: StoredLobby): Lobby | null {
  try {
    const b = JSON.parse(s.body) as { offer?: unknown; creator?: unknown; seats?: unknown; invites?: unknown; game?: unknown; gameSig?: unknown };
    if (typeof b.creator !== 'string' || !Array.isArray(b.seats) || !(b.game === null || isHex(b.game, 32))) return null;
    const seats = new Map<string, string | null>();
    for (const pair of b.seats as unknown[]) {
      if (!Array.isArray(pair) || !isPlayerId(pair[0]) || !(pair[1] === null || isHex(pair[1], 32))) return null;
      seats.set(pair[0] as string, pair[1] as string | null);
    }
    if (!seats.has(b.creator)) return null;
    // A lobby stored before invite secrets keeps its seats, but an open one of them cannot be taken.
    const invites = new Map<string, string | null>([...seats.keys()].map((k) => [k, null]));
    for (const pair of Array.isArray(b.invites) ? (b.invites as unknown[]) : []) {
      if (!Array.isArray(pair) || !seats.has(pair[0] as string) || !(pair[1] === null || isHex(pair[1], 32))) return null;
      invites.set(pair[0] as string, pair[1] as string | null);
    }
    const game = (b.game as string | null) ?? null;
    const gameSig = isHex(b.gameSig, 64) ? b.gameSig : null;
    // A game id without the creator's signature (stored before signatures) is not served: the creator writes it again.
    const signed = game !== null && gameSig !== null && verifyLobbyGame(s.id, game, gameSig, seats.get(b.creator) ?? '');
    return {
      id: s.id,
      created: s.created,
      offer: b.offer ?? null,
      creator: b.creator,
      seats,
      invites,
      game: signed ? game : null,
      gameSig: signed ? gameSig : null,
      opener: null,
    };
  } catch {
    return null;
  }
}

const failure = (code: string, message: string) => ({ error: { code, message } });

function view(l: Lobby): Record<string, unknown> {
  return { lobby: l.id, offer: l.offer, creator: l.creator, seats: [...l.seats].map(([id, key]) => ({ id, key })), game: l.game, gameSig: l.gameSig };
}

async function jsonBody(c: Context): Promise<Record<string, unknown> | null> {
  try {
    const v = (await c.req.json()) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The lobby routes, mounted at `/lobbies`. `clock` is the relay's; with `options.store`, lobbies outlive a restart. */
export function lobbyRoutes(clock: () => number = Date.now, limits: LobbyLimits = DEFAULT_LOBBY_LIMITS, options: LobbyOptions = {}): Hono {
  /** Open lobbies, oldest first (a lobby is never re-inserted, so the map's order is the order of opening). */
  const lobbies = new Map<string, Lobby>();
  const perClient = new Map<string, number>();
  const store = options.store;
  const shared = store === undefined ? undefined : options.shared;
  /** Shared lobbies: the stored body each was read as, which a change must still find to replace it. */
  const readAs = new WeakMap<Lobby, string>();
  const refused = options.onRefused ?? (() => {});
  const app = new Hono();

  function forget(l: Lobby): Promise<void> {
    lobbies.delete(l.id);
    if (l.opener !== null) {
      const n = (perClient.get(l.opener) ?? 1) - 1;
      if (n <= 0) perClient.delete(l.opener);
      else perClient.set(l.opener, n);
    }
    return store?.deleteLobby(l.id) ?? Promise.resolve();
  }
  const expired = (l: Lobby): boolean => clock() - l.created > limits.ttlMs;
  /** Expired lobbies leave from the front: they are the oldest. */
  async function sweep(): Promise<void> {
    for (const l of lobbies.values()) {
      if (!expired(l)) break;
      await forget(l);
    }
  }
  // The lobbies kept before a restart, oldest first; the expired and unreadable ones are dropped from the store.
  const ready: Promise<void> = (async () => {
    if (store === undefined) return;
    const kept = (await store.listLobbies()).sort((a, b) => a.created - b.created);
    for (const s of kept) {
      const l = revive(s);
      if (l === null || expired(l)) await store.deleteLobby(s.id);
      else lobbies.set(l.id, l);
    }
    while (lobbies.size > limits.maxLobbies) await forget(lobbies.values().next().value!);
  })();
  const save = (l: Lobby): Promise<void> => store?.saveLobby(stored(l)) ?? Promise.resolve();
  /** A change to a lobby written; false when, shared, another process changed it since it was read. */
  const change = async (l: Lobby): Promise<boolean> => {
    const was = readAs.get(l);
    if (shared === undefined || was === undefined) return save(l).then(() => true);
    const next = stored(l);
    if (!(await shared.replaceLobby(next, was))) return false;
    readAs.set(l, next.body);
    return true;
  };
  /** Tries a change a few times over what was read again, when other processes change the lobby meanwhile. */
  const CHANGE_TRIES = 8;
  const busy = (c: Context) => bad(c, 'lobby_busy', 'the lobby changed under this request too often; send it again', 409);

  const find = async (id: string): Promise<Lobby | null> => {
    await ready;
    let l = lobbies.get(id);
    if (shared !== undefined) {
      // The store is the lobby: another process may have opened or changed it.
      const s = await shared.readLobby(id);
      const read = s === null ? null : revive(s);
      if (read === null) {
        if (l !== undefined) await forget(l);
        return null;
      }
      read.opener = l?.opener ?? null;
      readAs.set(read, s!.body);
      if (l !== undefined) lobbies.set(id, read);
      l = read;
    }
    if (l === undefined) return null;
    if (expired(l)) {
      await forget(l);
      return null;
    }
    return l;
  };
  const missing = (c: Context) => c.json(failure('unknown_lobby', 'no such lobby on this relay (lobbies last a day)'), 404);
  const bad = (c: Context, code: string, message: string, status: 400 | 403 | 404 | 409 | 429) => {
    refused(code);
    return c.json(failure(code, message), status);
  };
  if (options.rateLimiter !== undefined) app.use('*', rateLimited(options.rateLimiter, refused));
  // The offer, and per seat its name, key and invite hash.
  app.use(
    '*',
    bodyLimit({
      maxSize: limits.maxOfferBytes + 256 * limits.maxSeats + 1024,
      onError: (c) => c.json(failure('line_too_long', 'the request is too large'), 413),
    }),
  );

  app.post('/', async (c) => {
    await ready;
    const body = await jsonBody(c);
    const seats = body?.seats;
    const creator = body?.creator;
    const key = body?.key;
    if (!Array.isArray(seats) || seats.length < 2 || seats.length > limits.maxSeats || !seats.every(isPlayerId) || new Set(seats).size !== seats.length)
      return bad(c, 'bad_input', `seats: 2 to ${limits.maxSeats} distinct player names`, 400);
    if (typeof creator !== 'string' || !seats.includes(creator)) return bad(c, 'bad_input', 'creator: one of the seats', 400);
    if (!isHex(key, 32)) return bad(c, 'bad_hex', "key: the creator's public key, 64 hex digits", 400);
    if (JSON.stringify(body?.offer ?? null).length > limits.maxOfferBytes) return bad(c, 'bad_input', 'offer: too large', 400);
    const offerProblem = offerError(body?.offer);
    if (offerProblem !== null) return bad(c, 'bad_offer', offerProblem, 400);
    const invites = body?.invites as Record<string, unknown> | null | undefined;
    const others = (seats as string[]).filter((s) => s !== creator);
    if (
      invites === null ||
      typeof invites !== 'object' ||
      Array.isArray(invites) ||
      Object.keys(invites).length !== others.length ||
      !others.every((s) => Object.hasOwn(invites, s) && isHex(invites[s], 32))
    )
      return bad(c, 'bad_input', "invites: each other seat's invite-secret hash, 64 hex digits", 400);
    await sweep();
    const opener = clientKey(remoteAddress(c));
    const most = limits.maxLobbiesPerClient ?? Infinity;
    if ((perClient.get(opener) ?? 0) >= most)
      return bad(c, 'too_many_lobbies', `at most ${most} lobbies open at once from one address; they close ${limits.ttlMs} ms after opening`, 429);
    while (lobbies.size >= limits.maxLobbies) await forget(lobbies.values().next().value!);
    const id = toHex(randomBytes(16));
    const lobby: Lobby = {
      id,
      created: clock(),
      offer: body?.offer ?? null,
      creator,
      seats: new Map(seats.map((s: string) => [s, null])),
      invites: new Map(seats.map((s: string) => [s, s === creator ? null : (invites[s] as string)])),
      game: null,
      gameSig: null,
      opener,
    };
    lobby.seats.set(creator, key);
    await save(lobby);
    lobbies.set(id, lobby);
    perClient.set(opener, (perClient.get(opener) ?? 0) + 1);
    return c.json(view(lobby), 201);
  });

  app.get('/:lobby', async (c) => {
    const l = await find(c.req.param('lobby'));
    return l === null ? missing(c) : c.json(view(l));
  });

  // Taking a seat, with that seat's invite secret: the first key wins it; the same key again is an idempotent retry.
  app.put('/:lobby/seats/:seat', async (c) => {
    const body = await jsonBody(c);
    for (let attempt = 0; attempt < CHANGE_TRIES; attempt++) {
      const l = await find(c.req.param('lobby'));
      if (l === null) return missing(c);
      const seat = c.req.param('seat');
      if (!l.seats.has(seat)) return bad(c, 'unknown_player', `no seat ${seat} in this lobby`, 404);
      const key = body?.key;
      if (!isHex(key, 32)) return bad(c, 'bad_hex', 'key: a public key, 64 hex digits', 400);
      const hash = l.invites.get(seat) ?? null;
      if (hash === null || !isHex(body?.secret, 16) || seatSecretHash(body.secret) !== hash)
        return bad(c, 'bad_invite', `this is not the invite of seat ${seat}: each seat is taken with its own invite link`, 403);
      const held = l.seats.get(seat);
      if (held !== null && held !== key) return bad(c, 'seat_taken', `seat ${seat} is taken by another key`, 409);
      if (held === null && l.game !== null) return bad(c, 'seat_taken', 'the game has started', 409);
      if (held === null) {
        l.seats.set(seat, key);
        const written = await change(l).catch((e: unknown) => {
          l.seats.set(seat, null);
          throw e;
        });
        if (!written) continue;
      }
      return c.json(view(l));
    }
    return busy(c);
  });

  // The game made from the lobby: written once, signed by the creator's seat key (every player checks the setup itself).
  app.put('/:lobby/game', async (c) => {
    const body = await jsonBody(c);
    for (let attempt = 0; attempt < CHANGE_TRIES; attempt++) {
      const l = await find(c.req.param('lobby'));
      if (l === null) return missing(c);
      const game = body?.game;
      if (!isHex(game, 32)) return bad(c, 'bad_hex', 'game: a game id, 64 hex digits', 400);
      if ([...l.seats.values()].includes(null)) return bad(c, 'bad_input', 'not every seat is taken', 409);
      if (!verifyLobbyGame(l.id, game, body?.sig, l.seats.get(l.creator) ?? ''))
        return bad(c, 'bad_signature', `sig: the creator ${l.creator}'s signature over {lobby, game}`, 403);
      if (l.game !== null && l.game !== game) return bad(c, 'game_exists', 'this lobby already made its game', 409);
      if (l.game === null) {
        l.game = game;
        l.gameSig = body?.sig as string;
        const written = await change(l).catch((e: unknown) => {
          l.game = null;
          l.gameSig = null;
          throw e;
        });
        if (!written) continue;
      }
      return c.json(view(l));
    }
    return busy(c);
  });
  return app;
}
