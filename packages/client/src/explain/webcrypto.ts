/**
 * Ed25519 verification through the browser's WebCrypto, as a fast path under
 * the rule of docs/SPEC.md §3.2 (docs/spec/explain.md §5): it may only say
 * "valid" where noble's strict rule does. Its "valid" is taken only for a
 * strict public key (canonical, not of small order: packages/node's OpenSSL
 * path makes the same check), a canonical S (< L) and a canonical encoding of
 * R; for such inputs, an implementation that checks [S]B = R + [k]A, with or
 * without the cofactor, accepts only what the cofactored rule accepts. Every
 * other answer, and every "invalid", goes to noble, so a page and the CLI
 * cannot disagree, whichever browser runs the page.
 */
import { toHex } from '@fairtable/core/bytes.js';
import { generateKeyPair, isStrictPublicKey, sign, verify as nobleVerify } from '@fairtable/core/identity.js';
import type { Verifier } from './audit.js';

/** The group order L of edwards25519, little-endian bytes compared from the top. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const P = 2n ** 255n - 19n;

function littleEndian(bytes: Uint8Array, from: number, to: number): bigint {
  let n = 0n;
  for (let i = to - 1; i >= from; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}

/** S < L (RFC 8032 §5.1.7's check, which the noble rule makes). */
export function canonicalS(signature: Uint8Array): boolean {
  // S < 2^253 almost always: its top byte below 0x10 settles it without a BigInt.
  const top = signature[63]!;
  if (top < 0x10) return true;
  if (top > 0x10) return false;
  return littleEndian(signature, 32, 64) < L;
}

/** R's 32 bytes are the one encoding of a point's y and sign: y < p, and no sign bit on x = 0 (y = ±1). */
export function canonicalR(signature: Uint8Array): boolean {
  const last = signature[31]!;
  const y = littleEndian(signature, 0, 31) + (BigInt(last & 0x7f) << 248n);
  if (y >= P) return false;
  if ((last & 0x80) !== 0 && (y === 1n || y === P - 1n)) return false;
  return true;
}

type Subtle = Pick<SubtleCrypto, 'importKey' | 'verify'>;

/** The platform's SubtleCrypto, or null (a plain-HTTP page on a LAN address has none: a secure context is needed). */
function platformSubtle(): Subtle | null {
  const c = (globalThis as { crypto?: { subtle?: Subtle } }).crypto;
  return c?.subtle ?? null;
}

/**
 * A verifier using `crypto.subtle` for Ed25519, or undefined where there is none or it does not do Ed25519
 * correctly (it must accept a good signature and refuse a bad one before it is used). `subtle` is for tests.
 */
export async function webCryptoVerifier(subtle: Subtle | null = platformSubtle()): Promise<Verifier | undefined> {
  if (subtle === null) return undefined;
  const keys = new Map<string, Promise<CryptoKey | null>>();
  const keyFor = (publicKey: Uint8Array): Promise<CryptoKey | null> => {
    const id = toHex(publicKey);
    let key = keys.get(id);
    if (key === undefined) {
      // A key the strict rule refuses never takes the fast path (OpenSSL, for one, accepts small-order keys).
      key = isStrictPublicKey(publicKey)
        ? subtle.importKey('raw', publicKey as Uint8Array<ArrayBuffer>, { name: 'Ed25519' }, false, ['verify']).catch(() => null)
        : Promise.resolve(null);
      if (keys.size >= 10_000) keys.clear();
      keys.set(id, key);
    }
    return key;
  };
  const fast = async (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> => {
    if (signature.length !== 64 || publicKey.length !== 32) return false;
    if (canonicalS(signature) && canonicalR(signature)) {
      const key = await keyFor(publicKey);
      if (key !== null) {
        try {
          if (await subtle.verify({ name: 'Ed25519' }, key, signature as Uint8Array<ArrayBuffer>, message as Uint8Array<ArrayBuffer>)) return true;
        } catch {
          // An implementation that throws on some input answers nothing: noble decides.
        }
      }
    }
    return nobleVerify(signature, message, publicKey);
  };
  // The probe: a browser whose Ed25519 is missing, or says valid to a bad signature, is not used at all.
  try {
    const probe = generateKeyPair(new Uint8Array(32).fill(7));
    const message = new TextEncoder().encode('fairtable/webcrypto-probe');
    const good = sign(message, probe.secretKey);
    const bad = good.slice();
    bad[0]! ^= 1;
    const key = await subtle.importKey('raw', probe.publicKey as Uint8Array<ArrayBuffer>, { name: 'Ed25519' }, false, ['verify']);
    const yes = await subtle.verify({ name: 'Ed25519' }, key, good as Uint8Array<ArrayBuffer>, message);
    const no = await subtle.verify({ name: 'Ed25519' }, key, bad as Uint8Array<ArrayBuffer>, message);
    if (yes !== true || no !== false) return undefined;
  } catch {
    return undefined;
  }
  return { name: 'webcrypto', verify: fast };
}

/** WebCrypto's own answer with no guard and no fallback, for the differential test; false when it throws. */
export async function rawWebCryptoVerify(subtle: Subtle, signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
  try {
    const key = await subtle.importKey('raw', publicKey as Uint8Array<ArrayBuffer>, { name: 'Ed25519' }, false, ['verify']);
    return await subtle.verify({ name: 'Ed25519' }, key, signature as Uint8Array<ArrayBuffer>, message as Uint8Array<ArrayBuffer>);
  } catch {
    return false;
  }
}
