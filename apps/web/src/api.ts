/**
 * The relay's lobby routes as the page calls them (docs/spec/web.md §2), on the origin that served the page.
 */
import { parseJson } from '@fairtable/core/jcs.js';
import { isLobbyView, type Offer } from '@fairtable/core/lobby.js';

export type { Offer };

export interface LobbySeat {
  readonly id: string;
  readonly key: string | null;
}

export interface LobbyView {
  readonly lobby: string;
  /** As the relay serves it: read with core's `readOffer` before use (the relay is not trusted). */
  readonly offer: unknown;
  readonly creator: string;
  readonly seats: readonly LobbySeat[];
  readonly game: string | null;
  /** The creator's signature binding `game` to this lobby (core's `signLobbyGame`). */
  readonly gameSig?: string | null;
}

/** What the page says for a game the relay does not hold. */
export const NO_SUCH_GAME = 'No such game on this relay';

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let value: unknown = null;
  try {
    value = JSON.parse(text);
  } catch {
    // not JSON: reported below
  }
  if (!response.ok) {
    const e = (value as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(e?.code ?? 'connection_failed', e?.message ?? `the relay answered ${response.status}`);
  }
  return value as T;
}

/** `invites`: each other seat's invite-secret hash (core's `seatSecretHash`). */
export const openLobby = (offer: Offer, seats: readonly string[], creator: string, key: string, invites: Record<string, string>): Promise<LobbyView> =>
  call('POST', '/lobbies', { offer, seats, creator, key, invites });
export async function readLobby(lobby: string): Promise<LobbyView> {
  const view = await call<unknown>('GET', `/lobbies/${lobby}`);
  if (!isLobbyView(view)) throw new ApiError('bad_lobby', 'This lobby cannot be read: the relay answered something that is not a lobby');
  return view as LobbyView;
}
export const takeSeat = (lobby: string, seat: string, key: string, secret: string): Promise<LobbyView> =>
  call('PUT', `/lobbies/${lobby}/seats/${encodeURIComponent(seat)}`, { key, secret });
export const setLobbyGame = (lobby: string, game: string, sig: string): Promise<LobbyView> => call('PUT', `/lobbies/${lobby}/game`, { game, sig });
export const readGameInfo = async (game: string): Promise<{ game: string; protocol: string; players: { id: string; key: string }[]; lines: number }> => {
  try {
    return await call('GET', `/games/${game}`);
  } catch (e) {
    throw e instanceof ApiError && e.code === 'unknown_game' ? new ApiError('unknown_game', NO_SUCH_GAME) : e;
  }
};
export async function readTranscript(game: string): Promise<string> {
  const r = await fetch(`/games/${game}/transcript`);
  if (r.status === 404) throw new ApiError('unknown_game', NO_SUCH_GAME);
  if (!r.ok) throw new ApiError('connection_failed', `the relay answered ${r.status}`);
  return r.text();
}
/** The setup in a game's first line, as the relay serves it (unchecked: the caller compares its hash with the game id). */
export async function readSetup(game: string): Promise<unknown> {
  const first = (await readTranscript(game)).split('\n', 1)[0] ?? '';
  try {
    return (parseJson(first, 'setup line') as { body?: { setup?: unknown } }).body?.setup ?? null;
  } catch {
    return null;
  }
}
/** The relay's receipts for the game's log (docs/spec/relay.md §3), one JSON object a line. */
export async function readReceipts(game: string): Promise<unknown[]> {
  const r = await fetch(`/games/${game}/receipts`);
  if (!r.ok) throw new ApiError('unknown_game', `the relay answered ${r.status}`);
  return (await r.text())
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown);
}
