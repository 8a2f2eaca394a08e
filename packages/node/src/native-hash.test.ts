import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { nativeSha256, nativeSha512 } from './native-hash.js';

describe.each([
  ['SHA-256', nativeSha256, sha256],
  ['SHA-512', nativeSha512, sha512],
] as const)('native %s gives the same bytes as noble', (_name, native, noble) => {
  it('on any input', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (data) => {
        expect(native(data)).toEqual(noble(data));
      }),
      { numRuns: 500 },
    );
  });
});
