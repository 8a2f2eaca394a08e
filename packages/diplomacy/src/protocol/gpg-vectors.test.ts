/**
 * Test vectors for a gpg-only player's Ed25519 commitment (docs/spec/diplomacy.md §11.2), made by GnuPG:
 * the clearsigned text and the bytes its signature hashes, byte for byte; the digest and notation it states; the
 * commitment accepted for the key and refused when one byte of the text, the stated digest or the key differs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { readPgpClearsigned, readPgpKey, readPgpSignature, verifyPgpDetached } from '@fairtable/core/pgp/verify.js';
import { checkCarriedCommit, fileMatches, NOTATION, readGpgPlayers, statedDigest } from './gpg.js';

interface Clearsigned {
  readonly name: string;
  readonly message: string;
  readonly text: string;
  readonly signedHex: string;
  readonly statedDigest: string | null;
  readonly notation: string | null;
}
const v = JSON.parse(readFileSync(new URL('../testdata/gpg-ed25519-commit.json', import.meta.url), 'utf8')) as {
  publicKey: string;
  fingerprint: string;
  publicAlgorithm: number;
  binding: string;
  file: string;
  fileSha256: string;
  clearsigned: Clearsigned[];
  detached: { signature: string };
};

describe('Ed25519 commitment vectors made by gpg', () => {
  const key = readPgpKey(v.publicKey);

  it('the key: Ed25519, the fingerprint gpg printed, accepted in a setup', () => {
    expect([key.algorithm, key.fingerprint]).toEqual(['eddsa', v.fingerprint]);
    expect(readGpgPlayers([{ id: 'edd', publicKey: v.publicKey, fingerprint: v.fingerprint }], ['p0'])).toHaveLength(1);
  });

  it.each(v.clearsigned.map((c) => [c.name, c] as const))('%s: text, signed bytes and stated digest byte for byte; the signature verifies', (_, c) => {
    const m = readPgpClearsigned(c.message);
    expect(m.text).toBe(c.text);
    expect(toHex(m.signed)).toBe(c.signedHex);
    expect([m.signature.publicAlgorithm, m.signature.type]).toEqual([v.publicAlgorithm, 1]);
    expect(verifyPgpDetached(key, m.signature, m.signed)).toEqual({ valid: true });
    expect(statedDigest(m.text)).toBe(c.statedDigest);
    expect(m.signature.notations[NOTATION] ?? null).toBe(c.notation);
    const created = m.signature.created * 1000;
    const check = checkCarriedCommit(v.publicKey, c.message, created, 0, [], v.binding);
    if (c.notation === null) {
      expect(check).toMatchObject({ ok: false, problem: /no orders@fairtable notation/ });
      return;
    }
    // Another game, round or player: refused, so a commitment cannot be carried where it was not made for.
    expect(checkCarriedCommit(v.publicKey, c.message, created, 0, [], v.binding.replace('/1/', '/2/'))).toMatchObject({
      ok: false,
      problem: /another game or round/,
    });
    if (c.statedDigest === null) {
      expect(check).toMatchObject({ ok: false, problem: /states no SHA-256 digest/ });
      return;
    }
    expect(c.statedDigest).toBe(v.fileSha256);
    expect(check).toEqual({ ok: true, commit: { digest: v.fileSha256, form: 'sha256', signature: c.message, created } });
    if (!check.ok) return;
    expect(fileMatches(check.commit, v.file)).toBe(true);
    expect(fileMatches(check.commit, v.file.replace('A par - bur', 'A par H'))).toBe(false);
    // Dated after the round began less the skew, and not a digest used before.
    expect(checkCarriedCommit(v.publicKey, c.message, created + 1001, 1000, [], v.binding)).toMatchObject({ ok: false, problem: /before the round began/ });
    expect(checkCarriedCommit(v.publicKey, c.message, created, 0, [v.fileSha256], v.binding)).toMatchObject({ ok: false, problem: /earlier round/ });
  });

  it('one digit of the stated digest changed, or the text signed under another key: refused', () => {
    const c = v.clearsigned[1]!;
    const at = c.message.indexOf(v.fileSha256);
    const flipped = c.message.slice(0, at) + (v.fileSha256[0] === '0' ? '1' : '0') + c.message.slice(at + 1);
    const m = readPgpClearsigned(flipped);
    expect(verifyPgpDetached(key, m.signature, m.signed)).toMatchObject({ valid: false, code: 'bad_pgp_signature' });
    expect(checkCarriedCommit(v.publicKey, flipped, 0, 0, [], v.binding)).toMatchObject({ ok: false, problem: /not a text the player's key signed/ });
    const rsaLike = { ...key, fingerprint: '0'.repeat(40), keyId: '0'.repeat(16) };
    expect(verifyPgpDetached(rsaLike, m.signature, m.signed)).toMatchObject({ valid: false, code: 'pgp_wrong_signer' });
  });

  it('the detached Ed25519 signature over the file verifies, but is no commitment: it cannot be checked before the file is known', () => {
    const sig = readPgpSignature(v.detached.signature);
    expect(verifyPgpDetached(key, sig, new TextEncoder().encode(v.file))).toEqual({ valid: true });
    expect(checkCarriedCommit(v.publicKey, v.detached.signature, 0, 0, [], v.binding)).toMatchObject({ ok: false, problem: /clearsigned digest/ });
  });

  it('statedDigest reads the two forms and nothing else', () => {
    const d = v.fileSha256;
    const groups = d.toUpperCase().match(/.{8}/g)!.join(' ');
    expect(statedDigest(`${d}  orders.txt`)).toBe(d);
    expect(statedDigest(`${d.toUpperCase()} *orders.txt`)).toBe(d);
    expect(statedDigest(`orders.txt: ${groups}`)).toBe(d);
    expect(statedDigest(`/a/long/name/orders.txt:\n${groups}`)).toBe(d);
    expect(statedDigest(groups)).toBe(d);
    expect(statedDigest(`${d}  orders.txt\n${d}  other.txt`)).toBeNull();
    expect(statedDigest(`${d.slice(1)}  orders.txt`)).toBeNull();
    expect(statedDigest(`orders.txt: ${groups} 00`)).toBeNull();
    expect(statedDigest('')).toBeNull();
  });
});
