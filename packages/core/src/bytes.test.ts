import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FairtableError } from './errors.js';
import { fromHex, hexInto, toHex } from './bytes.js';

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

describe('hexInto', () => {
  it('writes the bytes of hex in either case into an array at an offset, and nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(8), fc.boolean(), (bytes, at, upper) => {
        const out = new Uint8Array(at + bytes.length + 4).fill(0xee);
        const hex = reference(bytes);
        hexInto(upper ? hex.toUpperCase() : hex, out, at);
        expect(out.subarray(at, at + bytes.length)).toEqual(bytes);
        expect([...out.subarray(0, at), ...out.subarray(at + bytes.length)].every((b) => b === 0xee)).toBe(true);
      }),
    );
  });

  it('refuses a digit that is not hex, with bad_hex', () => {
    expect(() => hexInto('0g', new Uint8Array(1), 0)).toThrow(FairtableError);
    expect(() => hexInto('é0', new Uint8Array(1), 0)).toThrow(/hex/);
  });
});
