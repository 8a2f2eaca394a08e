import { describe, expect, it } from 'vitest';
import { randomBytes, toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { createSetupEnvelope, gameIdOf } from '@fairtable/core/setup.js';
import type { FetchLike } from './relay-http.js';
import { createGame } from './relay-http.js';

const keys = generateKeyPair();
const relayKey = toHex(generateKeyPair().publicKey);
const setupLine = envelopeLine(
  createSetupEnvelope(
    { protocol: 'chain', game: 'dice', params: {}, players: [{ id: 'p0', key: toHex(keys.publicKey) }], nonce: toHex(randomBytes(32)), created: 0 },
    'p0',
    keys,
  ),
);

describe('createGame', () => {
  it('tries a creation again after a network failure (the relay answers a repeated setup with the same game), and never after an answer', async () => {
    const held: string[] = [];
    let failures = 1;
    const flaky: FetchLike = (_url, init) => {
      // The relay keeps the first post, then the answer is lost: the second post of the same setup is answered 200.
      const created = !held.includes(init!.body!);
      if (created) held.push(init!.body!);
      if (failures-- > 0) return Promise.reject(new TypeError('fetch failed'));
      const game = gameIdOf((JSON.parse(setupLine) as { body: { setup: never } }).body.setup);
      return Promise.resolve({ status: created ? 201 : 200, ok: true, text: () => Promise.resolve(JSON.stringify({ game, relay: relayKey })) });
    };
    const made = await createGame('http://relay.test', setupLine, { fetch: flaky });
    expect(made.relay).toBe(relayKey);
    expect(held).toHaveLength(1);

    // A refusal is an answer: not retried.
    let posts = 0;
    const refusing: FetchLike = () => {
      posts++;
      return Promise.resolve({
        status: 429,
        ok: false,
        text: () => Promise.resolve(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } })),
      });
    };
    await expect(createGame('http://relay.test', setupLine, { fetch: refusing })).rejects.toMatchObject({ code: 'rate_limited' });
    expect(posts).toBe(1);

    // A relay that never answers: three tries, then the network error.
    let tries = 0;
    const down: FetchLike = () => {
      tries++;
      return Promise.reject(new TypeError('fetch failed'));
    };
    await expect(createGame('http://relay.test', setupLine, { fetch: down })).rejects.toMatchObject({ code: 'connection_failed' });
    expect(tries).toBe(3);
  });
});
