/**
 * OpenSSL's Ed25519 signing and public keys (native-sign.ts) against noble's, byte for byte: the differential
 * test that lets the Node platform sign for the core (docs/SPEC.md §2).
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nativePublicKey, nativeSign } from './native-sign.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe("OpenSSL's Ed25519 signing gives noble's bytes", () => {
  it('on any seed and message', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 2000 }), (seed, message) => {
        expect(hex(nativePublicKey(seed))).toBe(hex(ed25519.getPublicKey(seed)));
        expect(hex(nativeSign(message, seed))).toBe(hex(ed25519.sign(message, seed)));
      }),
      { numRuns: 300 },
    );
  });

  it('on the test vectors of RFC 8032 §7.1', () => {
    // TEST 1 (empty message) and TEST 2 (one byte, 0x72).
    const vectors = [
      {
        seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
        publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
        message: '',
        signature: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
      },
      {
        seed: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
        publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
        message: '72',
        signature: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
      },
    ];
    for (const v of vectors) {
      const seed = Buffer.from(v.seed, 'hex');
      expect(hex(nativePublicKey(seed))).toBe(v.publicKey);
      expect(hex(nativeSign(Buffer.from(v.message, 'hex'), seed))).toBe(v.signature);
    }
  });

  it('follows a seed changed in place, hands out a copy of the public key, and leaves a seed of another length to noble', () => {
    const seed = new Uint8Array(32).fill(7);
    const message = new TextEncoder().encode('a move');
    const first = nativeSign(message, seed);
    const publicKey = nativePublicKey(seed);
    publicKey.fill(0);
    expect(hex(nativePublicKey(seed))).toBe(hex(ed25519.getPublicKey(new Uint8Array(32).fill(7))));
    seed[0] = 8;
    expect(hex(nativeSign(message, seed))).not.toBe(hex(first));
    expect(hex(nativeSign(message, seed))).toBe(hex(ed25519.sign(message, seed)));
    expect(hex(nativePublicKey(seed))).toBe(hex(ed25519.getPublicKey(seed)));
    // The same seed handed in a new array each time (the key object is found by its digest) signs the same.
    expect(hex(nativeSign(message, seed.slice()))).toBe(hex(nativeSign(message, seed)));
    expect(hex(nativePublicKey(seed.slice()))).toBe(hex(ed25519.getPublicKey(seed)));
    expect(() => nativeSign(message, new Uint8Array(31))).toThrow();
    expect(() => nativePublicKey(new Uint8Array(33))).toThrow();
  });
});
