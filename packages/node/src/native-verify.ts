/**
 * Native Ed25519 verification through node:crypto (OpenSSL), the fast path
 * for auditing (docs/SPEC.md §3.2). OpenSSL's verification is cofactorless
 * and compares R byte for byte, so for a public key that noble's strict rule
 * accepts (canonical, not of small order: checked once per key), everything
 * OpenSSL accepts the noble rule (cofactored) accepts too; where OpenSSL says no, noble
 * is asked, so the verdict is always the noble rule's and the browser (noble
 * alone) and the CLI cannot disagree. The differential test checks both ways.
 */
import { createPublicKey, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { isStrictPublicKey, nobleVerify } from '@fairtable/core/identity.js';

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** OpenSSL's key objects by public key; a relay meets keys chosen by whoever connects, so at most this many are kept. */
const KEYS_KEPT = 10_000;
const keyCache = new Map<string, KeyObject | null>();

/**
 * The key object last found for a given array, with the bytes it held then: callers pass the same array for a
 * player's key line after line (a checker's keys), and comparing 32 bytes costs a tenth of writing them as hex
 * for the map (0.06 against 0.60 µs). The bytes are compared every time, so an array whose contents changed is
 * looked up again.
 */
const byArray = new WeakMap<Uint8Array, { readonly bytes: Uint8Array; readonly key: KeyObject | null }>();

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return false;
  return true;
}

function keyObject(publicKey: Uint8Array): KeyObject | null {
  const last = byArray.get(publicKey);
  if (last !== undefined && sameBytes(last.bytes, publicKey)) return last.key;
  const key = keyObjectById(publicKey);
  byArray.set(publicKey, { bytes: publicKey.slice(), key });
  return key;
}

function keyObjectById(publicKey: Uint8Array): KeyObject | null {
  const id = Buffer.from(publicKey).toString('hex');
  let key = keyCache.get(id);
  if (key === undefined) {
    // OpenSSL accepts small-order public keys that the noble rule refuses; such keys never take the fast path.
    try {
      key = isStrictPublicKey(publicKey) ? createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' }) : null;
    } catch {
      key = null;
    }
    if (keyCache.size >= KEYS_KEPT) keyCache.clear();
    keyCache.set(id, key);
  }
  return key;
}

export function nativeVerify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  const key = keyObject(publicKey);
  if (key !== null && nodeVerify(null, message, key, signature)) return true;
  return nobleVerify(signature, message, publicKey);
}

/** OpenSSL's own answer, with no fallback and no key check: for the differential test. */
export function opensslVerify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    return nodeVerify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** Native signing, kept here for the callers that take signing and verification from one module (native-sign.ts). */
export { nativeSign } from './native-sign.js';
