/**
 * The relay's addresses and HTTP routes as the client uses them (docs/spec/relay.md §3): a game's WebSocket and
 * invite URLs, creating a game, fetching a transcript with its receipts, and the relay's key from a game's
 * challenge. The part of the WebSocket and fetch APIs the client needs, and the client's coded error.
 *
 * Isomorphic: no `node:` import; WebSocket and fetch are injected or taken from globalThis.
 */
import { isHex } from '@fairtable/core/bytes.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { UNKNOWN_GAME_CLOSE } from '@fairtable/core/order/hello.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import { ReceiptChain, type RelayLie } from './receipts.js';

/** The part of the standard WebSocket API the client uses. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  // Handlers take `any` so that both the browser's WebSocket and the `ws` package's (whose event types
  // differ) fit without a cast; the client reads only `event.data`.
  /* eslint-disable @typescript-eslint/no-explicit-any */
  onopen: ((event: any) => void) | null;
  onmessage: ((event: any) => void) | null;
  onclose: ((event: any) => void) | null;
  onerror: ((event: any) => void) | null;
  /* eslint-enable @typescript-eslint/no-explicit-any */
}

export type SocketConstructor = new (url: string) => SocketLike;

/** The part of `fetch` the client uses. */
export type FetchLike = (
  url: string,
  init?: { method?: string; body?: string; headers?: Record<string, string> },
) => Promise<{ readonly status: number; readonly ok: boolean; text(): Promise<string> }>;

/** An error of the client: a FairtableError code, or `relay_lied` with the finding. */
export class ClientError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly lie: RelayLie | null = null,
  ) {
    super(message);
    this.name = 'ClientError';
  }
}

/** WebSocket's readyState OPEN. */
export const OPEN = 1;

export { UNKNOWN_GAME_CLOSE };

/** The code of the error for a game the relay does not hold (`FairtableError`), for a page to word as it likes. */
export const UNKNOWN_GAME = 'unknown_game';

/** The relay holds no game `gameId`: said at once, never retried (relay.md §3). */
export function unknownGameError(gameId: string): FairtableError {
  return new FairtableError(UNKNOWN_GAME, `no game ${gameId} on this relay`, { field: 'game' });
}

/** Whether a WebSocket close event is the relay's 4404 `unknown_game`. */
export const isUnknownGameClose = (event: unknown): boolean => (event as { code?: unknown } | null)?.code === UNKNOWN_GAME_CLOSE;

function httpBase(relayUrl: string): URL {
  const url = new URL(relayUrl);
  if (url.protocol === 'ws:') url.protocol = 'http:';
  if (url.protocol === 'wss:') url.protocol = 'https:';
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FairtableError('bad_input', `relay URL ${relayUrl}: use http(s):// or ws(s)://`, { field: 'relay' });
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** The relay's WebSocket address for a game. */
export function gameSocketUrl(relayUrl: string, gameId: string): string {
  const url = new URL(`games/${gameId}/ws`, httpBase(relayUrl));
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/** The address to give other players: the game's page on the relay. */
export function inviteUrl(relayUrl: string, gameId: string): string {
  return new URL(`games/${gameId}`, httpBase(relayUrl)).toString();
}

/** The fetch to use; a relay that cannot be reached is `connection_failed`, with the address. */
function fetchOf(f: FetchLike | undefined): FetchLike {
  const g = f ?? (globalThis as { fetch?: FetchLike }).fetch;
  if (g === undefined) throw new FairtableError('bad_input', 'no fetch: pass one in the options', { field: 'fetch' });
  return async (url, init) => {
    try {
      return await g(url, init);
    } catch (e) {
      const cause = (e as { cause?: { code?: unknown } }).cause?.code;
      throw new ClientError('connection_failed', `cannot reach the relay at ${url}${typeof cause === 'string' ? ` (${cause})` : ''}: ${(e as Error).message}`);
    }
  };
}

async function relayError(response: { status: number; text(): Promise<string> }, what: string): Promise<ClientError> {
  const text = await response.text().catch(() => '');
  let code = 'connection_failed';
  let message = text.slice(0, 200);
  try {
    const e = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }).error;
    if (typeof e?.code === 'string') code = e.code;
    if (typeof e?.message === 'string') message = e.message;
  } catch {
    // not the relay's JSON: the text says what went wrong
  }
  return new ClientError(code, `${what}: the relay answered ${response.status}: ${message}`);
}

/** Posts a signed setup line to the relay (`POST /games`); returns the game id and the relay's key. */
/** Waits before the second and third tries of a creation that failed on the network. */
const CREATE_RETRY_MS = [200, 800] as const;

export async function createGame(
  relayUrl: string,
  setupLine: string,
  options: { fetch?: FetchLike } = {},
): Promise<{ game: string; relay: string; invite: string }> {
  const { gameId } = readSetupLine(setupLine);
  // `?game=` lets a balancer in front of several relay processes send the creation to the process that will
  // order the game (relay.md §4, "Many processes behind a balancer"); the relay itself reads only the body.
  const post = (): ReturnType<FetchLike> =>
    fetchOf(options.fetch)(new URL(`games?game=${gameId}`, httpBase(relayUrl)).toString(), {
      method: 'POST',
      body: setupLine,
      headers: { 'content-type': 'application/x-ndjson' },
    });
  // A creation that failed on the network (no answer: a balancer or relay closing a kept-alive connection as it
  // was reused) is tried again, up to three tries: the same setup line posted again is answered 200 with the same
  // game (relay.md §3), so a creation whose answer was lost is not made twice.
  let response: Awaited<ReturnType<FetchLike>>;
  for (let attempt = 0; ; attempt++) {
    try {
      response = await post();
      break;
    } catch (e) {
      if (!(e instanceof ClientError) || e.code !== 'connection_failed' || attempt >= CREATE_RETRY_MS.length) throw e;
      await new Promise((resolve) => setTimeout(resolve, CREATE_RETRY_MS[attempt]));
    }
  }
  if (response.status !== 201 && response.status !== 200) throw await relayError(response, 'creating the game');
  const body = JSON.parse(await response.text()) as { game?: unknown; relay?: unknown };
  // The id is the setup's own hash: a relay that names another game is not hosting this one.
  if (body.game !== gameId) throw new ClientError('bad_message', `the relay created game ${String(body.game)}, but the setup's id is ${gameId}`);
  if (!isHex(body.relay, 32)) throw new ClientError('bad_message', "the relay's answer does not carry its key (64 hex digits)");
  return { game: gameId, relay: body.relay, invite: inviteUrl(relayUrl, gameId) };
}

/**
 * A game's transcript and receipts as the relay serves them (`GET …/transcript`, `…/receipts`), checked
 * against each other under `relayKey`: `lie` is the first thing they show the relay did wrong, or null.
 */
export async function fetchGame(
  relayUrl: string,
  gameId: string,
  relayKey: string,
  options: { fetch?: FetchLike } = {},
): Promise<{ lines: string[]; receipts: unknown[]; lie: RelayLie | null }> {
  const f = fetchOf(options.fetch);
  const get = async (what: string): Promise<string[]> => {
    const r = await f(new URL(`games/${gameId}/${what}`, httpBase(relayUrl)).toString());
    if (!r.ok) {
      const e = await relayError(r, `fetching the ${what}`);
      throw r.status === 404 && e.code === UNKNOWN_GAME ? unknownGameError(gameId) : e;
    }
    return (await r.text()).split('\n').filter((l) => l.trim() !== '');
  };
  const lines = await get('transcript');
  const receipts = (await get('receipts')).map((t): unknown => {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return t;
    }
  });
  let { lie } = ReceiptChain.replay(gameId, relayKey, lines, receipts);
  if (lie === null && receipts.length !== lines.length) {
    lie = {
      code: 'relay_lied',
      kind: receipts.length > lines.length ? 'dropped' : 'bad_receipt',
      line: Math.min(lines.length, receipts.length),
      message: `the relay served ${lines.length} lines and ${receipts.length} receipts`,
      receipts: [],
      lines: [],
      relay: relayKey,
    };
  }
  return { lines, receipts, lie };
}

/**
 * The relay's key, as it introduces itself on a game's WebSocket (its challenge). Only for a reader that
 * knows no key yet: what it proves is only that this relay signs with it.
 */
export function relayKeyOf(relayUrl: string, gameId: string, WebSocket: SocketConstructor, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(gameSocketUrl(relayUrl, gameId));
    const timer = setTimeout(() => {
      ws.close();
      reject(new ClientError('table_silent', 'the relay sent no challenge'));
    }, timeoutMs);
    ws.onmessage = (ev: { data: unknown }) => {
      clearTimeout(timer);
      const m = parseFrame(ev.data);
      ws.close();
      if (m?.kind === 'challenge' && isHex(m.relay, 32)) resolve(m.relay);
      else reject(new ClientError('bad_challenge', 'the first frame is not a relay challenge'));
    };
    ws.onerror = () => {
      clearTimeout(timer);
      reject(new ClientError('connection_failed', `cannot reach ${gameSocketUrl(relayUrl, gameId)}`));
    };
    // After a challenge this changes nothing: the promise is settled.
    ws.onclose = (ev: unknown) => {
      clearTimeout(timer);
      reject(isUnknownGameClose(ev) ? unknownGameError(gameId) : new ClientError('connection_closed', 'the relay closed the connection before its challenge'));
    };
  });
}

/** A frame of the relay's WebSocket protocol: a JSON object with a string `kind`. */
export type Frame = { readonly kind: string; readonly [key: string]: unknown };

/** A frame's JSON object, or null when it is not one. */
export function parseFrame(data: unknown): Frame | null {
  let text: string;
  if (typeof data === 'string') text = data;
  else if (data instanceof Uint8Array) text = new TextDecoder().decode(data);
  else if (data instanceof ArrayBuffer) text = new TextDecoder().decode(new Uint8Array(data));
  else return null;
  try {
    const v = JSON.parse(text) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v) || typeof (v as { kind?: unknown }).kind !== 'string') return null;
    return v as Frame;
  } catch {
    return null;
  }
}
