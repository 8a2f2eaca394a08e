/**
 * The per-address rate limit of the relay's HTTP routes (docs/spec/relay.md §5): a token bucket per client key,
 * at most `maxClients` of them, IPv6 clients counted by their /64.
 */
import { describe, expect, it } from 'vitest';
import { clientKey, RateLimiter } from './rate-limit.js';

describe('RateLimiter', () => {
  it('lets a burst through, then the sustained rate, each client on its own', () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 10, burst: 5, maxClients: 100 }, () => now);
    const taken = Array.from({ length: 8 }, () => limiter.take('a'));
    expect(taken).toEqual([true, true, true, true, true, false, false, false]);
    expect(limiter.take('b')).toBe(true);
    now = 100; // a tenth of a second: one token back
    expect([limiter.take('a'), limiter.take('a')]).toEqual([true, false]);
    now = 10_000; // refilled to the burst, no more
    expect(Array.from({ length: 6 }, () => limiter.take('a')).filter(Boolean)).toHaveLength(5);
  });

  it('keeps at most maxClients buckets, the least recently heard-from leaving first', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 1, maxClients: 2 }, () => 0);
    expect(limiter.take('flood')).toBe(true);
    expect(limiter.take('x')).toBe(true);
    expect(limiter.take('flood')).toBe(false); // heard from last: it stays
    expect(limiter.take('y')).toBe(true); // x leaves
    expect(limiter.size).toBe(2);
    expect(limiter.take('flood')).toBe(false);
    expect(limiter.take('x')).toBe(true); // a fresh bucket
  });
});

describe('clientKey', () => {
  it('keys IPv4 by address, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey(undefined)).toBe('unknown');
  });
});
