/**
 * Ed25519 signing and public keys through node:crypto (OpenSSL), the Node platform's (docs/SPEC.md §3.1).
 * RFC 8032 signing is deterministic, so these give noble's bytes for every seed and message
 * (native-sign.test.ts). What they spare: noble builds its table of the base point's multiples on a process's
 * first signature or public key, ~60–130 ms of CPU on the project's machine, and every `fairtable` command that
 * reads a key file paid it; OpenSSL has no such start.
 *
 * OpenSSL takes ~0.9 ms to read a private key, fifteen signatures' worth, so its key object is kept: for the
 * seed's own Uint8Array (a WeakMap, with the seed's bytes to notice a change in place), and for a caller that
 * hands the same seed in a new array each time, by the SHA-256 of the seed (at most KEYS_KEPT of them): no copy
 * of the secret is made into a string. A seed of another length than 32 bytes is left to noble, whose error it
 * is everywhere else.
 */
import { createPrivateKey, createPublicKey, hash, sign as nodeSign, type KeyObject } from 'node:crypto';
import { noblePublicKey, nobleSign } from '@fairtable/core/ed25519/sign.js';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const KEYS_KEPT = 256;

interface Native {
  readonly seed: Uint8Array;
  readonly key: KeyObject;
  publicKey: Uint8Array | null;
}

const byArray = new WeakMap<Uint8Array, Native>();
const byDigest = new Map<string, Native>();

function native(secretKey: Uint8Array): Native {
  const k = byArray.get(secretKey);
  if (k !== undefined && k.seed.every((b, i) => b === secretKey[i])) return k;
  const digest = hash('sha256', secretKey, 'hex');
  let fresh = byDigest.get(digest);
  if (fresh === undefined) {
    const der = Buffer.concat([PKCS8_PREFIX, secretKey]);
    fresh = { seed: secretKey.slice(), key: createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }), publicKey: null };
    der.fill(0);
    if (byDigest.size >= KEYS_KEPT) byDigest.clear();
    byDigest.set(digest, fresh);
  }
  byArray.set(secretKey, fresh);
  return fresh;
}

/** RFC 8032 signing by OpenSSL: noble's `ed25519.sign` bytes. */
export function nativeSign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  if (secretKey.length !== 32) return nobleSign(message, secretKey);
  const sig = nodeSign(null, message, native(secretKey).key);
  return new Uint8Array(sig.buffer, sig.byteOffset, sig.byteLength);
}

/** The public key of a seed by OpenSSL: noble's `ed25519.getPublicKey` bytes. */
export function nativePublicKey(secretKey: Uint8Array): Uint8Array {
  if (secretKey.length !== 32) return noblePublicKey(secretKey);
  const k = native(secretKey);
  if (k.publicKey === null) {
    const spki = createPublicKey(k.key).export({ format: 'der', type: 'spki' });
    k.publicKey = new Uint8Array(spki.subarray(spki.length - 32));
  }
  return k.publicKey.slice();
}
