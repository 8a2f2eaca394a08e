/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 *
 * The one canonical encoding every fairtable hash and signature is taken over
 * (docs/SPEC.md §1). Objects are written with their members sorted by the
 * UTF-16 code units of their names, no white space, numbers in the ECMAScript
 * shortest round-trip form (RFC 8785 §3.2.2.3), strings with the minimal
 * JSON escapes (§3.2.2.2). Values outside I-JSON (RFC 7493) are refused:
 * non-finite numbers, lone surrogates, `undefined`, functions, symbols,
 * bigints, objects that are not plain, and nesting deeper than MAX_DEPTH.
 *
 * `parseJson` is the strict reader of the same rule (docs/SPEC.md §1): it
 * refuses duplicate member names, numbers the canonical form cannot hold,
 * lone surrogates and deep nesting, so that no two readers of a signed text
 * can see two different values in it.
 */
import { FairtableError } from './errors.js';
import { utf8 } from './bytes.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** The deepest nesting of arrays and objects fairtable reads or writes (the outermost value is depth 1). */
export const MAX_DEPTH = 64;

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
function serialize(value: unknown, path: () => string, depth: number): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return serializeNumber(value, path);
    case 'string':
      return serializeString(value, path);
    case 'object': {
      if (depth === 0) {
        const field = path();
        throw new FairtableError('not_canonical', `${field}: nested deeper than ${MAX_DEPTH} levels`, { field });
      }
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          out += serialize(value[i], () => `${path()}[${i}]`, depth - 1);
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
        out += serializeString(key, path) + ':' + serialize(member, memberPath, depth - 1);
      }
      return out + '}';
    }
    default: {
      const field = path();
      throw new FairtableError('not_canonical', `${field}: a ${typeof value} has no JSON form`, { field });
    }
  }
}

/**
 * `serialize` without the paths for its error messages: the same text for every value that `serialize` writes,
 * and undefined for every value it might refuse (and for a string with an escaped surrogate, which it may write
 * or refuse). It makes no closure a member: on the audit's hot path (two canonical values a move) the closures
 * were a quarter of the referee's garbage.
 */
function serializeQuick(value: unknown, depth: number): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? '0' : String(value)) : undefined;
    case 'string': {
      const out = JSON.stringify(value);
      return out.includes('\\ud') ? undefined : out;
    }
    case 'object': {
      if (depth === 0) return undefined;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          const item = serializeQuick(value[i], depth - 1);
          if (item === undefined) return undefined;
          out += i > 0 ? ',' + item : item;
        }
        return out + ']';
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return undefined;
      const record = value as Record<string, unknown>;
      // Default sort compares UTF-16 code units, which is what RFC 8785 §3.2.3 asks for.
      const keys = Object.keys(record).sort();
      let out = '{';
      for (let i = 0; i < keys.length; i++) {
        const key = JSON.stringify(keys[i]!);
        const member = serializeQuick(record[keys[i]!], depth - 1);
        if (member === undefined || key.includes('\\ud')) return undefined;
        out += (i > 0 ? ',' : '') + key + ':' + member;
      }
      return out + '}';
    }
    default:
      return undefined;
  }
}

/** The canonical JSON text of a value; `maxDepth` bounds its nesting (a value inside a larger one has less room). */
export function canonicalize(value: unknown, maxDepth = MAX_DEPTH): string {
  // The quick way writes every canonical value without an escaped surrogate; the rest, and every refusal with
  // the path of what is refused, take the general way.
  return serializeQuick(value, maxDepth) ?? serialize(value, () => '$', maxDepth);
}

/**
 * The canonical JSON text of objects that a caller builds itself with exactly the members `keys` (a
 * commitment's, a turn seed's): the members' order and the text of their names are worked out once, where
 * `canonicalize` sorts and writes the names of every object it meets. The same text as `canonicalize` for every
 * such object, and `canonicalize`'s error for one it refuses; members other than `keys` are not written, so the
 * caller passes an object literal (which the type checks).
 */
export function canonicalShape<K extends string>(keys: readonly K[]): (record: { readonly [P in K]: unknown }) => string {
  const sorted = [...keys].sort();
  if (new Set(sorted).size !== sorted.length || sorted.some((k) => LONE_SURROGATE.test(k)))
    throw new FairtableError('bad_input', `a canonical shape needs distinct, well-formed member names: ${sorted.join(', ')}`, { field: 'keys' });
  const heads = sorted.map((k, i) => (i === 0 ? '{' : ',') + JSON.stringify(k) + ':');
  return (record) => {
    let out = '';
    for (let i = 0; i < sorted.length; i++) {
      const member = serializeQuick((record as Record<string, unknown>)[sorted[i]!], MAX_DEPTH - 1);
      if (member === undefined) return canonicalize(record);
      out += heads[i]! + member;
    }
    return out + '}';
  };
}

/** The canonical JSON of a value as UTF-8 bytes: what hashes and signatures are taken over. */
export function canonicalBytes(value: unknown): Uint8Array {
  return utf8(canonicalize(value));
}

/**
 * Parses JSON text strictly (I-JSON, RFC 7493, as fairtable reads it): the
 * grammar of RFC 8259, and no duplicate member names at any depth, no number
 * that is not finite as a double or is -0, no lone surrogate, no nesting deeper
 * than MAX_DEPTH. Throws `bad_json` for text that is not JSON or breaks the
 * structural limits, `not_canonical` for values the canonical form cannot hold.
 */
export function parseJson(text: string, field = 'json'): JsonValue {
  const reader = new StrictReader(text, field);
  const value = reader.value(MAX_DEPTH);
  reader.space();
  if (reader.at < text.length) reader.fail('bad_json', 'text after the value');
  return value;
}

/**
 * Why `parseJson(text, field)` would refuse `text` (the message of the error it would throw), or null when
 * it reads it: without building an exception for the refusal, so that a file of many junk lines costs its
 * reading and no more.
 */
export function jsonProblem(text: string, field = 'json'): string | null {
  const reader = new StrictReader(text, field, true);
  try {
    reader.value(MAX_DEPTH);
    reader.space();
    if (reader.at < text.length) reader.fail('bad_json', 'text after the value');
    return null;
  } catch (e) {
    if (e === QUIET_REFUSAL && reader.problem !== null) return reader.problem;
    throw e;
  }
}

/** Parses text that must be the canonical form of its value (what a signed line is): else `not_canonical`. */
export function parseCanonical(text: string, field = 'json'): JsonValue {
  const value = parseJson(text, field);
  if (canonicalize(value) !== text) throw new FairtableError('not_canonical', `${field}: not in canonical form (RFC 8785)`, { field });
  return value;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERALS: readonly (readonly [string, JsonValue])[] = [
  ['true', true],
  ['false', false],
  ['null', null],
];

/** What a quiet reader throws, made once: its message is kept on the reader. */
const QUIET_REFUSAL = new Error('refused');

// Recursive descent: recursion is bounded by MAX_DEPTH, so no input can exhaust the stack.
class StrictReader {
  at = 0;
  /** A quiet reader's refusal, the message `fail` would have thrown. */
  problem: string | null = null;
  constructor(
    private readonly text: string,
    private readonly field: string,
    private readonly quiet = false,
  ) {}

  fail(code: 'bad_json' | 'not_canonical', why: string): never {
    const message = `${this.field}: ${why} (at character ${this.at})`;
    if (this.quiet) {
      this.problem = message;
      throw QUIET_REFUSAL;
    }
    throw new FairtableError(code, message, { field: this.field });
  }

  space(): void {
    const t = this.text;
    while (this.at < t.length) {
      const c = t.charCodeAt(this.at);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      this.at++;
    }
  }

  value(depth: number): JsonValue {
    this.space();
    const c = this.text[this.at];
    if (c === '{' || c === '[') {
      if (depth === 0) this.fail('bad_json', `nested deeper than ${MAX_DEPTH} levels`);
      return c === '{' ? this.object(depth - 1) : this.array(depth - 1);
    }
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    return this.fail('bad_json', c === undefined ? 'unexpected end of text' : `unexpected ${JSON.stringify(c)}`);
  }

  private expect(c: string): void {
    this.space();
    if (this.text[this.at] !== c) this.fail('bad_json', `expected ${JSON.stringify(c)}`);
    this.at++;
  }

  private object(depth: number): JsonValue {
    this.at++;
    const out: { [key: string]: JsonValue } = {};
    const seen = new Set<string>();
    this.space();
    if (this.text[this.at] === '}') {
      this.at++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.text[this.at] !== '"') this.fail('bad_json', 'expected a member name');
      const key = this.string();
      if (seen.has(key)) this.fail('bad_json', `duplicate member name ${JSON.stringify(key)}`);
      seen.add(key);
      this.expect(':');
      // defineProperty: a member named "__proto__" is a member, not the prototype.
      Object.defineProperty(out, key, { value: this.value(depth), enumerable: true, writable: true, configurable: true });
      this.space();
      const c = this.text[this.at++];
      if (c === '}') return out;
      if (c !== ',') {
        this.at--;
        this.fail('bad_json', 'expected "," or "}"');
      }
    }
  }

  private array(depth: number): JsonValue {
    this.at++;
    const out: JsonValue[] = [];
    this.space();
    if (this.text[this.at] === ']') {
      this.at++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth));
      this.space();
      const c = this.text[this.at++];
      if (c === ']') return out;
      if (c !== ',') {
        this.at--;
        this.fail('bad_json', 'expected "," or "]"');
      }
    }
  }

  private string(): string {
    const t = this.text;
    const start = this.at;
    let i = start + 1;
    for (;;) {
      if (i >= t.length) {
        this.at = i;
        this.fail('bad_json', 'unterminated string');
      }
      const c = t.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) {
        this.at = i;
        this.fail('bad_json', 'control character in a string');
      }
      // Escapes are checked by JSON.parse below; skipping the escaped character is enough to find the end.
      i += c === 0x5c ? 2 : 1;
    }
    this.at = i + 1;
    let s: string;
    try {
      s = JSON.parse(t.slice(start, i + 1)) as string;
    } catch {
      this.at = start;
      return this.fail('bad_json', 'bad escape in a string');
    }
    if (LONE_SURROGATE.test(s)) {
      this.at = start;
      this.fail('not_canonical', 'string holds a lone surrogate');
    }
    return s;
  }

  private number(): number {
    NUMBER.lastIndex = this.at;
    const m = NUMBER.exec(this.text);
    if (m === null) return this.fail('bad_json', 'bad number');
    const n = Number(m[0]);
    if (!Number.isFinite(n)) this.fail('not_canonical', `${m[0]} is not a finite number`);
    if (Object.is(n, -0)) this.fail('not_canonical', `${m[0]} is -0, which the canonical form writes as 0`);
    this.at += m[0].length;
    return n;
  }
}
