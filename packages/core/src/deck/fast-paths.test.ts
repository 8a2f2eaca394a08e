/**
 * The deck's fast paths (docs/spec/deck.md §10.1) against plain arithmetic: small multi-scalar
 * multiplications with precomputed tables, cached encodings and decodings, and precomputed key points give
 * the same points; and the proofs' checks accept and refuse exactly what a plain checker written from the
 * spec (noble's points decoded afresh, each product computed on its own, no cache) accepts and refuses.
 */
import { describe, expect, it } from 'vitest';
import { ristretto255 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { concatBytes, fromHex, toHex, utf8 } from '../bytes.js';
import { RandomStream } from '../stream.js';
import {
  BASE,
  ZERO,
  Fn,
  fixedPointFromHex,
  msm,
  mulBase,
  pointBytes,
  pointFromHex,
  pointHex,
  randomScalar,
  u32,
  type DeckTable,
  type RPoint,
} from './group.js';
import { keyShareValid, makeKeyShare, type KeyShare } from './joint-key.js';
import { decryptionShare, decryptionShareValid, type DecryptionShare } from './decrypt.js';
import { newDeck } from './elgamal.js';
import { shuffle } from './shuffle-proof.js';

const Point = ristretto255.Point;
const rng = (label: string) => {
  const s = new RandomStream(new Uint8Array(32).fill(3), label);
  return (n: number) => s.bytes(n);
};
const plainSum = (points: readonly RPoint[], scalars: readonly bigint[]): RPoint =>
  points.reduce<RPoint>((acc, p, i) => {
    const k = Fn.create(scalars[i]!);
    return k === 0n || p.is0() ? acc : acc.add(Point.fromBytes(p.toBytes()).multiplyUnsafe(k));
  }, ZERO);

describe('fast paths give the same points', () => {
  it('msm of 1 to 6 terms (tables, Strauss–Shamir, Pippenger) is the plain sum of products', () => {
    const random = rng('msm');
    const fixed = fixedPointFromHex(mulBase(randomScalar(random)).toHex(), 'fixed');
    for (let n = 1; n <= 6; n++) {
      for (let round = 0; round < 3; round++) {
        const points = Array.from({ length: n }, (_, i) => (i === 0 ? BASE : i === 1 ? fixed : i === 2 && round === 1 ? ZERO : mulBase(randomScalar(random))));
        const scalars = points.map((_, i) => (round === 2 && i === n - 1 ? 0n : i === 1 && round === 1 ? Fn.ORDER - 1n : randomScalar(random)));
        expect(msm(points, scalars).equals(plainSum(points, scalars))).toBe(true);
      }
    }
  });

  it('a precomputed key point multiplies as a plain one, by public and secret scalars', () => {
    const random = rng('fixed');
    const hex = mulBase(randomScalar(random)).toHex();
    const fixed = fixedPointFromHex(hex, 'key');
    const plain = Point.fromHex(hex);
    for (let i = 0; i < 6; i++) {
      const k = randomScalar(random);
      expect(fixed.multiply(k).equals(plain.multiply(k))).toBe(true);
      expect(fixed.multiplyUnsafe(k).equals(plain.multiplyUnsafe(k))).toBe(true);
    }
    expect(fixedPointFromHex(hex, 'key')).toBe(fixed);
  });

  it('cached encodings are the canonical ones; a decoded point is the one the hex encodes, in either case', () => {
    const random = rng('encodings');
    for (let i = 0; i < 8; i++) {
      const p = mulBase(randomScalar(random)).add(BASE);
      const fresh = toHex(p.toBytes());
      expect(pointHex(p)).toBe(fresh);
      expect(toHex(pointBytes(p))).toBe(fresh);
      const decoded = pointFromHex(fresh, 'p');
      expect(decoded.equals(p)).toBe(true);
      expect(pointHex(decoded)).toBe(fresh);
      expect(pointHex(pointFromHex(fresh.toUpperCase(), 'p'))).toBe(fresh);
    }
    expect(pointHex(ZERO)).toBe('00'.repeat(32));
  });

  it('a non-canonical or invalid encoding is refused every time, never cached', () => {
    // s = p (the field prime, non-canonical), s negative (odd), and a value off the curve.
    const bad = ['edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', '01' + '00'.repeat(31), 'ff'.repeat(32)];
    for (let round = 0; round < 3; round++) for (const hex of bad) expect(() => pointFromHex(hex, 'p')).toThrow();
  });
});

/** A plain checker written from docs/spec/deck.md §2.3–2.4: fresh noble points, each product on its own. */
function plainChallenge(tag: string, items: Uint8Array[]): bigint {
  return Fn.create(bytesToNumberLE(sha512(concatBytes(utf8(`fairtable/deck/${tag}/v1`), new Uint8Array([0]), ...items))));
}
const text = (s: string): Uint8Array => concatBytes(u32(utf8(s).length), utf8(s));
function plainProof(proof: string): { c: bigint; z: bigint } | null {
  try {
    const b = fromHex(proof, 'proof', 64);
    return { c: Fn.fromBytes(b.subarray(0, 32)), z: Fn.fromBytes(b.subarray(32)) };
  } catch {
    return null;
  }
}
const enc = (p: RPoint): Uint8Array => Point.fromBytes(p.toBytes()).toBytes();
const times = (p: RPoint, k: bigint): RPoint => (k === 0n || p.is0() ? ZERO : Point.fromBytes(p.toBytes()).multiplyUnsafe(k));

function plainKeyShareValid(table: DeckTable, share: KeyShare): boolean {
  const seat = table.players.indexOf(share.player);
  const p = plainProof(share.proof);
  if (seat < 0 || p === null) return false;
  let y: RPoint;
  try {
    y = Point.fromHex(share.key);
  } catch {
    return false;
  }
  if (y.is0()) return false;
  const r = times(BASE, p.z).subtract(times(y, p.c));
  return plainChallenge('key-share', [text(table.game), u32(seat), text(share.player), enc(BASE), enc(y), enc(r)]) === p.c;
}

function plainShareValid(table: DeckTable, key: string, a: string, share: DecryptionShare): boolean {
  const seat = table.players.indexOf(share.player);
  const p = plainProof(share.proof);
  if (seat < 0 || p === null) return false;
  try {
    const [y, g2, d] = [Point.fromHex(key), Point.fromHex(a), Point.fromHex(share.share)] as RPoint[];
    const r1 = times(BASE, p.z).subtract(times(y!, p.c));
    const r2 = times(g2!, p.z).subtract(times(d!, p.c));
    const items = [text(table.game), u32(seat), text(share.player), u32(share.position), enc(BASE), enc(y!), enc(g2!), enc(d!), enc(r1), enc(r2)];
    return plainChallenge('decryption-share', items) === p.c;
  } catch {
    return false;
  }
}

describe('the proofs accept and refuse what a plain checker does', () => {
  const table: DeckTable = { game: 'fast-paths', players: ['ann', 'bob', 'cat'] };

  it('key shares: honest ones, and ones with a changed key, proof, seat or game', () => {
    const random = rng('keys');
    const made = table.players.map((p) => makeKeyShare(table, p, random));
    const other = mulBase(randomScalar(random)).toHex();
    const flip = (hex: string, at: number): string => hex.slice(0, at) + (parseInt(hex[at]!, 16) ^ 1).toString(16) + hex.slice(at + 1);
    const cases: { table: DeckTable; share: KeyShare }[] = [];
    for (const m of made) {
      const s = m.share;
      cases.push(
        { table, share: s },
        { table, share: { ...s, key: other } },
        { table, share: { ...s, proof: flip(s.proof, 3) } },
        { table, share: { ...s, proof: flip(s.proof, 70) } },
        { table, share: { ...s, key: ZERO.toHex() } },
        { table, share: { ...s, key: 'zz' } },
        { table: { ...table, game: 'another' }, share: s },
        { table: { ...table, players: [...table.players].reverse() }, share: s },
      );
    }
    const verdicts = cases.map((c) => keyShareValid(c.table, c.share));
    expect(verdicts).toEqual(cases.map((c) => plainKeyShareValid(c.table, c.share)));
    expect(verdicts.filter(Boolean).length).toBeGreaterThanOrEqual(3);
    expect(verdicts.filter((v) => !v).length).toBeGreaterThanOrEqual(15);
  });

  it('decryption shares: honest ones, and ones with a changed share, proof, position, key or card', () => {
    const random = rng('shares');
    const made = table.players.map((p) => makeKeyShare(table, p, random));
    const joint = made.reduce<RPoint>((acc, m) => acc.add(pointFromHex(m.share.key, 'key')), ZERO).toHex();
    const deck = shuffle({ table, shuffler: 'ann', index: 0, key: joint, input: newDeck(6) }, random).output;
    const cases: { key: string; a: string; share: DecryptionShare }[] = [];
    table.players.forEach((player, seat) => {
      for (const position of [0, 3]) {
        const s = decryptionShare(table, player, made[seat]!.secret, position, deck[position]!, random);
        const key = made[seat]!.share.key;
        cases.push(
          { key, a: deck[position]!.a, share: s },
          { key, a: deck[position]!.a, share: { ...s, share: mulBase(randomScalar(random)).toHex() } },
          { key, a: deck[position]!.a, share: { ...s, proof: s.proof.slice(0, 126) + (s.proof.endsWith('0') ? '1' : '0') } },
          { key, a: deck[position]!.a, share: { ...s, position: position + 1 } },
          { key: made[(seat + 1) % 3]!.share.key, a: deck[position]!.a, share: s },
          { key, a: deck[position + 1]!.a, share: s },
          { key, a: deck[position]!.a, share: { ...s, player: table.players[(seat + 1) % 3]! } },
        );
      }
    });
    const verdicts = cases.map((c) => decryptionShareValid(table, c.key, { a: c.a, b: c.a }, c.share));
    expect(verdicts).toEqual(cases.map((c) => plainShareValid(table, c.key, c.a, c.share)));
    expect(verdicts.filter(Boolean).length).toBe(6);
    expect(verdicts.filter((v) => !v).length).toBe(36);
  });
});
