/**
 * Node's native SHA-256 (OpenSSL) for the core's hashing: the same bytes as
 * noble's (checked by native-hash.test.ts), and faster at every size on the
 * audit's hot path. Measured on the project's machine: node:crypto's one-shot
 * `hash()` 2.2–2.5 µs for 100–800 bytes, against 6.2–14.4 µs for noble and
 * 2.5–5.1 µs for a `createHash` object.
 */
import { hash } from 'node:crypto';

export function nativeSha256(data: Uint8Array): Uint8Array {
  const digest = hash('sha256', data, 'buffer') as unknown as Buffer;
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
}

/** Node's native SHA-512, the same bytes as noble's (native-hash.test.ts). */
export function nativeSha512(data: Uint8Array): Uint8Array {
  const digest = hash('sha512', data, 'buffer') as unknown as Buffer;
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
}
