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

function serializeString(s: string, path: string): string {
  // JSON.stringify's string escaping is exactly RFC 8785 §3.2.2.2 for well-formed strings; it writes a lone
  // surrogate as an escape (\udXXX) and a paired one raw, so only an escaped one needs the closer look.
  const out = JSON.stringify(s);
  if (out.includes('\\ud') && LONE_SURROGATE.test(s)) {
    throw new FairtableError('not_canonical', `${path}: string holds a lone surrogate`, { field: path });
  }
  return out;
}

function serializeNumber(n: number, path: string): string {
  if (!Number.isFinite(n)) throw new FairtableError('not_canonical', `${path}: number is not finite`, { field: path });
  // ECMAScript Number::toString is the RFC 8785 number format; -0 becomes "0".
  return Object.is(n, -0) ? '0' : String(n);
}

function serialize(value: unknown, path: string, out: string[]): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'number':
      out.push(serializeNumber(value, path));
      return;
    case 'string':
      out.push(serializeString(value, path));
      return;
    case 'object': {
      if (Array.isArray(value)) {
        out.push('[');
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.push(',');
          serialize(value[i], `${path}[${i}]`, out);
        }
        out.push(']');
        return;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        throw new FairtableError('not_canonical', `${path}: not a plain object`, { field: path });
      }
      const record = value as Record<string, unknown>;
      // Default sort compares UTF-16 code units, which is what RFC 8785 §3.2.3 asks for.
      const keys = Object.keys(record).sort();
      out.push('{');
      let first = true;
      for (const key of keys) {
        const member = record[key];
        if (member === undefined) throw new FairtableError('not_canonical', `${path}.${key}: undefined`, { field: `${path}.${key}` });
        if (!first) out.push(',');
        first = false;
        out.push(serializeString(key, path), ':');
        serialize(member, `${path}.${key}`, out);
      }
      out.push('}');
      return;
    }
    default:
      throw new FairtableError('not_canonical', `${path}: a ${typeof value} has no JSON form`, { field: path });
  }
}

/** The canonical JSON text of a value. */
export function canonicalize(value: unknown): string {
  const out: string[] = [];
  serialize(value, '$', out);
  return out.join('');
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
