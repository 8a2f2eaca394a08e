/**
 * Threshold escrow by publicly verifiable secret sharing (docs/spec/escrow.md): Feldman's scheme on
 * ristretto255, so that any k of n players can open a value its owner withholds, while fewer than k learn
 * nothing of it (seed 003's "no profit from withholding the last reveal", made stronger than its layered
 * encryption).
 *
 * The dealer picks a random polynomial f of degree k − 1 over the group's scalars with f(0) = s, publishes
 * the commitments C_j = a_j·G, and gives player i (1-based seat) the share f(i), encrypted to that player.
 * Anyone checks a share against the commitments: f(i)·G = Σ_j i^j·C_j. Any k shares give s by Lagrange
 * interpolation at 0. The escrowed value itself (an opening) is sealed under a key derived from s, which
 * only the dealer or k players can compute; C_0 = s·G binds s publicly.
 *
 * Shares are encrypted to each player's fairtable key turned into its X25519 form (RFC 7748, via noble's
 * `toMontgomery`; the sealer's side computed on the Edwards form with the player's remembered table,
 * ed25519/x25519.ts): an ephemeral X25519 key, HKDF-SHA-256 of the shared secret bound to the game, the dealer
 * and the seat, and ChaCha20-Poly1305. Curve and field arithmetic are noble's; nothing here is hand-written.
 */
import { ristretto255, ed25519, x25519 } from '@noble/curves/ed25519.js';
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToBigInt, fromHex, toHex, utf8 } from '../bytes.js';
import { FairtableError } from '../errors.js';
import { taggedHash } from '../hash.js';
import { sharedSecretWithKey } from '../ed25519/x25519.js';

const Point = ristretto255.Point;
const Fn = Point.Fn;
type RPoint = InstanceType<typeof Point>;

export interface Dealing {
  /** C_j = a_j·G for j = 0..k−1, hex (C_0 = s·G). */
  readonly commitments: readonly string[];
  /** f(i) for seats i = 1..n, as 32-byte little-endian hex scalars (secret: each goes encrypted to its seat). */
  readonly shares: readonly string[];
}

const scalarHex = (x: bigint): string => toHex(Fn.toBytes(x));
const scalarOf = (hex: string, field: string): bigint => {
  try {
    return Fn.fromBytes(fromHex(hex, field, 32));
  } catch (cause) {
    throw new FairtableError('bad_share', `${field}: not a scalar of ristretto255 (32 bytes, little-endian, below the group order)`, { field, cause });
  }
};

/** A uniformly random nonzero scalar from 64 random bytes (reduced: the bias is below 2^-250). */
export function randomScalar(random: (n: number) => Uint8Array): bigint {
  for (;;) {
    const x = Fn.create(bytesToBigInt(random(64)));
    if (x !== 0n) return x;
  }
}

/** Shares `secret` among `n` seats so that any `k` of them recover it. */
export function deal(secret: bigint, k: number, n: number, random: (n: number) => Uint8Array): Dealing {
  if (!Number.isSafeInteger(k) || !Number.isSafeInteger(n) || k < 1 || n < k || n > 1000) {
    throw new FairtableError('out_of_range', `threshold ${k} of ${n}: need 1 ≤ k ≤ n ≤ 1000`, { field: 'threshold' });
  }
  const coefficients = [Fn.create(secret)];
  for (let j = 1; j < k; j++) coefficients.push(randomScalar(random));
  const commitments = coefficients.map((a) => (a === 0n ? Point.ZERO : Point.BASE.multiply(a)).toHex());
  const shares: string[] = [];
  for (let i = 1; i <= n; i++) {
    // Horner's rule over the scalar field.
    let y = 0n;
    for (let j = coefficients.length - 1; j >= 0; j--) y = Fn.add(Fn.mul(y, BigInt(i)), coefficients[j]!);
    shares.push(scalarHex(y));
  }
  return { commitments, shares };
}

/** Whether `share` is seat `i`'s share of the dealing committed to by `commitments`: f(i)·G = Σ i^j·C_j. */
export function verifyShare(i: number, share: string, commitments: readonly string[]): boolean {
  try {
    const y = scalarOf(share, 'share');
    // Horner's rule on public points with the small public scalar i: variable-time multiplication is safe
    // here and several times faster than the constant-time ladder.
    const x = Fn.create(BigInt(i));
    let expected: RPoint = Point.ZERO;
    for (let j = commitments.length - 1; j >= 0; j--) {
      const scaled = x === 0n || expected.equals(Point.ZERO) ? Point.ZERO : expected.multiplyUnsafe(x);
      expected = scaled.add(Point.fromHex(commitments[j]!));
    }
    const left = y === 0n ? Point.ZERO : Point.BASE.multiply(y);
    return left.equals(expected);
  } catch {
    return false;
  }
}

/** The secret from any `k` distinct seats' shares (Lagrange interpolation at 0). */
export function reconstruct(shares: readonly { readonly seat: number; readonly share: string }[]): bigint {
  const seats = shares.map((s) => s.seat);
  if (new Set(seats).size !== seats.length || seats.some((s) => !Number.isSafeInteger(s) || s < 1)) {
    throw new FairtableError('bad_input', 'reconstruct: the seats must be distinct positive integers', { field: 'shares' });
  }
  let secret = 0n;
  for (const { seat, share } of shares) {
    let num = 1n;
    let den = 1n;
    for (const other of seats) {
      if (other === seat) continue;
      num = Fn.mul(num, Fn.neg(BigInt(other)));
      den = Fn.mul(den, Fn.sub(BigInt(seat), BigInt(other)));
    }
    secret = Fn.add(secret, Fn.mul(scalarOf(share, 'share'), Fn.div(num, den)));
  }
  return secret;
}

/** The public commitment to the secret: C_0 = s·G, hex. */
export function secretCommitment(secret: bigint): string {
  const s = Fn.create(secret);
  return (s === 0n ? Point.ZERO : Point.BASE.multiply(s)).toHex();
}

/** A 32-byte key for sealing the escrowed value, derived from the secret scalar. */
export function escrowKey(secret: bigint, context: string): Uint8Array {
  return taggedHash('escrow-key', utf8(context), Fn.toBytes(Fn.create(secret)));
}

function shareKey(shared: Uint8Array, context: string): Uint8Array {
  return hkdf(sha256, shared, utf8('fairtable/escrow-share/v1'), utf8(context), 32);
}

/** A share encrypted to a player: the dealer's ephemeral X25519 key, and the ChaCha20-Poly1305 box. */
export interface SealedShare {
  readonly ephemeral: string;
  readonly box: string;
}

const ZERO_NONCE = new Uint8Array(12);

/** Encrypts `share` to the player whose fairtable (Ed25519) public key is `playerKey`; `context` binds game, dealer and seat. */
export function sealShare(share: string, playerKey: Uint8Array, context: string, random: (n: number) => Uint8Array): SealedShare {
  const ephemeral = random(32);
  const shared = sharedSecretWithKey(ephemeral, playerKey);
  // A fresh key per box, so the all-zero nonce is used once.
  const box = chacha20poly1305(shareKey(shared, context), ZERO_NONCE).encrypt(fromHex(share, 'share', 32));
  return { ephemeral: toHex(x25519.getPublicKey(ephemeral)), box: toHex(box) };
}

/**
 * Seals one dealing's shares, `shares[i]` to `playerKeys[i]` under `contexts[i]`, with one ephemeral key for
 * all of them: each box still has its own key (a different shared secret and context per seat), and the
 * dealer does one Montgomery ladder per seat instead of two. Each result opens with `openShare`.
 */
export function sealShares(
  shares: readonly string[],
  playerKeys: readonly Uint8Array[],
  contexts: readonly string[],
  random: (n: number) => Uint8Array,
): SealedShare[] {
  const ephemeral = random(32);
  const ephemeralPublic = toHex(x25519.getPublicKey(ephemeral));
  return shares.map((share, i) => {
    const shared = sharedSecretWithKey(ephemeral, playerKeys[i]!);
    const box = chacha20poly1305(shareKey(shared, contexts[i]!), ZERO_NONCE).encrypt(fromHex(share, 'share', 32));
    return { ephemeral: ephemeralPublic, box: toHex(box) };
  });
}

/** Opens a share sealed to this player (its fairtable Ed25519 secret key); throws `bad_share` when it does not open. */
export function openShare(sealed: SealedShare, secretKey: Uint8Array, context: string): string {
  try {
    const shared = x25519.getSharedSecret(ed25519.utils.toMontgomerySecret(secretKey), fromHex(sealed.ephemeral, 'ephemeral', 32));
    return toHex(chacha20poly1305(shareKey(shared, context), ZERO_NONCE).decrypt(fromHex(sealed.box, 'box')));
  } catch (cause) {
    throw new FairtableError('bad_share', 'the sealed share does not open with this key and context', { field: 'share', cause });
  }
}

/** Seals `value` under the escrow key of `secret` (open it with `openEscrowedValue` once k shares give the secret). */
export function sealValue(value: Uint8Array, secret: bigint, context: string): string {
  return toHex(chacha20poly1305(escrowKey(secret, context), ZERO_NONCE).encrypt(value));
}

export function openEscrowedValue(sealed: string, secret: bigint, context: string): Uint8Array {
  try {
    return chacha20poly1305(escrowKey(secret, context), ZERO_NONCE).decrypt(fromHex(sealed, 'sealed'));
  } catch (cause) {
    throw new FairtableError('bad_share', 'the escrowed value does not open with the reconstructed secret', { field: 'sealed', cause });
  }
}
