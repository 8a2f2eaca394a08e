import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sha256 } from '@noble/hashes/sha2.js';
import { toHex, utf8 } from '../bytes.js';
import { defaultDigest } from './hashes.js';
import { ONE_BLOCK_OCTETS, sha256OneBlock } from './sha256-one-block.js';

const oneBlock = (message: Uint8Array): string => {
  const out = new Uint8Array(32);
  sha256OneBlock(message, out);
  return toHex(out);
};

describe('sha256OneBlock', () => {
  it('gives the FIPS 180-2 Appendix B.1 digest of "abc" and the digest of the empty message', () => {
    expect(oneBlock(utf8('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(oneBlock(new Uint8Array(0))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('agrees with noble for every length from 0 to 55 octets', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: ONE_BLOCK_OCTETS }), (message) => {
        expect(oneBlock(message)).toBe(toHex(sha256(message)));
      }),
      { numRuns: 2000 },
    );
    for (let length = 0; length <= ONE_BLOCK_OCTETS; length++) {
      const message = Uint8Array.from({ length }, (_, i) => (i * 37 + length) & 255);
      expect(oneBlock(message), `length ${length}`).toBe(toHex(sha256(message)));
    }
  });

  it('refuses a message that needs a second block', () => {
    expect(() => sha256OneBlock(new Uint8Array(56), new Uint8Array(32))).toThrow(RangeError);
  });

  it('is what the default SHA-256 digest uses, which hands longer messages to noble', () => {
    const digest = defaultDigest('sha-256');
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (message) => {
        expect(toHex(digest(message))).toBe(toHex(sha256(message)));
      }),
      { numRuns: 1000 },
    );
  });
});
