/**
 * The signed bytes and the hash of a transcript line, taken from the line's own text (docs/SPEC.md §2,
 * §4.2 check 1).
 *
 * A line must be exactly the canonical JSON (RFC 8785) of its envelope, and the bytes its author signed
 * are the canonical JSON of the envelope without `sig`. When the line is canonical, those bytes are the
 * line itself with its `,"sig":"…"` member cut out: `sig` is the envelope's second-to-last member (the
 * members sort as at, body, from, game, head, prev, seq, sig, time, v), and everything from it to the end
 * of the line is ASCII. So a canonical line needs no second serialization of its body: its UTF-8 bytes
 * are written once, and the signature and the hash are checked over them.
 *
 * Whether the line is canonical is decided without the general serializer for the common case: the
 * engine's own `JSON.stringify` of the parsed value writes strings with exactly RFC 8785's escapes (for
 * well-formed strings) and numbers in ECMAScript's shortest form, which is RFC 8785's; so a line that
 * equals `JSON.stringify` of what it parses to, whose members are in sorted order at every level, nests
 * no deeper than MAX_DEPTH and holds no escaped surrogate, is its value's canonical form. Any other line
 * (`null` here) goes the general way (transcript.ts), which gives the same answer for these lines, and the
 * only answer for the others.
 */
import { hexInto, toHex } from './bytes.js';
import { domainPrefix, sha256 } from './hash.js';
import { MAX_DEPTH } from './jcs.js';
import type { Envelope } from './envelope.js';

/** `,"sig":"` (8 characters), 128 hex digits and the closing quote. */
const SIG_MEMBER = 8 + 128 + 1;
/** Lines longer than this (in UTF-16 units) take the general way: the scratch stays small. */
const MAX_FAST_CHARS = 64 * 1024;

const encoder = new TextEncoder();
const hashPrefix = domainPrefix('envelope');
const sigPrefix = domainPrefix('envelope-sig');
/** Scratch for the hash's input: the prefix, the signed JSON, the signature. Never handed out. */
let scratch = new Uint8Array(16 * 1024);

/** Whether the members of every object in `value` are in sorted order and it nests at most `depth` deep. */
function sortedWithin(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth === 0) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!sortedWithin(value[i], depth - 1)) return false;
    return true;
  }
  const record = value as Record<string, unknown>;
  let last: string | null = null;
  for (const key in record) {
    // `<` compares UTF-16 code units: RFC 8785 §3.2.3's order.
    if (last !== null && !(last < key)) return false;
    if (!sortedWithin(record[key], depth - 1)) return false;
    last = key;
  }
  return true;
}

/**
 * True when `text` is certainly the canonical JSON of `value` (what `JSON.parse(text)` gave); false says
 * only that this quick look cannot tell.
 */
export function plainlyCanonical(text: string, value: unknown): boolean {
  // An escaped surrogate may be a lone one, which the canonical form refuses.
  if (text.includes('\\ud')) return false;
  // The walk first: it stops at MAX_DEPTH, where the engine's serializer would recurse through any depth.
  return sortedWithin(value, MAX_DEPTH) && JSON.stringify(value) === text;
}

/** What the signature check and the hash of a line need, from its text alone. */
export interface SignedLine {
  /** The envelope's hash, H("envelope", signed JSON ‖ sig), in hex. */
  readonly hash: string;
  /** The domain prefix and the signed JSON: what the author signed (a fresh array). */
  readonly message: Uint8Array;
  /** The signature's 64 bytes (a fresh array). */
  readonly sig: Uint8Array;
}

/**
 * The signed bytes, signature and hash of `text`, a line whose parse `envelope` has the shape of an
 * envelope (envelopeShapeError), when `text` is plainly canonical; null when the general way must decide.
 */
export function signedLine(text: string, envelope: Envelope): SignedLine | null {
  if (text.length > MAX_FAST_CHARS || !plainlyCanonical(text, envelope)) return null;
  // The members after `sig`, as the canonical form writes them (the shape says these are safe integers and 1).
  const tail = text.length - `,"time":${envelope.time},"v":1}`.length;
  if (!text.startsWith(',"sig":"', tail - SIG_MEMBER)) return null;
  const need = hashPrefix.length + 3 * text.length + 64;
  if (scratch.length < need) scratch = new Uint8Array(need);
  scratch.set(hashPrefix, 0);
  const written = encoder.encodeInto(text, scratch.subarray(hashPrefix.length)).written;
  // From `sig` on, the line is ASCII: its characters are its bytes. Cut the sig member out of the bytes.
  const end = hashPrefix.length + written;
  const tailBytes = text.length - tail;
  scratch.copyWithin(end - tailBytes - SIG_MEMBER, end - tailBytes, end);
  const jsonEnd = end - SIG_MEMBER;
  hexInto(envelope.sig, scratch, jsonEnd, 'sig');
  const hash = toHex(sha256(scratch.subarray(0, jsonEnd + 64)));
  const message = new Uint8Array(sigPrefix.length + jsonEnd - hashPrefix.length);
  message.set(sigPrefix, 0);
  message.set(scratch.subarray(hashPrefix.length, jsonEnd), sigPrefix.length);
  return { hash, message, sig: scratch.slice(jsonEnd, jsonEnd + 64) };
}
