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
import { canonicalBytes } from './jcs.js';
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

export function taggedHash(tag: HashTag, ...parts: Uint8Array[]): Uint8Array {
  return platformSha256(concatBytes(domainPrefix(tag), ...parts));
}

/** H(tag, JCS(value)). */
export function hashJson(tag: HashTag, value: unknown): Uint8Array {
  return taggedHash(tag, canonicalBytes(value));
}

export const hashJsonHex = (tag: HashTag, value: unknown): string => toHex(hashJson(tag, value));
