/**
 * The relay's lobby routes as the page calls them (docs/spec/web.md §2), on the origin that served the page.
 */
export interface LobbySeat {
  readonly id: string;
  readonly key: string | null;
}

export interface Offer {
  readonly protocol: 'dice' | 'snakes' | 'monopoly' | 'rochambeau' | 'signidice' | 'diplomacy';
  /** Rounds; Diplomacy: game years. */
  readonly rounds: number;
  /** Rochambeau: the number of states N. */
  readonly states: number;
  readonly timeoutMs: number;
}

export interface LobbyView {
  readonly lobby: string;
  readonly offer: Offer;
  readonly creator: string;
  readonly seats: readonly LobbySeat[];
  readonly game: string | null;
}

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

export const openLobby = (offer: Offer, seats: readonly string[], creator: string, key: string): Promise<LobbyView> =>
  call('POST', '/lobbies', { offer, seats, creator, key });
export const readLobby = (lobby: string): Promise<LobbyView> => call('GET', `/lobbies/${lobby}`);
export const takeSeat = (lobby: string, seat: string, key: string): Promise<LobbyView> =>
  call('PUT', `/lobbies/${lobby}/seats/${encodeURIComponent(seat)}`, { key });
export const setLobbyGame = (lobby: string, game: string): Promise<LobbyView> => call('PUT', `/lobbies/${lobby}/game`, { game });
export const readGameInfo = (game: string): Promise<{ game: string; protocol: string; players: { id: string; key: string }[]; lines: number }> =>
  call('GET', `/games/${game}`);
export async function readTranscript(game: string): Promise<string> {
  const r = await fetch(`/games/${game}/transcript`);
  if (!r.ok) throw new ApiError('unknown_game', `the relay answered ${r.status}`);
  return r.text();
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
