import { afterEach, describe, expect, it } from 'vitest';
import { sha256 as nobleSha256, sha512 as nobleSha512 } from '@noble/hashes/sha2.js';
import { configure, platformSha256, platformSha512 } from './platform.js';
import { generateKeyPair, nobleVerify as verify, sign } from './identity.js';
import { sha256, taggedHash } from './hash.js';
import * as root from './index.js';

const noble = platformSha256;
const noble512 = platformSha512;
afterEach(() => configure({ sha256: noble, sha512: noble512 }));

describe('platform hook', () => {
  it('routes every core hash through the injected digest', () => {
    const seen: number[] = [];
    configure({ sha256: (data) => (seen.push(data.length), nobleSha256(data)) });
    expect(sha256(new Uint8Array(3))).toEqual(nobleSha256(new Uint8Array(3)));
    taggedHash('commit', new Uint8Array(5));
    expect(seen).toEqual([3, 'fairtable/commit/v1'.length + 1 + 5]);
  });

  it("routes Ed25519 verification's challenge hash through the injected SHA-512, and its verdict follows that digest", () => {
    const keys = generateKeyPair(new Uint8Array(32).fill(3));
    const message = new Uint8Array(1000).fill(7);
    const signature = sign(message, keys.secretKey);
    const seen: number[] = [];
    configure({ sha512: (data) => (seen.push(data.length), nobleSha512(data)) });
    expect(verify(signature, message, keys.publicKey)).toBe(true);
    expect(seen).toEqual([32 + 32 + 1000]);
    // A digest that is not SHA-512 gives another challenge, and the same signature fails.
    configure({ sha512: (data) => nobleSha512(new Uint8Array([...data, 0])) });
    expect(verify(signature, message, keys.publicKey)).toBe(false);
  });

  it('leaves the digest alone when no sha256 is given', () => {
    const mine = (data: Uint8Array): Uint8Array => nobleSha256(data);
    configure({ sha256: mine });
    configure({});
    expect(platformSha256).toBe(mine);
  });

  it('is not reachable from the package root', () => {
    expect(Object.keys(root)).not.toContain('configure');
    expect(Object.keys(root)).not.toContain('setSha256');
    expect(Object.keys(root)).not.toContain('simulate');
  });
});
