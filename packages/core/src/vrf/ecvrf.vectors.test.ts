/**
 * ECVRF against RFC 9381 Appendix B.3 (TAI, Examples 16–18) and B.4 (ELL2,
 * Examples 19–21), byte for byte, intermediate values included so that a
 * failure names the step that diverged.
 */
import { describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { fromHex, toHex } from '../bytes.js';
import { createProver, createVerifier, keygen, proofToHash, prove, verify, type EcvrfSuite } from './ecvrf.js';
import { ORDER, Point, nonce } from './ecvrf-encoding.js';
import { encodeToCurve, tryAndIncrementWithCounter } from './ecvrf-hash-to-curve.js';
import doc from './vectors/rfc9381-ecvrf.json' with { type: 'json' };

interface Vector {
  example: number;
  suite: EcvrfSuite;
  sk: string;
  pk: string;
  alpha: string;
  x: string;
  ctr?: number;
  H: string;
  k_string?: string;
  k: string;
  U: string;
  V: string;
  pi: string;
  beta: string;
}

const vectors = doc.vectors as Vector[];

describe('RFC 9381 ECVRF edwards25519 vectors', () => {
  it('covers Examples 16–21, both suites', () => {
    expect(doc.source).toMatch(/RFC 9381/);
    expect(vectors.map((v) => v.example)).toEqual([16, 17, 18, 19, 20, 21]);
  });

  describe.each(vectors)('Example $example ($suite)', (v) => {
    const sk = fromHex(v.sk);
    const alpha = fromHex(v.alpha);
    const opts = { suite: v.suite };

    it('derives x and PK as RFC 8032 does', () => {
      const { head, scalar } = ed25519.utils.getExtendedPublicKey(sk);
      expect(toHex(head)).toBe(v.x);
      expect(scalar).toBe(bytesToNumberLE(fromHex(v.x)) % ORDER);
      expect(toHex(keygen(sk).publicKey)).toBe(v.pk);
    });

    it('encodes alpha to H', () => {
      expect(toHex(encodeToCurve(v.suite, fromHex(v.pk), alpha).toBytes())).toBe(v.H);
      if (v.ctr !== undefined) expect(tryAndIncrementWithCounter(fromHex(v.pk), alpha).ctr).toBe(v.ctr);
    });

    it('generates the nonce k and U = k·B, V = k·H', () => {
      const { prefix } = ed25519.utils.getExtendedPublicKey(sk);
      if (v.k_string !== undefined) expect(toHex(sha512(new Uint8Array([...prefix, ...fromHex(v.H)])))).toBe(v.k_string);
      const k = nonce(prefix, fromHex(v.H));
      expect(toHex(numberToBytesLE(k, 32))).toBe(v.k);
      expect(toHex(Point.BASE.multiply(k).toBytes())).toBe(v.U);
      expect(toHex(Point.fromBytes(fromHex(v.H)).multiply(k).toBytes())).toBe(v.V);
    });

    it('proves pi', () => {
      expect(toHex(prove(sk, alpha, opts))).toBe(v.pi);
      expect(toHex(createProver(sk, opts).prove(alpha))).toBe(v.pi);
    });

    it('verifies pi and outputs beta', () => {
      const verdict = verify(fromHex(v.pk), alpha, fromHex(v.pi), opts);
      expect(verdict).toEqual({ valid: true, beta: fromHex(v.beta) });
      expect(createVerifier(fromHex(v.pk), opts).verify(alpha, fromHex(v.pi))).toEqual(verdict);
      expect(toHex(proofToHash(fromHex(v.pi), opts))).toBe(v.beta);
    });

    it('does not verify under the other suite', () => {
      const other: EcvrfSuite = v.suite === 'ell2' ? 'tai' : 'ell2';
      expect(verify(fromHex(v.pk), alpha, fromHex(v.pi), { suite: other })).toMatchObject({ valid: false, code: 'bad_proof' });
    });
  });
});
