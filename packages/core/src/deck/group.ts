/**
 * The group the deck lives in (docs/spec/deck.md §2): ristretto255, its encodings, generators derived from
 * public labels, Fiat–Shamir challenges and multi-scalar multiplication.
 *
 * Every group and field operation is noble's (`@noble/curves`): points, scalars, RFC 9380 hashing to the
 * group and Pippenger's multi-scalar multiplication. Nothing here is hand-written arithmetic.
 *
 * No generator other than the base point is chosen by anyone: each is `hashToCurve(label)` for a public,
 * domain-separated label, so nobody knows its discrete logarithm to the base (no trusted setup).
 */
import { ristretto255, ristretto255_hasher } from '@noble/curves/ed25519.js';
import { mulAddUnsafe, pippenger } from '@noble/curves/abstract/curve.js';
import { bytesToNumberLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { concatBytes, fromHex, toHex, utf8 } from '../bytes.js';
import { FairtableError } from '../errors.js';

const Point = ristretto255.Point;
export const Fn = ristretto255.Point.Fn;
type NoblePoint = InstanceType<typeof Point>;
/** A ristretto255 point: the operations of noble's point the deck uses (its class is not exported by noble). */
export interface RPoint {
  add(other: RPoint): RPoint;
  double(): RPoint;
  subtract(other: RPoint): RPoint;
  negate(): RPoint;
  multiply(k: bigint): RPoint;
  multiplyUnsafe(k: bigint): RPoint;
  equals(other: RPoint): boolean;
  is0(): boolean;
  toBytes(): Uint8Array;
  toHex(): string;
}

/** The DST of every hash to the group (RFC 9380 ristretto255_XMD:SHA-512_R255MAP_RO_ with this tag). */
export const DECK_DST = 'fairtable/deck/v1';

export const scalarHex = (x: bigint): string => toHex(Fn.toBytes(Fn.create(x)));

/** A 32-byte little-endian scalar below the group order, or `bad_input` naming `field`. */
export function scalarFromHex(hex: string, field: string): bigint {
  try {
    return Fn.fromBytes(fromHex(hex, field, 32));
  } catch (cause) {
    throw new FairtableError('bad_input', `${field}: not a scalar of ristretto255 (32 bytes, little-endian, below the group order)`, { field, cause });
  }
}

/**
 * Encodings and decodings are cached (docs/spec/deck.md §10.1): a decoded point remembers the bytes it came
 * from (the canonical encoding, since a non-canonical one is refused), an encoded point its bytes, and a
 * recently decoded hex string its point. Points are immutable, so a cached point is the same value a fresh
 * decoding gives; the caches only skip the square roots of RFC 9496's encode and decode.
 */
const encodings = new WeakMap<object, { bytes: Uint8Array; hex: string }>();
const DECODED_MAX = 8192;
const decoded = new Map<string, RPoint>();

/** A canonical ristretto255 encoding (32 bytes), or `bad_input` naming `field`. */
export function pointFromHex(hex: string, field: string): RPoint {
  const hit = decoded.get(hex);
  if (hit !== undefined) return hit;
  let bytes: Uint8Array;
  let p: RPoint;
  try {
    bytes = fromHex(hex, field, 32);
    p = Point.fromBytes(bytes);
  } catch (cause) {
    throw new FairtableError('bad_input', `${field}: not a canonical ristretto255 point`, { field, cause });
  }
  encodings.set(p, { bytes, hex: toHex(bytes) });
  if (decoded.size >= DECODED_MAX) decoded.delete(decoded.keys().next().value!);
  decoded.set(hex, p);
  return p;
}

function encoding(p: RPoint): { bytes: Uint8Array; hex: string } {
  let e = encodings.get(p);
  if (e === undefined) {
    const bytes = p.toBytes();
    e = { bytes, hex: toHex(bytes) };
    encodings.set(p, e);
  }
  return e;
}

/** The point's 32-byte canonical encoding (cached per point object; do not modify the array). */
export const pointBytes = (p: RPoint): Uint8Array => encoding(p).bytes;
/** The point's canonical encoding, lowercase hex (cached per point object). */
export const pointHex = (p: RPoint): string => encoding(p).hex;

/**
 * Window of the precomputed tables of points used many times (key shares, the joint key): 4 bits,
 * 520 points per table, built in the time of about three plain multiplications and making each later
 * multiplication about five times faster.
 */
const FIXED_WINDOW = 4;
const fixedPoints = new WeakSet<object>([Point.BASE]);
const fixedByHex = new Map<string, RPoint>();
const FIXED_MAX = 64;

/**
 * A point that will be multiplied many times (a key share, the joint key), decoded from hex, with a
 * precomputed table built at its first multiplication (noble's `precompute`): the same point, faster
 * multiplications, constant time for secret scalars as before.
 */
export function fixedPointFromHex(hex: string, field: string): RPoint {
  const hit = fixedByHex.get(hex);
  if (hit !== undefined) return hit;
  const p = pointFromHex(hex, field);
  if (!fixedPoints.has(p)) {
    (p as NoblePoint).precompute(FIXED_WINDOW, true);
    fixedPoints.add(p);
  }
  if (fixedByHex.size >= FIXED_MAX) fixedByHex.delete(fixedByHex.keys().next().value!);
  fixedByHex.set(hex, p);
  return p;
}

/** k·P for a public or secret scalar (constant time; k is reduced modulo ℓ, 0 gives the identity). */
export function mul(p: RPoint, k: bigint): RPoint {
  const x = Fn.create(k);
  return x === 0n ? Point.ZERO : p.multiply(x);
}
/** k·P for public scalars (variable time). */
export function mulPublic(p: RPoint, k: bigint): RPoint {
  const x = Fn.create(k);
  return x === 0n || p.is0() ? Point.ZERO : p.multiplyUnsafe(x);
}
/** Bits a window of `mulSum` reads, and the windows that cover a scalar below ℓ. */
const SUM_WINDOW = 4;
const SUM_WINDOWS = Math.ceil(Fn.BITS / SUM_WINDOW);

/**
 * Σ k_i·P_i for secret scalars (the prover's), the same point as the sum of `mul(P_i, k_i)`. Noble's
 * constant-time discipline for a point without a table, with the doublings shared by all the points (Straus):
 * fixed 4-bit windows, for each point a table [O, P, 2P, …, 15P] read by scanning every entry, one addition per
 * point and window (a zero digit adds O), four doublings per window; noble's complete formulas do every
 * addition and doubling. The sequence of point operations depends on the number of points only, never on
 * the scalars. For 52 points: 252 doublings and 52 × 79 additions, against about 52 × 330 operations one at
 * a time (docs/spec/deck.md §10.1).
 */
export function mulSum(points: readonly RPoint[], scalars: readonly bigint[]): RPoint {
  if (points.length !== scalars.length) throw new FairtableError('bad_input', 'mulSum: as many scalars as points', { field: 'scalars' });
  const size = 1 << SUM_WINDOW;
  const mask = BigInt(size - 1);
  const tables = points.map((p) => {
    const t: RPoint[] = [Point.ZERO];
    for (let j = 1; j < size; j++) t.push(t[j - 1]!.add(p));
    return t;
  });
  const ks = scalars.map((k) => Fn.create(k));
  let acc: RPoint = Point.ZERO;
  for (let w = SUM_WINDOWS - 1; w >= 0; w--) {
    // The topmost window starts from O: its doublings are skipped by the loop index alone.
    if (w !== SUM_WINDOWS - 1) for (let d = 0; d < SUM_WINDOW; d++) acc = acc.double();
    const shift = BigInt(w * SUM_WINDOW);
    for (let i = 0; i < tables.length; i++) {
      const digit = Number((ks[i]! >> shift) & mask);
      const t = tables[i]!;
      let sel = t[0]!;
      for (let j = 1; j < size; j++) sel = j === digit ? t[j]! : sel;
      acc = acc.add(sel);
    }
  }
  return acc;
}
/** k·G. */
export const mulBase = (k: bigint): RPoint => mul(Point.BASE, k);

/**
 * Σ k_i·P_i (variable time, for public values and the prover's ephemeral ones): noble's Pippenger for many
 * terms; for up to four, each precomputed point (the base, a fixed point) multiplied by its table and the
 * others together by noble's Strauss–Shamir (one chain of doublings for all).
 */
export function msm(points: readonly RPoint[], scalars: readonly bigint[]): RPoint {
  if (points.length !== scalars.length) throw new FairtableError('bad_input', 'msm: as many scalars as points', { field: 'scalars' });
  if (points.length === 0) return Point.ZERO;
  const ks = scalars.map((k) => Fn.create(k));
  if (points.length > 4) return pippenger(Point, points as NoblePoint[], ks);
  let sum: RPoint = Point.ZERO;
  const rest: NoblePoint[] = [];
  const restScalars: bigint[] = [];
  points.forEach((p, i) => {
    const k = ks[i]!;
    if (k === 0n || p.is0()) return;
    if (fixedPoints.has(p)) sum = sum.add(p.multiplyUnsafe(k));
    else {
      rest.push(p as NoblePoint);
      restScalars.push(k);
    }
  });
  if (rest.length === 1) return sum.add(rest[0]!.multiplyUnsafe(restScalars[0]!));
  return rest.length === 0 ? sum : sum.add(mulAddUnsafe(Point, rest, restScalars));
}

const derived = new Map<string, RPoint>();
/** The point hashToCurve(label) under DECK_DST, cached. */
export function labelPoint(label: string): RPoint {
  let p = derived.get(label);
  if (p === undefined) {
    p = ristretto255_hasher.hashToCurve(utf8(label), { DST: DECK_DST }) as NoblePoint;
    if (derived.size > 4096) derived.clear();
    derived.set(label, p);
  }
  return p;
}

/** The Pedersen generator H (label `fairtable/deck/pedersen/h`). */
export const pedersenH = (): RPoint => labelPoint('fairtable/deck/pedersen/h');
/** The Pedersen generators H_1..H_n (labels `fairtable/deck/pedersen/<i>`, i from 1). */
export function pedersenGenerators(n: number): RPoint[] {
  return Array.from({ length: n }, (_, i) => labelPoint(`fairtable/deck/pedersen/${i + 1}`));
}

/** A random nonzero scalar from 64 random bytes (reduced: the bias is below 2^-250). */
export function randomScalar(random: (n: number) => Uint8Array): bigint {
  for (;;) {
    const x = Fn.create(bytesToNumberLE(random(64)));
    if (x !== 0n) return x;
  }
}

/**
 * The bytes a Fiat–Shamir challenge hashes (docs/spec/deck.md §2.3): strings as u32be(length) ‖ UTF-8,
 * integers as u32be, points and scalars as their 32-byte encodings, in the order added.
 */
export class Transcript {
  private readonly parts: Uint8Array[];
  constructor(tag: string) {
    if (!/^[a-z0-9-]+$/.test(tag)) throw new FairtableError('bad_input', `transcript tag must be lowercase ASCII: ${tag}`, { field: 'tag' });
    this.parts = [utf8(`fairtable/deck/${tag}/v1`), new Uint8Array([0])];
  }
  text(s: string): this {
    const b = utf8(s);
    this.parts.push(u32(b.length), b);
    return this;
  }
  int(n: number): this {
    this.parts.push(u32(n));
    return this;
  }
  point(p: RPoint): this {
    this.parts.push(pointBytes(p));
    return this;
  }
  points(ps: readonly RPoint[]): this {
    for (const p of ps) this.parts.push(pointBytes(p));
    return this;
  }
  raw(b: Uint8Array): this {
    this.parts.push(b);
    return this;
  }
  scalar(x: bigint): this {
    this.parts.push(Fn.toBytes(Fn.create(x)));
    return this;
  }
  bytes(): Uint8Array {
    return concatBytes(...this.parts);
  }
  /** SHA-512 of the bytes. */
  digest(): Uint8Array {
    return sha512(this.bytes());
  }
  /** SHA-512 of the bytes, read little-endian, reduced modulo the group order. */
  challenge(): bigint {
    return Fn.create(bytesToNumberLE(sha512(this.bytes())));
  }
}

/** The challenge for index i derived from a seed: SHA-512(seed ‖ u32be(i)) little-endian mod ℓ. */
export function indexedChallenge(seed: Uint8Array, i: number): bigint {
  return Fn.create(bytesToNumberLE(sha512(concatBytes(seed, u32(i)))));
}

export function u32(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0 || n > 0xffffffff) throw new FairtableError('out_of_range', `not a u32: ${n}`, { field: 'n' });
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}

/** The seat's context a deck lives in: the game id and the players in seat order. */
export interface DeckTable {
  readonly game: string;
  /** Player ids (their fairtable public keys, hex) in seat order; seat s is players[s]. */
  readonly players: readonly string[];
}

export function seatOf(table: DeckTable, player: string): number {
  const s = table.players.indexOf(player);
  if (s < 0) throw new FairtableError('bad_input', `not a player at this table: ${player}`, { field: 'player' });
  return s;
}

/** The base point G. */
export const BASE: RPoint = Point.BASE;
/** The identity O. */
export const ZERO: RPoint = Point.ZERO;
