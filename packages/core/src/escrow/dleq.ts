/**
 * A Diffie–Hellman value with its proof (docs/spec/escrow.md §3.2): a player publishes S = a·E, where a is
 * the secret scalar of its fairtable (Ed25519) key A = a·G and E an ephemeral point some other player sealed
 * a box under, with a Chaum–Pedersen proof that log_G(A) = log_E(S). Anyone then derives the box's key from
 * S and sees for themselves whether the box opens: a layer its owner sealed wrong is provably the owner's
 * fault, and a player who publishes a wrong S is provably its own.
 *
 * Group arithmetic is noble's (edwards25519 points and their scalar field); nothing here is hand-written.
 * The proof is (c, z): R1 = z·G − c·A, R2 = z·E − c·S, c = H(A, E, S, R1, R2, context). The nonce is derived
 * from the key's secret prefix, E and the context, as Ed25519 derives its own, so no randomness is needed.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesToBigInt, concatBytes, fromHex, toHex, utf8 } from '../bytes.js';
import { answersKept } from './kept.js';

const Point = ed25519.Point;
const Fn = Point.Fn;
type EdPoint = InstanceType<typeof Point>;

/** The published half of an exchange: S and its proof, hex. */
export interface Exchange {
  readonly shared: string;
  readonly proof: string;
}

const wide = (...parts: Uint8Array[]): bigint => Fn.create(bytesToBigInt(sha512(concatBytes(...parts))));

function challenge(a: EdPoint, e: EdPoint, s: EdPoint, r1: EdPoint, r2: EdPoint, context: string): bigint {
  return wide(utf8('fairtable/dleq/v1'), a.toBytes(), e.toBytes(), s.toBytes(), r1.toBytes(), r2.toBytes(), utf8(context));
}

// Player keys come back in every onion of every round: their points are kept (a handful of keys) with a
// small multiplication table (window 4: 8 points a window, built once, about four times cheaper
// multiplications; a window of 8 costs more to build than a phase saves).
const points = new Map<string, EdPoint>();
/** The point of a public key, decoded once, with its table. */
export function keyPoint(hex: string): EdPoint {
  let p = points.get(hex);
  if (p === undefined) {
    p = Point.fromHex(hex);
    p.precompute(4, false);
    if (points.size > 256) points.clear();
    points.set(hex, p);
  }
  return p;
}

/** The holder of `secretKey` (an Ed25519 secret key) publishes a·E for the ephemeral point `ephemeral`, with its proof. */
export function exchange(ephemeral: string, secretKey: Uint8Array, context: string): Exchange {
  const { scalar: a, prefix, point: A } = ed25519.utils.getExtendedPublicKey(secretKey);
  const E = Point.fromHex(ephemeral);
  const S = E.multiply(a);
  let r = wide(prefix, E.toBytes(), utf8(context));
  if (r === 0n) r = 1n;
  const c = challenge(A, E, S, Point.BASE.multiply(r), E.multiply(r), context);
  const z = Fn.add(r, Fn.mul(c, a));
  return { shared: S.toHex(), proof: toHex(concatBytes(Fn.toBytes(c), Fn.toBytes(z))) };
}

const exchangesChecked = answersKept<boolean>(1024);
/** Whether `shared` is a·E for the key `key` = a·G (anyone can check; no secret involved). */
export const exchangeValid = (ephemeral: string, key: string, x: Exchange, context: string): boolean =>
  exchangesChecked([ephemeral, key, x, context], () => exchangeValidOf(ephemeral, key, x, context));

function exchangeValidOf(ephemeral: string, key: string, x: Exchange, context: string): boolean {
  try {
    const A = keyPoint(key);
    const E = Point.fromHex(ephemeral);
    const S = Point.fromHex(x.shared);
    // A value with a small-order part could pass with probability 1/8: refuse it outright.
    if (!S.isTorsionFree() || S.equals(Point.ZERO)) return false;
    const bytes = fromHex(x.proof, 'proof', 64);
    const c = Fn.fromBytes(bytes.subarray(0, 32));
    const z = Fn.fromBytes(bytes.subarray(32));
    const r1 = Point.BASE.multiplyUnsafe(z).subtract(A.multiplyUnsafe(c));
    const r2 = E.multiplyUnsafe(z).subtract(S.multiplyUnsafe(c));
    return challenge(A, E, S, r1, r2, context) === c;
  } catch {
    return false;
  }
}
