/**
 * The one place a platform plugs a faster primitive into the core (docs/SPEC.md
 * §2): Node passes OpenSSL's SHA-256 and SHA-512, browsers keep noble's. It is a subpath of
 * its own (`@fairtable/core/platform.js`), not part of the package root, so that
 * game code cannot swap the hash by accident; the digest must give noble's bytes,
 * which packages/node proves with a differential test.
 */
import { sha256 as nobleSha256, sha512 as nobleSha512 } from '@noble/hashes/sha2.js';

export type Sha256 = (data: Uint8Array) => Uint8Array;
export type Sha512 = (data: Uint8Array) => Uint8Array;

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
}

/**
 * The digest hash.ts calls. An exported `let` is a live binding, so hash.ts reads
 * the configured function with no extra call on the audit's hot path.
 */
export let platformSha256: Sha256 = (data) => nobleSha256(data);

/** The SHA-512 ed25519/verify.ts calls, a live binding like `platformSha256`. */
export let platformSha512: Sha512 = (data) => nobleSha512(data);

/** Injects platform primitives; options left out keep their current implementation. */
export function configure(options: PlatformOptions): void {
  if (options.sha256 !== undefined) platformSha256 = options.sha256;
  if (options.sha512 !== undefined) platformSha512 = options.sha512;
}
