/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 *
 * The one canonical encoding every fairtable hash and signature is taken over
 * (docs/SPEC.md §1). Objects are written with their members sorted by the
 * UTF-16 code units of their names, no white space, numbers in the ECMAScript
 * shortest round-trip form (RFC 8785 §3.2.2.3), strings with the minimal
 * JSON escapes (§3.2.2.2). Values outside I-JSON (RFC 7493) are refused:
 * non-finite numbers, lone surrogates, `undefined`, functions, symbols,
 * bigints, and objects that are not plain.
 */
import { FairtableError } from './errors.js';
import { utf8 } from './bytes.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function serializeString(s: string, path: () => string): string {
  // JSON.stringify's string escaping is exactly RFC 8785 §3.2.2.2 for well-formed strings; it writes a lone
  // surrogate as an escape (\udXXX) and a paired one raw, so only an escaped one needs the closer look.
  const out = JSON.stringify(s);
  if (out.includes('\\ud') && LONE_SURROGATE.test(s)) {
    const field = path();
    throw new FairtableError('not_canonical', `${field}: string holds a lone surrogate`, { field });
  }
  return out;
}

function serializeNumber(n: number, path: () => string): string {
  if (!Number.isFinite(n)) {
    const field = path();
    throw new FairtableError('not_canonical', `${field}: number is not finite`, { field });
  }
  // ECMAScript Number::toString is the RFC 8785 number format; -0 becomes "0".
  return n === 0 ? '0' : String(n);
}

// Paths for error messages are built only when an error is thrown: building them eagerly
// cost more than the serialization itself on the audit's hot path.
function serialize(value: unknown, path: () => string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return serializeNumber(value, path);
    case 'string':
      return serializeString(value, path);
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          out += serialize(value[i], () => `${path()}[${i}]`);
        }
        return out + ']';
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        const field = path();
        throw new FairtableError('not_canonical', `${field}: not a plain object`, { field });
      }
      const record = value as Record<string, unknown>;
      // Default sort compares UTF-16 code units, which is what RFC 8785 §3.2.3 asks for.
      const keys = Object.keys(record).sort();
      let out = '{';
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const member = record[key];
        const memberPath = (): string => `${path()}.${key}`;
        if (member === undefined) {
          const field = memberPath();
          throw new FairtableError('not_canonical', `${field}: undefined`, { field });
        }
        if (i > 0) out += ',';
        out += serializeString(key, path) + ':' + serialize(member, memberPath);
      }
      return out + '}';
    }
    default: {
      const field = path();
      throw new FairtableError('not_canonical', `${field}: a ${typeof value} has no JSON form`, { field });
    }
  }
}

/** The canonical JSON text of a value. */
export function canonicalize(value: unknown): string {
  return serialize(value, () => '$');
}

/** The canonical JSON of a value as UTF-8 bytes: what hashes and signatures are taken over. */
export function canonicalBytes(value: unknown): Uint8Array {
  return utf8(canonicalize(value));
}

/** Parses JSON text and rejects duplicate member names (I-JSON, RFC 7493 §2.3). */
export function parseJson(text: string, field = 'json'): JsonValue {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new FairtableError('bad_json', `${field}: not JSON (${(cause as Error).message})`, { field, cause });
  }
  return value as JsonValue;
}
