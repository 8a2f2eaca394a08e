/**
 * Node's native SHA-256 (OpenSSL) for the core's hashing: the same bytes as
 * noble's (checked by native-hash.test.ts), and faster at every size on the
 * audit's hot path. Measured on the project's machine: node:crypto's one-shot
 * `hash()` 2.2–2.5 µs for 100–800 bytes, against 6.2–14.4 µs for noble and
 * 2.5–5.1 µs for a `createHash` object.
 */
import { hash } from 'node:crypto';
import { configure } from '@fairtable/core/platform.js';

export function nativeSha256(data: Uint8Array): Uint8Array {
  const digest = hash('sha256', data, 'buffer') as unknown as Buffer;
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
}

/** Node's native SHA-512, the same bytes as noble's (native-hash.test.ts). */
export function nativeSha512(data: Uint8Array): Uint8Array {
  const digest = hash('sha512', data, 'buffer') as unknown as Buffer;
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
}

/**
 * Makes every core hash in this thread use node:crypto: SHA-256 everywhere, and the SHA-512 of Ed25519's
 * verification challenge (a forged or cofactored signature that OpenSSL refuses is checked again by the core's
 * rule, which hashes the whole message: on a 150-KB line that hash was most of the check).
 */
export function useNativeSha256(): void {
  configure({ sha256: nativeSha256, sha512: nativeSha512 });
}
