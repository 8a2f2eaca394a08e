/**
 * ECVRF over edwards25519 (RFC 9381 §5): ECVRF-EDWARDS25519-SHA512-ELL2
 * (suite 0x04, the default) and ECVRF-EDWARDS25519-SHA512-TAI (suite 0x03).
 *
 * Keys are RFC 8032 keys (§5.5): a 32-byte secret, x and Y derived as Ed25519
 * does. A proof pi is Gamma ‖ c ‖ s (80 bytes); its output beta is 64 bytes.
 * Verification decodes strictly, rejects s >= q and, unless told otherwise,
 * runs ECVRF_validate_key (§5.4.5) so that even a key its owner chose
 * maliciously yields one output per input. See docs/spec/vrf.md for the
 * exact checks and for the speed-ups used here and why they are sound.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import type { EdwardsPoint } from '@noble/curves/abstract/edwards.js';
import { mulAddUnsafe } from '@noble/curves/abstract/curve.js';
import { FairtableError } from '../errors.js';
import { randomBytes } from '../bytes.js';
import { ORDER, PT_LEN, Point, challenge, decodePoint, decodeProof, encodePoints, encodeProof, betaFromCofactorGamma, nonce } from './ecvrf-encoding.js';
import { SUITE_STRING, encodeToCurve, type EcvrfSuite } from './ecvrf-hash-to-curve.js';
import { assertBytes, rejected, type VrfVerdict } from './verdict.js';

export type { EcvrfSuite } from './ecvrf-hash-to-curve.js';
export type { VrfVerdict, VrfFailureCode } from './verdict.js';
export { PROOF_LEN } from './ecvrf-encoding.js';

export const SUITES: readonly EcvrfSuite[] = ['ell2', 'tai'];
export const SECRET_KEY_LEN = 32;
export const PUBLIC_KEY_LEN = PT_LEN;
export const BETA_LEN = 64;

export interface EcvrfOptions {
  /** Default 'ell2'. */
  readonly suite?: EcvrfSuite;
}

export interface EcvrfVerifyOptions extends EcvrfOptions {
  /** ECVRF_validate_key (§5.4.5): reject small-order public keys. Default true. */
  readonly validateKey?: boolean;
}

export interface EcvrfKeyPair {
  readonly secretKey: Uint8Array;
  readonly publicKey: Uint8Array;
}

export interface EcvrfProver {
  readonly suite: EcvrfSuite;
  readonly publicKey: Uint8Array;
  prove(alpha: Uint8Array): Uint8Array;
}

export interface EcvrfVerifier {
  readonly suite: EcvrfSuite;
  readonly publicKey: Uint8Array;
  verify(alpha: Uint8Array, pi: Uint8Array): VrfVerdict;
}

function suiteOf(options: EcvrfOptions | undefined): EcvrfSuite {
  const suite = options?.suite ?? 'ell2';
  if (!SUITES.includes(suite)) throw new FairtableError('bad_input', `suite: expected one of ${SUITES.join(', ')}`, { field: 'suite' });
  return suite;
}

function assertSecretKey(secretKey: unknown): asserts secretKey is Uint8Array {
  assertBytes(secretKey, 'secretKey');
  if (secretKey.length !== SECRET_KEY_LEN) {
    throw new FairtableError('bad_length', `secretKey: expected ${SECRET_KEY_LEN} bytes, got ${secretKey.length}`, { field: 'secretKey' });
  }
}

/** Key generation (§5.5, RFC 8032 §5.1.5). The key pair serves both suites. */
export function keygen(secretKey: Uint8Array = randomBytes(SECRET_KEY_LEN)): EcvrfKeyPair {
  assertSecretKey(secretKey);
  return { secretKey: secretKey.slice(), publicKey: ed25519.getPublicKey(secretKey) };
}

/** Expands the secret once, so a house that proves many inputs pays for x·B only here. */
export function createProver(secretKey: Uint8Array, options?: EcvrfOptions): EcvrfProver {
  assertSecretKey(secretKey);
  const suite = suiteOf(options);
  const suiteString = SUITE_STRING[suite];
  const { scalar: x, prefix, pointBytes: publicKey } = ed25519.utils.getExtendedPublicKey(secretKey);
  return {
    suite,
    publicKey: publicKey.slice(),
    prove(alpha: Uint8Array): Uint8Array {
      assertBytes(alpha, 'alpha');
      const h = encodeToCurve(suite, publicKey, alpha);
      const hString = h.toBytes();
      const k = nonce(prefix, hString);
      // x and k are secret: multiply() is noble's constant-time path. A shared
      // table of multiples of H measured slower than two fixed-window walks.
      const [gamma, u, v] = encodePoints([h.multiply(x), Point.BASE.multiply(k), h.multiply(k)]) as [Uint8Array, Uint8Array, Uint8Array];
      const c = challenge(suiteString, [publicKey, hString, gamma, u, v]);
      return encodeProof(gamma, c, (k + c * x) % ORDER);
    },
  };
}

/** ECVRF_prove (§5.1). */
export function prove(secretKey: Uint8Array, alpha: Uint8Array, options?: EcvrfOptions): Uint8Array {
  return createProver(secretKey, options).prove(alpha);
}

type KeyCheck = { readonly ok: true; readonly y: EdwardsPoint } | { readonly ok: false; readonly verdict: VrfVerdict };

/** string_to_point on PK_string (§5.3 steps 1–2) and, when asked, ECVRF_validate_key (§5.4.5). */
function checkPublicKey(publicKey: Uint8Array, validateKey: boolean): KeyCheck {
  if (publicKey.length !== PUBLIC_KEY_LEN) {
    return { ok: false, verdict: rejected('bad_length', 'publicKey', `expected ${PUBLIC_KEY_LEN} bytes, got ${publicKey.length}`) };
  }
  const decoded = decodePoint(publicKey);
  if (!decoded.ok) {
    return decoded.code === 'not_canonical'
      ? { ok: false, verdict: rejected('not_canonical', 'publicKey', 'non-canonical point encoding') }
      : { ok: false, verdict: rejected('bad_public_key', 'publicKey', 'not a curve point') };
  }
  // Under a small-order Y anyone can forge proofs (with Gamma of small order) that
  // verify for every input and all give one fixed beta.
  if (validateKey && decoded.point.isSmallOrder()) {
    return { ok: false, verdict: rejected('bad_public_key', 'publicKey', 'small-order point (cofactor·Y is the identity)') };
  }
  return { ok: true, y: decoded.point };
}

/**
 * ECVRF_verify (§5.3) steps 3–9 once Y is known. `cTimesMinusY` computes
 * c·(−Y): a one-off verification multiplies directly, a long-lived verifier
 * uses a cached table. Every scalar here (s, c) is public, so the variable-time
 * multiplications are safe.
 */
function verifyWithKey(suite: EcvrfSuite, publicKey: Uint8Array, cTimesMinusY: (c: bigint) => EdwardsPoint, alpha: Uint8Array, pi: Uint8Array): VrfVerdict {
  assertBytes(alpha, 'alpha');
  assertBytes(pi, 'pi');
  const proof = decodeProof(pi);
  if (!proof.ok) return rejected(proof.code, 'pi', proof.message);
  const { gamma, c, s } = proof;
  const suiteString = SUITE_STRING[suite];
  const h = encodeToCurve(suite, publicKey, alpha);
  const u = Point.BASE.multiplyUnsafe(s).add(cTimesMinusY(c));
  // s·H − c·Gamma in one pass: both products share a single doubling chain.
  const v = mulAddUnsafe(Point, [h, gamma.negate()], [s, c]);
  // cofactor·Gamma joins the batch so that beta costs no inversion of its own.
  const [hString, uString, vString, gamma8] = encodePoints([h, u, v, gamma.clearCofactor()]) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  if (challenge(suiteString, [publicKey, hString, pi.subarray(0, PT_LEN), uString, vString]) !== c) {
    return rejected('bad_proof', 'pi', 'challenge does not match');
  }
  return { valid: true, beta: betaFromCofactorGamma(suiteString, gamma8) };
}

/** ECVRF_verify (§5.3): beta when pi proves alpha under publicKey, else a coded rejection. */
export function verify(publicKey: Uint8Array, alpha: Uint8Array, pi: Uint8Array, options?: EcvrfVerifyOptions): VrfVerdict {
  assertBytes(publicKey, 'publicKey');
  const suite = suiteOf(options);
  const key = checkPublicKey(publicKey, options?.validateKey ?? true);
  if (!key.ok) return key.verdict;
  const minusY = key.y.negate();
  return verifyWithKey(suite, publicKey, (c) => minusY.multiplyUnsafe(c), alpha, pi);
}

/**
 * A verifier for one public key, e.g. a house's: the key is decoded and
 * validated once, and c·(−Y) comes from a table built on first use. Throws a
 * FairtableError with the rejection's code when the key itself is unusable.
 */
export function createVerifier(publicKey: Uint8Array, options?: EcvrfVerifyOptions): EcvrfVerifier {
  assertBytes(publicKey, 'publicKey');
  const suite = suiteOf(options);
  const key = checkPublicKey(publicKey, options?.validateKey ?? true);
  if (!key.ok) {
    const v = key.verdict as Extract<VrfVerdict, { valid: false }>;
    throw new FairtableError(v.code, v.message, { field: 'publicKey' });
  }
  const minusY = key.y.negate().precompute(KEY_WINDOW);
  const pk = publicKey.slice();
  return {
    suite,
    publicKey: pk,
    verify: (alpha, pi) => verifyWithKey(suite, pk, (c) => minusY.multiplyUnsafe(c), alpha, pi),
  };
}

/** Window of a long-lived verifier's key table: 33 additions per use, 4224 points built once. */
const KEY_WINDOW = 8;

/**
 * ECVRF_proof_to_hash (§5.2). Only meaningful for a proof that verified (or
 * one made here); throws a FairtableError when pi does not decode.
 */
export function proofToHash(pi: Uint8Array, options?: EcvrfOptions): Uint8Array {
  assertBytes(pi, 'pi');
  const suite = suiteOf(options);
  const proof = decodeProof(pi);
  if (!proof.ok) throw new FairtableError(proof.code, `pi: ${proof.message}`, { field: 'pi' });
  return betaFromCofactorGamma(SUITE_STRING[suite], proof.gamma.clearCofactor().toBytes());
}
