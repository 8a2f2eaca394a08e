import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { canonicalize } from './jcs.js';

const vectors = JSON.parse(readFileSync(new URL('./vectors/jcs.json', import.meta.url), 'utf8')) as {
  documents: { input: string; canonical?: string; keyOrder?: string[] }[];
  numbers: [string, string][];
  invalidNumbers: string[];
};
const f64 = (hex: string): number => new DataView(Uint8Array.from(Buffer.from(hex, 'hex')).buffer).getFloat64(0);

describe('RFC 8785 canonicalization', () => {
  it('reproduces the RFC documents', () => {
    for (const d of vectors.documents) {
      const out = canonicalize(JSON.parse(d.input));
      if (d.canonical !== undefined) expect(out).toBe(d.canonical);
      if (d.keyOrder !== undefined) {
        // Object.keys would put "1" first (an array index); read the order off the text instead.
        const positions = d.keyOrder.map((k) => out.indexOf(`${JSON.stringify(k)}:`));
        expect(positions.every((p) => p >= 0)).toBe(true);
        expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      }
    }
  });
  it('serializes numbers as Appendix B says', () => {
    for (const [bits, text] of vectors.numbers) expect(canonicalize(f64(bits))).toBe(text);
    for (const bits of vectors.invalidNumbers) expect(() => canonicalize(f64(bits))).toThrow(/not finite/);
  });
  it('refuses what I-JSON forbids', () => {
    expect(() => canonicalize({ a: undefined })).toThrow();
    expect(() => canonicalize('\ud800')).toThrow(/surrogate/);
    expect(() => canonicalize(new Date())).toThrow(/plain/);
    expect(() => canonicalize(1n)).toThrow();
  });
  it('is idempotent and parse-stable', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const c = canonicalize(v);
        expect(canonicalize(JSON.parse(c))).toBe(c);
      }),
      { numRuns: 500 },
    );
  });
});
