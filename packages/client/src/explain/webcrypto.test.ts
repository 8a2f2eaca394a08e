/**
 * The WebCrypto fast path against noble's rule (docs/SPEC.md §3.2, docs/spec/explain.md §5): on random
 * signatures and flipped bits, and on the edge cases where Ed25519 implementations part ways (small-order
 * and mixed-order keys, non-canonical S, R and A). Node 20's `crypto.subtle` does Ed25519 (OpenSSL), the
 * engine of Chromium's (BoringSSL) family; the raw answers show where the guards are needed.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesToBigInt, concatBytes, fromHex } from '@fairtable/core/bytes.js';
import { generateKeyPair, sign, verify as nobleVerify } from '@fairtable/core/identity.js';
import { canonicalR, canonicalS, rawWebCryptoVerify, webCryptoVerifier } from './webcrypto.js';

const subtle = globalThis.crypto.subtle;
const verifier = (await webCryptoVerifier())!;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const P = 2n ** 255n - 19n;

const le = (n: bigint, length = 32): Uint8Array => {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Number((n >> BigInt(8 * i)) & 255n);
  return out;
};
const leInt = (bytes: Uint8Array): bigint => bytesToBigInt(bytes.slice().reverse());
const mod = (n: bigint, m: bigint): bigint => ((n % m) + m) % m;
/** k = SHA-512(R ‖ A ‖ M) mod L, over the bytes as given. */
const challenge = (R: Uint8Array, A: Uint8Array, msg: Uint8Array): bigint => mod(leInt(sha512(concatBytes(R, A, msg))), L);

/** The eight points of small order, canonically encoded. */
const TORSION = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0000000000000000000000000000000000000000000000000000000000000080',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
].map((h) => fromHex(h));

async function same(signature: Uint8Array, msg: Uint8Array, key: Uint8Array): Promise<boolean> {
  const noble = nobleVerify(signature, msg, key);
  expect(await verifier.verify(signature, msg, key)).toBe(noble);
  return noble;
}

describe('webCryptoVerifier follows the noble rule', () => {
  it('is found where crypto.subtle does Ed25519', () => {
    expect(verifier.name).toBe('webcrypto');
  });

  it('on random signatures and any flipped bit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 200 }), fc.nat(), async (seed, msg, flip) => {
        const k = generateKeyPair(seed);
        const sig = sign(msg, k.secretKey);
        expect(await same(sig, msg, k.publicKey)).toBe(true);
        const bad = sig.slice();
        bad[flip % 64]! ^= 1 << (flip % 8);
        expect(await same(bad, msg, k.publicKey)).toBe(false);
        const badKey = k.publicKey.slice();
        badKey[flip % 32]! ^= 1 << (flip % 8);
        await same(sig, msg, badKey);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses (R = T, S = 0) for every small-order key T, which raw WebCrypto accepts for some', async () => {
    const msg = new Uint8Array([1, 2, 3]);
    let rawAccepts = 0;
    for (const t of TORSION) {
      const sig = concatBytes(t, new Uint8Array(32));
      expect(await same(sig, msg, t)).toBe(false);
      if (await rawWebCryptoVerify(subtle, sig, msg, t)) rawAccepts++;
    }
    // The reason the key check exists (the same finding as OpenSSL's in packages/node).
    expect(rawAccepts).toBeGreaterThan(0);
  });

  it('refuses a non-canonical S (S + L)', async () => {
    const msg = new Uint8Array([4, 5]);
    const k = generateKeyPair(new Uint8Array(32).fill(1));
    const sig = sign(msg, k.secretKey);
    const big = concatBytes(sig.subarray(0, 32), le(leInt(sig.subarray(32)) + L));
    expect(canonicalS(big)).toBe(false);
    expect(await same(big, msg, k.publicKey)).toBe(false);
  });

  it('decides a non-canonical R by noble: the identity written as y = p + 1', async () => {
    const msg = new Uint8Array([6]);
    const ext = ed25519.utils.getExtendedPublicKey(new Uint8Array(32).fill(9));
    const A = ext.pointBytes;
    for (const R of [le(P + 1n), le(1n)]) {
      // R = identity, so [S]B = [k]A holds for S = k·a: a signature by the equation, over R's bytes as written.
      const S = mod(challenge(R, A, msg) * ext.scalar, L);
      const sig = concatBytes(R, le(S));
      const canonical = R[0] === 1;
      expect(canonicalR(sig)).toBe(canonical);
      expect(await same(sig, msg, A)).toBe(canonical);
    }
  });

  it('refuses a non-canonical A', async () => {
    const msg = new Uint8Array([7]);
    // y = p + 1 is the identity again, as a public key: non-canonical and of small order.
    const A = le(P + 1n);
    const sig = concatBytes(le(1n), new Uint8Array(32));
    expect(await same(sig, msg, A)).toBe(false);
  });

  it('accepts what only the cofactored equation accepts (a mixed-order key), through noble', async () => {
    const msg = new Uint8Array([8, 9]);
    const ext = ed25519.utils.getExtendedPublicKey(new Uint8Array(32).fill(11));
    const T = ed25519.Point.fromBytes(TORSION[6]!);
    const A = ext.point.add(T).toBytes();
    let found = 0;
    for (let r = 1n; r < 40n && found < 3; r++) {
      const R = ed25519.Point.BASE.multiply(r).toBytes();
      const k = challenge(R, A, msg);
      if (k % 8n === 0n) continue; // then [k]T vanishes and even the cofactorless check holds
      const sig = concatBytes(R, le(mod(r + k * ext.scalar, L)));
      expect(await same(sig, msg, A)).toBe(true);
      expect(await rawWebCryptoVerify(subtle, sig, msg, A)).toBe(false);
      found++;
    }
    expect(found).toBe(3);
  });

  it('is not used where crypto.subtle is missing, lacks Ed25519 or says valid to a bad signature', async () => {
    expect(await webCryptoVerifier(null)).toBeUndefined();
    const missing = {
      importKey: () => Promise.reject(new Error('NotSupportedError')),
      verify: () => Promise.reject(new Error('NotSupportedError')),
    } as unknown as SubtleCrypto;
    expect(await webCryptoVerifier(missing)).toBeUndefined();
    const yes = { importKey: subtle.importKey.bind(subtle), verify: () => Promise.resolve(true) } as unknown as SubtleCrypto;
    expect(await webCryptoVerifier(yes)).toBeUndefined();
  });
});
