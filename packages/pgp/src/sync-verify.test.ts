/**
 * The core's synchronous OpenPGP verifier (packages/core/src/pgp/verify.ts, docs/spec/diplomacy.md
 * §11.3) against real GnuPG and against openpgp.js: every signature gpg makes for RSA-3072 (its default
 * key) and Ed25519 keys, binary and text mode, with each SHA-2 digest, verifies; altered data, another key
 * and flipped signature bytes are refused exactly when openpgp.js refuses them, or, where openpgp.js is
 * more lenient (the unhashed subpackets), when gpg refuses them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { readPgpKey, readPgpSignature, recoverRsaDigest, signatureDigest, verifyPgpDetached, type PgpKey } from '@fairtable/core/pgp/verify.js';
import { verifyDetached } from '@fairtable/pgp';

const dir = mkdtempSync(join(tmpdir(), 'ft-syncpgp-'));

function gpg(home: string, args: string[], input?: string): string {
  const r = spawnSync('gpg', ['--batch', '--homedir', home, '--pinentry-mode', 'loopback', '--passphrase', '', ...args], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 60_000,
    ...(input === undefined ? {} : { input }),
  });
  if (r.error) throw new Error(`gpg could not run (${r.error.message}); install GnuPG (apt-get install gnupg)`);
  if (r.status !== 0) throw new Error(`gpg ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

interface GpgPerson {
  readonly home: string;
  readonly armored: string;
  readonly fingerprint: string;
}

function person(name: string, algo?: string): GpgPerson {
  const home = mkdtempSync(join(tmpdir(), `ft-syncpgp-${name}-`));
  gpg(home, ['--quick-gen-key', `${name} <${name}@example.org>`, ...(algo === undefined ? [] : [algo, 'sign', 'never'])]);
  const armored = gpg(home, ['--export', '--armor']);
  const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(gpg(home, ['--with-colons', '--fingerprint']))![1]!;
  return { home, armored, fingerprint };
}

function sign(p: GpgPerson, file: string, content: Uint8Array | string, extra: string[] = []): string {
  writeFileSync(join(dir, file), content);
  gpg(p.home, ['--yes', '--detach-sign', '--armor', ...extra, file]);
  return readFileSync(join(dir, `${file}.asc`), 'utf8');
}

let rsa: GpgPerson;
let edd: GpgPerson;
const orders = 'fairtable/orders/v1 5f1c 1 S1901M ann DWaFn0I9vKVlSwEnixBRdAsCHKVMiNhb\nF bre - mao\nA mar - spa\nA par - bur\n';

beforeAll(() => {
  rsa = person('ann');
  edd = person('edd', 'ed25519');
}, 120_000);

async function openpgpSays(armoredKey: string, data: Uint8Array, signature: string): Promise<boolean | 'unreadable'> {
  try {
    return (await verifyDetached(armoredKey, data, signature)).valid;
  } catch (e) {
    if (e instanceof FairtableError) return 'unreadable';
    throw e;
  }
}

function syncSays(key: PgpKey, data: Uint8Array, signature: string): boolean | 'unreadable' {
  try {
    return verifyPgpDetached(key, readPgpSignature(signature), data).valid;
  } catch (e) {
    if (e instanceof FairtableError) return 'unreadable';
    throw e;
  }
}

describe('keys', () => {
  it("reads gpg's default RSA-3072 key and an Ed25519 key with gpg's fingerprints", () => {
    const a = readPgpKey(rsa.armored);
    expect(a).toMatchObject({ algorithm: 'rsa', fingerprint: rsa.fingerprint });
    expect(a.n!.toString(2)).toHaveLength(3072);
    expect(readPgpKey(edd.armored)).toMatchObject({ algorithm: 'eddsa', fingerprint: edd.fingerprint });
  });

  it('refuses a keyring of two keys and text that is no key', () => {
    const both = new Uint8Array([...readArmorBytes(rsa.armored), ...readArmorBytes(edd.armored)]);
    expect(() => readPgpKey(both)).toThrow(expect.objectContaining({ code: 'bad_pgp_key' }) as Error);
    expect(() => readPgpKey('hello')).toThrow(expect.objectContaining({ code: 'bad_pgp_key' }) as Error);
  });
});

function readArmorBytes(armored: string): Uint8Array {
  const body = armored
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('-----') && !l.startsWith('=') && !l.includes(': '))
    .join('');
  return Uint8Array.from(Buffer.from(body, 'base64'));
}

describe('signatures made by gpg', () => {
  const cases: [string, () => GpgPerson, string[]][] = [
    ['RSA, default digest', () => rsa, []],
    ['RSA, SHA-256', () => rsa, ['--digest-algo', 'SHA256']],
    ['RSA, SHA-384', () => rsa, ['--digest-algo', 'SHA384']],
    ['RSA, SHA-224', () => rsa, ['--digest-algo', 'SHA224']],
    ['RSA, text mode', () => rsa, ['--textmode']],
    ['Ed25519, default digest', () => edd, []],
    ['Ed25519, SHA-512, text mode', () => edd, ['--digest-algo', 'SHA512', '--textmode']],
  ];
  for (const [name, who, extra] of cases) {
    it(`${name}: valid in both verifiers, refused when one byte changes or under another key`, async () => {
      const p = who();
      const data = new TextEncoder().encode(orders);
      const sig = sign(p, `o-${name.replace(/\W+/g, '-')}.txt`, data, extra);
      const key = readPgpKey(p.armored);
      expect(syncSays(key, data, sig)).toBe(true);
      expect(await openpgpSays(p.armored, data, sig)).toBe(true);
      const altered = data.slice();
      altered[40]! ^= 1;
      expect(syncSays(key, altered, sig)).toBe(false);
      expect(await openpgpSays(p.armored, altered, sig)).toBe(false);
      const other = readPgpKey((p === rsa ? edd : rsa).armored);
      expect(verifyPgpDetached(other, readPgpSignature(sig), data)).toMatchObject({ valid: false, code: 'pgp_wrong_signer' });
      if (extra.includes('--textmode')) {
        // A text signature survives LF becoming CR LF in transit, as gpg's and openpgp.js's do.
        const crlf = new TextEncoder().encode(orders.replace(/\n/g, '\r\n'));
        expect(syncSays(key, crlf, sig)).toBe(true);
        expect(await openpgpSays(p.armored, crlf, sig)).toBe(true);
      }
    });
  }

  it('the digest read back from an RSA signature, before the document is known, is the digest of the document', () => {
    const data = new TextEncoder().encode(orders);
    const sig = readPgpSignature(sign(rsa, 'recover.txt', data));
    const key = readPgpKey(rsa.armored);
    expect(toHex(recoverRsaDigest(key, sig)!)).toBe(toHex(signatureDigest(sig, data)));
    // A made-up signature integer decodes to nothing.
    expect(recoverRsaDigest(key, { ...sig, rsa: sig.rsa! + 1n })).toBeNull();
    expect(recoverRsaDigest(readPgpKey(edd.armored), sig)).toBeNull();
  });

  it('any changed byte of a signature file: accepted exactly when openpgp.js accepts it, or, where the two differ, when gpg does', async () => {
    const data = new TextEncoder().encode(orders);
    let disagreements = 0;
    for (const p of [rsa, edd]) {
      const name = `flip-${p === rsa ? 'rsa' : 'edd'}.txt`;
      const sig = sign(p, name, data);
      const raw = readArmorBytes(sig);
      const key = readPgpKey(p.armored);
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: raw.length - 1 }), fc.integer({ min: 1, max: 255 }), async (at, x) => {
          const b = raw.slice();
          b[at]! ^= x;
          const armored = `-----BEGIN PGP SIGNATURE-----\n\n${Buffer.from(b).toString('base64')}\n-----END PGP SIGNATURE-----\n`;
          const mine = syncSays(key, data, armored) === true;
          const theirs = (await openpgpSays(p.armored, data, armored)) === true;
          if (mine === theirs) return;
          // openpgp.js is lenient with the unhashed subpackets (a shortened area, an unknown critical subpacket there);
          // gpg refuses those, as this verifier does.
          disagreements++;
          writeFileSync(join(dir, `${name}.flipped.asc`), armored);
          const r = spawnSync('gpg', ['--batch', '--homedir', p.home, '--status-fd', '1', '--verify', `${name}.flipped.asc`, name], {
            cwd: dir,
            encoding: 'utf8',
          });
          expect(mine).toBe(r.status === 0 && r.stdout.includes('GOODSIG'));
        }),
        { numRuns: 150 },
      );
    }
    // Most changed bytes are judged alike by all three; the tie-breaker is for a few.
    expect(disagreements).toBeLessThan(30);
  }, 120_000);

  it('a shortened unhashed area and an unknown critical unhashed subpacket: refused here and by gpg (openpgp.js accepts both)', async () => {
    const data = new TextEncoder().encode(orders);
    const sig = sign(rsa, 'lenient.txt', data);
    const raw = readArmorBytes(sig);
    // Old-format header (3 bytes), then version, type, algorithms (4), the hashed area's length (2) and area.
    const hashedLen = (raw[7]! << 8) | raw[8]!;
    const unhashedAt = 9 + hashedLen;
    const variants = [(b: Uint8Array) => (b[unhashedAt + 1]! -= 2), (b: Uint8Array) => (b[unhashedAt + 3] = 0x80 | 111)];
    for (const [i, change] of variants.entries()) {
      const b = raw.slice();
      change(b);
      const armored = `-----BEGIN PGP SIGNATURE-----\n\n${Buffer.from(b).toString('base64')}\n-----END PGP SIGNATURE-----\n`;
      expect(syncSays(readPgpKey(rsa.armored), data, armored)).not.toBe(true);
      expect(await openpgpSays(rsa.armored, data, armored)).toBe(true);
      writeFileSync(join(dir, `lenient-${i}.asc`), armored);
      const r = spawnSync('gpg', ['--batch', '--homedir', rsa.home, '--status-fd', '1', '--verify', `lenient-${i}.asc`, 'lenient.txt'], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(r.stdout).not.toContain('GOODSIG');
    }
  });

  it('a critical unhashed subpacket of a type gpg handles (preferred hashes, an expiry): accepted here, by gpg and by openpgp.js', async () => {
    const data = new TextEncoder().encode(orders);
    const sig = sign(rsa, 'known-critical.txt', data);
    const raw = readArmorBytes(sig);
    const unhashedAt = 9 + ((raw[7]! << 8) | raw[8]!);
    for (const type of [21, 3]) {
      const b = raw.slice();
      // The first unhashed subpacket (gpg's issuer key id) retyped, and marked critical.
      b[unhashedAt + 3] = 0x80 | type;
      const armored = `-----BEGIN PGP SIGNATURE-----\n\n${Buffer.from(b).toString('base64')}\n-----END PGP SIGNATURE-----\n`;
      expect(syncSays(readPgpKey(rsa.armored), data, armored)).toBe(true);
      expect(await openpgpSays(rsa.armored, data, armored)).toBe(true);
      writeFileSync(join(dir, `known-critical-${type}.asc`), armored);
      const r = spawnSync('gpg', ['--batch', '--homedir', rsa.home, '--status-fd', '1', '--verify', `known-critical-${type}.asc`, 'known-critical.txt'], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(r.stdout).toContain('GOODSIG');
    }
  });

  it('a signature gpg verifies is the one this verifier verifies (gpg --verify as the oracle)', () => {
    const data = new TextEncoder().encode(orders);
    const sigText = sign(rsa, 'oracle.txt', data);
    const r = spawnSync('gpg', ['--batch', '--homedir', rsa.home, '--status-fd', '1', '--verify', 'oracle.txt.asc', 'oracle.txt'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(r.stdout).toContain(`VALIDSIG ${rsa.fingerprint}`);
    expect(syncSays(readPgpKey(rsa.armored), data, sigText)).toBe(true);
    writeFileSync(join(dir, 'oracle.txt'), orders.replace('bur', 'pic'));
    const bad = spawnSync('gpg', ['--batch', '--homedir', rsa.home, '--status-fd', '1', '--verify', 'oracle.txt.asc', 'oracle.txt'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(bad.stdout).toContain('BADSIG');
    expect(syncSays(readPgpKey(rsa.armored), new TextEncoder().encode(orders.replace('bur', 'pic')), sigText)).toBe(false);
  });
});
