/**
 * ECVRF_encode_to_curve for the two edwards25519 suites (RFC 9381 §5.4.1).
 *
 * - TAI, suite 0x03: try-and-increment (§5.4.1.1).
 * - ELL2, suite 0x04: RFC 9380 encode_to_curve with the non-uniform suite
 *   edwards25519_XMD:SHA-512_ELL2_NU_ (§5.4.1.2), done by noble's hasher with
 *   the DST "ECVRF_" ‖ h2c_suite_ID_string ‖ suite_string.
 *
 * In both, encode_to_curve_salt is the public key's encoding (§5.5).
 */
import { ed25519_hasher } from '@noble/curves/ed25519.js';
import type { EdwardsPoint } from '@noble/curves/abstract/edwards.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { decodePoint } from './ecvrf-encoding.js';

export type EcvrfSuite = 'ell2' | 'tai';

export const SUITE_STRING: Readonly<Record<EcvrfSuite, number>> = { tai: 0x03, ell2: 0x04 };

const ELL2_DST = concatBytes(new TextEncoder().encode('ECVRF_edwards25519_XMD:SHA-512_ELL2_NU_'), Uint8Array.of(SUITE_STRING.ell2));

export function encodeToCurve(suite: EcvrfSuite, salt: Uint8Array, alpha: Uint8Array): EdwardsPoint {
  if (suite === 'ell2') return ed25519_hasher.encodeToCurve(concatBytes(salt, alpha), { DST: ELL2_DST });
  return tryAndIncrement(salt, alpha);
}

/** Also reports the counter that succeeded, which RFC 9381 Appendix B.3 lists for each example. */
export function tryAndIncrementWithCounter(salt: Uint8Array, alpha: Uint8Array): { point: EdwardsPoint; ctr: number } {
  // About half of all 32-byte strings decode, so 256 tries fail with probability 2^-256.
  for (let ctr = 0; ctr < 256; ctr++) {
    const h = sha512.create();
    h.update(Uint8Array.of(SUITE_STRING.tai, 0x01));
    h.update(salt);
    h.update(alpha);
    h.update(Uint8Array.of(ctr, 0x00));
    const candidate = decodePoint(h.digest().subarray(0, 32));
    if (!candidate.ok) continue;
    const point = candidate.point.clearCofactor();
    if (!point.is0()) return { point, ctr };
  }
  throw new Error('ECVRF try-and-increment found no point in 256 tries');
}

function tryAndIncrement(salt: Uint8Array, alpha: Uint8Array): EdwardsPoint {
  return tryAndIncrementWithCounter(salt, alpha).point;
}
