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

describe('the native digests', () => {
  it('carry every byte value through the string they are read from', () => {
    // Digests of 0..N until every byte value 0–255 has come out at least once, each checked against noble's.
    const seen = new Set<number>();
    for (let i = 0; seen.size < 256; i++) {
      const data = new Uint8Array([i & 255, i >> 8]);
      const d = nativeSha256(data);
      expect(d).toEqual(sha256(data));
      for (const b of d) seen.add(b);
    }
    expect(seen.size).toBe(256);
  });

  it('give a new array each time, not a view of shared memory', () => {
    const a = nativeSha256(new Uint8Array([1]));
    const b = nativeSha256(new Uint8Array([2]));
    expect(a.buffer).not.toBe(b.buffer);
    expect(a.byteLength).toBe(32);
    expect(a.buffer.byteLength).toBe(32);
  });
});
