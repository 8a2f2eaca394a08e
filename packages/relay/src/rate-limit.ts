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
import type { Context, MiddlewareHandler } from 'hono';

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

/** The address of the peer of a request served by @hono/node-server (undefined elsewhere, e.g. `app.request` in a test). */
export function remoteAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
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
