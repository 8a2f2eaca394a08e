/**
 * RSA-FDH-VRF verification (core, BigInt) against RFC 9381 Appendix A.1
 * Examples 1–3, plus tampering, key checks and JWK import.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FairtableError } from '../errors.js';
import { fromHex, toHex } from '../bytes.js';
import {
  formatRsaVrfPublicKey,
  i2osp,
  mgf1Sha256,
  modPow,
  os2ip,
  parseRsaVrfPublicKey,
  rsaFdhVrfMessage,
  rsaFdhVrfProofToHash,
  rsaFdhVrfVerify,
  rsaVrfPublicKeyFromJwk,
} from './rsa-fdh-vrf.js';
import doc from './vectors/rfc9381-rsa-fdh-vrf.json' with { type: 'json' };

interface Vector {
  example: number;
  bits: number;
  n: string;
  e: string;
  d: string;
  alpha: string;
  pi: string;
  beta: string;
}
const vectors = doc.vectors as Vector[];

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof FairtableError) return e.code;
    throw e;
  }
  return undefined;
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

describe('RFC 9381 RSA-FDH-VRF-SHA256 vectors', () => {
  it('covers Examples 1–3 with 2048-, 3072- and 4096-bit keys', () => {
    expect(doc.source).toMatch(/RFC 9381/);
    expect(vectors.map((v) => [v.example, v.bits])).toEqual([
      [1, 2048],
      [2, 3072],
      [3, 4096],
    ]);
  });

  describe.each(vectors)('Example $example', (v) => {
    const key = { n: v.n, e: v.e };
    it('verifies pi and outputs beta', () => {
      expect(rsaFdhVrfVerify(key, fromHex(v.alpha), fromHex(v.pi))).toEqual({ valid: true, beta: fromHex(v.beta) });
      expect(toHex(rsaFdhVrfProofToHash(fromHex(v.pi)))).toBe(v.beta);
    });

    it('pi is the RSA signature of the full-domain hash (m^d mod n)', () => {
      const parsed = parseRsaVrfPublicKey(key);
      const m = rsaFdhVrfMessage(parsed, fromHex(v.alpha));
      expect(toHex(i2osp(modPow(m, os2ip(fromHex(v.d)), parsed.n), parsed.k))).toBe(v.pi);
    });

    it('rejects other inputs and altered proofs', () => {
      const pi = fromHex(v.pi);
      expect(rsaFdhVrfVerify(key, new TextEncoder().encode('other'), pi)).toMatchObject({ valid: false, code: 'bad_proof' });
      const flipped = pi.slice();
      flipped[100]! ^= 0x10;
      expect(rsaFdhVrfVerify(key, fromHex(v.alpha), flipped)).toMatchObject({ valid: false, code: 'bad_proof' });
    });
  });
});

describe('RSA-FDH-VRF verification', () => {
  const v = vectors[0]!;
  const key = { n: v.n, e: v.e };
  const parsed = parseRsaVrfPublicKey(key);
  const pi = fromHex(v.pi);
  const alpha = fromHex(v.alpha);

  it('any flipped bit of pi fails', () => {
    fc.assert(
      fc.property(fc.nat({ max: pi.length - 1 }), fc.integer({ min: 0, max: 7 }), (at, bit) => {
        const tampered = pi.slice();
        tampered[at]! ^= 1 << bit;
        expect(rsaFdhVrfVerify(key, alpha, tampered).valid).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('any flipped bit of the modulus fails or is refused', () => {
    fc.assert(
      fc.property(fc.nat({ max: parsed.k - 1 }), fc.integer({ min: 0, max: 7 }), (at, bit) => {
        const n = fromHex(v.n);
        n[at]! ^= 1 << bit;
        const other = { n: toHex(n), e: v.e };
        const code = codeOf(() => parseRsaVrfPublicKey(other));
        if (code === undefined) expect(rsaFdhVrfVerify(other, alpha, pi).valid).toBe(false);
        else expect(['weak_key', 'bad_public_key']).toContain(code);
      }),
      { numRuns: 100 },
    );
  });

  it('rejects s >= n (a second encoding of the same signature) and wrong lengths', () => {
    const sPlusN = i2osp(os2ip(pi) + parsed.n, parsed.k + 1);
    expect(rsaFdhVrfVerify(key, alpha, sPlusN)).toMatchObject({ valid: false, code: 'bad_length' });
    expect(rsaFdhVrfVerify(key, alpha, i2osp(parsed.n, parsed.k))).toMatchObject({ valid: false, code: 'not_canonical' });
    expect(rsaFdhVrfVerify(key, alpha, pi.subarray(1))).toMatchObject({ valid: false, code: 'bad_length' });
    expect(rsaFdhVrfVerify(key, alpha, new Uint8Array([0, ...pi]))).toMatchObject({ valid: false, code: 'bad_length' });
  });

  it('refuses keys under 2048 bits and malformed keys', () => {
    const n1024 = 'c' + 'f'.repeat(255);
    expect(codeOf(() => parseRsaVrfPublicKey({ n: n1024, e: '010001' }))).toBe('weak_key');
    expect(codeOf(() => rsaFdhVrfVerify({ n: n1024, e: '010001' }, alpha, pi))).toBe('weak_key');
    const n2047 = '7' + 'f'.repeat(511);
    expect(codeOf(() => parseRsaVrfPublicKey({ n: n2047, e: '010001' }))).toBe('weak_key');
    expect(codeOf(() => parseRsaVrfPublicKey({ n: v.n.slice(0, -1) + 'e', e: '010001' }))).toBe('bad_public_key');
    expect(codeOf(() => parseRsaVrfPublicKey({ n: v.n, e: '02' }))).toBe('bad_public_key');
    expect(codeOf(() => parseRsaVrfPublicKey({ n: v.n, e: '01' }))).toBe('bad_public_key');
    expect(codeOf(() => parseRsaVrfPublicKey({ n: v.n, e: '01' + v.n }))).toBe('bad_public_key');
    expect(codeOf(() => parseRsaVrfPublicKey({ n: 'zz', e: '03' }))).toBe('bad_hex');
    expect(codeOf(() => parseRsaVrfPublicKey({ n: 'f'.repeat(4098), e: '03' }))).toBe('bad_public_key');
  });

  it('imports JWKs and round-trips the hex form', () => {
    const jwk = { kty: 'RSA', n: base64url(fromHex(v.n)), e: base64url(fromHex(v.e)) };
    expect(rsaVrfPublicKeyFromJwk(jwk)).toEqual(key);
    expect(formatRsaVrfPublicKey(parsed)).toEqual(key);
    expect(codeOf(() => rsaVrfPublicKeyFromJwk({ kty: 'EC', n: jwk.n, e: jwk.e }))).toBe('bad_input');
    expect(codeOf(() => rsaVrfPublicKeyFromJwk({ kty: 'RSA', n: jwk.n + '!', e: jwk.e }))).toBe('bad_input');
  });
});

describe('RSA-FDH-VRF building blocks', () => {
  it('MGF1-SHA256 gives the known answer for "deadbeef", at every length up to 128 octets', () => {
    // Known answer from the RFC 9381 test-vector generator (MGF1 with SHA-256, 128 octets).
    const expected = fromHex(
      'a49eea4c082081ca8e405f9e8c880f57de8f7e2a121eabd1e2815c233b22e4538cc20abb816f996a86b3c5a3bf047e8c4eab43a7158434aa5e57c28576f2e04c' +
        'd3e83885d191ce6fddaff08622befb66ea1b2b2ed092a90551d873303717cb605491a9ba17d6692cc489c606ac2429b69ac02a5cf350514df6b7d0858bab80ec',
    );
    for (let len = 0; len <= expected.length; len++) expect(mgf1Sha256(fromHex('deadbeef'), len)).toEqual(expected.subarray(0, len));
  });

  it('modPow agrees with repeated multiplication', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 80n }), fc.integer({ min: 0, max: 40 }), fc.bigInt({ min: 2n, max: 2n ** 64n }), (b, e, m) => {
        let r = 1n;
        for (let i = 0; i < e; i++) r = (r * b) % m;
        expect(modPow(b, BigInt(e), m)).toBe(r % m);
      }),
      { numRuns: 300 },
    );
  });
});
