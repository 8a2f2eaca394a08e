/**
 * Node's native SHA-256 (OpenSSL) for the core's hashing: the same bytes as
 * noble's (checked by native-hash.test.ts), and faster at every size on the
 * audit's hot path.
 *
 * The digest is asked for as a 'binary' (latin1) string, one character per byte (0–255), and copied into a new
 * array: the 'buffer' output makes a Buffer, whose backing store node:crypto allocates outside the
 * JavaScript heap, and that allocation was most of the call. Measured on the project's machine (best of
 * seven rounds of 200,000 hashes of 300 bytes): 0.59 µs with the 'binary' string and the copy, 1.50 µs with
 * the 'buffer' output (docs/BENCHMARKS.md, "Digests read as strings, fixed shapes, a copy by members"); an
 * earlier measurement, for 100–800 bytes, gave 6.2–14.4 µs for noble and 2.5–5.1 µs for a `createHash` object.
 */
import { hash } from 'node:crypto';

/** `algorithm`'s digest of `data` in a new array of `length` bytes. */
function digest(algorithm: 'sha256' | 'sha512', data: Uint8Array, length: number): Uint8Array {
  const text = hash(algorithm, data, 'binary');
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = text.charCodeAt(i);
  return out;
}

export function nativeSha256(data: Uint8Array): Uint8Array {
  return digest('sha256', data, 32);
}

/** Node's native SHA-512, the same bytes as noble's (native-hash.test.ts). */
export function nativeSha512(data: Uint8Array): Uint8Array {
  return digest('sha512', data, 64);
}
