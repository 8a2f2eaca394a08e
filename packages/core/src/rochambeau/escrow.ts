/**
 * Threshold escrow of a Rochambeau Reveal (docs/spec/rochambeau.md §11): the Reveal a fairtable player sends
 * is a function of one ristretto255 scalar, so a Feldman sharing of that scalar (escrow/vss.ts) escrows the
 * Reveal itself, and C_0 = s·G binds the sharing to the Reveal.
 *
 *   nonce = B(game, player) ‖ r      (resolution 11; r: 16 random octets)
 *   s     = OS2IP(r ‖ M)             (16 + m octets, big-endian; m ≤ 15 so that s < 2^248 < ℓ)
 *
 * The draft's payloads are unchanged: the Commit is type ‖ H(nonce ‖ M), the Reveal type ‖ L ‖ nonce ‖ M.
 */
import { ristretto255 } from '@noble/curves/ed25519.js';
import { toHex } from '../bytes.js';
import { BINDING_OCTETS, nonceBinding, startsWithBinding } from './binding.js';
import { REVEAL_TYPE, encodeReveal } from './codec.js';

const Fn = ristretto255.Point.Fn;
/** Random octets of an escrowed nonce after its binding. */
export const ESCROW_RANDOM_OCTETS = 16;
/** The largest m an escrowed state may have: 16 + m octets must stay below the group order (2^252 + …). */
export const ESCROW_MAX_M = 15;

export const scalarHex = (x: bigint): string => toHex(Fn.toBytes(x));

/** The context a share of `dealer`'s Reveal for `holder` is sealed under. */
export function rochambeauShareContext(gameId: string, attempt: number, dealer: string, holder: string): string {
  return `fairtable/rochambeau-share/${gameId}/${attempt}/${dealer}/${holder}`;
}

/** The scalar a Reveal payload escrows, or null when it is not an escrowable fairtable Reveal of this player. */
export function secretOfReveal(reveal: Uint8Array, m: number, gameId: string, playerId: string): bigint | null {
  const L = BINDING_OCTETS + ESCROW_RANDOM_OCTETS;
  if (reveal.length !== 4 + L + m || reveal[0] !== 0 || reveal[1] !== REVEAL_TYPE || reveal[2] !== 0 || reveal[3] !== L) return null;
  if (!startsWithBinding(reveal, 4, nonceBinding(gameId, playerId))) return null;
  let s = 0n;
  for (let i = 4 + BINDING_OCTETS; i < reveal.length; i++) s = (s << 8n) | BigInt(reveal[i]!);
  return s;
}

/** The Reveal payload a scalar escrows, or null when the scalar is too large to be one (a dealing of garbage). */
export function revealOfSecret(secret: bigint, m: number, gameId: string, playerId: string): Uint8Array | null {
  const octets = ESCROW_RANDOM_OCTETS + m;
  if (secret < 0n || secret >= 1n << BigInt(8 * octets)) return null;
  const tail = new Uint8Array(octets);
  let x = secret;
  for (let i = octets - 1; i >= 0; i--) {
    tail[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  const nonce = new Uint8Array(BINDING_OCTETS + ESCROW_RANDOM_OCTETS);
  nonce.set(nonceBinding(gameId, playerId));
  nonce.set(tail.subarray(0, ESCROW_RANDOM_OCTETS), BINDING_OCTETS);
  return encodeReveal(nonce, tail.subarray(ESCROW_RANDOM_OCTETS));
}
