/**
 * RSA-FDH-VRF-SHA256 proving and key generation on Node (RFC 9381 §4.1).
 *
 * The private operation RSASP1 (m^d mod n) is OpenSSL's, reached through
 * privateDecrypt with RSA_NO_PADDING, which computes exactly m^d mod n with
 * the key's CRT parameters and blinding. Everything else (the full-domain
 * hash, the checks, proof_to_hash) is core's, so a proof made here is judged
 * by the same code that browsers run. Keys under 2048 bits are refused.
 */
import { constants, createPublicKey, generateKeyPairSync, privateDecrypt, type KeyObject } from 'node:crypto';
import { FairtableError } from '@fairtable/core/errors.js';
import {
  RSA_VRF_MIN_BITS,
  i2osp,
  os2ip,
  parseRsaVrfPublicKey,
  rsaFdhVrfMessage,
  rsavp1,
  rsaVrfPublicKeyFromJwk,
  type ParsedRsaVrfPublicKey,
  type RsaVrfPublicKey,
} from '@fairtable/core/vrf/rsa-fdh-vrf.js';

export interface RsaVrfKeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: RsaVrfPublicKey;
}

function assertRsaKey(key: unknown, type: 'private' | 'public' | 'any'): asserts key is KeyObject {
  const k = key as KeyObject | null;
  if (k === null || typeof k !== 'object' || typeof k.asymmetricKeyType !== 'string') {
    throw new FairtableError('bad_input', 'expected a node:crypto KeyObject', { field: 'key' });
  }
  if (k.asymmetricKeyType !== 'rsa') throw new FairtableError('bad_input', `expected an RSA key, got ${k.asymmetricKeyType}`, { field: 'key' });
  if (type !== 'any' && k.type !== type) throw new FairtableError('bad_input', `expected a ${type} key, got a ${k.type} key`, { field: 'key' });
  const bits = k.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < RSA_VRF_MIN_BITS) {
    throw new FairtableError('weak_key', `${bits}-bit modulus; RSA-FDH-VRF keys must have at least ${RSA_VRF_MIN_BITS} bits`, { field: 'key' });
  }
}

/** A fresh key pair (e = 65537); `bits` below 2048 is refused. */
export function generateRsaVrfKeyPair(bits = RSA_VRF_MIN_BITS): RsaVrfKeyPair {
  if (!Number.isSafeInteger(bits) || bits < RSA_VRF_MIN_BITS) {
    throw new FairtableError('weak_key', `RSA-FDH-VRF keys must have at least ${RSA_VRF_MIN_BITS} bits`, { field: 'bits' });
  }
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits, publicExponent: 0x10001 });
  return { privateKey, publicKey: rsaVrfPublicKeyFromKeyObject(privateKey) };
}

/** { n, e } of an RSA KeyObject, public or private. */
export function rsaVrfPublicKeyFromKeyObject(key: KeyObject): RsaVrfPublicKey {
  assertRsaKey(key, 'any');
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return rsaVrfPublicKeyFromJwk(publicKey.export({ format: 'jwk' }));
}

export interface RsaVrfProver {
  readonly publicKey: RsaVrfPublicKey;
  prove(alpha: Uint8Array): Uint8Array;
}

/** Reads the public half once, for a house that proves many inputs with one key. */
export function createRsaVrfProver(privateKey: KeyObject): RsaVrfProver {
  assertRsaKey(privateKey, 'private');
  const publicKey = rsaVrfPublicKeyFromKeyObject(privateKey);
  const parsed = parseRsaVrfPublicKey(publicKey);
  return { publicKey, prove: (alpha) => proveWith(privateKey, parsed, alpha) };
}

/** RSAFDHVRF_prove (§4.1): pi = I2OSP(RSASP1(K, m), k). */
export function rsaFdhVrfProve(privateKey: KeyObject, alpha: Uint8Array): Uint8Array {
  return createRsaVrfProver(privateKey).prove(alpha);
}

function proveWith(privateKey: KeyObject, key: ParsedRsaVrfPublicKey, alpha: Uint8Array): Uint8Array {
  if (!(alpha instanceof Uint8Array)) throw new FairtableError('bad_input', 'alpha: expected a Uint8Array', { field: 'alpha' });
  const m = rsaFdhVrfMessage(key, alpha);
  const s = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, i2osp(m, key.k));
  const pi = new Uint8Array(key.k);
  pi.set(s, key.k - s.length);
  // A fault in the CRT computation would leak a factor of n if released; one public check stops it.
  if (rsavp1(key, os2ip(pi)) !== m)
    throw new FairtableError('bad_proof', 'RSA-FDH-VRF: the private operation gave a wrong result; the proof is withheld (a factor of n would leak)');
  return pi;
}
