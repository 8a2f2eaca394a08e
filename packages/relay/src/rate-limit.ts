/**
 * Per-client rate limits for the relay's HTTP routes (docs/spec/relay.md §5, "Limits"): the witness and lobby
 * routes have no connection to hang a limit on, so each client address gets the token bucket a WebSocket
 * connection has (the same `messagesPerSecond` and `messageBurst`). A request over the rate is answered
 * `429 {error: {code: "rate_limited"}}` with `Retry-After`, and nothing of it is read.
 *
 * Memory is bounded: at most `maxClients` buckets are kept, the least recently heard-from leaving first. A
 * client that floods is the most recently heard-from, so it keeps its (empty) bucket unless `maxClients`
 * other addresses speak after it. IPv6 clients are counted by their /64, the block one host is usually given,
 * so that one host cannot take a fresh bucket with every address it owns.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import { FairtableError } from '@fairtable/core/errors.js';

export interface RateLimit {
  /** Sustained requests a second from one client. */
  readonly perSecond: number;
  /** Requests above the sustained rate a client may make at once. */
  readonly burst: number;
  /** Clients whose buckets are kept at once. */
  readonly maxClients: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Token buckets by client key; `now` is injectable for tests (ms). */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token from `key`'s bucket: true when the request may go on, false when the client is over its rate. */
  take(key: string): boolean {
    const t = this.now();
    let b = this.buckets.get(key);
    if (b === undefined) {
      b = { tokens: this.limit.burst, at: t };
      while (this.buckets.size >= this.limit.maxClients) this.buckets.delete(this.buckets.keys().next().value!);
    } else {
      // Re-inserted so that the map's order is the order clients were last heard from.
      this.buckets.delete(key);
      b.tokens = Math.min(this.limit.burst, b.tokens + ((t - b.at) * this.limit.perSecond) / 1000);
      b.at = t;
    }
    this.buckets.set(key, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** Buckets held (at most `maxClients`). */
  get size(): number {
    return this.buckets.size;
  }
}

/** The key a client address is limited under: an IPv4 address as it is, an IPv6 address by its first 64 bits. */
export function clientKey(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (v4 !== null) return v4[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** The client address a trusted proxy named for a request (`forwardedFor`), kept on the request. */
const FORWARDED = Symbol('fairtable.forwardedFor');
type Marked = IncomingMessage & { [FORWARDED]?: string };

/** An address as the relay compares addresses: an IPv4 address mapped into IPv6 as the IPv4 address. */
function plainAddress(address: string): string {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return v4 === null ? address.toLowerCase() : v4[1]!;
}

/**
 * Behind a reverse proxy every request comes from the proxy's address, so every limit "per address" would be
 * one limit for everybody. For a request whose peer is one of `trusted` (the relay's `trustProxy`), the client
 * is the right-most address of its `X-Forwarded-For` that is not itself a trusted proxy: the one the nearest
 * proxy saw. Anything to the left of it was written by the client and proves nothing. A request from any
 * other peer keeps its peer's address, whatever headers it sends, so a client cannot choose its own address.
 */
export function markForwarded(req: IncomingMessage, trusted: ReadonlySet<string>): void {
  const peer = req.socket.remoteAddress;
  if (trusted.size === 0 || peer === undefined || !trusted.has(plainAddress(peer))) return;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((h) => h.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (isIP(hop) === 0) return;
    if (!trusted.has(plainAddress(hop))) {
      (req as Marked)[FORWARDED] = hop;
      return;
    }
  }
}

/** The trusted proxies of `RelayOptions.trustProxy`, as `markForwarded` compares them; an entry that is not an IP address is refused. */
export function trustedProxies(addresses: readonly string[]): ReadonlySet<string> {
  for (const a of addresses)
    if (isIP(a) === 0)
      throw new FairtableError('bad_input', `trust proxy: ${JSON.stringify(a)} is not an IP address (give the proxy's address, e.g. 127.0.0.1)`, {
        field: 'trustProxy',
      });
  return new Set(addresses.map(plainAddress));
}

/** A request's client: the address a trusted proxy named for it (`markForwarded`), else its peer's. */
export function peerAddress(req: IncomingMessage): string | undefined {
  return (req as Marked)[FORWARDED] ?? req.socket.remoteAddress;
}

/** The address of the client of a request served by @hono/node-server (undefined elsewhere, e.g. `app.request` in a test). */
export function remoteAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: IncomingMessage } | undefined;
  return env?.incoming === undefined ? undefined : peerAddress(env.incoming);
}

/** A hono middleware that refuses a client over its rate with `429 rate_limited`; `onRefused` counts it, `what` says the rate. */
export function rateLimited(
  limiter: RateLimiter,
  onRefused: (code: string) => void = () => {},
  what = `more than ${limiter.limit.perSecond} requests a second (burst ${limiter.limit.burst}) from this address`,
): MiddlewareHandler {
  return async (c, next) => {
    if (!limiter.take(clientKey(remoteAddress(c)))) {
      onRefused('rate_limited');
      c.header('Retry-After', String(Math.max(1, Math.ceil(1 / limiter.limit.perSecond))));
      return c.json({ error: { code: 'rate_limited', message: what } }, 429);
    }
    await next();
    return undefined;
  };
}
