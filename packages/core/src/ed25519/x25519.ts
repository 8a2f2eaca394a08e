/**
 * X25519 (RFC 7748) with a player's fairtable key as the public value: the same 32 bytes as noble's
 * `x25519.getSharedSecret(scalar, ed25519.utils.toMontgomery(edwardsKey))`, computed on the Edwards form with the
 * key's remembered table (known-keys.ts) when it has one.
 *
 * X25519 of the clamped scalar k and u(A), where u(A) = (1 + y)/(1 − y) is the Montgomery form of the Edwards
 * point A (RFC 7748 §4.1), is u([k]A): the birational map carries the group law. A key of prime order L (no
 * small-order component) gives [k]A = [k mod L]A, which noble's constant-time `multiply` computes through the
 * key's table in a few dozen additions instead of the ladder's 255 steps; the result's u is (Z + Y)/(Z − Y) from
 * its projective coordinates (one inversion). A key without a table yet, or with a small-order component, goes
 * to noble's ladder unchanged. The sealer's side is the one that gains: it seals to the same few players all game,
 * while the reader's side meets a fresh ephemeral key every time and keeps the ladder.
 *
 * `x25519.test.ts` holds the bytes equal to noble's ladder, with and without tables, on keys with and without
 * small-order components.
 */
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE } from '@noble/curves/utils.js';
import { hasTable, knownKey } from './known-keys.js';

const { Fp, Fn } = ed25519.Point;

/** RFC 7748's decodeScalar25519: the low three bits and the top bit cleared, bit 254 set. */
function clamped(scalar: Uint8Array): bigint {
  const k = scalar.slice();
  k[0]! &= 248;
  k[31]! &= 127;
  k[31]! |= 64;
  return bytesToNumberLE(k);
}

/** X25519(`scalar`, u(`edwardsKey`)): the shared secret of an X25519 secret and a player's Ed25519 public key. */
export function sharedSecretWithKey(scalar: Uint8Array, edwardsKey: Uint8Array): Uint8Array {
  if (scalar.length === 32 && edwardsKey.length === 32) {
    const known = knownKey(edwardsKey);
    const A = known.point;
    if (A !== null && hasTable(known)) {
      known.torsionFree ??= A.isTorsionFree();
      const m = Fn.create(clamped(scalar));
      if (known.torsionFree && m !== 0n) {
        const Q = A.multiply(m);
        const { Y, Z } = Q;
        const denominator = Fp.sub(Z, Y);
        // Z = Y only at the identity, which a point of order L times a nonzero scalar below L never is.
        if (!Fp.is0(denominator)) return Fp.toBytes(Fp.div(Fp.add(Z, Y), denominator));
      }
    }
  }
  return x25519.getSharedSecret(scalar, ed25519.utils.toMontgomery(edwardsKey));
}
