/**
 * Sigma proofs on ristretto255 made non-interactive by Fiat–Shamir (docs/spec/deck.md §2.4): Schnorr's
 * proof of knowledge of a discrete logarithm and Chaum–Pedersen's proof that two discrete logarithms are
 * equal. A proof is (c, z), 64 bytes hex: c the challenge, z the response.
 *
 * The caller opens the transcript with its tag and everything the proof is about (game, seat, position…);
 * the statement's points and the prover's commitments are appended here, so the challenge hashes all of
 * them. The nonce is hedged: a hash of the secret, 32 fresh random bytes and the transcript so far, so a
 * weak random source alone does not leak the secret.
 */
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesToNumberLE } from '@noble/curves/utils.js';
import { concatBytes, fromHex, toHex, utf8 } from '../bytes.js';
import { BASE, Fn, msm, mul, type RPoint, type Transcript } from './group.js';

/** The random bytes a proof's nonce draws (one call). */
export const NONCE_BYTES = 32;

function nonce(secret: bigint, t: Transcript, random: (n: number) => Uint8Array): bigint {
  const r = Fn.create(bytesToNumberLE(sha512(concatBytes(utf8('fairtable/deck/nonce/v1'), Fn.toBytes(Fn.create(secret)), random(NONCE_BYTES), t.bytes()))));
  return r === 0n ? 1n : r;
}

function encode(c: bigint, z: bigint): string {
  return toHex(concatBytes(Fn.toBytes(c), Fn.toBytes(z)));
}

function decode(proof: string): { c: bigint; z: bigint } | null {
  try {
    const b = fromHex(proof, 'proof', 64);
    return { c: Fn.fromBytes(b.subarray(0, 32)), z: Fn.fromBytes(b.subarray(32)) };
  } catch {
    return null;
  }
}

/** Proves knowledge of x with Y = x·G: R = r·G, c = H(t ‖ G ‖ Y ‖ R), z = r + c·x. */
export function proveKnowledge(t: Transcript, y: RPoint, x: bigint, random: (n: number) => Uint8Array): string {
  t.point(BASE).point(y);
  const r = nonce(x, t, random);
  const c = t.point(mul(BASE, r)).challenge();
  return encode(c, Fn.add(r, Fn.mul(c, x)));
}

/** Whether `proof` proves knowledge of log_G(Y) under the transcript `t`: R = z·G − c·Y, c = H(t ‖ G ‖ Y ‖ R). */
export function checkKnowledge(t: Transcript, y: RPoint, proof: string): boolean {
  const p = decode(proof);
  if (p === null) return false;
  const r = msm([BASE, y], [p.z, Fn.neg(p.c)]);
  return t.point(BASE).point(y).point(r).challenge() === p.c;
}

/**
 * Proves log_G1(Y1) = log_G2(Y2) = x (Chaum–Pedersen): R1 = r·G1, R2 = r·G2,
 * c = H(t ‖ G1 ‖ Y1 ‖ G2 ‖ Y2 ‖ R1 ‖ R2), z = r + c·x.
 */
export function proveEqual(t: Transcript, g1: RPoint, y1: RPoint, g2: RPoint, y2: RPoint, x: bigint, random: (n: number) => Uint8Array): string {
  t.point(g1).point(y1).point(g2).point(y2);
  const r = nonce(x, t, random);
  const c = t.point(mul(g1, r)).point(mul(g2, r)).challenge();
  return encode(c, Fn.add(r, Fn.mul(c, x)));
}

/** Whether `proof` shows log_G1(Y1) = log_G2(Y2) under the transcript `t`. */
export function checkEqual(t: Transcript, g1: RPoint, y1: RPoint, g2: RPoint, y2: RPoint, proof: string): boolean {
  const p = decode(proof);
  if (p === null) return false;
  // z·G − c·Y for each pair, as one small multi-scalar multiplication (tables for precomputed points).
  const r1 = msm([g1, y1], [p.z, Fn.neg(p.c)]);
  const r2 = msm([g2, y2], [p.z, Fn.neg(p.c)]);
  return t.point(g1).point(y1).point(g2).point(y2).point(r1).point(r2).challenge() === p.c;
}
