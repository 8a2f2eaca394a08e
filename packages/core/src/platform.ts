/**
 * The one place a platform plugs a faster primitive into the core (docs/SPEC.md
 * §2): Node passes OpenSSL's SHA-256, SHA-512 and Ed25519, browsers keep noble's. It is a subpath of
 * its own (`@fairtable/core/platform.js`), not part of the package root, so that
 * game code cannot swap the hash by accident; the digest must give noble's bytes,
 * which packages/node proves with a differential test.
 */
import { sha256 as nobleSha256, sha512 as nobleSha512 } from '@noble/hashes/sha2.js';

export type Sha256 = (data: Uint8Array) => Uint8Array;
export type Sha512 = (data: Uint8Array) => Uint8Array;
/** Ed25519 signing (RFC 8032 §5.1.6) with a 32-byte seed: deterministic, so a platform's must give noble's bytes. */
export type Ed25519Sign = (message: Uint8Array, secretKey: Uint8Array) => Uint8Array;
/** The public key of a 32-byte seed (RFC 8032 §5.1.5). */
export type Ed25519PublicKey = (secretKey: Uint8Array) => Uint8Array;
/** A signature check whose verdict must be the core's rule's (docs/SPEC.md §3.2) on every input. */
export type Ed25519Verify = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;

/** A platform's Ed25519: signing and public keys with noble's bytes, verification with the core rule's verdict. */
export interface PlatformEd25519 {
  readonly sign: Ed25519Sign;
  readonly publicKey: Ed25519PublicKey;
  readonly verify: Ed25519Verify;
}

export interface PlatformOptions {
  /**
   * SHA-256 for every core hash in this thread (tagged hashes, envelopes, the stream). It returns a new array
   * and keeps nothing of its input, which may be a view of a scratch array that the next hash overwrites.
   */
  readonly sha256?: Sha256;
  /**
   * SHA-512 for the challenge of Ed25519 verification in this thread (ed25519/verify.ts: SHA-512(R ‖ A ‖ M)),
   * whose input is the whole signed message: on a long line its hash, not the curve, is most of the check.
   */
  readonly sha512?: Sha512;
  /**
   * Ed25519 for this thread: signing and public keys (ed25519/sign.ts), which must give noble's bytes for every
   * 32-byte seed and message and may leave a seed of another length to noble (whose error it then is), and
   * `verify` in identity.ts, whose verdict must be the rule's. null goes back to noble's.
   */
  readonly ed25519?: PlatformEd25519 | null;
}

/**
 * The digest hash.ts calls. An exported `let` is a live binding, so hash.ts reads
 * the configured function with no extra call on the audit's hot path.
 */
export let platformSha256: Sha256 = (data) => nobleSha256(data);

/** The SHA-512 ed25519/verify.ts calls, a live binding like `platformSha256`. */
export let platformSha512: Sha512 = (data) => nobleSha512(data);

/** The platform's Ed25519, or null for noble's (ed25519/sign.ts, identity.ts), a live binding like `platformSha256`. */
export let platformEd25519: PlatformEd25519 | null = null;

/** Injects platform primitives; options left out keep their current implementation. */
export function configure(options: PlatformOptions): void {
  if (options.sha256 !== undefined) platformSha256 = options.sha256;
  if (options.sha512 !== undefined) platformSha512 = options.sha512;
  if (options.ed25519 !== undefined) platformEd25519 = options.ed25519;
}
