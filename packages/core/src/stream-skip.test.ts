/**
 * The stream's skip (docs/SPEC.md §6) jumps whole blocks by the counter: it
 * must leave the stream exactly where drawing the same number of bytes one
 * by one would, from any position.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RandomStream } from './stream.js';

describe('RandomStream.skip', () => {
  it('equals drawing the bytes one by one, from any position, for any count', () => {
    fc.assert(
      fc.property(fc.nat(100), fc.array(fc.nat(200), { minLength: 1, maxLength: 5 }), (start, skips) => {
        const seed = new Uint8Array(32).fill(7);
        const fast = new RandomStream(seed, 'skip');
        const slow = new RandomStream(seed, 'skip');
        fast.bytes(start);
        slow.bytes(start);
        for (const n of skips) {
          fast.skip(n);
          for (let i = 0; i < n; i++) slow.nextByte();
          expect(fast.consumed).toBe(slow.consumed);
          expect(fast.bytes(3)).toEqual(slow.bytes(3));
        }
      }),
      { numRuns: 1000 },
    );
  });
});
