/**
 * Ed25519 signing (RFC 8032 §5.1.6) with the signer's expanded key remembered: the same bytes as noble's
 * `ed25519.sign`, which derives the public key again (a multiplication of the base point) at every call. A seat
 * signs with the same secret key for a whole game, so the expansion (SHA-512 of the seed, the scalar a, the
 * prefix, and A = [a]B) is kept for the key object it was given, and each signature costs one multiplication:
 *
 *   r = SHA-512(prefix ‖ M) mod L;  R = [r]B;  k = SHA-512(R ‖ A ‖ M) mod L;  S = (r + k·a) mod L;  sig = R ‖ S.
 *
 * The memory is a WeakMap keyed by the secret key's own Uint8Array, so nothing outlives the key object and no
 * copy of the secret is made into a string. `sign.test.ts` holds the bytes equal to noble's.
 *
 * A platform may sign instead (platform.ts: Node passes OpenSSL's Ed25519, the same bytes, which spares a fresh
 * process noble's table of the base point's multiples); `nobleSign` and `noblePublicKey` are always noble's.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { concatBytes } from '../bytes.js';
import { platformEd25519 } from '../platform.js';

interface Expanded {
  /** The seed it was expanded from, to notice a key object whose bytes were changed in place. */
  readonly seed: Uint8Array;
  readonly scalar: bigint;
  readonly prefix: Uint8Array;
  readonly publicKey: Uint8Array;
}

const expandedKeys = new WeakMap<Uint8Array, Expanded>();
const { Fn } = ed25519.Point;

function expanded(secretKey: Uint8Array): Expanded {
  const e = expandedKeys.get(secretKey);
  if (e !== undefined && e.seed.length === secretKey.length && e.seed.every((b, i) => b === secretKey[i])) return e;
  const { scalar, prefix, pointBytes } = ed25519.utils.getExtendedPublicKey(secretKey);
  const fresh: Expanded = { seed: secretKey.slice(), scalar, prefix, publicKey: pointBytes };
  expandedKeys.set(secretKey, fresh);
  return fresh;
}

const scalarOfHash = (...parts: Uint8Array[]): bigint => Fn.create(bytesToNumberLE(sha512(concatBytes(...parts))));

/** noble's `ed25519.sign(message, secretKey)`, byte for byte: the platform's signing where it has one, else `nobleSign`. */
export function signRemembered(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  return platformEd25519 === null ? nobleSign(message, secretKey) : platformEd25519.sign(message, secretKey);
}

/** The public key of `secretKey`: the platform's where it has one, else `noblePublicKey`. */
export function publicKeyRemembered(secretKey: Uint8Array): Uint8Array {
  return platformEd25519 === null ? noblePublicKey(secretKey) : platformEd25519.publicKey(secretKey);
}

/** noble's `ed25519.sign(message, secretKey)`, byte for byte, with the key's expansion remembered. */
export function nobleSign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  const { scalar, prefix, publicKey } = expanded(secretKey);
  const r = scalarOfHash(prefix, message);
  // noble's own sign multiplies with the constant-time `multiply`, which refuses r = 0 (a hash of 2^-252 odds).
  const R = ed25519.Point.BASE.multiply(r).toBytes();
  const S = Fn.create(r + scalarOfHash(R, publicKey, message) * scalar);
  return concatBytes(R, Fn.toBytes(S));
}

/** The public key of `secretKey` by noble, from the same remembered expansion. */
export function noblePublicKey(secretKey: Uint8Array): Uint8Array {
  return expanded(secretKey).publicKey;
}
