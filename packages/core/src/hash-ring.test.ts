import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FairtableError } from './errors.js';
import { HashRing } from './hash-ring.js';

const hashArb = fc.option(
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')),
  { nil: null },
);

function code(f: () => unknown): string | null {
  try {
    f();
    return null;
  } catch (e) {
    return e instanceof FairtableError ? e.code : 'plain';
  }
}

describe('HashRing: the last window line hashes, as bytes', () => {
  it('gives back what an array of strings would, for any window and any run of lines', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(hashArb, { maxLength: 150 }), (window, hashes) => {
        const ring = new HashRing(window);
        const model: (string | null)[] = [];
        hashes.forEach((h, line) => {
          ring.set(line, h);
          model[line % window] = h;
          // Every line still in the window reads back as written.
          for (let back = Math.max(0, line - window + 1); back <= line; back++) expect(ring.get(back)).toBe(model[back % window]);
        });
        expect(ring.size).toBe(Math.min(window, hashes.length));
        expect(ring.toArray()).toEqual(model);
      }),
    );
  });

  it('reads null for a slot not yet written', () => {
    const ring = new HashRing(8);
    expect(ring.get(0)).toBeNull();
    ring.set(0, 'ab'.repeat(32));
    expect(ring.get(1)).toBeNull();
  });

  it('refuses a hash that is not 64 lowercase hex digits, and a line that skips slots', () => {
    const ring = new HashRing(8);
    expect(code(() => ring.set(0, 'AB'.repeat(32)))).toBe('bad_hex');
    expect(code(() => ring.set(0, 'ab'.repeat(31)))).toBe('bad_hex');
    expect(code(() => ring.set(0, 'zz'.repeat(32)))).toBe('bad_hex');
    expect(code(() => ring.set(2, null))).toBe('bad_input');
    expect(code(() => new HashRing(0))).toBe('bad_input');
    expect(ring.size).toBe(0);
  });
});
