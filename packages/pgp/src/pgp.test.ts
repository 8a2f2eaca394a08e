import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as openpgp from 'openpgp';
import { toHex } from '@fairtable/core/bytes.js';
import vectors from './gpg-vectors.json' with { type: 'json' };
import { generateKeyPair } from '@fairtable/core/identity.js';
import {
  checkBinding,
  checkClearsignedBinding,
  checkSetupBindings,
  decryptWith,
  encryptTo,
  formatBinding,
  makeBinding,
  parseBinding,
  readPublicKey,
  readSecretKey,
  signDetached,
  verifyDetached,
  type SetupBinding,
} from '@fairtable/pgp';

interface Person {
  readonly secret: string;
  readonly public: string;
  readonly fingerprint: string;
}

async function person(name: string, passphrase?: string): Promise<Person> {
  const k = await openpgp.generateKey({
    userIDs: [{ name, email: `${name.toLowerCase()}@example.org` }],
    format: 'armored',
    ...(passphrase ? { passphrase } : {}),
  });
  const key = await openpgp.readKey({ armoredKey: k.publicKey });
  return { secret: k.privateKey, public: k.publicKey, fingerprint: key.getFingerprint().toUpperCase() };
}

/** Rejects with a FairtableError of this code. */
async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: 'FairtableError', code });
}

let alice: Person;
let bob: Person;
let locked: Person;
const data = new TextEncoder().encode('A Par-Bur\nF Bre-MAO\nsalt: 5f1c\n');

beforeAll(async () => {
  [alice, bob, locked] = await Promise.all([person('Alice'), person('Bob'), person('Locked', 'correct horse')]);
});

describe('detached signatures', () => {
  it('a signature verifies under its key and names the signer', async () => {
    const sig = await signDetached(alice.secret, data);
    expect(sig).toMatch(/^-----BEGIN PGP SIGNATURE-----\n/);
    const verdict = await verifyDetached(alice.public, data, sig);
    expect(verdict).toMatchObject({ valid: true, fingerprint: alice.fingerprint, userIds: ['Alice <alice@example.org>'] });
  });

  it('altered data, another key, or a keyring without the signer are refused with their codes', async () => {
    const sig = await signDetached(alice.secret, data);
    const altered = data.slice();
    altered[0]! ^= 1;
    expect(await verifyDetached(alice.public, altered, sig)).toMatchObject({ valid: false, code: 'bad_pgp_signature' });
    expect(await verifyDetached(bob.public, data, sig)).toMatchObject({ valid: false, code: 'pgp_wrong_signer' });
    // A keyring of several players finds the one who signed.
    expect(await verifyDetached(bob.public + '\n' + alice.public, data, sig)).toMatchObject({ valid: true, fingerprint: alice.fingerprint });
  });

  it('any flipped bit in the data is refused', async () => {
    const sig = await signDetached(alice.secret, data);
    const key = await readPublicKey(alice.public);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: data.length * 8 - 1 }), async (bit) => {
        const altered = data.slice();
        altered[bit >> 3]! ^= 1 << (bit & 7);
        const verdict = await verifyDetached([key], altered, sig);
        expect(verdict.valid).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it('a flipped byte in the binary signature never makes it valid for other data or another signer', async () => {
    const armored = await signDetached(alice.secret, data);
    const binary = (await openpgp.readSignature({ armoredSignature: armored })).write() as Uint8Array;
    const key = await readPublicKey(alice.public);
    const original = await verifyDetached([key], data, binary);
    const other = data.slice();
    other[0]! ^= 1;
    let stillValid = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: binary.length - 1 }), fc.integer({ min: 1, max: 255 }), async (at, flip) => {
        const altered = binary.slice();
        altered[at]! ^= flip;
        try {
          const verdict = await verifyDetached([key], data, altered);
          // OpenPGP signatures are malleable (an MPI's bit count, unhashed subpackets are not signed): a changed
          // signature may still hold, but only as the same signer's signature over the same data.
          if (verdict.valid) {
            stillValid++;
            expect(verdict).toEqual(original);
          }
          expect((await verifyDetached([key], other, altered)).valid).toBe(false);
        } catch (error) {
          expect(error).toMatchObject({ name: 'FairtableError', code: 'bad_pgp_data' });
        }
      }),
      { numRuns: 200 },
    );
    expect(stillValid).toBeLessThan(20);
  });

  it('binary keys and signatures (gpg without --armor) read as armored ones do', async () => {
    const sig = await signDetached(alice.secret, data);
    const binarySig = (await openpgp.readSignature({ armoredSignature: sig })).write() as Uint8Array;
    const binaryKey = (await openpgp.readKey({ armoredKey: alice.public })).write();
    expect(await verifyDetached(binaryKey, data, binarySig)).toMatchObject({ valid: true, fingerprint: alice.fingerprint });
  });

  it('unreadable input throws coded errors', async () => {
    const sig = await signDetached(alice.secret, data);
    await rejectsWith(verifyDetached('not a key', data, sig), 'bad_pgp_key');
    await rejectsWith(verifyDetached(alice.public, data, 'not a signature'), 'bad_pgp_data');
    await rejectsWith(verifyDetached(alice.public, data, alice.public), 'bad_pgp_data');
    await rejectsWith(signDetached(alice.public, data), 'bad_pgp_key');
    await rejectsWith(readPublicKey(alice.public + '\n' + bob.public), 'bad_pgp_key');
    // A revocation certificate is a signature packet, but not over a document.
    const { revocationCertificate } = await openpgp.generateKey({ userIDs: [{ name: 'R' }], format: 'armored' });
    await rejectsWith(verifyDetached(alice.public, data, revocationCertificate.replaceAll('PUBLIC KEY BLOCK', 'SIGNATURE')), 'bad_pgp_data');
  });

  it('a file with two signatures is refused as input: "valid" would be ambiguous', async () => {
    const a = await openpgp.readSignature({ armoredSignature: await signDetached(alice.secret, data) });
    const b = await openpgp.readSignature({ armoredSignature: await signDetached(bob.secret, data) });
    const both = new Uint8Array([...(a.write() as Uint8Array), ...(b.write() as Uint8Array)]);
    await rejectsWith(verifyDetached(alice.public + '\n' + bob.public, data, both), 'bad_pgp_data');
  });

  it('a locked key needs its passphrase', async () => {
    await rejectsWith(signDetached(locked.secret, data), 'pgp_locked_key');
    await rejectsWith(signDetached(locked.secret, data, 'wrong'), 'pgp_locked_key');
    const sig = await signDetached(locked.secret, data, 'correct horse');
    expect(await verifyDetached(locked.public, data, sig)).toMatchObject({ valid: true, fingerprint: locked.fingerprint });
  });

  it("a revoked key's signatures are refused as unusable", async () => {
    const sig = await signDetached(bob.secret, data);
    const privateKey = await openpgp.readPrivateKey({ armoredKey: bob.secret });
    const { publicKey: revoked } = await openpgp.revokeKey({ key: privateKey, format: 'armored' });
    expect(await verifyDetached(revoked, data, sig)).toMatchObject({ valid: false, code: 'pgp_key_unusable' });
  });

  it('an expired key cannot sign', async () => {
    const past = new Date(Date.now() - 2 * 86_400_000);
    const k = await openpgp.generateKey({ userIDs: [{ name: 'Old' }], date: past, keyExpirationTime: 3600, format: 'armored' });
    await rejectsWith(signDetached(k.privateKey, data), 'bad_pgp_key');
  });
});

describe('encryption to the players', () => {
  it('every recipient opens the message; anyone else cannot', async () => {
    const message = await encryptTo([alice.public, bob.public], data);
    expect(message).toMatch(/^-----BEGIN PGP MESSAGE-----\n/);
    expect((await decryptWith(alice.secret, message)).data).toEqual(data);
    expect((await decryptWith(bob.secret, message)).data).toEqual(data);
    await rejectsWith(decryptWith(locked.secret, message, { passphrase: 'correct horse' }), 'pgp_cannot_decrypt');
  });

  it('an altered message yields no plaintext', async () => {
    const encryptionKeys = await openpgp.readKey({ armoredKey: alice.public });
    const binary = await openpgp.encrypt({ message: await openpgp.createMessage({ binary: data }), encryptionKeys, format: 'binary' });
    for (const at of [binary.length - 1, binary.length - 20, Math.floor(binary.length / 2)]) {
      const altered = binary.slice();
      altered[at] ^= 0x40;
      await expect(decryptWith(alice.secret, altered)).rejects.toSatisfy(
        (e: { code?: string }) => e.code === 'pgp_cannot_decrypt' || e.code === 'bad_pgp_data',
      );
    }
  });

  it("a signature inside is checked against the sender's key", async () => {
    const signed = await encryptTo([bob.public], data, { signWith: alice.secret });
    expect((await decryptWith(bob.secret, signed, { verifyWith: alice.public })).signature).toMatchObject({ valid: true, fingerprint: alice.fingerprint });
    expect((await decryptWith(bob.secret, signed, { verifyWith: bob.public })).signature).toMatchObject({ valid: false, code: 'pgp_wrong_signer' });
    const unsigned = await encryptTo([bob.public], data);
    expect((await decryptWith(bob.secret, unsigned, { verifyWith: alice.public })).signature).toMatchObject({ valid: false, code: 'bad_pgp_signature' });
    expect((await decryptWith(bob.secret, unsigned)).signature).toBeNull();
  });

  it('no recipients, or a garbage recipient key, is refused', async () => {
    await rejectsWith(encryptTo([], data), 'bad_input');
    await rejectsWith(encryptTo(['junk'], data), 'bad_pgp_key');
  });
});

describe('bindings', () => {
  const key = toHex(generateKeyPair(new Uint8Array(32).fill(7)).publicKey);
  const nonce = 'ab'.repeat(32);

  it('the statement has one exact text', () => {
    const text = formatBinding({ player: 'alice', key, pgp: 'A'.repeat(40) });
    expect(text).toBe(`fairtable/pgp-binding/v1\nplayer: alice\nkey: ${key}\npgp: ${'A'.repeat(40)}\n`);
    expect(formatBinding({ player: 'alice', key, pgp: 'A'.repeat(40), nonce })).toBe(text + `nonce: ${nonce}\n`);
    expect(parseBinding(text)).toEqual({ player: 'alice', key, pgp: 'A'.repeat(40) });
    expect(parseBinding(text + `nonce: ${nonce}\n`)).toEqual({ player: 'alice', key, pgp: 'A'.repeat(40), nonce });
  });

  it('every other spelling is refused', () => {
    const text = formatBinding({ player: 'alice', key, pgp: 'A'.repeat(40) });
    const variants = [
      text.replace(/\n/g, '\r\n'),
      text.slice(0, -1),
      text + '\n',
      text.replace('player: ', 'player:  '),
      text.replace('alice', 'alice '),
      text.replace(key, key.toUpperCase()),
      text.replace('A'.repeat(40), 'a'.repeat(40)),
      text.replace('A'.repeat(40), 'AAAA '.repeat(10).trim()),
      text.replace('v1', 'v2'),
      text + 'comment: hello\n',
      text + `nonce: ${nonce}\nnonce: ${nonce}\n`,
      `fairtable/pgp-binding/v1\nkey: ${key}\nplayer: alice\npgp: ${'A'.repeat(40)}\n`,
      `fairtable/pgp-binding/v1\nplayer: alice\npgp: ${'A'.repeat(40)}\n`,
      text.replace(key, key.slice(2)),
    ];
    for (const v of variants) expect(() => parseBinding(v), JSON.stringify(v)).toThrow(expect.objectContaining({ code: 'bad_binding' }));
  });

  it('a binding made with the OpenPGP key holds; altered or signed by another key it does not', async () => {
    const b = await makeBinding(alice.secret, { player: 'alice', key });
    expect(parseBinding(b.statement).pgp).toBe(alice.fingerprint);
    expect(await checkBinding(b.statement, b.signature, alice.public)).toMatchObject({
      valid: true,
      fingerprint: alice.fingerprint,
      statement: { player: 'alice', key },
    });
    // Found in a keyring of every player.
    expect(await checkBinding(b.statement, b.signature, bob.public + alice.public)).toMatchObject({ valid: true });
    const other = toHex(generateKeyPair(new Uint8Array(32).fill(8)).publicKey);
    expect(await checkBinding(b.statement.replace(key, other), b.signature, alice.public)).toMatchObject({ valid: false, code: 'bad_pgp_signature' });
    expect(await checkBinding(b.statement, b.signature, bob.public)).toMatchObject({ valid: false, code: 'pgp_wrong_signer' });
    // Bob signs a statement naming Alice's OpenPGP key: the named key did not sign it.
    const forged = await signDetached(bob.secret, b.statement);
    expect(await checkBinding(b.statement, forged, alice.public + bob.public)).toMatchObject({ valid: false, code: 'pgp_wrong_signer' });
    expect(await checkBinding(b.statement + 'x', b.signature, alice.public)).toMatchObject({ valid: false, code: 'bad_binding' });
  });

  it('a cleartext-signed statement holds; altered, or with another text, it does not', async () => {
    const text = formatBinding({ player: 'alice', key, pgp: alice.fingerprint });
    const signingKeys = await readSecretKey(alice.secret);
    const clear = await openpgp.sign({ message: await openpgp.createCleartextMessage({ text: text.slice(0, -1) }), signingKeys, format: 'armored' });
    expect(await checkClearsignedBinding(clear, alice.public)).toMatchObject({ valid: true, statement: { player: 'alice', key } });
    expect(await checkClearsignedBinding(clear.replace('player: alice', 'player: bob'), alice.public)).toMatchObject({
      valid: false,
      code: 'bad_pgp_signature',
    });
    expect(await checkClearsignedBinding(clear, bob.public)).toMatchObject({ valid: false, code: 'pgp_wrong_signer' });
    const notStatement = await openpgp.sign({ message: await openpgp.createCleartextMessage({ text: 'hello' }), signingKeys, format: 'armored' });
    expect(await checkClearsignedBinding(notStatement, alice.public)).toMatchObject({ valid: false, code: 'bad_binding' });
    await rejectsWith(checkClearsignedBinding('hello', alice.public), 'bad_pgp_data');
  });

  describe('what a seat checks in a setup', () => {
    const aliceKey = toHex(generateKeyPair(new Uint8Array(32).fill(1)).publicKey);
    const bobKey = toHex(generateKeyPair(new Uint8Array(32).fill(2)).publicKey);
    const players = [
      { id: 'alice', key: aliceKey },
      { id: 'bob', key: bobKey },
    ];
    async function entry(who: Person, player: string, fields: { player: string; key: string; nonce?: string }): Promise<SetupBinding> {
      const b = await makeBinding(who.secret, fields);
      return { player, publicKey: who.public, binding: b.statement, signature: b.signature };
    }
    const setupWith = (pgp: unknown) => ({ players, nonce, params: { pgp } as never });

    it('good bindings pass, and say which keys the seat already trusts', async () => {
      const pgp = [await entry(alice, 'alice', { player: 'alice', key: aliceKey, nonce }), await entry(bob, 'bob', { player: 'bob', key: bobKey })];
      const report = await checkSetupBindings(setupWith(pgp), {
        me: { player: 'alice', fingerprint: alice.fingerprint },
        trusted: [bob.fingerprint.toLowerCase()],
      });
      expect(report.problems).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.bindings).toEqual([
        { player: 'alice', fingerprint: alice.fingerprint, userIds: ['Alice <alice@example.org>'], trusted: false },
        { player: 'bob', fingerprint: bob.fingerprint, userIds: ['Bob <bob@example.org>'], trusted: true },
      ]);
      expect(await checkSetupBindings({ players, nonce, params: {} })).toEqual({ ok: true, bindings: [], problems: [] });
    });

    it('each bad binding is named with its player and code', async () => {
      const cases: [unknown, string | null, string][] = [
        ['not a list', null, 'bad_binding'],
        [[{ player: 'alice' }], null, 'bad_binding'],
        [[await entry(alice, 'carol', { player: 'carol', key: aliceKey })], 'carol', 'bad_binding'],
        [[await entry(alice, 'alice', { player: 'alice', key: bobKey })], 'alice', 'bad_binding'],
        [[await entry(alice, 'alice', { player: 'bob', key: aliceKey })], 'alice', 'bad_binding'],
        [[await entry(alice, 'alice', { player: 'alice', key: aliceKey, nonce: 'cd'.repeat(32) })], 'alice', 'bad_binding'],
        [[{ ...(await entry(alice, 'alice', { player: 'alice', key: aliceKey })), publicKey: bob.public }], 'alice', 'pgp_wrong_signer'],
        [[{ ...(await entry(alice, 'alice', { player: 'alice', key: aliceKey })), publicKey: 'junk' }], 'alice', 'bad_pgp_key'],
        // Mallory (here Bob's OpenPGP key) claims Alice's fairtable key: Alice's own seat refuses.
        [[await entry(bob, 'alice', { player: 'alice', key: aliceKey })], 'alice', 'pgp_wrong_signer'],
      ];
      // One OpenPGP identity holding two seats.
      cases.push([
        [await entry(alice, 'alice', { player: 'alice', key: aliceKey }), await entry(alice, 'bob', { player: 'bob', key: bobKey })],
        'bob',
        'bad_binding',
      ]);
      const dup = await entry(alice, 'alice', { player: 'alice', key: aliceKey });
      cases.push([[dup, dup], 'alice', 'bad_binding']);
      for (const [pgp, player, code] of cases) {
        const report = await checkSetupBindings(setupWith(pgp), { me: { player: 'alice', fingerprint: alice.fingerprint } });
        expect(report.ok, JSON.stringify(pgp).slice(0, 80)).toBe(false);
        expect(report.problems[report.problems.length - 1]).toMatchObject({ player, code });
      }
    });
  });
});

describe('packaging', () => {
  it('nothing in core, node or diplomacy imports openpgp (browser bundles never carry it)', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.ts$/.test(name) && /from ['"](openpgp|@fairtable\/pgp)/.test(readFileSync(path, 'utf8'))) offenders.push(path);
      }
    };
    for (const pkg of ['core', 'node', 'diplomacy']) walk(join(root, pkg, 'src'));
    expect(offenders).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(root, 'pgp', 'package.json'), 'utf8'));
    expect(manifest.dependencies.openpgp).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

it('readSecretKey unlocks with the right passphrase only', async () => {
  expect((await readSecretKey(locked.secret, 'correct horse')).isDecrypted()).toBe(true);
});

describe('vectors made with GnuPG (gpg-vectors.json, its source inside)', () => {
  it("gpg's detached signature verifies; one changed byte does not", async () => {
    const verdict = await verifyDetached(vectors.publicKey, vectors.signed.data, vectors.signed.signature);
    expect(verdict).toMatchObject({ valid: true, fingerprint: vectors.fingerprint, userIds: ['Vector Player <vector@example.org>'] });
    expect(await verifyDetached(vectors.publicKey, vectors.signed.data.replace('Bur', 'Bud'), vectors.signed.signature)).toMatchObject({
      valid: false,
      code: 'bad_pgp_signature',
    });
  });

  it("gpg's binding, detached and clearsigned, holds, and its statement is the canonical text", async () => {
    const { statement, signature, clearsigned } = vectors.binding;
    const fields = { player: 'vector', key: vectors.fairtableKey, pgp: vectors.fingerprint, nonce: '5a'.repeat(32) };
    expect(formatBinding(fields)).toBe(statement);
    expect(await checkBinding(statement, signature, vectors.publicKey)).toMatchObject({ valid: true, statement: fields });
    expect(await checkClearsignedBinding(clearsigned, vectors.publicKey)).toMatchObject({ valid: true, statement: fields });
    const setup = {
      players: [{ id: 'vector', key: vectors.fairtableKey }],
      nonce: '5a'.repeat(32),
      params: { pgp: [{ player: 'vector', publicKey: vectors.publicKey, binding: statement, signature }] },
    };
    expect(await checkSetupBindings(setup, { trusted: [vectors.fingerprint] })).toMatchObject({ ok: true, bindings: [{ player: 'vector', trusted: true }] });
    expect((await checkSetupBindings({ ...setup, nonce: '5b'.repeat(32) })).problems).toMatchObject([{ player: 'vector', code: 'bad_binding' }]);
  });
});
