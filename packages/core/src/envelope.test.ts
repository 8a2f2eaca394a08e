import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalize } from './jcs.js';
import { canonicalUnsigned, envelopeShapeError, type UnsignedEnvelope } from './envelope.js';

const hex32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));

describe('canonicalUnsigned', () => {
  it('is exactly JCS of the unsigned envelope', () => {
    fc.assert(
      fc.property(
        fc.record({
          game: hex32,
          from: fc.stringMatching(/^[A-Za-z0-9_.:@-]{1,64}$/),
          seq: fc.nat(),
          prev: hex32,
          at: fc.nat(),
          head: hex32,
          time: fc.maxSafeNat(),
          body: fc.dictionary(fc.string(), fc.jsonValue()).map((d) => ({ ...d, type: 'x' })),
        }),
        (r) => {
          const e: UnsignedEnvelope = { v: 1, ...r };
          expect(envelopeShapeError({ ...e, sig: '00'.repeat(64) })).toBeNull();
          expect(canonicalUnsigned(e)).toBe(canonicalize(e));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
