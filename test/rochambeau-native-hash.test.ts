/**
 * Differential test (STYLE.md: noble against the platform's native crypto):
 * the core's digests (noble's, and the default one, which takes SHA-256 of
 * one-block messages to sha256-one-block.ts), fresh and transient, against
 * node:crypto's for each hash a game may agree on, and the judge with
 * node:crypto injected against the judge with its default.
 */
import { hash as nodeHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DIGEST_OCTETS, HASH_NAMES, defaultDigest, nobleDigest, type Digest, type HashName } from '@fairtable/core/rochambeau/hashes.js';
import { judge } from '@fairtable/core/rochambeau/judge.js';
import { judgeOutput } from '@fairtable/core/rochambeau/judge-json.js';
import { CONDUCTS, seededRandom, simulateGame } from '@fairtable/core/rochambeau/simulation.js';

const OPENSSL: Record<HashName, string> = { 'sha-256': 'sha256', 'sha-384': 'sha384', 'sha-512': 'sha512', 'sha3-256': 'sha3-256' };
const native =
  (name: HashName): Digest =>
  (message) =>
    nodeHash(OPENSSL[name], message, 'buffer');

describe('noble and node:crypto give the same digests', () => {
  for (const name of HASH_NAMES) {
    it(name, () => {
      const fresh = nobleDigest(name);
      const transient = nobleDigest(name, { transient: true });
      const byDefault = defaultDigest(name);
      const byDefaultTransient = defaultDigest(name, { transient: true });
      const openssl = native(name);
      const kept: [Uint8Array, Uint8Array][] = [];
      fc.assert(
        fc.property(fc.oneof(fc.uint8Array({ maxLength: 56 }), fc.uint8Array({ maxLength: 400 })), (message) => {
          const expected = openssl(message);
          expect(expected).toHaveLength(DIGEST_OCTETS[name]);
          const digest = fresh(message);
          kept.push([message, digest]);
          expect(Buffer.from(digest).equals(expected)).toBe(true);
          expect(Buffer.from(transient(message)).equals(expected)).toBe(true);
          const mine = byDefault(message);
          kept.push([message, mine]);
          expect(Buffer.from(mine).equals(expected)).toBe(true);
          expect(Buffer.from(byDefaultTransient(message)).equals(expected)).toBe(true);
        }),
        { numRuns: 1000 },
      );
      // Reusing one hasher must not reach back into digests already returned.
      for (const [message, digest] of kept) expect(Buffer.from(digest).equals(openssl(message))).toBe(true);
    });
  }
});

describe('the judge with node:crypto injected', () => {
  it('gives the verdict it gives with noble', () => {
    fc.assert(
      fc.property(fc.constantFrom(...HASH_NAMES), fc.constantFrom(3, 101, 2 ** 31 - 1), fc.string(), (hash, N, seed) => {
        const lineup = [...CONDUCTS.map((conduct, k) => ({ id: `c${k}`, conduct })), { id: 'x' }, { id: 'y' }];
        const players = simulateGame(lineup, { N, hash, gameId: 'g', random: seededRandom(seed) });
        const ids = players.map((p) => p.id);
        const game = { N, hash, gameId: 'g', players };
        expect(judgeOutput(ids, judge(game, { digest: native(hash) }))).toEqual(judgeOutput(ids, judge(game)));
      }),
      { numRuns: 60 },
    );
  });
});
