import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from './bytes.js';

/** Hex the slow, obvious way: two lowercase digits a byte. */
const reference = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

describe('toHex', () => {
  it('writes two lowercase digits a byte, for every byte value', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(toHex(all)).toBe(reference(all));
    expect(toHex(new Uint8Array(0))).toBe('');
  });

  it('agrees with the obvious encoding at any length, above its scratch buffer and between calls of other lengths', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 5000 }), { minLength: 1, maxLength: 4 }), (inputs) => {
        for (const bytes of inputs) expect(toHex(bytes)).toBe(reference(bytes));
      }),
      { numRuns: 60 },
    );
    // Past the kept scratch (4 KiB of bytes) and back below it.
    const big = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 7) & 255);
    expect(toHex(big)).toBe(reference(big));
    expect(toHex(big.subarray(3, 40))).toBe(reference(big.subarray(3, 40)));
  });

  it('reads back through fromHex', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(fromHex(toHex(bytes))).toEqual(bytes);
      }),
    );
  });
});
