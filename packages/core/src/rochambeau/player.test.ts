import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { nonceBinding } from './binding.js';
import { decodeCommit, decodeReveal, decodeState, encodeState, gameSize } from './codec.js';
import { HASH_NAMES, type HashName } from './hashes.js';
import { judge } from './judge.js';
import { chooseState, makeNonce, pickOne, prepareMove } from './player.js';
import { seededRandom, simulateGame } from './simulation.js';

const NOBLE: Record<HashName, (m: Uint8Array) => Uint8Array> = {
  'sha-256': sha256,
  'sha-384': sha384,
  'sha-512': sha512,
  'sha3-256': sha3_256,
};

describe('chooseState (§4.2: 0 < q < N)', () => {
  it('draws every state of N = 3 and N = 5, and nothing else', () => {
    const random = seededRandom('states');
    for (const N of [3, 5]) {
      const seen = new Map<bigint, number>();
      for (let i = 0; i < 4000; i++) {
        const q = chooseState(N, random);
        seen.set(q, (seen.get(q) ?? 0) + 1);
      }
      expect([...seen.keys()].sort()).toEqual(Array.from({ length: N - 1 }, (_, i) => BigInt(i + 1)));
      // Each of the N-1 states should come up about 4000/(N-1) times; a missing mask or an
      // off-by-one would halve or double some of them.
      for (const count of seen.values()) expect(Math.abs(count - 4000 / (N - 1))).toBeLessThan(250);
    }
  });

  it('stays in 1..N-1 for any odd N', () => {
    const random = seededRandom('range');
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 2n ** 100n }), (half) => {
        const N = 2n * half + 1n;
        const q = chooseState(N, random);
        expect(q >= 1n && q < N).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses a random source that returns the wrong length', () => {
    expect(() => chooseState(101, () => new Uint8Array(3))).toThrow(/random/);
  });
});

describe('nonces and the fairtable binding (resolution 11)', () => {
  it('is the first 16 octets of SHA-256 over the tag and the length-prefixed ids', () => {
    const expected = sha256(
      Uint8Array.of(
        ...new TextEncoder().encode('fairtable/rochambeau-nonce/v1'),
        0,
        0,
        0,
        0,
        4,
        ...new TextEncoder().encode('g-01'),
        0,
        0,
        0,
        5,
        ...new TextEncoder().encode('alice'),
      ),
    ).subarray(0, 16);
    expect(nonceBinding('g-01', 'alice')).toEqual(expected);
  });

  it('separates ids that concatenate alike', () => {
    expect(nonceBinding('ab', 'c')).not.toEqual(nonceBinding('a', 'bc'));
    expect(nonceBinding('g', 'alice')).not.toEqual(nonceBinding('g', 'bob'));
  });

  it('makes 32-octet nonces, bound ones starting with the binding', () => {
    const random = seededRandom('nonce');
    expect(makeNonce(undefined, random)).toHaveLength(32);
    const bound = makeNonce({ gameId: 'g', playerId: 'alice' }, random);
    expect(bound).toHaveLength(32);
    expect(bound.subarray(0, 16)).toEqual(nonceBinding('g', 'alice'));
    expect(makeNonce({ gameId: 'g', playerId: 'alice' }, random).subarray(16)).not.toEqual(bound.subarray(16));
  });

  it('draws from the platform CSPRNG by default', () => {
    expect(makeNonce()).not.toEqual(makeNonce());
  });
});

describe('prepareMove (§4.4, §4.6)', () => {
  for (const hash of HASH_NAMES) {
    it(`builds a Commit and Reveal that open each other under ${hash}`, () => {
      const random = seededRandom(hash);
      const N = 2n ** 31n - 1n;
      const move = prepareMove({ N, hash, random, binding: { gameId: 'g', playerId: 'p' } });
      const size = gameSize(N);
      const C = decodeCommit(move.commit, NOBLE[hash](new Uint8Array(0)).length);
      const { nonce, M } = decodeReveal(move.reveal, size.m);
      expect(C).toEqual(move.C);
      expect(NOBLE[hash](Uint8Array.of(...nonce, ...M))).toEqual(C);
      expect(nonce).toEqual(move.nonce);
      expect(M).toEqual(encodeState(move.state, size));
      expect(decodeState(M)).toBe(move.state);
      expect(move.reveal).toHaveLength(4 + 32 + 4);
    });
  }

  it('plays a given state', () => {
    expect(prepareMove({ N: 7, state: 3 }).state).toBe(3n);
    expect(() => prepareMove({ N: 7, state: 7 })).toThrow(/outside/);
  });
});

describe('pickOne: the designated router (§1)', () => {
  it('returns the node the judge names', () => {
    const random = seededRandom('routers');
    const nodes = simulateGame(
      ['r1', 'r2', 'r3', 'r4', 'r5'].map((id) => ({ id })),
      { N: 2 ** 31 - 1, random },
    ).map((node, k) => ({ ...node, address: `10.0.0.${k + 1}` }));
    const chosen = pickOne(nodes, { N: 2 ** 31 - 1 });
    expect(chosen).not.toBeNull();
    expect(chosen!.id).toBe(judge({ N: 2 ** 31 - 1, players: nodes }).winner);
    expect(chosen!.address).toBe(`10.0.0.${nodes.indexOf(chosen!) + 1}`);
  });

  it('returns null when no node is left', () => {
    const random = seededRandom('no routers');
    const nodes = simulateGame([{ id: 'r1', conduct: 'no_reveal' }], { N: 101, random });
    expect(pickOne(nodes, { N: 101 })).toBeNull();
  });
});
