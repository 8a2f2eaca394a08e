/**
 * Byte helpers: hex, UTF-8, fixed-width integers, concatenation.
 * Every decoder checks its input and names the field that was wrong.
 */
import { FairtableError } from './errors.js';

const HEX = '0123456789abcdef';
/** The ASCII codes of each byte's two hex digits, at 2b and 2b + 1. */
const HEX_CODES = new Uint8Array(512);
for (let b = 0; b < 256; b++) {
  HEX_CODES[2 * b] = HEX.charCodeAt(b >> 4);
  HEX_CODES[2 * b + 1] = HEX.charCodeAt(b & 15);
}
// Hex digits are ASCII, so any UTF-8 decoder reads them as they are.
const ascii = new TextDecoder();
/** Scratch for the digits, kept for hex of up to 4 KiB of bytes; larger inputs get their own. */
let digits = new Uint8Array(128);

/**
 * Lowercase hex. The digits are written as ASCII into one scratch buffer and decoded once: one string
 * allocated, where appending two characters at a time builds a rope of a node per byte (a relay hashes
 * and hex-encodes several values per line, on every line).
 */
export function toHex(bytes: Uint8Array): string {
  const n = bytes.length;
  if (digits.length < 2 * n && n <= 4096) digits = new Uint8Array(2 * n);
  const out = digits.length < 2 * n ? new Uint8Array(2 * n) : digits;
  for (let i = 0; i < n; i++) {
    const c = 2 * bytes[i]!;
    out[2 * i] = HEX_CODES[c]!;
    out[2 * i + 1] = HEX_CODES[c + 1]!;
  }
  return ascii.decode(out.subarray(0, 2 * n));
}

const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  NIBBLE['0123456789abcdef'.charCodeAt(i)] = i;
  NIBBLE['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/** Decodes lowercase or uppercase hex; `length` (in bytes) is checked when given. */
export function fromHex(hex: string, field = 'hex', length?: number): Uint8Array {
  if (typeof hex !== 'string' || hex.length % 2 !== 0) {
    throw new FairtableError('bad_hex', `${field}: expected an even-length hex string`, { field });
  }
  if (length !== undefined && hex.length !== length * 2) {
    throw new FairtableError('bad_length', `${field}: expected ${length} bytes, got ${hex.length / 2}`, { field });
  }
  const out = new Uint8Array(hex.length / 2);
  hexInto(hex, out, 0, field);
  return out;
}

/** Decodes even-length hex (either case) into `out` from `at`, without making an array for it. */
export function hexInto(hex: string, out: Uint8Array, at: number, field = 'hex'): void {
  for (let i = 0; i < hex.length / 2; i++) {
    const a = hex.charCodeAt(2 * i);
    const b = hex.charCodeAt(2 * i + 1);
    const hi = a < 128 ? NIBBLE[a]! : -1;
    const lo = b < 128 ? NIBBLE[b]! : -1;
    if (hi < 0 || lo < 0) throw new FairtableError('bad_hex', `${field}: expected an even-length hex string`, { field });
    out[at + i] = (hi << 4) | lo;
  }
}

export function isHex(value: unknown, length?: number): value is string {
  return typeof value === 'string' && value.length % 2 === 0 && /^[0-9a-f]*$/.test(value) && (length === undefined || value.length === length * 2);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
export const utf8 = (text: string): Uint8Array => encoder.encode(text);
export const fromUtf8 = (bytes: Uint8Array): string => decoder.decode(bytes);

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function u32be(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new FairtableError('out_of_range', `u32: ${n}`);
  return new Uint8Array([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
}

export function u64be(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new FairtableError('out_of_range', `u64: ${n}`);
  const hi = Math.floor(n / 2 ** 32);
  return concatBytes(u32be(hi), u32be(n >>> 0));
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** Big-endian unsigned integer of a byte string. */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

export function bigIntToBytes(n: bigint, length: number): Uint8Array {
  if (n < 0n || n >= 1n << BigInt(8 * length)) throw new FairtableError('out_of_range', `integer does not fit ${length} bytes`);
  const out = new Uint8Array(length);
  for (let i = length - 1; i >= 0; i--) {
    out[i] = Number(n & 255n);
    n >>= 8n;
  }
  return out;
}

/** Random bytes from the platform CSPRNG (WebCrypto's getRandomValues; present in Node >= 19 and browsers). */
export function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let at = 0; at < length; at += 65536) globalThis.crypto.getRandomValues(out.subarray(at, Math.min(length, at + 65536)));
  return out;
}
