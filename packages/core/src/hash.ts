/**
 * Domain-separated, versioned hashing (docs/SPEC.md §2).
 *
 *   H(tag, data) = SHA-256( "fairtable/" ‖ tag ‖ "/v1" ‖ 0x00 ‖ data )
 *
 * Tags are ASCII without NUL, so the 0x00 ends the prefix unambiguously, and
 * no two uses of the hash (a commitment, an envelope, a seed) can collide.
 * SHA-256 itself comes from platform.ts, so Node can inject its native digest.
 */
import { FairtableError } from './errors.js';
import { platformSha256 } from './platform.js';
import { canonicalize } from './jcs.js';
import { concatBytes, toHex, utf8 } from './bytes.js';

export type HashTag =
  | 'commit'
  | 'envelope'
  | 'envelope-sig'
  | 'game'
  | 'fingerprint'
  | 'stream'
  | 'beacon'
  | 'chain-roll'
  | 'keyed-stream'
  | 'commit-set'
  | 'armor'
  | (string & { readonly __tag?: never });

const prefixCache = new Map<string, Uint8Array>();

export function domainPrefix(tag: HashTag): Uint8Array {
  let prefix = prefixCache.get(tag);
  if (prefix === undefined) {
    if (!/^[a-z0-9-]+$/.test(tag)) throw new FairtableError('bad_input', `hash tag must be lowercase ASCII: ${tag}`, { field: 'tag' });
    prefix = concatBytes(utf8(`fairtable/${tag}/v1`), new Uint8Array([0]));
    prefixCache.set(tag, prefix);
  }
  return prefix;
}

export type { Sha256 } from './platform.js';

export function sha256(data: Uint8Array): Uint8Array {
  return platformSha256(data);
}

/**
 * Scratch for a hash's input (prefix and data), reused from one hash to the next: the one-shot digest takes
 * its input whole, and building it in a fresh array for every hash (several a transcript line) was work for
 * the collector. Inputs longer than SCRATCH_MAX get arrays of their own.
 */
let scratch = new Uint8Array(1024);
const SCRATCH_MAX = 64 * 1024;
const encoder = new TextEncoder();

function room(bytes: number): Uint8Array | null {
  if (bytes > SCRATCH_MAX) return null;
  if (scratch.length < bytes) scratch = new Uint8Array(Math.max(bytes, 2 * scratch.length));
  return scratch;
}

export function taggedHash(tag: HashTag, ...parts: Uint8Array[]): Uint8Array {
  const prefix = domainPrefix(tag);
  let length = prefix.length;
  for (const p of parts) length += p.length;
  const out = room(length);
  if (out === null) return platformSha256(concatBytes(prefix, ...parts));
  out.set(prefix, 0);
  let at = prefix.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return platformSha256(out.subarray(0, length));
}

/** H(tag, JCS(value)). */
export function hashJson(tag: HashTag, value: unknown): Uint8Array {
  return hashCanonical(tag, canonicalize(value));
}

/** H(tag, text) for `text` already canonical JSON (jcs.ts `canonicalShape`), hashed as its UTF-8 bytes. */
export function hashCanonical(tag: HashTag, text: string): Uint8Array {
  const prefix = domainPrefix(tag);
  const out = room(prefix.length + 3 * text.length);
  if (out === null) return platformSha256(concatBytes(prefix, utf8(text)));
  out.set(prefix, 0);
  const written = encoder.encodeInto(text, out.subarray(prefix.length)).written;
  return platformSha256(out.subarray(0, prefix.length + written));
}

export const hashJsonHex = (tag: HashTag, value: unknown): string => toHex(hashJson(tag, value));
