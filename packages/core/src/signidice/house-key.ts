/**
 * The house's key for Signidice: unique signatures only (docs/spec/signidice.md §2).
 *
 * The outcome of a round is a function of the house's signature S on the
 * player's V. If the house could produce several valid signatures on the same
 * V it could pick the one whose outcome it likes, so only schemes with exactly
 * one valid output per key and input are accepted: RSA-FDH-VRF (RFC 9381 §4)
 * and ECVRF (RFC 9381 §5). ECDSA, the seed's example in its step 9 ("recover
 * the public key from the signature"), and Schnorr-type signatures with a
 * nonce the signer chooses, are refused by name.
 */
import { FairtableError } from '../errors.js';
import { fromHex, isHex, toHex } from '../bytes.js';
import * as ecvrf from '../vrf/ecvrf.js';
import { rsaFdhVrfVerify, parseRsaVrfPublicKey, type RsaVrfPublicKey } from '../vrf/rsa-fdh-vrf.js';
import type { VrfVerdict } from '../vrf/verdict.js';

export type HouseScheme = 'ecvrf-ell2' | 'ecvrf-tai' | 'rsa-fdh-vrf';
export const HOUSE_SCHEMES: readonly HouseScheme[] = ['ecvrf-ell2', 'ecvrf-tai', 'rsa-fdh-vrf'];
const NON_UNIQUE = new Set(['ecdsa', 'secp256k1', 'ed25519', 'eddsa', 'schnorr', 'bls-unhashed', 'dsa', 'rsa-pss']);

/** As it stands in the setup: ECVRF keys as 64 hex digits, RSA keys as {n, e} in hex. */
export interface HouseKey {
  readonly scheme: HouseScheme;
  readonly publicKey: string | RsaVrfPublicKey;
}

export function checkHouseKey(value: unknown): HouseKey {
  const v = value as { scheme?: unknown; publicKey?: unknown } | null;
  if (v === null || typeof v !== 'object' || typeof v.scheme !== 'string') {
    throw new FairtableError('bad_input', 'houseKey must be {scheme, publicKey}', { field: 'houseKey' });
  }
  if (NON_UNIQUE.has(v.scheme.toLowerCase())) {
    throw new FairtableError(
      'non_unique_signature',
      `houseKey: "${v.scheme}" signatures are not unique: the house could choose among valid signatures and so choose the outcome; use one of ${HOUSE_SCHEMES.join(', ')}`,
      { field: 'houseKey.scheme' },
    );
  }
  if (!(HOUSE_SCHEMES as readonly string[]).includes(v.scheme)) {
    throw new FairtableError('bad_input', `houseKey.scheme must be one of ${HOUSE_SCHEMES.join(', ')}`, { field: 'houseKey.scheme' });
  }
  if (v.scheme === 'rsa-fdh-vrf') {
    parseRsaVrfPublicKey(v.publicKey as RsaVrfPublicKey); // throws a coded error on a short or malformed key
  } else if (!isHex(v.publicKey, 32)) {
    throw new FairtableError('bad_input', 'houseKey.publicKey must be a 32-byte ECVRF public key in hex', { field: 'houseKey.publicKey' });
  }
  return v as HouseKey;
}

/** Verifies the house's proof on alpha; on success the verdict carries beta, which is S. */
export function verifyHouseProof(key: HouseKey, alpha: Uint8Array, piHex: unknown): VrfVerdict {
  if (typeof piHex !== 'string' || !/^([0-9a-f]{2})+$/.test(piHex)) {
    return { valid: false, code: 'bad_proof', field: 'pi', message: 'pi: not hex' };
  }
  const pi = fromHex(piHex);
  if (key.scheme === 'rsa-fdh-vrf') return rsaFdhVrfVerify(key.publicKey as RsaVrfPublicKey, alpha, pi);
  const suite = key.scheme === 'ecvrf-tai' ? 'tai' : 'ell2';
  return ecvrf.verify(fromHex(key.publicKey as string, 'publicKey', 32), alpha, pi, { suite });
}

/** The house's side for ECVRF schemes, pure: a prover from a 32-byte secret. */
export function ecvrfHouse(scheme: 'ecvrf-ell2' | 'ecvrf-tai', secretKey: Uint8Array): { key: HouseKey; prove: (alpha: Uint8Array) => Uint8Array } {
  const suite = scheme === 'ecvrf-tai' ? 'tai' : 'ell2';
  const pair = ecvrf.keygen(secretKey);
  const prover = ecvrf.createProver(pair.secretKey, { suite });
  return { key: { scheme, publicKey: toHex(pair.publicKey) }, prove: (alpha) => prover.prove(alpha) };
}
