/**
 * Identity: Ed25519 key pairs (RFC 8032), key files and short fingerprints
 * (docs/SPEC.md §3).
 *
 * Verification is RFC 8032 with canonical encodings required (noble's
 * `zip215: false`). The Node package's native fast path may only ever say
 * "valid" where this function says valid too; see docs/SPEC.md §3.2.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { FairtableError } from './errors.js';
import { fromHex, isHex, randomBytes, toHex } from './bytes.js';
import { taggedHash } from './hash.js';
import { publicKeyRemembered, signRemembered } from './ed25519/sign.js';
import { verifyRemembered } from './ed25519/verify.js';
import { platformEd25519 } from './platform.js';

export interface KeyPair {
  readonly secretKey: Uint8Array; // 32-byte RFC 8032 seed
  readonly publicKey: Uint8Array; // 32 bytes
}

export function generateKeyPair(seed: Uint8Array = randomBytes(32)): KeyPair {
  if (seed.length !== 32) throw new FairtableError('bad_length', 'secret key: expected 32 bytes', { field: 'secretKey' });
  return { secretKey: seed, publicKey: publicKeyRemembered(seed) };
}

/** noble's `ed25519.sign`, byte for byte, with the key's expansion remembered (ed25519/sign.ts). */
export function sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  return signRemembered(message, secretKey);
}

/**
 * The verification rule (noble's `ed25519.verify`, `zip215: false`): the platform's check where it has one
 * (Node: OpenSSL's "valid", the rule's otherwise, docs/SPEC.md §3.2), else `nobleVerify`.
 */
export function verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  return platformEd25519 === null ? verifyRemembered(signature, message, publicKey) : platformEd25519.verify(signature, message, publicKey);
}

/** The verification rule by noble alone, with the keys it reads often remembered (ed25519/verify.ts). */
export function nobleVerify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  return verifyRemembered(signature, message, publicKey);
}

const strictKeys = new Map<string, boolean>();

/**
 * A public key the strict rule can ever accept: a canonical encoding of a point
 * not of small order. Remembered per key (a point decompression costs ~0.1 ms
 * and every seat checks every player's key in every setup it reads).
 */
export function isStrictPublicKey(publicKey: Uint8Array): boolean {
  if (publicKey.length !== 32) return false;
  const id = toHex(publicKey);
  let ok = strictKeys.get(id);
  if (ok === undefined) {
    try {
      ok = !ed25519.Point.fromBytes(publicKey, false).isSmallOrder();
    } catch {
      ok = false;
    }
    if (strictKeys.size >= 10_000) strictKeys.clear();
    strictKeys.set(id, ok);
  }
  return ok;
}

/** A short, human-comparable fingerprint: 16 hex digits of H("fingerprint", pk) in groups of four. */
export function fingerprint(publicKey: Uint8Array): string {
  const hex = toHex(taggedHash('fingerprint', publicKey)).slice(0, 16);
  return hex.match(/.{4}/g)!.join('-');
}

export interface KeyFile {
  readonly type: 'fairtable-key';
  readonly version: 1;
  readonly name: string;
  readonly publicKey: string;
  readonly secretKey: string;
}

export interface PublicKeyFile {
  readonly type: 'fairtable-public-key';
  readonly version: 1;
  readonly name: string;
  readonly publicKey: string;
  readonly fingerprint: string;
}

export function toKeyFile(name: string, keys: KeyPair): KeyFile {
  return { type: 'fairtable-key', version: 1, name, publicKey: toHex(keys.publicKey), secretKey: toHex(keys.secretKey) };
}

export function toPublicKeyFile(name: string, publicKey: Uint8Array): PublicKeyFile {
  return { type: 'fairtable-public-key', version: 1, name, publicKey: toHex(publicKey), fingerprint: fingerprint(publicKey) };
}

/** Reads a secret key file and checks that its public key belongs to its secret key. */
export function fromKeyFile(value: unknown): { name: string; keys: KeyPair } {
  const v = value as Partial<KeyFile> | null;
  if (v === null || typeof v !== 'object' || v.type !== 'fairtable-key' || v.version !== 1) {
    throw new FairtableError('bad_key_file', 'not a fairtable key file (type "fairtable-key", version 1)');
  }
  if (typeof v.name !== 'string') throw new FairtableError('bad_key_file', 'key file: name missing', { field: 'name' });
  if (!isHex(v.secretKey, 32)) throw new FairtableError('bad_key_file', 'key file: secretKey must be 64 hex digits', { field: 'secretKey' });
  const keys = generateKeyPair(fromHex(v.secretKey, 'secretKey', 32));
  if (v.publicKey !== toHex(keys.publicKey)) {
    throw new FairtableError('bad_key_file', 'key file: publicKey does not belong to secretKey', { field: 'publicKey' });
  }
  return { name: v.name, keys };
}
