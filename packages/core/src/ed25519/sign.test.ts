/**
 * Signing with the expansion remembered (sign.ts) gives noble's `ed25519.sign` bytes on every key and message,
 * on the first signature of a key and on later ones, and follows a key object whose bytes change in place.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { toHex, utf8 } from '../bytes.js';
import { taggedHash } from '../hash.js';
import { noblePublicKey, nobleSign, publicKeyRemembered, signRemembered } from './sign.js';
import { configure, platformEd25519 } from '../platform.js';
import { verify } from '../identity.js';

const bytesOf = (seed: string, i: number): Uint8Array => taggedHash('sign-test', utf8(`${seed}/${i}`));

describe('signing with the expansion remembered', () => {
  it("gives noble's bytes for 24 keys and messages of 0 to 1,000 bytes, first use and later", () => {
    for (let i = 0; i < 24; i++) {
      const secret = bytesOf('key', i);
      expect(toHex(noblePublicKey(secret))).toBe(toHex(ed25519.getPublicKey(secret)));
      for (const size of [0, 1, 63, 64, 300, 1000]) {
        const msg = new Uint8Array(size).map((_, j) => (i * 31 + j * 7) & 255);
        expect(toHex(nobleSign(msg, secret)), `key ${i}, ${size} bytes`).toBe(toHex(ed25519.sign(msg, secret)));
      }
    }
  });

  it('signs with the new bytes when a key object is changed in place, and refuses a key of the wrong length', () => {
    const secret = bytesOf('changed', 0);
    const msg = utf8('the same message');
    const before = nobleSign(msg, secret);
    secret.set(bytesOf('changed', 1));
    const after = nobleSign(msg, secret);
    expect(toHex(after)).not.toBe(toHex(before));
    expect(toHex(after)).toBe(toHex(ed25519.sign(msg, bytesOf('changed', 1))));
    expect(toHex(noblePublicKey(secret))).toBe(toHex(ed25519.getPublicKey(bytesOf('changed', 1))));
    expect(() => nobleSign(msg, new Uint8Array(31))).toThrow();
  });

  it('makes signatures that verify, and that fail on another message', () => {
    const secret = bytesOf('verify', 0);
    const sig = nobleSign(utf8('hello'), secret);
    expect(ed25519.verify(sig, utf8('hello'), noblePublicKey(secret))).toBe(true);
    expect(ed25519.verify(sig, utf8('hello!'), noblePublicKey(secret))).toBe(false);
  });

  it("signs and verifies with the platform's Ed25519 where one is configured, and with noble's again once it is taken back", () => {
    const secret = bytesOf('platform', 0);
    const msg = utf8('a move');
    const asked: string[] = [];
    // The thread's own platform (a command run in-process earlier in this worker may have set OpenSSL's) comes back after.
    const before = platformEd25519;
    configure({
      ed25519: {
        sign: (m, k) => {
          asked.push('sign');
          return nobleSign(m, k);
        },
        publicKey: (k) => {
          asked.push('publicKey');
          return noblePublicKey(k);
        },
        verify: (sig, m, pk) => {
          asked.push('verify');
          return ed25519.verify(sig, m, pk, { zip215: false });
        },
      },
    });
    try {
      expect(toHex(signRemembered(msg, secret))).toBe(toHex(ed25519.sign(msg, secret)));
      expect(toHex(publicKeyRemembered(secret))).toBe(toHex(ed25519.getPublicKey(secret)));
      expect(verify(signRemembered(msg, secret), msg, publicKeyRemembered(secret))).toBe(true);
      expect(asked).toEqual(['sign', 'publicKey', 'sign', 'publicKey', 'verify']);
      configure({ ed25519: null });
      expect(toHex(signRemembered(msg, secret))).toBe(toHex(ed25519.sign(msg, secret)));
      expect(verify(signRemembered(msg, secret), msg, publicKeyRemembered(secret))).toBe(true);
      expect(asked).toEqual(['sign', 'publicKey', 'sign', 'publicKey', 'verify']);
    } finally {
      configure({ ed25519: before });
    }
  });
});
