import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ed25519 } from '@noble/curves/ed25519.js';
import { nobleVerify, generateKeyPair, sign } from '@fairtable/core/identity.js';
import { nativeSign, nativeVerify, opensslVerify } from './native-verify.js';

describe('native Ed25519 verification agrees with noble', () => {
  it('checks against the key an array holds now, not the one it held when first seen', () => {
    const a = generateKeyPair(new Uint8Array(32).fill(7));
    const b = generateKeyPair(new Uint8Array(32).fill(8));
    const msg = new Uint8Array([4, 5, 6]);
    const key = a.publicKey.slice();
    expect(nativeVerify(sign(msg, a.secretKey), msg, key)).toBe(true);
    // The same array, rewritten with another player's key: a's signature must no longer pass.
    key.set(b.publicKey);
    expect(nativeVerify(sign(msg, a.secretKey), msg, key)).toBe(false);
    expect(nativeVerify(sign(msg, b.secretKey), msg, key)).toBe(true);
  });

  it('on valid signatures and on any flipped bit', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 200 }), fc.nat(), (seed, msg, flip) => {
        const k = generateKeyPair(seed);
        const sig = sign(msg, k.secretKey);
        expect(nativeSign(msg, k.secretKey)).toEqual(sig);
        expect(opensslVerify(sig, msg, k.publicKey)).toBe(true);
        expect(nobleVerify(sig, msg, k.publicKey)).toBe(true);
        const bad = sig.slice();
        bad[flip % 64]! ^= 1 << (flip % 8);
        expect(nativeVerify(bad, msg, k.publicKey)).toBe(nobleVerify(bad, msg, k.publicKey));
        expect(opensslVerify(bad, msg, k.publicKey)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('never says valid where noble says invalid, including small-order keys and non-canonical S', () => {
    const msg = new Uint8Array([1, 2, 3]);
    const torsion = ['0100000000000000000000000000000000000000000000000000000000000000', 'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'];
    for (const t of torsion) {
      const pk = Uint8Array.from(Buffer.from(t, 'hex'));
      // (R = the small-order point, S = 0) for a small-order key: OpenSSL accepts it, the noble rule does not,
      // and the fast path must follow the noble rule.
      const sig = new Uint8Array(64);
      sig.set(pk, 0);
      expect(nobleVerify(sig, msg, pk)).toBe(false);
      expect(nativeVerify(sig, msg, pk)).toBe(false);
    }
    const k = generateKeyPair(new Uint8Array(32).fill(1));
    const sig = sign(msg, k.secretKey);
    // S + L is non-canonical: both must refuse it.
    const L = 2n ** 252n + 27742317777372353535851937790883648493n;
    let s = 0n;
    for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(sig[32 + i]!);
    const s2 = s + L;
    const big = sig.slice();
    for (let i = 0; i < 32; i++) big[32 + i] = Number((s2 >> BigInt(8 * i)) & 255n);
    expect(nobleVerify(big, msg, k.publicKey)).toBe(false);
    expect(nativeVerify(big, msg, k.publicKey)).toBe(false);
    expect(ed25519.verify(sig, msg, k.publicKey)).toBe(true);
  });
});
