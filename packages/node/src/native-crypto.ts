/**
 * The Node platform (docs/SPEC.md §2): OpenSSL's SHA-256, SHA-512 and Ed25519 signing for every core hash and
 * signature in this thread, each the same bytes as noble's (native-hash.test.ts, native-sign.test.ts), and
 * OpenSSL's verification where the core's rule checks a signature: it takes only OpenSSL's "valid" answers for
 * keys the rule accepts and asks the rule otherwise, so the verdict is the rule's (native-verify.ts, SPEC §3.2).
 */
import { configure } from '@fairtable/core/platform.js';
import { nativeSha256, nativeSha512 } from './native-hash.js';
import { nativePublicKey, nativeSign } from './native-sign.js';
import { nativeVerify } from './native-verify.js';

/**
 * Makes this thread's core use node:crypto: SHA-256 everywhere; the SHA-512 of Ed25519's verification challenge
 * (a forged or cofactored signature that OpenSSL refuses is checked again by the core's rule, which hashes the
 * whole message: on a 150-KB line that hash was most of the check); signing and public keys, which spares a
 * process noble's table of the base point's multiples; and verification, which spares noble's table of each key's
 * multiples (a setup line's, a receipt's, a line checked outside the audit's threads).
 */
export function useNativeCrypto(): void {
  configure({ sha256: nativeSha256, sha512: nativeSha512, ed25519: { sign: nativeSign, publicKey: nativePublicKey, verify: nativeVerify } });
}
