/**
 * `fairtable pgp` against GnuPG itself, in both directions (docs/spec/pgp.md
 * §6). Each player has their own GNUPGHOME, made fresh for the test, with
 * keys made by `gpg --batch --quick-gen-key` and no passphrase (Carol's key
 * has one), so nothing waits for a pinentry. gpg must be installed (.ci/run
 * installs it): without it these tests fail rather than skip.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSetupBindings } from '@fairtable/pgp';
import { runInProcess, type InProcessRun } from '../in-process.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-pgp-'));
const at = (name: string): string => join(dir, name);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `fairtable ARGS` in this process (`runInProcess`): the command's answers to what gpg wrote and read; a
 * verify and a sign in each direction still run the built command as a process.
 */
const here = (args: string[], input?: string): Promise<InProcessRun> => runInProcess(args, { cwd: dir, ...(input === undefined ? {} : { input }) });

function fairtable(args: string[], input?: string): Run {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', input, cwd: dir, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** gpg in one player's home; --batch and loopback pinentry so that it never asks a terminal. */
function gpg(home: string, args: string[], passphrase = ''): Run {
  const r = spawnSync('gpg', ['--batch', '--homedir', home, '--pinentry-mode', 'loopback', '--passphrase', passphrase, '--status-fd', '2', ...args], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 60_000,
  });
  if (r.error) throw new Error(`gpg could not run (${r.error.message}); install GnuPG (apt-get install gnupg)`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Player {
  home: string;
  fingerprint: string;
  pub: string;
  sec: string;
}

function makePlayer(name: string, algo: 'ed25519' | 'rsa3072', passphrase = ''): Player {
  const home = mkdtempSync(join(tmpdir(), `ft-gpg-${name}-`));
  const email = `${name}@example.org`;
  expect(gpg(home, ['--quick-gen-key', `${name} <${email}>`, algo, 'sign', 'never'], passphrase).status).toBe(0);
  const listing = gpg(home, ['--with-colons', '--list-keys', email]).stdout;
  const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(listing)![1]!;
  expect(gpg(home, ['--quick-add-key', fingerprint, algo === 'ed25519' ? 'cv25519' : 'rsa3072', 'encr', 'never'], passphrase).status).toBe(0);
  const pub = at(`${name}.pub.asc`);
  const sec = at(`${name}.sec.asc`);
  writeFileSync(pub, gpg(home, ['--armor', '--export', fingerprint]).stdout);
  writeFileSync(sec, gpg(home, ['--armor', '--export-secret-keys', fingerprint], passphrase).stdout);
  return { home, fingerprint, pub, sec };
}

function imports(player: Player, ...others: Player[]): void {
  for (const other of others) expect(gpg(player.home, ['--import', other.pub]).status).toBe(0);
}

let alice: Player;
let bob: Player;
let carol: Player;
const orders = 'salt: 3f9a77c1\nA Par-Bur\nF Bre-MAO\nA Mar S A Par-Bur\n';

beforeAll(() => {
  alice = makePlayer('alice', 'ed25519');
  bob = makePlayer('bob', 'ed25519');
  carol = makePlayer('carol', 'rsa3072', 'carol passphrase');
  imports(alice, bob, carol);
  imports(bob, alice, carol);
  writeFileSync(at('players.asc'), readFileSync(alice.pub, 'utf8') + readFileSync(bob.pub, 'utf8') + readFileSync(carol.pub, 'utf8'));
  writeFileSync(at('orders.txt'), orders);
  writeFileSync(at('tampered.txt'), orders.replace('F Bre-MAO', 'A Bre-MAO'));
});

afterAll(() => {
  for (const p of [alice, bob, carol]) {
    if (p === undefined) continue;
    spawnSync('gpgconf', ['--homedir', p.home, '--kill', 'gpg-agent']);
    rmSync(p.home, { recursive: true, force: true });
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('a signature by gpg, checked by fairtable', () => {
  it('gpg --detach-sign --armor verifies; a tampered file is refused', async () => {
    expect(gpg(alice.home, ['--detach-sign', '--armor', '-o', at('orders.gpg.asc'), at('orders.txt')]).status).toBe(0);
    const good = fairtable(['pgp', 'verify', '--key', alice.pub, 'orders.txt', 'orders.gpg.asc', '--json']);
    expect(good.status).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ valid: true, fingerprint: alice.fingerprint, userIds: ['alice <alice@example.org>'] });

    const tampered = await here(['pgp', 'verify', '--key', alice.pub, 'tampered.txt', 'orders.gpg.asc', '--json']);
    expect(tampered.status).toBe(1);
    expect(JSON.parse(tampered.stdout)).toMatchObject({ valid: false, code: 'bad_pgp_signature' });
    // gpg agrees.
    expect(gpg(bob.home, ['--verify', at('orders.gpg.asc'), at('tampered.txt')]).status).toBe(1);
  });

  it("another player's key is refused, a keyring of every player finds the signer", async () => {
    const wrong = await here(['pgp', 'verify', '--key', bob.pub, 'orders.txt', 'orders.gpg.asc']);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/^pgp_wrong_signer: /);
    const ring = await here(['pgp', 'verify', '--key', 'players.asc', 'orders.txt', 'orders.gpg.asc']);
    expect(ring.status).toBe(0);
    expect(ring.stdout).toContain(alice.fingerprint);
  });

  it('binary signatures, text-mode signatures and RSA keys verify too', async () => {
    expect(gpg(alice.home, ['--detach-sign', '-o', at('orders.sig'), at('orders.txt')]).status).toBe(0);
    expect((await here(['pgp', 'verify', '--key', alice.pub, 'orders.txt', 'orders.sig'])).status).toBe(0);
    expect(gpg(alice.home, ['--detach-sign', '--textmode', '--armor', '-o', at('orders.text.asc'), at('orders.txt')]).status).toBe(0);
    expect((await here(['pgp', 'verify', '--key', alice.pub, 'orders.txt', 'orders.text.asc'])).status).toBe(0);
    expect((await here(['pgp', 'verify', '--key', alice.pub, 'tampered.txt', 'orders.text.asc'])).status).toBe(1);
    expect(gpg(carol.home, ['--detach-sign', '--armor', '-o', at('orders.carol.asc'), at('orders.txt')], 'carol passphrase').status).toBe(0);
    expect((await here(['pgp', 'verify', '--key', carol.pub, 'orders.txt', 'orders.carol.asc'])).status).toBe(0);
    expect((await here(['pgp', 'verify', '--key', carol.pub, 'tampered.txt', 'orders.carol.asc'])).status).toBe(1);
  });

  it("a DSA key, which openpgp.js's defaults count as too weak, is refused as unusable", async () => {
    const home = mkdtempSync(join(tmpdir(), 'ft-gpg-dave-'));
    try {
      expect(gpg(home, ['--quick-gen-key', 'dave <dave@example.org>', 'dsa2048', 'sign', 'never']).status).toBe(0);
      writeFileSync(at('dave.pub.asc'), gpg(home, ['--armor', '--export', 'dave@example.org']).stdout);
      expect(gpg(home, ['--detach-sign', '--armor', '-o', at('orders.dave.asc'), at('orders.txt')]).status).toBe(0);
      const r = await here(['pgp', 'verify', '--key', 'dave.pub.asc', 'orders.txt', 'orders.dave.asc', '--json']);
      expect(r.status).toBe(1);
      expect(JSON.parse(r.stdout)).toMatchObject({ valid: false, code: 'pgp_key_unusable' });
    } finally {
      spawnSync('gpgconf', ['--homedir', home, '--kill', 'gpg-agent']);
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a signing subkey signs for its primary key; once the key is revoked, fairtable refuses what gpg only warns about', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ft-gpg-erin-'));
    try {
      expect(gpg(home, ['--quick-gen-key', 'erin <erin@example.org>', 'ed25519', 'cert', 'never']).status).toBe(0);
      const fpr = /^fpr:+([0-9A-F]{40}):/m.exec(gpg(home, ['--with-colons', '--list-keys', 'erin@example.org']).stdout)![1]!;
      expect(gpg(home, ['--quick-add-key', fpr, 'ed25519', 'sign', 'never']).status).toBe(0);
      writeFileSync(at('erin.pub.asc'), gpg(home, ['--armor', '--export', fpr]).stdout);
      expect(gpg(home, ['--detach-sign', '--armor', '-o', at('orders.erin.asc'), at('orders.txt')]).status).toBe(0);
      const good = await here(['pgp', 'verify', '--key', 'erin.pub.asc', 'orders.txt', 'orders.erin.asc', '--json']);
      expect(good.status).toBe(0);
      const verdict = JSON.parse(good.stdout);
      expect(verdict.fingerprint).toBe(fpr);
      expect(verdict.signingKey).toMatch(/^[0-9A-F]{40}$/);
      expect(verdict.signingKey).not.toBe(fpr);

      // gpg keeps a revocation certificate for every key it makes; the ':' before its armor stops accidental imports.
      const certificate = readFileSync(join(home, 'openpgp-revocs.d', `${fpr}.rev`), 'utf8').replace(/^:-----BEGIN/m, '-----BEGIN');
      writeFileSync(at('erin.rev.asc'), certificate);
      expect(gpg(home, ['--import', at('erin.rev.asc')]).status).toBe(0);
      writeFileSync(at('erin.revoked.asc'), gpg(home, ['--armor', '--export', fpr]).stdout);
      const revoked = await here(['pgp', 'verify', '--key', 'erin.revoked.asc', 'orders.txt', 'orders.erin.asc', '--json']);
      expect(revoked.status).toBe(1);
      expect(JSON.parse(revoked.stdout)).toMatchObject({ valid: false, code: 'pgp_key_unusable' });
      const gpgView = gpg(home, ['--verify', at('orders.erin.asc'), at('orders.txt')]);
      expect(gpgView.stderr).toContain('[GNUPG:] KEYREVOKED');
    } finally {
      spawnSync('gpgconf', ['--homedir', home, '--kill', 'gpg-agent']);
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('unreadable input exits 2 with its code', async () => {
    const notKey = await here(['pgp', 'verify', '--key', 'orders.txt', 'orders.txt', 'orders.gpg.asc']);
    expect(notKey.status).toBe(2);
    expect(notKey.stderr).toMatch(/\[bad_pgp_key\]/);
    const notSig = await here(['pgp', 'verify', '--key', alice.pub, 'orders.txt', 'orders.txt']);
    expect(notSig.status).toBe(2);
    expect(notSig.stderr).toMatch(/\[bad_pgp_data\]/);
    expect((await here(['pgp', 'verify', '--key', alice.pub, 'orders.txt', 'missing.asc'])).status).toBe(2);
    expect((await here(['pgp', 'verify', 'orders.txt', 'orders.gpg.asc'])).status).toBe(2);
  });
});

describe('a signature by fairtable, checked by gpg', () => {
  it('gpg --verify accepts it and refuses it on a tampered file', async () => {
    const sig = fairtable(['pgp', 'sign', '--key', alice.sec, 'orders.txt']);
    expect(sig.status).toBe(0);
    expect(sig.stdout).toMatch(/^-----BEGIN PGP SIGNATURE-----/);
    writeFileSync(at('orders.ft.asc'), sig.stdout);
    const good = gpg(bob.home, ['--verify', at('orders.ft.asc'), at('orders.txt')]);
    expect(good.status).toBe(0);
    expect(good.stderr).toContain(`[GNUPG:] VALIDSIG ${alice.fingerprint}`);
    const bad = gpg(bob.home, ['--verify', at('orders.ft.asc'), at('tampered.txt')]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('[GNUPG:] BADSIG');
    expect((await here(['pgp', 'verify', '--key', alice.pub, 'tampered.txt', 'orders.ft.asc'])).status).toBe(1);
  });

  it('a key gpg locked with a passphrase signs only with it (--passphrase-file), and gpg accepts the result', async () => {
    const locked = await here(['pgp', 'sign', '--key', carol.sec, 'orders.txt']);
    expect(locked.status).toBe(2);
    expect(locked.stderr).toMatch(/\[pgp_locked_key\]/);
    writeFileSync(at('wrong.pass'), 'not it\n');
    expect((await here(['pgp', 'sign', '--key', carol.sec, '--passphrase-file', 'wrong.pass', 'orders.txt'])).stderr).toMatch(/\[pgp_locked_key\]/);
    writeFileSync(at('carol.pass'), 'carol passphrase\n');
    const sig = await here(['pgp', 'sign', '--key', carol.sec, '--passphrase-file', 'carol.pass', 'orders.txt']);
    expect(sig.status).toBe(0);
    writeFileSync(at('orders.ft-carol.asc'), sig.stdout);
    expect(gpg(bob.home, ['--verify', at('orders.ft-carol.asc'), at('orders.txt')]).stderr).toContain(`[GNUPG:] VALIDSIG ${carol.fingerprint}`);
  });
});

describe('bindings', () => {
  beforeAll(async () => {
    const keygen = await here(['keygen', '--name', 'alice', '--out', 'alice.key.json']);
    expect(keygen.status).toBe(0);
    writeFileSync(at('alice.pub.json'), keygen.stdout);
  });

  it('a statement signed with gpg is accepted; altered, it is refused by both', async () => {
    const statement = await here(['pgp', 'statement', '--fairtable-key', 'alice.pub.json', '--pgp-key', alice.pub]);
    expect(statement.status).toBe(0);
    const key = JSON.parse(readFileSync(at('alice.pub.json'), 'utf8')).publicKey as string;
    expect(statement.stdout).toBe(`fairtable/pgp-binding/v1\nplayer: alice\nkey: ${key}\npgp: ${alice.fingerprint}\n`);
    writeFileSync(at('alice.binding.txt'), statement.stdout);
    expect(gpg(alice.home, ['--detach-sign', '--armor', '-o', at('alice.binding.txt.asc'), at('alice.binding.txt')]).status).toBe(0);
    const ok = await here(['pgp', 'check-binding', '--key', 'players.asc', 'alice.binding.txt', 'alice.binding.txt.asc', '--json']);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, fingerprint: alice.fingerprint, statement: { player: 'alice', key, pgp: alice.fingerprint } });

    writeFileSync(at('altered.binding.txt'), statement.stdout.replace('player: alice', 'player: mallory'));
    const altered = await here(['pgp', 'check-binding', '--key', alice.pub, 'altered.binding.txt', 'alice.binding.txt.asc', '--json']);
    expect(altered.status).toBe(1);
    expect(JSON.parse(altered.stdout)).toMatchObject({ valid: false, code: 'bad_pgp_signature' });
    expect(gpg(bob.home, ['--verify', at('alice.binding.txt.asc'), at('altered.binding.txt')]).status).toBe(1);

    // Bob signs Alice's statement: the key it names did not sign it.
    expect(gpg(bob.home, ['--detach-sign', '--armor', '-o', at('bob-signs-alice.asc'), at('alice.binding.txt')]).status).toBe(0);
    const forged = await here(['pgp', 'check-binding', '--key', 'players.asc', 'alice.binding.txt', 'bob-signs-alice.asc']);
    expect(forged.status).toBe(1);
    expect(forged.stderr).toMatch(/^pgp_wrong_signer: /);
  });

  it('a statement clearsigned with gpg (one file) is accepted; altered, it is refused', async () => {
    expect(gpg(alice.home, ['--clearsign', '-o', at('alice.binding.clear.asc'), at('alice.binding.txt')]).status).toBe(0);
    const ok = await here(['pgp', 'check-binding', '--key', 'players.asc', 'alice.binding.clear.asc', '--json']);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, fingerprint: alice.fingerprint, statement: { player: 'alice', pgp: alice.fingerprint } });
    writeFileSync(at('altered.clear.asc'), readFileSync(at('alice.binding.clear.asc'), 'utf8').replace('player: alice', 'player: mallory'));
    const altered = await here(['pgp', 'check-binding', '--key', 'players.asc', 'altered.clear.asc', '--json']);
    expect(altered.status).toBe(1);
    expect(JSON.parse(altered.stdout)).toMatchObject({ valid: false, code: 'bad_pgp_signature' });
    expect(gpg(bob.home, ['--verify', at('altered.clear.asc')]).status).toBe(1);
  });

  it('fairtable pgp bind writes what gpg verifies, and its setup entry passes the seat check', async () => {
    const bind = await here(['pgp', 'bind', '--key', alice.sec, '--fairtable-key', 'alice.pub.json', '--out', 'bound.txt']);
    expect(bind.status).toBe(0);
    expect(readFileSync(at('bound.txt'), 'utf8')).toBe(readFileSync(at('alice.binding.txt'), 'utf8'));
    expect(gpg(bob.home, ['--verify', at('bound.txt.asc'), at('bound.txt')]).stderr).toContain(`[GNUPG:] VALIDSIG ${alice.fingerprint}`);
    expect((await here(['pgp', 'check-binding', '--key', alice.pub, 'bound.txt', 'bound.txt.asc'])).status).toBe(0);

    const entry = JSON.parse(bind.stdout);
    const fromGpg = { ...entry, signature: readFileSync(at('alice.binding.txt.asc'), 'utf8') };
    const players = [{ id: 'alice', key: entry.binding.match(/key: ([0-9a-f]{64})/)[1] as string }];
    for (const pgp of [[entry], [fromGpg]]) {
      const report = await checkSetupBindings(
        { players, nonce: '00'.repeat(32), params: { pgp } },
        { me: { player: 'alice', fingerprint: alice.fingerprint } },
      );
      expect(report).toMatchObject({ ok: true, problems: [], bindings: [{ player: 'alice', fingerprint: alice.fingerprint }] });
    }
  });
});

describe('encrypted mail', () => {
  it('fairtable encrypts and signs to Bob; gpg decrypts and checks the signature', async () => {
    const enc = await here(['pgp', 'encrypt', '--to', bob.pub, '--to', carol.pub, '--sign', alice.sec, 'orders.txt']);
    expect(enc.status).toBe(0);
    expect(enc.stdout).toMatch(/^-----BEGIN PGP MESSAGE-----/);
    writeFileSync(at('to-bob.asc'), enc.stdout);
    const dec = gpg(bob.home, ['--decrypt', at('to-bob.asc')]);
    expect(dec.status).toBe(0);
    expect(dec.stdout).toBe(orders);
    expect(dec.stderr).toContain(`[GNUPG:] VALIDSIG ${alice.fingerprint}`);
    // Alice was not a recipient.
    expect(gpg(alice.home, ['--decrypt', at('to-bob.asc')]).status).not.toBe(0);
  });

  it('gpg encrypts and signs to Bob; fairtable decrypts and checks the signature', async () => {
    expect(
      gpg(alice.home, ['--trust-model', 'always', '--encrypt', '--sign', '--armor', '-r', bob.fingerprint, '-o', at('from-alice.asc'), at('orders.txt')])
        .status,
    ).toBe(0);
    const dec = await here(['pgp', 'decrypt', '--key', bob.sec, '--verify', alice.pub, 'from-alice.asc']);
    expect(dec.status).toBe(0);
    expect(dec.stdout).toBe(orders);
    expect(dec.stderr).toContain(`good signature from ${alice.fingerprint}`);
    // A signature required from the wrong sender withholds the plaintext.
    const wrong = await here(['pgp', 'decrypt', '--key', bob.sec, '--verify', carol.pub, 'from-alice.asc']);
    expect(wrong.status).toBe(1);
    expect(wrong.stdout).toBe('');
    // Not a recipient.
    const notMine = await here(['pgp', 'decrypt', '--key', alice.sec, 'from-alice.asc']);
    expect(notMine.status).toBe(1);
    expect(notMine.stderr).toMatch(/^pgp_cannot_decrypt: /);
  });

  it('a message altered in transit opens for neither', async () => {
    expect(gpg(alice.home, ['--trust-model', 'always', '--encrypt', '-r', bob.fingerprint, '-o', at('plain.gpg'), at('orders.txt')]).status).toBe(0);
    const bytes = readFileSync(at('plain.gpg'));
    bytes[bytes.length - 5]! ^= 0x20;
    writeFileSync(at('altered.gpg'), bytes);
    expect(gpg(bob.home, ['--decrypt', at('altered.gpg')]).status).not.toBe(0);
    const ft = await here(['pgp', 'decrypt', '--key', bob.sec, 'altered.gpg']);
    expect([1, 2]).toContain(ft.status);
    expect(ft.stdout).toBe('');
  });
});
