/**
 * The verification with remembered keys (verify.ts) gives noble's `ed25519.verify` (`zip215: false`) verdict on
 * every input: valid signatures, and crafted bad ones (flipped bits, S ≥ L, small-order and non-canonical R and A,
 * keys and R of mixed order whose signatures pass the cofactored equation only, points off the curve), each
 * checked before and after the key's table is built.
 */
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { concatBytes, fromHex, utf8 } from '../bytes.js';
import { taggedHash } from '../hash.js';
import { generateKeyPair, nobleVerify as verify, sign } from '../identity.js';
import { forgetRememberedKeys, rememberedKeys, verifyRemembered } from './verify.js';

const { Point } = ed25519;
const { Fn } = Point;
const L = Fn.ORDER;
const P = Point.Fp.ORDER;

function noble(sig: Uint8Array, msg: Uint8Array, pk: Uint8Array): boolean {
  try {
    return ed25519.verify(sig, msg, pk, { zip215: false });
  } catch {
    return false;
  }
}

const bytesOf = (seed: string, i: number): Uint8Array => taggedHash('verify-keys-test', utf8(`${seed}/${i}`));
const scalarOf = (seed: string, i: number): bigint => Fn.create(bytesToNumberLE(concatBytes(bytesOf(seed, i), bytesOf(seed, i + 1000))));
const challenge = (R: Uint8Array, A: Uint8Array, M: Uint8Array): bigint => Fn.create(bytesToNumberLE(sha512(concatBytes(R, A, M))));
const torsion = ED25519_TORSION_SUBGROUP.map((h) => fromHex(h));
/** y = p + i for i < 19 (the encodings of y ≥ p that fit in 255 bits), with either sign bit. */
const nonCanonical = Array.from({ length: 38 }, (_, j) => {
  const b = numberToBytesLE(P + BigInt(j % 19), 32);
  if (j >= 19) b[31]! |= 0x80;
  return b;
});

interface Case {
  readonly name: string;
  readonly sig: Uint8Array;
  readonly msg: Uint8Array;
  readonly pk: Uint8Array;
}

/** A signature by a raw scalar `a` under the (possibly mixed-order) key `A`, with R = [r]B + `rTorsion`. */
function signRaw(a: bigint, A: Uint8Array, M: Uint8Array, r: bigint, rTorsion: InstanceType<typeof Point> | null): Uint8Array {
  let Rp = Point.BASE.multiply(r);
  if (rTorsion !== null) Rp = Rp.add(rTorsion);
  const R = Rp.toBytes();
  const S = Fn.add(r, Fn.mul(challenge(R, A, M), a));
  return concatBytes(R, numberToBytesLE(S, 32));
}

function cases(): Case[] {
  const out: Case[] = [];
  for (let i = 0; i < 4; i++) {
    const keys = generateKeyPair(bytesOf('key', i));
    const other = generateKeyPair(bytesOf('other', i));
    for (let j = 0; j < 3; j++) {
      const msg = utf8(`message ${i}/${j} ${'x'.repeat(j * 100)}`);
      const sig = sign(msg, keys.secretKey);
      const pk = keys.publicKey;
      out.push({ name: 'valid', sig, msg, pk });
      out.push({ name: 'other message', sig, msg: utf8(`message ${i}/${j}!`), pk });
      out.push({ name: 'other key', sig, msg, pk: other.publicKey });
      for (let b = j; b < 64; b += 3) {
        const s = sig.slice();
        s[b]! ^= 1 << (b % 8);
        out.push({ name: `bit flipped in byte ${b}`, sig: s, msg, pk });
      }
      const S = bytesToNumberLE(sig.subarray(32));
      for (const [name, s] of [
        ['S + L', S + L],
        ['S = L', L],
        ['S = 0', 0n],
        ['S + 2^253', S + 2n ** 253n],
      ] as const)
        out.push({ name, sig: concatBytes(sig.subarray(0, 32), numberToBytesLE(s % 2n ** 256n, 32)), msg, pk });
      if (j === 0)
        for (const [t, T] of torsion.entries()) {
          out.push({ name: `R = torsion point ${t}`, sig: concatBytes(T, sig.subarray(32)), msg, pk });
          out.push({ name: `R = torsion point ${t}, S = 0`, sig: concatBytes(T, new Uint8Array(32)), msg, pk: T });
          out.push({ name: `A = torsion point ${t}`, sig, msg, pk: T });
        }
      if (j === 0)
        for (const [n, E] of nonCanonical.entries()) {
          out.push({ name: `A non-canonical ${n}`, sig, msg, pk: E });
          out.push({ name: `R non-canonical ${n}`, sig: concatBytes(E, sig.subarray(32)), msg, pk });
          out.push({ name: `R non-canonical ${n}, S = 0`, sig: concatBytes(E, new Uint8Array(32)), msg, pk: E });
        }
      out.push({ name: 'key of random bytes', sig, msg, pk: bytesOf('random key', i * 3 + j) });
      out.push({ name: 'R of random bytes', sig: concatBytes(bytesOf('random R', i * 3 + j), sig.subarray(32)), msg, pk });
    }
    // Mixed order: a key A + T (T of order 8) and an R + T whose signatures pass the cofactored equation only.
    const a = scalarOf('scalar', i);
    const T = Point.fromBytes(torsion[1]!, true);
    const mixed = Point.BASE.multiply(a).add(T).toBytes();
    const clean = Point.BASE.multiply(a).toBytes();
    for (let j = 0; j < 3; j++) {
      const msg = utf8(`mixed ${i}/${j}`);
      const r = scalarOf('nonce', i * 3 + j);
      out.push({ name: 'raw scalar, clean key', sig: signRaw(a, clean, msg, r, null), msg, pk: clean });
      out.push({ name: 'key of mixed order', sig: signRaw(a, mixed, msg, r, null), msg, pk: mixed });
      out.push({ name: 'R of mixed order', sig: signRaw(a, clean, msg, r, T), msg, pk: clean });
      out.push({ name: 'key and R of mixed order', sig: signRaw(a, mixed, msg, r, T), msg, pk: mixed });
      out.push({ name: 'key of mixed order, signed as the clean key', sig: signRaw(a, clean, msg, r, null), msg, pk: mixed });
    }
  }
  return out;
}

describe('verification with remembered keys', () => {
  const all = cases();

  it("gives noble's verdict on every case, before and after a key's table is built", () => {
    const verdicts = new Map<string, { yes: number; no: number }>();
    const wanted = all.map((c) => noble(c.sig, c.msg, c.pk));
    // Pass 0: every key new (decoded on the spot, no table); pass 1: the keys remembered, most with their tables.
    for (let pass = 0; pass < 2; pass++) {
      for (const [i, c] of all.entries()) {
        const want = wanted[i]!;
        if (pass === 0) forgetRememberedKeys();
        const got = pass === 0 ? verifyRemembered(c.sig, c.msg, c.pk) : verify(c.sig, c.msg, c.pk);
        if (got !== want) throw new Error(`${c.name} (pass ${pass}): noble says ${want}, remembered keys say ${got}`);
        const v = verdicts.get(c.name.replace(/ \d+.*$/, '')) ?? { yes: 0, no: 0 };
        if (want) v.yes++;
        else v.no++;
        verdicts.set(c.name.replace(/ \d+.*$/, ''), v);
      }
    }
    // The cases reach both verdicts where they should: the cofactored equation accepts the mixed-order ones.
    expect(all.length).toBeGreaterThan(500);
    expect(verdicts.get('valid')).toEqual({ yes: 24, no: 0 });
    expect(verdicts.get('raw scalar, clean key')!.no).toBe(0);
    expect(verdicts.get('key of mixed order')!.no).toBe(0);
    expect(verdicts.get('R of mixed order')!.no).toBe(0);
    expect(verdicts.get('key and R of mixed order')!.no).toBe(0);
    expect(verdicts.get('key of mixed order, signed as the clean key')!.yes).toBe(0);
    for (const name of ['other message', 'other key', 'S + L', 'S = L', 'A = torsion point', 'A non-canonical', 'R non-canonical', 'bit flipped in byte'])
      expect(verdicts.get(name)!.yes, name).toBe(0);
    // The bound holds, and the keys used most have their tables.
    const r = rememberedKeys();
    expect(r.keys).toBeLessThanOrEqual(32);
    expect(r.tables).toBeGreaterThan(0);
  });

  it('keeps at most 32 keys, the least recently used dropped first, and still verifies a dropped key', () => {
    const keys = Array.from({ length: 40 }, (_, i) => generateKeyPair(bytesOf('many', i)));
    const msg = utf8('many keys');
    const sigs = keys.map((k) => sign(msg, k.secretKey));
    for (let pass = 0; pass < 5; pass++) keys.forEach((k, i) => expect(verifyRemembered(sigs[i]!, msg, k.publicKey)).toBe(true));
    expect(rememberedKeys().keys).toBe(32);
    expect(verifyRemembered(sigs[0]!, msg, keys[0]!.publicKey)).toBe(true);
    expect(verifyRemembered(sigs[1]!, msg, keys[0]!.publicKey)).toBe(false);
  });
});
