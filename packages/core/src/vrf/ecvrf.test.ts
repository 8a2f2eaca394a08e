/**
 * ECVRF properties: round trips, tampering, small-order keys, non-canonical
 * encodings and the error codes each rejection carries.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { FairtableError } from '../errors.js';
import { fromHex } from '../bytes.js';
import { createVerifier, keygen, proofToHash, prove, verify, PROOF_LEN, SUITES, type EcvrfSuite } from './ecvrf.js';
import { ORDER, Point, challenge, encodeProof } from './ecvrf-encoding.js';
import { SUITE_STRING, encodeToCurve } from './ecvrf-hash-to-curve.js';

const P = 2n ** 255n - 19n;
const suite = fc.constantFrom<EcvrfSuite>(...SUITES);
const secret = fc.uint8Array({ minLength: 32, maxLength: 32 });
const alpha = fc.uint8Array({ maxLength: 48 });

function flip(bytes: Uint8Array, index: number, bit: number): Uint8Array {
  const out = bytes.slice();
  out[index % out.length]! ^= 1 << bit;
  return out;
}

function expectThrowsCode(fn: () => unknown, code: string): void {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FairtableError);
    expect((e as FairtableError).code).toBe(code);
    return;
  }
  expect.fail(`expected a FairtableError with code ${code}`);
}

describe('ECVRF round trips', () => {
  it('verify accepts every proof prove makes, and beta is proofToHash(pi)', () => {
    fc.assert(
      fc.property(suite, secret, alpha, (s, sk, a) => {
        const { publicKey } = keygen(sk);
        const pi = prove(sk, a, { suite: s });
        expect(pi.length).toBe(PROOF_LEN);
        const verdict = verify(publicKey, a, pi, { suite: s });
        expect(verdict).toEqual({ valid: true, beta: proofToHash(pi, { suite: s }) });
        expect(createVerifier(publicKey, { suite: s }).verify(a, pi)).toEqual(verdict);
      }),
      { numRuns: 40 },
    );
  });

  it('is deterministic: the same key and input give the same proof', () => {
    fc.assert(
      fc.property(suite, secret, alpha, (s, sk, a) => {
        expect(prove(sk, a, { suite: s })).toEqual(prove(sk, a, { suite: s }));
      }),
      { numRuns: 10 },
    );
  });
});

describe('ECVRF tampering', () => {
  it('any flipped bit of pi fails', () => {
    fc.assert(
      fc.property(suite, secret, alpha, fc.nat(), fc.integer({ min: 0, max: 7 }), (s, sk, a, at, bit) => {
        const pi = prove(sk, a, { suite: s });
        expect(verify(keygen(sk).publicKey, a, flip(pi, at, bit), { suite: s }).valid).toBe(false);
      }),
      { numRuns: 60 },
    );
  });

  it('any flipped bit of alpha, or an extra byte, fails', () => {
    fc.assert(
      fc.property(suite, secret, fc.uint8Array({ minLength: 1, maxLength: 48 }), fc.nat(), fc.integer({ min: 0, max: 7 }), (s, sk, a, at, bit) => {
        const { publicKey } = keygen(sk);
        const pi = prove(sk, a, { suite: s });
        expect(verify(publicKey, flip(a, at, bit), pi, { suite: s })).toMatchObject({ valid: false, code: 'bad_proof' });
        expect(verify(publicKey, new Uint8Array([...a, 0]), pi, { suite: s })).toMatchObject({ valid: false, code: 'bad_proof' });
      }),
      { numRuns: 30 },
    );
  });

  it('any flipped bit of the public key fails', () => {
    fc.assert(
      fc.property(suite, secret, alpha, fc.nat(), fc.integer({ min: 0, max: 7 }), (s, sk, a, at, bit) => {
        const pi = prove(sk, a, { suite: s });
        expect(verify(flip(keygen(sk).publicKey, at, bit), a, pi, { suite: s }).valid).toBe(false);
      }),
      { numRuns: 60 },
    );
  });

  it("another key's proof fails", () => {
    fc.assert(
      fc.property(suite, secret, secret, alpha, (s, sk1, sk2, a) => {
        fc.pre(!sk1.every((b, i) => b === sk2[i]));
        expect(verify(keygen(sk2).publicKey, a, prove(sk1, a, { suite: s }), { suite: s }).valid).toBe(false);
      }),
      { numRuns: 20 },
    );
  });
});

describe('ECVRF input validation', () => {
  const sk = fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
  const { publicKey } = keygen(sk);
  const a = new Uint8Array([1, 2, 3]);
  const pi = prove(sk, a);

  it('rejects wrong lengths of pi and pk', () => {
    for (const bad of [pi.subarray(0, 79), new Uint8Array([...pi, 0]), new Uint8Array(0)]) {
      expect(verify(publicKey, a, bad)).toMatchObject({ valid: false, code: 'bad_length', field: 'pi' });
    }
    for (const bad of [publicKey.subarray(0, 31), new Uint8Array([...publicKey, 0])]) {
      expect(verify(bad, a, pi)).toMatchObject({ valid: false, code: 'bad_length', field: 'publicKey' });
    }
  });

  it('rejects s >= q and s + q, which would satisfy the equations', () => {
    const s = bytesToNumberLE(pi.subarray(48));
    for (const bad of [s + ORDER, ORDER, 2n ** 256n - 1n]) {
      const tampered = pi.slice();
      tampered.set(numberToBytesLE(bad, 32), 48);
      expect(verify(publicKey, a, tampered)).toMatchObject({ valid: false, code: 'not_canonical', field: 'pi' });
    }
  });

  it('rejects a Gamma that is no point, and non-canonical Gamma encodings', () => {
    const notAPoint = pi.slice();
    notAPoint.set(numberToBytesLE(2n, 32), 0); // y = 2: (y²−1)/(dy²+1) is not a square
    expect(Point.fromBytes.bind(Point, notAPoint.subarray(0, 32))).toThrow();
    expect(verify(publicKey, a, notAPoint)).toMatchObject({ valid: false, code: 'bad_proof' });
    for (const gamma of nonCanonicalEncodings()) {
      const tampered = pi.slice();
      tampered.set(gamma, 0);
      expect(verify(publicKey, a, tampered)).toMatchObject({ valid: false, code: 'not_canonical', field: 'pi' });
    }
  });

  it('rejects non-canonical public key encodings, with and without validate_key', () => {
    const encodings = nonCanonicalEncodings();
    expect(encodings.length).toBeGreaterThanOrEqual(3);
    for (const pk of encodings) {
      for (const validateKey of [true, false]) {
        expect(verify(pk, a, pi, { validateKey })).toMatchObject({ valid: false, code: 'not_canonical', field: 'publicKey' });
      }
    }
  });

  it('rejects the 8 small-order public keys unless validate_key is turned off', () => {
    expect(ED25519_TORSION_SUBGROUP.length).toBe(8);
    for (const hex of ED25519_TORSION_SUBGROUP) {
      const pk = fromHex(hex);
      expect(verify(pk, a, pi)).toMatchObject({ valid: false, code: 'bad_public_key', field: 'publicKey' });
      expectThrowsCode(() => createVerifier(pk), 'bad_public_key');
      // Without the check the key decodes and only the proof is wrong.
      expect(verify(pk, a, pi, { validateKey: false })).toMatchObject({ valid: false, code: 'bad_proof' });
    }
  });

  it('shows why validate_key is on: a small-order key lets anyone prove the same beta for every alpha', () => {
    const torsion = fromHex(ED25519_TORSION_SUBGROUP[1]!); // order 8
    for (const s of SUITES) {
      const betas = [new Uint8Array([1]), new Uint8Array([2])].map((input) => {
        const forged = forgeUnderSmallOrderKey(s, torsion, input);
        expect(verify(torsion, input, forged, { suite: s })).toMatchObject({ valid: false, code: 'bad_public_key' });
        const verdict = verify(torsion, input, forged, { suite: s, validateKey: false });
        expect(verdict.valid).toBe(true);
        return verdict.valid ? verdict.beta : undefined;
      });
      expect(betas[0]).toEqual(betas[1]);
    }
  });

  it('rejects points that do not decode as public keys', () => {
    expect(verify(numberToBytesLE(2n, 32), a, pi)).toMatchObject({ valid: false, code: 'bad_public_key' });
  });

  it('throws coded errors for unusable arguments', () => {
    expectThrowsCode(() => keygen(new Uint8Array(31)), 'bad_length');
    expectThrowsCode(() => prove(new Uint8Array(33), a), 'bad_length');
    expectThrowsCode(() => prove(sk, a, { suite: 'p256' as EcvrfSuite }), 'bad_input');
    expectThrowsCode(() => verify('00' as unknown as Uint8Array, a, pi), 'bad_input');
    expectThrowsCode(() => proofToHash(pi.subarray(1)), 'bad_length');
    const sTooBig = pi.slice();
    sTooBig.set(numberToBytesLE(ORDER, 32), 48);
    expectThrowsCode(() => proofToHash(sTooBig), 'not_canonical');
    expectThrowsCode(() => createVerifier(publicKey.subarray(1)), 'bad_length');
  });

  it('copies keys so later mutation by the caller changes nothing', () => {
    const key = sk.slice();
    const pair = keygen(key);
    key.fill(0);
    expect(pair.secretKey).toEqual(sk);
  });
});

/** Second encodings of points whose y < 19 (as y + p), and x = 0 with the sign bit set. */
function nonCanonicalEncodings(): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let y = 0n; y < 19n; y++) {
    const bytes = numberToBytesLE(y + P, 32);
    try {
      Point.fromBytes(bytes, true);
      out.push(bytes);
    } catch {
      // y + p names no point
    }
  }
  const minusZero = numberToBytesLE(1n, 32);
  minusZero[31]! |= 0x80; // the identity (0, 1) with the sign of x set
  out.push(minusZero);
  return out;
}

/**
 * A proof under a small-order key Y with Gamma = identity: U = k·B − j·Y and
 * V = k·H verify with s = k whenever the challenge c ≡ j (mod 8).
 */
function forgeUnderSmallOrderKey(suite: EcvrfSuite, pk: Uint8Array, input: Uint8Array): Uint8Array {
  const y = Point.fromBytes(pk);
  const h = encodeToCurve(suite, pk, input);
  const gamma = Point.ZERO.toBytes();
  for (let k = 1n; k < 100n; k++) {
    for (let j = 0n; j < 8n; j++) {
      const u = Point.BASE.multiply(k).add(j === 0n ? Point.ZERO : y.multiplyUnsafe(j).negate());
      const v = h.multiply(k);
      const c = challenge(SUITE_STRING[suite], [pk, h.toBytes(), gamma, u.toBytes(), v.toBytes()]);
      if (c % 8n === j) return encodeProof(gamma, c, k);
    }
  }
  throw new Error('no forgery found');
}

describe('ECVRF keys', () => {
  it('keygen without arguments makes a fresh Ed25519 key pair', () => {
    const a = keygen();
    const b = keygen();
    expect(a.secretKey).not.toEqual(b.secretKey);
    expect(a.publicKey).toEqual(ed25519.getPublicKey(a.secretKey));
  });
});
