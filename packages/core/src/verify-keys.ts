/**
 * Ed25519 verification with the signers' public keys remembered (docs/SPEC.md §3.2): the same steps and the same
 * verdicts as noble's `ed25519.verify` with `zip215: false`, written with noble's public Point API only, so that a
 * key read many times is decoded once and multiplied through a table of its multiples (noble's `precompute`).
 *
 * A game checks the same handful of keys over and over (every envelope, every talk message, every relay batch),
 * and noble's `verify` takes the key as bytes: each call decompresses it (a square root) and multiplies it by the
 * challenge without a table (about 250 doublings). Here a key's point, and whether it is of small order, are
 * remembered from its first use, and from its sixteenth a table of its multiples (window 6, about 1,400 points,
 * built by noble in ~30 ms, which ~14 verifications repay) makes the multiplication a few dozen additions. The steps, as in noble's `verify`:
 *
 *   A = decode(publicKey), canonical, not of small order; R = decode(sig[0..32]), canonical; S = sig[32..64] < L;
 *   k = SHA-512(R ‖ A ‖ M) mod L; valid when [8]((R + [k]A) − [S]B) is the identity.
 *
 * `verify-keys.test.ts` checks the verdict against noble's `ed25519.verify` over valid signatures and crafted bad
 * ones (flipped bits, S ≥ L, non-canonical and small-order R and A, keys of mixed order, points off the curve).
 * The memory is bounded: the last 32 keys used, least recently used dropped first.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { concatBytes, toHex } from './bytes.js';

type EdPoint = ReturnType<typeof ed25519.Point.fromBytes>;

interface KnownKey {
  /** The decoded key; null for one the rule never accepts (not a canonical encoding of a point, or of small order). */
  readonly point: EdPoint | null;
  uses: number;
}

/** Keys remembered, least recently used first (a Map keeps insertion order). */
const known = new Map<string, KnownKey>();
const MAX_KEYS = 32;
/** The use of a key from which its table is built: a key read a few times (a newcomer, a one-off check) costs no table. */
const TABLE_FROM_USE = 16;
/** noble's window: 44 windows of 32 points, built in ~30 ms in Node 20; 8 would take ~4 times as long for a few percent. */
const WINDOW = 6;

function keyOf(publicKey: Uint8Array): KnownKey {
  const id = toHex(publicKey);
  let k = known.get(id);
  if (k === undefined) {
    let point: EdPoint | null;
    try {
      point = ed25519.Point.fromBytes(publicKey, false);
      if (point.isSmallOrder()) point = null;
    } catch {
      point = null;
    }
    k = { point, uses: 0 };
    if (known.size >= MAX_KEYS) known.delete(known.keys().next().value!);
  } else known.delete(id);
  known.set(id, k);
  k.uses++;
  if (k.uses === TABLE_FROM_USE && k.point !== null) k.point.precompute(WINDOW, true);
  return k;
}

/** Whether `signature` is `publicKey`'s over `message` by the verification rule (noble's `ed25519.verify`, `zip215: false`). */
export function verifyRemembered(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  const A = keyOf(publicKey).point;
  if (A === null) return false;
  const r = signature.subarray(0, 32);
  let R: EdPoint;
  let SB: EdPoint;
  try {
    R = ed25519.Point.fromBytes(r, false);
    // Throws unless 0 ≤ S < L.
    SB = ed25519.Point.BASE.multiplyUnsafe(bytesToNumberLE(signature.subarray(32, 64)));
  } catch {
    return false;
  }
  const k = ed25519.Point.Fn.create(bytesToNumberLE(sha512(concatBytes(r, publicKey, message))));
  return R.add(A.multiplyUnsafe(k)).subtract(SB).clearCofactor().is0();
}

/** Forgets every key (for tests: the path without a table). */
export function forgetRememberedKeys(): void {
  known.clear();
}

/** How many keys are remembered now, and how many of them have a table (for tests). */
export function rememberedKeys(): { readonly keys: number; readonly tables: number } {
  let tables = 0;
  for (const k of known.values()) if (k.point !== null && k.uses >= TABLE_FROM_USE) tables++;
  return { keys: known.size, tables };
}
