/**
 * RSA-FDH-VRF proving on Node: RFC 9381 Appendix A.1 proofs byte for byte,
 * round trips through core's BigInt verifier, the 2048-bit floor, and a
 * differential test of core's RSAVP1 against OpenSSL's raw public operation.
 */
import { constants, createPrivateKey, createPublicKey, generateKeyPairSync, publicEncrypt, type KeyObject } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromHex, toHex } from '@fairtable/core/bytes.js';
import { i2osp, modPow, os2ip, parseRsaVrfPublicKey, rsaFdhVrfVerify, rsavp1 } from '@fairtable/core/vrf/rsa-fdh-vrf.js';
import doc from '../../core/src/vrf/vectors/rfc9381-rsa-fdh-vrf.json' with { type: 'json' };
import { createRsaVrfProver, generateRsaVrfKeyPair, rsaFdhVrfProve, rsaVrfPublicKeyFromKeyObject } from './rsa-vrf.js';

const b64 = (hex: string) => Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex').toString('base64url');
const hexOf = (x: bigint) => x.toString(16);

/** A private KeyObject from the vector's n, e, d, p, q (CRT values computed here). */
function privateKeyOf(v: { n: string; e: string; d: string; p: string; q: string }): KeyObject {
  const [d, p, q] = [v.d, v.p, v.q].map((h) => BigInt('0x' + h)) as [bigint, bigint, bigint];
  const jwk = {
    kty: 'RSA',
    n: b64(v.n),
    e: b64(v.e),
    d: b64(v.d),
    p: b64(v.p),
    q: b64(v.q),
    dp: b64(hexOf(d % (p - 1n))),
    dq: b64(hexOf(d % (q - 1n))),
    qi: b64(hexOf(modPow(q, p - 2n, p))),
  };
  return createPrivateKey({ key: jwk, format: 'jwk' });
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

describe('RSA-FDH-VRF-SHA256 proving', () => {
  let house: ReturnType<typeof generateRsaVrfKeyPair>;
  beforeAll(() => {
    house = generateRsaVrfKeyPair(2048);
  });

  it.each(doc.vectors)('reproduces RFC 9381 Example $example ($bits bits) byte for byte', (v) => {
    const key = privateKeyOf(v);
    expect(rsaVrfPublicKeyFromKeyObject(key)).toEqual({ n: v.n, e: v.e });
    expect(toHex(rsaFdhVrfProve(key, fromHex(v.alpha)))).toBe(v.pi);
  });

  it('round-trips random inputs through core verification; beta depends on alpha only', () => {
    const prover = createRsaVrfProver(house.privateKey);
    expect(prover.publicKey).toEqual(house.publicKey);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (alpha) => {
        const pi = prover.prove(alpha);
        expect(pi.length).toBe(256);
        const verdict = rsaFdhVrfVerify(house.publicKey, alpha, pi);
        expect(verdict.valid).toBe(true);
        expect(rsaFdhVrfProve(house.privateKey, alpha)).toEqual(pi);
        expect(rsaFdhVrfVerify(house.publicKey, new Uint8Array([...alpha, 1]), pi).valid).toBe(false);
      }),
      { numRuns: 25 },
    );
  });

  it('refuses keys under 2048 bits, non-RSA keys and public keys', () => {
    expect(codeOf(() => generateRsaVrfKeyPair(1024))).toBe('weak_key');
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(codeOf(() => rsaFdhVrfProve(small.privateKey, new Uint8Array()))).toBe('weak_key');
    expect(codeOf(() => rsaVrfPublicKeyFromKeyObject(small.publicKey))).toBe('weak_key');
    const ed = generateKeyPairSync('ed25519');
    expect(codeOf(() => rsaFdhVrfProve(ed.privateKey, new Uint8Array()))).toBe('bad_input');
    expect(codeOf(() => rsaFdhVrfProve(createPublicKey(house.privateKey), new Uint8Array()))).toBe('bad_input');
    expect(codeOf(() => rsaFdhVrfProve(house.privateKey, 'abc' as unknown as Uint8Array))).toBe('bad_input');
  });

  it('reads the same public key from a public and a private KeyObject', () => {
    expect(rsaVrfPublicKeyFromKeyObject(createPublicKey(house.privateKey))).toEqual(house.publicKey);
    expect(house.publicKey.e).toBe('010001');
    expect(house.publicKey.n).toHaveLength(512);
  });

  it("core's BigInt RSAVP1 equals OpenSSL's raw public operation on random inputs", () => {
    const key = parseRsaVrfPublicKey(house.publicKey);
    const publicKey = createPublicKey(house.privateKey);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: key.n - 1n }), (s) => {
        const native = publicEncrypt({ key: publicKey, padding: constants.RSA_NO_PADDING }, i2osp(s, key.k));
        expect(toHex(i2osp(rsavp1(key, s), key.k))).toBe(native.toString('hex'));
      }),
      { numRuns: 200 },
    );
    expect(os2ip(i2osp(key.n - 1n, key.k))).toBe(key.n - 1n);
  });
});
