import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { canonicalize, canonicalShape, jsonProblem, MAX_DEPTH, parseCanonical, parseJson } from './jcs.js';
import { FairtableError } from './errors.js';

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
  it('writes what a plain reading of RFC 8785 writes, and refuses with the path of what it refuses', () => {
    // The reference: members sorted by UTF-16 code units, strings and numbers as the engine writes them.
    const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    const reference = (v: unknown, depth: number): string | null => {
      if (v === null || typeof v === 'boolean') return JSON.stringify(v);
      if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : null;
      if (typeof v === 'string') return LONE.test(v) ? null : JSON.stringify(v);
      if (typeof v !== 'object' || depth === 0) return null;
      const parts: string[] = [];
      if (Array.isArray(v)) {
        for (const item of v as unknown[]) {
          const written = reference(item, depth - 1);
          if (written === null) return null;
          parts.push(written);
        }
        return `[${parts.join(',')}]`;
      }
      for (const key of Object.keys(v).sort()) {
        const member = reference((v as Record<string, unknown>)[key], depth - 1);
        if (member === null || LONE.test(key)) return null;
        parts.push(`${JSON.stringify(key)}:${member}`);
      }
      return `{${parts.join(',')}}`;
    };
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom('\ud800', '\udc00x', 'a\ud83d\ude00', '"\\\n\u0001'));
    const leaf = fc.oneof(text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom(undefined, -0, NaN, Infinity));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(text, tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 4 }), (v, depth) => {
        const want = reference(v, depth);
        if (want !== null) expect(canonicalize(v, depth)).toBe(want);
        else expect(() => canonicalize(v, depth)).toThrow(/^\$/);
      }),
      { numRuns: 3000 },
    );
    expect(() => canonicalize({ a: [1, { b: '\udc00' }] })).toThrow('$.a[1].b: string holds a lone surrogate');
    expect(() => canonicalize({ a: [1, NaN] })).toThrow('$.a[1]: number is not finite');
  });
});

describe('the strict reader (parseJson, docs/SPEC.md §1)', () => {
  const code = (text: string): string | null => {
    try {
      parseJson(text);
      return null;
    } catch (e) {
      return (e as FairtableError).code;
    }
  };

  it('refuses duplicate member names at any depth, including a second "from"', () => {
    expect(code('{"a":1,"a":1}')).toBe('bad_json');
    expect(code('{"x":[{"b":1,"c":{"d":1,"d":2}}]}')).toBe('bad_json');
    expect(code('{"from":"p1","seq":0,"from":"p2"}')).toBe('bad_json');
    expect(() => parseJson('{"from":"p1","from":"p2"}', 'line 4')).toThrow(/line 4: duplicate member name "from"/);
  });

  it('refuses numbers the canonical form cannot hold, -0 and lone surrogates', () => {
    for (const t of ['1e400', '-1e400', '[1E999]', '-0', '{"seq":-0}', '-0.0', '-0e5']) expect(code(t)).toBe('not_canonical');
    for (const t of ['"\\ud800"', '"\\udc00x"', '["a\\ud800"]', '{"\\ud800":1}', JSON.stringify('\ud800')]) expect(code(t)).toBe('not_canonical');
    expect(parseJson('"\\ud83d\\ude00"')).toBe('\u{1F600}');
  });

  it('refuses nesting deeper than MAX_DEPTH, in constant stack however deep', () => {
    const nest = (n: number): string => '['.repeat(n) + ']'.repeat(n);
    expect(parseJson(nest(MAX_DEPTH))).toBeDefined();
    expect(code(nest(MAX_DEPTH + 1))).toBe('bad_json');
    expect(code(nest(1_000_000))).toBe('bad_json');
    expect(code('{"a":'.repeat(100_000))).toBe('bad_json');
    let deep: unknown = 1;
    for (let i = 0; i < MAX_DEPTH + 1; i++) deep = [deep];
    expect(() => canonicalize(deep)).toThrow(/nested deeper than 64/);
  });

  it('refuses what is not JSON', () => {
    for (const t of [
      '',
      ' ',
      '{',
      '[1,]',
      '{"a":1,}',
      '01',
      '1.',
      '.5',
      '+1',
      'tru',
      'nul',
      '"\\x"',
      '"a\nb"',
      "'a'",
      '{a:1}',
      '1 2',
      'NaN',
      '[1]x',
      '"\\u12"',
    ])
      expect(code(t), t).toBe('bad_json');
  });

  it('reads a member named __proto__ as a member', () => {
    const v = parseJson('{"__proto__":{"x":1},"a":2}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(canonicalize(v)).toBe('{"__proto__":{"x":1},"a":2}');
  });

  it('agrees with JSON.parse on every I-JSON text, and canonical text round-trips through parseCanonical', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value);
        let canonical: string;
        try {
          canonical = canonicalize(JSON.parse(text));
        } catch {
          return; // -0 and friends: covered above
        }
        if (text.includes('-0')) return;
        expect(parseJson(text)).toEqual(JSON.parse(text));
        expect(canonicalize(parseCanonical(canonical))).toBe(canonical);
        if (JSON.stringify(JSON.parse(text), null, 1) !== canonical)
          expect(() => parseCanonical(JSON.stringify(JSON.parse(text), null, 1))).toThrow(/canonical/);
      }),
      { numRuns: 1000 },
    );
  });

  it('jsonProblem says what parseJson would throw, or null where it reads the text', () => {
    const problem = (text: string): string | null => {
      try {
        parseJson(text, 'line');
        return null;
      } catch (e) {
        return (e as FairtableError).message;
      }
    };
    for (const t of ['x', '', '{', '[1]x', '{"a":1,"a":2}', '1e400', '-0', '"\\ud800"', '[]', '{"a":[1,{"b":null}]}', '['.repeat(MAX_DEPTH + 1)])
      expect(jsonProblem(t, 'line'), t).toBe(problem(t));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.json(),
          fc.json().map((t) => t.slice(0, Math.max(0, t.length - 1))),
        ),
        (text) => {
          expect(jsonProblem(text, 'line')).toBe(problem(text));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('never throws anything but a FairtableError, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.json().map((t) => t.slice(0, Math.max(0, t.length - 1))),
        ),
        (text) => {
          try {
            parseJson(text);
          } catch (e) {
            expect(e).toBeInstanceOf(FairtableError);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('canonicalShape', () => {
  const shape = canonicalShape(['value', 'game', 'b\u00e9', 'a b']);
  /** canonicalize's text, or its error's code and message. */
  const outcome = (f: () => string): string => {
    try {
      return f();
    } catch (e) {
      return e instanceof FairtableError ? `${e.code}: ${e.message}` : `other: ${String(e)}`;
    }
  };

  it('writes what canonicalize writes, and refuses what it refuses with the same error', () => {
    const member = fc.oneof(
      fc.jsonValue(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom(undefined, Number.NaN, -0, '\ud800', { x: undefined }, [1n as unknown], new Date(0)),
    );
    fc.assert(
      fc.property(member, member, member, member, (value, game, accented, spaced) => {
        const record = { value, game, 'b\u00e9': accented, 'a b': spaced };
        expect(outcome(() => shape(record))).toBe(outcome(() => canonicalize(record)));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses a shape whose names repeat or hold a lone surrogate', () => {
    expect(() => canonicalShape(['a', 'a'])).toThrow(FairtableError);
    expect(() => canonicalShape(['\ud800'])).toThrow(FairtableError);
  });
});
