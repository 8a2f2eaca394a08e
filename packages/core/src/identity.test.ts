/** Key files and keys (docs/SPEC.md §3) in-process: round trips and the coded refusals. */
import { describe, expect, it } from 'vitest';
import { FairtableError } from './errors.js';
import { toHex } from './bytes.js';
import { fingerprint, fromKeyFile, generateKeyPair, isStrictPublicKey, sign, toKeyFile, toPublicKeyFile, verify } from './identity.js';

function error(f: () => unknown): { code: string; field: string | undefined } {
  try {
    f();
  } catch (e) {
    if (e instanceof FairtableError) return { code: e.code, field: e.field };
    throw e;
  }
  throw new Error('no error thrown');
}

const keys = generateKeyPair(new Uint8Array(32).fill(7));

describe('key files', () => {
  it('round-trip through JSON text', () => {
    const file = toKeyFile('alice', keys);
    expect(file).toMatchObject({ type: 'fairtable-key', version: 1, name: 'alice', publicKey: toHex(keys.publicKey), secretKey: toHex(keys.secretKey) });
    const back = fromKeyFile(JSON.parse(JSON.stringify(file)));
    expect(back.name).toBe('alice');
    expect(back.keys.publicKey).toEqual(keys.publicKey);
    expect(back.keys.secretKey).toEqual(keys.secretKey);
    // The keys read back sign what the original verifies.
    const msg = new TextEncoder().encode('hello');
    expect(verify(sign(msg, back.keys.secretKey), msg, keys.publicKey)).toBe(true);
  });

  it('a public key file carries the fingerprint: 16 hex digits in groups of four', () => {
    const file = toPublicKeyFile('alice', keys.publicKey);
    expect(file).toMatchObject({ type: 'fairtable-public-key', version: 1, name: 'alice', publicKey: toHex(keys.publicKey) });
    expect(file.fingerprint).toMatch(/^[0-9a-f]{4}(-[0-9a-f]{4}){3}$/);
    expect(fingerprint(keys.publicKey)).toBe(file.fingerprint);
    expect(fingerprint(generateKeyPair(new Uint8Array(32).fill(8)).publicKey)).not.toBe(file.fingerprint);
  });

  it('refuses what is not a key file: bad_key_file', () => {
    const good = toKeyFile('alice', keys);
    expect(error(() => fromKeyFile(null)).code).toBe('bad_key_file');
    expect(error(() => fromKeyFile('text')).code).toBe('bad_key_file');
    expect(error(() => fromKeyFile({ ...good, type: 'fairtable-public-key' })).code).toBe('bad_key_file');
    expect(error(() => fromKeyFile({ ...good, version: 2 })).code).toBe('bad_key_file');
    // A public key file is not a secret key file.
    expect(error(() => fromKeyFile(toPublicKeyFile('alice', keys.publicKey))).code).toBe('bad_key_file');
  });

  it('names the field that is wrong', () => {
    const good = toKeyFile('alice', keys);
    expect(error(() => fromKeyFile({ ...good, name: 3 }))).toEqual({ code: 'bad_key_file', field: 'name' });
    expect(error(() => fromKeyFile({ ...good, secretKey: good.secretKey.slice(2) }))).toEqual({ code: 'bad_key_file', field: 'secretKey' });
    expect(error(() => fromKeyFile({ ...good, secretKey: `zz${good.secretKey.slice(2)}` }))).toEqual({ code: 'bad_key_file', field: 'secretKey' });
    // A public key that does not belong to the secret key (a file pieced together from two).
    const other = toHex(generateKeyPair(new Uint8Array(32).fill(9)).publicKey);
    expect(error(() => fromKeyFile({ ...good, publicKey: other }))).toEqual({ code: 'bad_key_file', field: 'publicKey' });
  });

  it('a secret key of the wrong length is bad_length', () => {
    expect(error(() => generateKeyPair(new Uint8Array(31)))).toEqual({ code: 'bad_length', field: 'secretKey' });
  });
});

describe('keys', () => {
  it('verify refuses a signature on another message, under another key, or of the wrong length', () => {
    const msg = new TextEncoder().encode('move 1');
    const sig = sign(msg, keys.secretKey);
    expect(verify(sig, msg, keys.publicKey)).toBe(true);
    expect(verify(sig, new TextEncoder().encode('move 2'), keys.publicKey)).toBe(false);
    expect(verify(sig, msg, generateKeyPair(new Uint8Array(32).fill(9)).publicKey)).toBe(false);
    expect(verify(sig.slice(1), msg, keys.publicKey)).toBe(false);
  });

  it('isStrictPublicKey: a real key yes; the identity point (small order) and a non-canonical encoding no', () => {
    expect(isStrictPublicKey(keys.publicKey)).toBe(true);
    const identity = new Uint8Array(32);
    identity[0] = 1; // y = 1, the neutral element
    expect(isStrictPublicKey(identity)).toBe(false);
    const nonCanonical = new Uint8Array(32).fill(0xff);
    nonCanonical[31] = 0x7f; // y = 2^255 − 1 ≥ p
    expect(isStrictPublicKey(nonCanonical)).toBe(false);
    expect(isStrictPublicKey(new Uint8Array(31))).toBe(false);
  });
});
