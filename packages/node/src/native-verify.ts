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

function keyObject(publicKey: Uint8Array): KeyObject | null {
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
