/** Threshold escrow (docs/spec/escrow.md): any k of n open a withheld value; a bad share is caught and its dealer named. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generateKeyPair } from '../identity.js';
import { RandomStream } from '../stream.js';
import { utf8, fromUtf8 } from '../bytes.js';
import { deal, openEscrowedValue, openShare, randomScalar, reconstruct, sealShare, sealShares, sealValue, secretCommitment, verifyShare } from './vss.js';

const rng = (seed: number) => {
  const s = new RandomStream(new Uint8Array(32).fill(seed), 'test');
  return (n: number) => s.bytes(n);
};

describe('Feldman sharing on ristretto255', () => {
  it('any k of n shares give the secret back; every share verifies against the commitments; C_0 is s·G', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 1, max: 255 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (k, extra, seed, picks) => {
          const n = k + extra;
          const random = rng(seed);
          const secret = randomScalar(random);
          const d = deal(secret, k, n, random);
          expect(d.commitments).toHaveLength(k);
          expect(d.commitments[0]).toBe(secretCommitment(secret));
          d.shares.forEach((share, i) => expect(verifyShare(i + 1, share, d.commitments)).toBe(true));
          // A subset of k seats chosen by `picks`.
          const seats = Array.from({ length: n }, (_, i) => i + 1);
          for (let i = 0; i < picks.length; i++) {
            const j = picks[i]! % n;
            [seats[i % n], seats[j]] = [seats[j]!, seats[i % n]!];
          }
          const chosen = seats.slice(0, k).map((seat) => ({ seat, share: d.shares[seat - 1]! }));
          expect(reconstruct(chosen)).toBe(secret);
          if (k > 1) expect(reconstruct(chosen.slice(0, k - 1))).not.toBe(secret);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a share that does not fit the commitments is caught (the dealer cheated)', () => {
    const random = rng(3);
    const d = deal(randomScalar(random), 3, 5, random);
    expect(verifyShare(2, d.shares[2]!, d.commitments)).toBe(false); // seat 3's share given as seat 2's
    const flipped = (d.shares[0]![0] === '0' ? '1' : '0') + d.shares[0]!.slice(1);
    expect(verifyShare(1, flipped, d.commitments)).toBe(false);
    expect(verifyShare(2, d.shares[1]!, [d.commitments[0]!, d.commitments[2]!, d.commitments[1]!])).toBe(false); // (at seat 1 every order sums the same)
    expect(verifyShare(1, 'ff'.repeat(32), d.commitments)).toBe(false);
  });

  it('refuses a threshold that cannot be met', () => {
    expect(() => deal(5n, 4, 3, rng(1))).toThrow(/threshold/);
    expect(() => deal(5n, 0, 3, rng(1))).toThrow(/threshold/);
  });
});

describe('sealed shares and the escrowed value', () => {
  it('a share sealed to a player opens with its key and context only; k shares open the value', () => {
    const random = rng(9);
    const players = [1, 2, 3, 4].map((i) => generateKeyPair(new Uint8Array(32).fill(60 + i)));
    const secret = randomScalar(random);
    const d = deal(secret, 3, 4, random);
    const context = (seat: number): string => `game ab…/dealer p0/seat ${seat}`;
    const sealed = d.shares.map((share, i) => sealShare(share, players[i]!.publicKey, context(i + 1), random));
    const opened = sealed.map((box, i) => openShare(box, players[i]!.secretKey, context(i + 1)));
    expect(opened).toEqual(d.shares);
    expect(() => openShare(sealed[0]!, players[1]!.secretKey, context(1))).toThrow(/bad_share|does not open/);
    expect(() => openShare(sealed[0]!, players[0]!.secretKey, context(2))).toThrow(/does not open/);
    const value = sealValue(utf8('{"nonce":"…","value":"3"}'), secret, 'opening of p0, round 1');
    const back = reconstruct([1, 3, 4].map((seat) => ({ seat, share: opened[seat - 1]! })));
    expect(fromUtf8(openEscrowedValue(value, back, 'opening of p0, round 1'))).toBe('{"nonce":"…","value":"3"}');
    expect(() => openEscrowedValue(value, back, 'opening of p0, round 2')).toThrow(/does not open/);
  });

  it('shares sealed with one ephemeral key: each opens for its own seat and context only', () => {
    const random = rng(12);
    const players = [1, 2, 3].map((i) => generateKeyPair(new Uint8Array(32).fill(80 + i)));
    const d = deal(randomScalar(random), 2, 3, random);
    const contexts = ['s1', 's2', 's3'];
    const sealed = sealShares(
      d.shares,
      players.map((p) => p.publicKey),
      contexts,
      random,
    );
    expect(new Set(sealed.map((x) => x.ephemeral)).size).toBe(1);
    expect(sealed.map((box, i) => openShare(box, players[i]!.secretKey, contexts[i]!))).toEqual(d.shares);
    expect(() => openShare(sealed[1]!, players[1]!.secretKey, 's1')).toThrow(/does not open/);
    expect(() => openShare(sealed[1]!, players[0]!.secretKey, 's2')).toThrow(/does not open/);
  });
});
