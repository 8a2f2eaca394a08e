/**
 * SHA-256 (FIPS 180-4 §5.1.1, §5.3.3, §6.2) for messages of at most 55
 * octets: those that fit one 64-octet block with their padding. Both messages
 * a Rochambeau judge hashes per player are that short (nonce ‖ M is 36 octets
 * with a 32-octet nonce and N < 2^32; X ‖ r is 33), and a judge of a million
 * players hashes two million of them. A general-purpose hasher spends as long
 * setting up, padding and finishing as compressing (noble: 1.34 µs a message
 * on the benchmark machine, of which the compression is about half); this
 * function is the compression and nothing else, 0.4 µs.
 *
 * It is only ever used through `hashes.ts`, which sends longer messages to
 * noble, and test/rochambeau-native-hash.test.ts checks it against noble and
 * node:crypto for every length from 0 to 55 octets and beyond.
 */

/** First 32 bits of the fractional parts of the cube roots of the first 64 primes (§4.2.2). */
const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
  0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
  0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
  0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
  0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The initial hash value H(0) (§5.3.3). */
const H0 = Int32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);

export const ONE_BLOCK_OCTETS = 55;

/** The message schedule, shared: the function is synchronous and never re-entered. */
const W = new Int32Array(64);

/** Writes SHA-256(message) into out[0, 32); message.length must be at most 55. */
export function sha256OneBlock(message: Uint8Array, out: Uint8Array): void {
  const length = message.length;
  if (length > ONE_BLOCK_OCTETS) throw new RangeError(`sha256OneBlock: ${length} octets do not fit one block`);
  // §5.1.1 padding and §5.2.1 parsing: the message, a 1 bit, zeros, the bit length in the last word.
  const whole = length >> 2;
  let t = 0;
  for (let i = 0; t < whole; t++, i += 4) W[t] = (message[i]! << 24) | (message[i + 1]! << 16) | (message[i + 2]! << 8) | message[i + 3]!;
  // The last, partial word: the remaining octets, then the 1 bit.
  let last = 0x80 << (24 - 8 * (length & 3));
  for (let i = 4 * whole; i < length; i++) last |= message[i]! << (24 - 8 * (i & 3));
  W[t++] = last;
  while (t < 15) W[t++] = 0;
  W[15] = length * 8;
  for (t = 16; t < 64; t++) {
    const a = W[t - 15]!;
    const b = W[t - 2]!;
    const sigma0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const sigma1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    W[t] = (W[t - 16]! + sigma0 + W[t - 7]! + sigma1) | 0;
  }
  let a = H0[0]!;
  let b = H0[1]!;
  let c = H0[2]!;
  let d = H0[3]!;
  let e = H0[4]!;
  let f = H0[5]!;
  let g = H0[6]!;
  let h = H0[7]!;
  for (t = 0; t < 64; t++) {
    const Sigma1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const choose = (e & f) ^ (~e & g);
    const T1 = (h + Sigma1 + choose + K[t]! + W[t]!) | 0;
    const Sigma0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const majority = (a & b) ^ (a & c) ^ (b & c);
    const T2 = (Sigma0 + majority) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + T1) | 0;
    d = c;
    c = b;
    b = a;
    a = (T1 + T2) | 0;
  }
  putWord(out, 0, a + H0[0]!);
  putWord(out, 4, b + H0[1]!);
  putWord(out, 8, c + H0[2]!);
  putWord(out, 12, d + H0[3]!);
  putWord(out, 16, e + H0[4]!);
  putWord(out, 20, f + H0[5]!);
  putWord(out, 24, g + H0[6]!);
  putWord(out, 28, h + H0[7]!);
}

function putWord(out: Uint8Array, at: number, word: number): void {
  out[at] = word >>> 24;
  out[at + 1] = word >>> 16;
  out[at + 2] = word >>> 8;
  out[at + 3] = word;
}
