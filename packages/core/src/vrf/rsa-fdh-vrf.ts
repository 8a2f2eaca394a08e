/**
 * RSA-FDH-VRF-SHA256 (RFC 9381 §4, suite_string 0x01): the full-domain hash
 * (§4.1 steps 1–3, MGF1 from RFC 8017 §B.2.1), proof_to_hash (§4.2) and
 * verification (§4.3), with RSAVP1 (s^e mod n) in BigInt so that a browser
 * can check a house's proofs. Proving needs the private key and lives in
 * @fairtable/node (rsa-vrf.ts).
 *
 * A public key is { n, e } in big-endian hex. Moduli under 2048 bits are
 * refused, and so are moduli over 16384 bits and exponents longer than the
 * modulus, which would only make verification a denial of service.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { FairtableError } from '../errors.js';
import { bigIntToBytes, bytesToBigInt, fromHex, toHex } from '../bytes.js';
import { assertBytes, rejected, type VrfVerdict } from './verdict.js';

export const RSA_VRF_SUITE = 0x01;
export const RSA_VRF_MIN_BITS = 2048;
export const RSA_VRF_MAX_BITS = 16384;

export interface RsaVrfPublicKey {
  /** Modulus, big-endian hex. */
  readonly n: string;
  /** Public exponent, big-endian hex (usually "010001"). */
  readonly e: string;
}

export interface ParsedRsaVrfPublicKey {
  readonly n: bigint;
  readonly e: bigint;
  /** Length of n in octets (k in RFC 8017). */
  readonly k: number;
  readonly bits: number;
}

const bitLength = (x: bigint): number => (x === 0n ? 0 : x.toString(2).length);

/** I2OSP (RFC 8017 §4.1). */
export const i2osp = (x: bigint, length: number): Uint8Array => bigIntToBytes(x, length);
/** OS2IP (RFC 8017 §4.2). */
export const os2ip = (bytes: Uint8Array): bigint => bytesToBigInt(bytes);

/** Checks and parses a public key; throws a FairtableError ('bad_hex', 'weak_key', 'bad_public_key'). */
export function parseRsaVrfPublicKey(key: RsaVrfPublicKey): ParsedRsaVrfPublicKey {
  if (key === null || typeof key !== 'object') throw new FairtableError('bad_input', 'RSA public key: expected { n, e }');
  const n = bytesToBigInt(fromHex(key.n, 'n'));
  const e = bytesToBigInt(fromHex(key.e, 'e'));
  const bits = bitLength(n);
  if (bits < RSA_VRF_MIN_BITS) {
    throw new FairtableError('weak_key', `n: ${bits}-bit modulus; RSA-FDH-VRF keys must have at least ${RSA_VRF_MIN_BITS} bits`, { field: 'n' });
  }
  if (bits > RSA_VRF_MAX_BITS) throw new FairtableError('bad_public_key', `n: more than ${RSA_VRF_MAX_BITS} bits`, { field: 'n' });
  if (n % 2n === 0n) throw new FairtableError('bad_public_key', 'n: an RSA modulus is odd', { field: 'n' });
  if (e < 3n || e % 2n === 0n || bitLength(e) > bits) {
    throw new FairtableError('bad_public_key', 'e: expected an odd exponent >= 3, no longer than n', { field: 'e' });
  }
  return { n, e, k: Math.ceil(bits / 8), bits };
}

/** Canonical hex form of a public key: n padded to k octets, e minimal. */
export function formatRsaVrfPublicKey(key: ParsedRsaVrfPublicKey): RsaVrfPublicKey {
  return { n: toHex(i2osp(key.n, key.k)), e: toHex(i2osp(key.e, Math.ceil(bitLength(key.e) / 8))) };
}

/** MGF1 with SHA-256 (RFC 8017 §B.2.1). */
export function mgf1Sha256(seed: Uint8Array, maskLen: number): Uint8Array {
  const out = new Uint8Array(maskLen);
  const counter = new Uint8Array(4);
  for (let i = 0, at = 0; at < maskLen; i++, at += 32) {
    new DataView(counter.buffer).setUint32(0, i);
    out.set(
      sha256
        .create()
        .update(seed)
        .update(counter)
        .digest()
        .subarray(0, maskLen - at),
      at,
    );
  }
  return out;
}

/** m = OS2IP(MGF1(suite ‖ 0x01 ‖ MGF_salt ‖ alpha, k − 1)) with MGF_salt = I2OSP(k, 4) ‖ I2OSP(n, k) (§4.1 steps 1–3, §4.4). */
export function rsaFdhVrfMessage(key: ParsedRsaVrfPublicKey, alpha: Uint8Array): bigint {
  const seed = new Uint8Array(2 + 4 + key.k + alpha.length);
  seed.set([RSA_VRF_SUITE, 0x01], 0);
  seed.set(i2osp(BigInt(key.k), 4), 2);
  seed.set(i2osp(key.n, key.k), 6);
  seed.set(alpha, 6 + key.k);
  // k − 1 octets keep m below n, so every m has exactly one RSA preimage.
  return os2ip(mgf1Sha256(seed, key.k - 1));
}

/** base^exponent mod modulus, left to right; only ever used with a public exponent. */
export function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  base %= modulus;
  for (const bit of exponent.toString(2)) {
    result = (result * result) % modulus;
    if (bit === '1') result = (result * base) % modulus;
  }
  return result;
}

/** RSAVP1 (RFC 8017 §5.2.2): s^e mod n for 0 <= s < n. */
export function rsavp1(key: ParsedRsaVrfPublicKey, s: bigint): bigint {
  if (s < 0n || s >= key.n) throw new FairtableError('out_of_range', 'signature representative out of range');
  return modPow(s, key.e, key.n);
}

/** RSAFDHVRF_proof_to_hash (§4.2): SHA-256(suite ‖ 0x02 ‖ pi). */
export function rsaFdhVrfProofToHash(pi: Uint8Array): Uint8Array {
  assertBytes(pi, 'pi');
  return sha256.create().update(Uint8Array.of(RSA_VRF_SUITE, 0x02)).update(pi).digest();
}

/** RSAFDHVRF_verify (§4.3). Throws only for a public key that is unusable as such. */
export function rsaFdhVrfVerify(publicKey: RsaVrfPublicKey | ParsedRsaVrfPublicKey, alpha: Uint8Array, pi: Uint8Array): VrfVerdict {
  assertBytes(alpha, 'alpha');
  assertBytes(pi, 'pi');
  const key = typeof publicKey.n === 'bigint' ? (publicKey as ParsedRsaVrfPublicKey) : parseRsaVrfPublicKey(publicKey as RsaVrfPublicKey);
  if (pi.length !== key.k) return rejected('bad_length', 'pi', `expected ${key.k} bytes, got ${pi.length}`);
  const s = os2ip(pi);
  // s and s + n would give the same m; only s < n is the proof.
  if (s >= key.n) return rejected('not_canonical', 'pi', 'signature representative is not below n');
  if (rsavp1(key, s) !== rsaFdhVrfMessage(key, alpha)) return rejected('bad_proof', 'pi', 'does not match the hash of alpha');
  return { valid: true, beta: rsaFdhVrfProofToHash(pi) };
}

/** Base64url without padding (RFC 7515 §2), as JWK uses it. */
function fromBase64url(text: unknown, field: string): Uint8Array {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    throw new FairtableError('bad_input', `${field}: expected base64url`, { field });
  }
  const binary = atob(
    text
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(text.length / 4) * 4, '='),
  );
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Reads an RSA public (or private) JWK (RFC 7518 §6.3) and checks the key. */
export function rsaVrfPublicKeyFromJwk(jwk: { readonly kty?: unknown; readonly n?: unknown; readonly e?: unknown }): RsaVrfPublicKey {
  if (jwk === null || typeof jwk !== 'object' || jwk.kty !== 'RSA') throw new FairtableError('bad_input', 'JWK: expected kty "RSA"', { field: 'kty' });
  const n = toHex(fromBase64url(jwk.n, 'n'));
  const e = toHex(fromBase64url(jwk.e, 'e'));
  return formatRsaVrfPublicKey(parseRsaVrfPublicKey({ n, e }));
}
