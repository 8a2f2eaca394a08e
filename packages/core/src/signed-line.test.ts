import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalize } from './jcs.js';
import { envelopeHash, envelopeLine, envelopeShapeError, signEnvelope, signingBytes, type Envelope } from './envelope.js';
import { plainlyCanonical, signedLine } from './signed-line.js';
import { prepareLine } from './transcript.js';
import { fromHex, toHex } from './bytes.js';
import { generateKeyPair } from './identity.js';

const keys = generateKeyPair(new Uint8Array(32).fill(7));

/** Strings of any UTF-16 units: lone surrogates, controls, quotes and backslashes included. */
const anyString = fc.string({ unit: 'binary' });
const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    anyString,
    fc.array(tie('value')),
    fc.dictionary(fc.oneof(anyString, fc.constantFrom('__proto__', '10', '9', 'type', 'a')), tie('value')),
  ),
})).value;

const envelopeOf = (body: Record<string, unknown>, at: number, time: number): Envelope =>
  signEnvelope(
    { v: 1, game: 'ab'.repeat(32), from: 'p1', seq: 3, prev: 'cd'.repeat(32), at, head: 'ef'.repeat(32), time, body: { ...body, type: 't' } },
    keys.secretKey,
  );

/** What the general way says of `text`: whether it is canonical, and then its hash and signed bytes. */
function reference(text: string, value: Envelope): { canonical: boolean; hash?: string; message?: Uint8Array } {
  let canonical: boolean;
  try {
    canonical = canonicalize(value) === text;
  } catch {
    canonical = false;
  }
  return canonical ? { canonical, hash: envelopeHash(value), message: signingBytes(value) } : { canonical };
}

/** Whether a member name anywhere in `value` is an array index ("0", "17"), which objects enumerate first. */
function hasIndexName(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasIndexName);
  return Object.entries(value).some(([k, v]) => /^(0|[1-9][0-9]{0,8})$/.test(k) || hasIndexName(v));
}

/** Texts that parse to the same value as `text` but are spelled otherwise (or not). */
function spellings(text: string): string[] {
  const value = JSON.parse(text) as Record<string, unknown>;
  const { body, ...rest } = value;
  return [
    text,
    JSON.stringify(value, null, 1),
    JSON.stringify({ ...rest, body }),
    text.replace('"type":"t"', '"type":"\\u0074"'),
    text.replace(/"at":(\d+)/, '"at":$1.0'),
    text.replace(/"time":(\d+)/, '"time":$1e0'),
    text.replace('{"at"', '{"at":0,"at"'),
    text.replace('"body":{', '"body":{"type":"u",'),
  ];
}

describe('signedLine: the signed bytes cut from a line', () => {
  it('gives exactly the general way’s hash and signed bytes, and declines every line that is not canonical', () => {
    let fast = 0;
    let runs = 0;
    fc.assert(
      fc.property(fc.dictionary(anyString, anyJson, { maxKeys: 6 }), fc.nat(), fc.maxSafeNat(), (body, at, time) => {
        let line: string;
        let envelope: Envelope;
        try {
          envelope = envelopeOf(body, at, time);
          line = envelopeLine(envelope);
        } catch {
          return; // a body with a lone surrogate or a non-finite number has no canonical line
        }
        runs++;
        for (const text of spellings(line)) {
          const value = JSON.parse(text) as Envelope;
          if (envelopeShapeError(value) !== null) continue;
          const ref = reference(text, value);
          const got = signedLine(text, value);
          // The quick look takes every honest line but those with escaped surrogates or index-like member names.
          if (text === line && !text.includes('\\ud') && !hasIndexName(value)) expect(got).not.toBeNull();
          if (got === null) continue;
          if (text === line) fast++;
          expect(ref.canonical).toBe(true);
          expect(got.hash).toBe(ref.hash);
          expect(toHex(got.message)).toBe(toHex(ref.message!));
          expect(toHex(got.sig)).toBe(value.sig);
        }
      }),
      { numRuns: 1000 },
    );
    expect(fast).toBeGreaterThan(runs / 2);
  });

  it('names every non-canonical spelling as not plainly canonical', () => {
    const e = envelopeOf({ n: 1, s: 'é\u0001"\\', deep: [[{ b: 1, a: 2 }]] }, 5, 6);
    const line = envelopeLine(e);
    expect(plainlyCanonical(line, JSON.parse(line))).toBe(true);
    for (const text of spellings(line).slice(1)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        continue;
      }
      expect(plainlyCanonical(text, parsed)).toBe(false);
    }
    // Members out of order deep inside the body, and an escaped lone surrogate.
    const unsorted = line.replace('"deep":[[{"a":2,"b":1}]]', '"deep":[[{"b":1,"a":2}]]');
    expect(unsorted).not.toBe(line);
    expect(plainlyCanonical(unsorted, JSON.parse(unsorted))).toBe(false);
    const lone = line.replace('"n":1', '"m":"\\ud800","n":1');
    expect(plainlyCanonical(lone, JSON.parse(lone))).toBe(false);
    // Integer-like member names come first in a parsed object whatever their text order.
    const numbered = line.replace('"n":1', '"10":1,"9":2,"n":1');
    expect(plainlyCanonical(numbered, JSON.parse(numbered))).toBe(false);
  });

  it('refuses a line nested deeper than the canonical form allows, as the general way does', () => {
    const nest = (n: number): unknown => (n === 0 ? 1 : [nest(n - 1)]);
    for (const depth of [62, 63, 64]) {
      const e = { ...envelopeOf({}, 1, 1) };
      // Nesting beyond what signEnvelope accepts: the line is built by hand, not signed.
      const text = envelopeLine(e).replace('"body":{', `"body":{"d":${JSON.stringify(nest(depth))},`);
      const value = JSON.parse(text) as Envelope;
      let canonical = true;
      try {
        canonical = canonicalize(value) === text;
      } catch {
        canonical = false;
      }
      expect(signedLine(text, value) !== null).toBe(canonical);
      expect(prepareLine(1, text, new Map()).shapeError === null).toBe(canonical);
    }
  });

  it('hands the verifier arrays of its own, which a later line does not overwrite', () => {
    const a = envelopeLine(envelopeOf({ x: 'a' }, 1, 1));
    const b = envelopeLine(envelopeOf({ x: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' }, 2, 2));
    const first = signedLine(a, JSON.parse(a) as Envelope)!;
    const before = [toHex(first.message), toHex(first.sig)];
    signedLine(b, JSON.parse(b) as Envelope);
    expect([toHex(first.message), toHex(first.sig)]).toEqual(before);
  });

  it('keeps prepareLine’s answers: an honest line verifies, a changed signature does not', () => {
    const e = envelopeOf({ x: 1 }, 1, 1);
    const line = envelopeLine(e);
    const keyMap = new Map([['p1', keys.publicKey]]);
    const good = prepareLine(1, line, keyMap);
    expect(good.sigOk).toBe(true);
    expect(good.hash).toBe(envelopeHash(e));
    const flipped = line.replace(`"sig":"${e.sig}"`, `"sig":"${e.sig.slice(0, -1)}${e.sig.endsWith('0') ? '1' : '0'}"`);
    const bad = prepareLine(1, flipped, keyMap);
    expect(bad.shapeError).toBeNull();
    expect(bad.sigOk).toBe(false);
    expect(toHex(fromHex(bad.envelope!.sig))).not.toBe(e.sig);
  });
});
