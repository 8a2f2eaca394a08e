/**
 * Signing with the expansion remembered (sign.ts) gives noble's `ed25519.sign` bytes on every key and message,
 * on the first signature of a key and on later ones, and follows a key object whose bytes change in place.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { toHex, utf8 } from '../bytes.js';
import { taggedHash } from '../hash.js';
import { publicKeyRemembered, signRemembered } from './sign.js';

const bytesOf = (seed: string, i: number): Uint8Array => taggedHash('sign-test', utf8(`${seed}/${i}`));

describe('signing with the expansion remembered', () => {
  it("gives noble's bytes for 24 keys and messages of 0 to 1,000 bytes, first use and later", () => {
    for (let i = 0; i < 24; i++) {
      const secret = bytesOf('key', i);
      expect(toHex(publicKeyRemembered(secret))).toBe(toHex(ed25519.getPublicKey(secret)));
      for (const size of [0, 1, 63, 64, 300, 1000]) {
        const msg = new Uint8Array(size).map((_, j) => (i * 31 + j * 7) & 255);
        expect(toHex(signRemembered(msg, secret)), `key ${i}, ${size} bytes`).toBe(toHex(ed25519.sign(msg, secret)));
      }
    }
  });

  it('signs with the new bytes when a key object is changed in place, and refuses a key of the wrong length', () => {
    const secret = bytesOf('changed', 0);
    const msg = utf8('the same message');
    const before = signRemembered(msg, secret);
    secret.set(bytesOf('changed', 1));
    const after = signRemembered(msg, secret);
    expect(toHex(after)).not.toBe(toHex(before));
    expect(toHex(after)).toBe(toHex(ed25519.sign(msg, bytesOf('changed', 1))));
    expect(toHex(publicKeyRemembered(secret))).toBe(toHex(ed25519.getPublicKey(bytesOf('changed', 1))));
    expect(() => signRemembered(msg, new Uint8Array(31))).toThrow();
  });

  it('makes signatures that verify, and that fail on another message', () => {
    const secret = bytesOf('verify', 0);
    const sig = signRemembered(utf8('hello'), secret);
    expect(ed25519.verify(sig, utf8('hello'), publicKeyRemembered(secret))).toBe(true);
    expect(ed25519.verify(sig, utf8('hello!'), publicKeyRemembered(secret))).toBe(false);
  });
});
