/**
 * Ed25519 verification with the signers' public keys remembered (docs/SPEC.md §3.2): the same steps and the same
 * verdicts as noble's `ed25519.verify` with `zip215: false`, written with noble's public Point API only, so that a
 * key read many times is decoded once and multiplied through a table of its multiples (known-keys.ts). The steps,
 * as in noble's `verify`:
 *
 *   A = decode(publicKey), canonical, not of small order; R = decode(sig[0..32]), canonical; S = sig[32..64] < L;
 *   k = SHA-512(R ‖ A ‖ M) mod L; valid when [8]((R + [k]A) − [S]B) is the identity.
 *
 * The usual case takes a shorter road to the same verdict: P = [S]B − [k]A is computed first, and when P's
 * encoding is the signature's first half byte for byte, R is P (a canonical encoding decodes to the one point
 * it encodes), so (R + [k]A) − [S]B is the identity itself and the signature is valid: encoding P costs one
 * inversion where decoding R costs a square root. Any other signature, valid only under the cofactored equation
 * or not valid, takes the full steps above.
 *
 * The SHA-512 is the platform's (platform.ts): noble's in a browser, OpenSSL's where packages/node installs it,
 * the same bytes either way (packages/node's native-hash.test.ts).
 *
 * `verify.test.ts` checks the verdict against noble's `ed25519.verify` over valid signatures and crafted bad
 * ones (flipped bits, S ≥ L, non-canonical and small-order R and A, keys of mixed order, points off the curve).
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, equalBytes } from '@noble/curves/utils.js';
import { concatBytes } from '../bytes.js';
import { platformSha512 } from '../platform.js';
import { knownKey, type EdPoint } from './known-keys.js';

export { forgetRememberedKeys, rememberedKeys } from './known-keys.js';

/** Whether `signature` is `publicKey`'s over `message` by the verification rule (noble's `ed25519.verify`, `zip215: false`). */
export function verifyRemembered(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  const A = knownKey(publicKey).point;
  if (A === null) return false;
  const r = signature.subarray(0, 32);
  let SB: EdPoint;
  try {
    // Throws unless 0 ≤ S < L.
    SB = ed25519.Point.BASE.multiplyUnsafe(bytesToNumberLE(signature.subarray(32, 64)));
  } catch {
    return false;
  }
  const k = ed25519.Point.Fn.create(bytesToNumberLE(platformSha512(concatBytes(r, publicKey, message))));
  const kA = A.multiplyUnsafe(k);
  if (equalBytes(SB.subtract(kA).toBytes(), r)) return true;
  let R: EdPoint;
  try {
    R = ed25519.Point.fromBytes(r, false);
  } catch {
    return false;
  }
  return R.add(kA).subtract(SB).clearCofactor().is0();
}
