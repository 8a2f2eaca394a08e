/**
 * Lobbies (docs/spec/web.md §2): where the players of a game that does not exist yet gather their public keys.
 * A game's setup names every player's key and its id is the setup's hash, so the keys must be known before the
 * game can be created; an invite link points at a lobby seat, the invited player's browser makes its key and
 * puts the public half there, and the creator's browser, once every seat is taken, signs the setup, creates the
 * game and writes its id into the lobby for the others to follow.
 *
 * The lobby is not trusted any more than the relay: it carries public keys only, and every player checks that
 * the setup it is asked to play names its own key for its seat before it plays. Lobbies live in memory (a
 * relay restart loses the ones still gathering; games are in the store) and expire after a day.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { isHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { isPlayerId } from '@fairtable/core/envelope.js';

export interface LobbyLimits {
  /** Lobbies kept at once; the oldest gives way. */
  readonly maxLobbies: number;
  /** How long a lobby is kept after it was opened, ms. */
  readonly ttlMs: number;
  readonly maxSeats: number;
  /** The offer (protocol, parameters) as the creator wrote it, JSON bytes. */
  readonly maxOfferBytes: number;
}

export const DEFAULT_LOBBY_LIMITS: LobbyLimits = { maxLobbies: 10_000, ttlMs: 24 * 3_600_000, maxSeats: 16, maxOfferBytes: 8_192 };

interface Lobby {
  readonly id: string;
  readonly created: number;
  /** What the creator proposes: opaque to the relay, shown to the invited. */
  readonly offer: unknown;
  /** The seat the creator plays; it signs the setup. */
  readonly creator: string;
  readonly seats: Map<string, string | null>;
  game: string | null;
}

const failure = (code: string, message: string) => ({ error: { code, message } });

function view(l: Lobby): Record<string, unknown> {
  return { lobby: l.id, offer: l.offer, creator: l.creator, seats: [...l.seats].map(([id, key]) => ({ id, key })), game: l.game };
}

async function jsonBody(c: Context): Promise<Record<string, unknown> | null> {
  try {
    const v = (await c.req.json()) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The lobby routes, mounted at `/lobbies`. `clock` is the relay's. */
export function lobbyRoutes(clock: () => number = Date.now, limits: LobbyLimits = DEFAULT_LOBBY_LIMITS): Hono {
  const lobbies = new Map<string, Lobby>();
  const app = new Hono();
  const find = (id: string): Lobby | null => {
    const l = lobbies.get(id);
    if (l === undefined) return null;
    if (clock() - l.created > limits.ttlMs) {
      lobbies.delete(id);
      return null;
    }
    return l;
  };
  const missing = (c: Context) => c.json(failure('unknown_lobby', 'no such lobby on this relay (lobbies last a day, and not across a restart)'), 404);
  app.use('*', bodyLimit({ maxSize: limits.maxOfferBytes * 2, onError: (c) => c.json(failure('line_too_long', 'the request is too large'), 413) }));

  app.post('/', async (c) => {
    const body = await jsonBody(c);
    const seats = body?.seats;
    const creator = body?.creator;
    const key = body?.key;
    if (!Array.isArray(seats) || seats.length < 2 || seats.length > limits.maxSeats || !seats.every(isPlayerId) || new Set(seats).size !== seats.length)
      return c.json(failure('bad_input', `seats: 2 to ${limits.maxSeats} distinct player names`), 400);
    if (typeof creator !== 'string' || !seats.includes(creator)) return c.json(failure('bad_input', 'creator: one of the seats'), 400);
    if (!isHex(key, 32)) return c.json(failure('bad_hex', "key: the creator's public key, 64 hex digits"), 400);
    if (JSON.stringify(body?.offer ?? null).length > limits.maxOfferBytes) return c.json(failure('bad_input', 'offer: too large'), 400);
    while (lobbies.size >= limits.maxLobbies) lobbies.delete(lobbies.keys().next().value!);
    const id = toHex(randomBytes(16));
    const lobby: Lobby = { id, created: clock(), offer: body?.offer ?? null, creator, seats: new Map(seats.map((s: string) => [s, null])), game: null };
    lobby.seats.set(creator, key);
    lobbies.set(id, lobby);
    return c.json(view(lobby), 201);
  });

  app.get('/:lobby', (c) => {
    const l = find(c.req.param('lobby'));
    return l === null ? missing(c) : c.json(view(l));
  });

  // Taking a seat: the first key wins it; the same key again is an idempotent retry.
  app.put('/:lobby/seats/:seat', async (c) => {
    const l = find(c.req.param('lobby'));
    if (l === null) return missing(c);
    const seat = c.req.param('seat');
    if (!l.seats.has(seat)) return c.json(failure('unknown_player', `no seat ${seat} in this lobby`), 404);
    const key = (await jsonBody(c))?.key;
    if (!isHex(key, 32)) return c.json(failure('bad_hex', 'key: a public key, 64 hex digits'), 400);
    const held = l.seats.get(seat);
    if (held !== null && held !== key) return c.json(failure('seat_taken', `seat ${seat} is taken by another key`), 409);
    if (held === null && l.game !== null) return c.json(failure('seat_taken', 'the game has started'), 409);
    l.seats.set(seat, key);
    return c.json(view(l));
  });

  // The game made from the lobby: written once, by whoever holds the setup (every player checks the setup itself).
  app.put('/:lobby/game', async (c) => {
    const l = find(c.req.param('lobby'));
    if (l === null) return missing(c);
    const game = (await jsonBody(c))?.game;
    if (!isHex(game, 32)) return c.json(failure('bad_hex', 'game: a game id, 64 hex digits'), 400);
    if ([...l.seats.values()].includes(null)) return c.json(failure('bad_input', 'not every seat is taken'), 409);
    if (l.game !== null && l.game !== game) return c.json(failure('game_exists', 'this lobby already made its game'), 409);
    l.game = game;
    return c.json(view(l));
  });
  return app;
}
