import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { nativeSha256, nativeSha512 } from './native-hash.js';

describe('native SHA-256 gives the same bytes as noble', () => {
  it('on any input', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (data) => {
        expect(nativeSha256(data)).toEqual(sha256(data));
      }),
      { numRuns: 500 },
    );
  });
});

describe('native SHA-512 gives the same bytes as noble', () => {
  it('on any input', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (data) => {
        expect(nativeSha512(data)).toEqual(sha512(data));
      }),
      { numRuns: 500 },
    );
  });
});
