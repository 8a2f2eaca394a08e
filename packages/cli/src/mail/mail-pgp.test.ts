/**
 * Play by mail with OpenPGP, against GnuPG itself (docs/spec/mail.md §9): bindings in the setup checked by
 * every seat, mail encrypted or clearsigned by gpg, saved whole with headers and quoting, read with
 * `--pgp-key`. gpg must be installed (.ci/run installs it): without it these tests fail rather than skip.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair, toKeyFile, toPublicKeyFile } from '@fairtable/core/identity.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { mailText } from './message.js';
import { asEmail, asQuotedReply } from './post-office.js';
import { clearsignedText, pgpBlocks } from './pgp-mail.js';
import { runInProcess, type InProcessRun } from '../in-process.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-mail-pgp-'));
const at = (name: string): string => join(dir, name);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `fairtable ARGS` in this process (`runInProcess`): the game's rounds, the statements and the refusals. Key
 * generation, the first binding and the first mail read from standard input still run the built command.
 */
const here = (args: string[], input?: string): Promise<InProcessRun> => runInProcess(args, { cwd: dir, ...(input === undefined ? {} : { input }) });

function fairtable(args: string[], input?: string): Run {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', input, cwd: dir, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function gpg(home: string, args: string[], input?: string): Run {
  const r = spawnSync('gpg', ['--batch', '--homedir', home, '--pinentry-mode', 'loopback', '--passphrase', '', '--trust-model', 'always', ...args], {
    encoding: 'utf8',
    input,
    cwd: dir,
    timeout: 60_000,
  });
  if (r.error) throw new Error(`gpg could not run (${r.error.message}); install GnuPG (apt-get install gnupg)`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Player {
  readonly name: string;
  readonly home: string;
  readonly fingerprint: string;
}

function makePlayer(name: string): Player {
  const home = mkdtempSync(join(tmpdir(), `ft-mail-gpg-${name}-`));
  const email = `${name}@example.org`;
  expect(gpg(home, ['--quick-gen-key', `${name} <${email}>`, 'ed25519', 'sign', 'never']).status).toBe(0);
  const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(gpg(home, ['--with-colons', '--list-keys', email]).stdout)![1]!;
  expect(gpg(home, ['--quick-add-key', fingerprint, 'cv25519', 'encr', 'never']).status).toBe(0);
  writeFileSync(at(`${name}.pub.asc`), gpg(home, ['--armor', '--export', fingerprint]).stdout);
  writeFileSync(at(`${name}.sec.asc`), gpg(home, ['--armor', '--export-secret-keys', fingerprint]).stdout);
  // The fairtable key: keygen prints the public part.
  const k = fairtable(['keygen', '--name', name, '--out', `${name}.json`]);
  expect(k.status, k.stderr).toBe(0);
  writeFileSync(at(`${name}.pub.json`), k.stdout);
  return { name, home, fingerprint };
}

/** Cuts every long base64 line of an armored block to `width` characters, as a mail client may. */
function rewrap(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((l) => (/^[A-Za-z0-9+/=]+$/.test(l) && l.length > width ? (l.match(new RegExp(`.{1,${width}}`, 'g')) ?? [l]) : [l]))
    .join('\n');
}

/** Moves every outbox file of `folder` out, returning their texts. */
function outbox(folder: string): string[] {
  const from = at(join(folder, 'outbox'));
  const to = at(join(folder, 'sent'));
  mkdirSync(to, { recursive: true });
  return readdirSync(from)
    .sort()
    .map((f) => {
      const text = readFileSync(join(from, f), 'utf8');
      renameSync(join(from, f), join(to, f));
      return text;
    });
}

let ann: Player;
let ben: Player;
let eve: Player;

beforeAll(() => {
  ann = makePlayer('ann');
  ben = makePlayer('ben');
  eve = makePlayer('eve');
  for (const [p, q] of [
    [ann, ben],
    [ben, ann],
  ] as const)
    expect(gpg(p.home, ['--import', at(`${q.name}.pub.asc`)]).status).toBe(0);
}, 60_000);

afterAll(() => {
  for (const p of [ann, ben, eve]) {
    if (p === undefined) continue;
    spawnSync('gpgconf', ['--homedir', p.home, '--kill', 'gpg-agent']);
    rmSync(p.home, { recursive: true, force: true });
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('reading OpenPGP blocks out of saved mail', () => {
  it('finds an encrypted block quoted twice and re-wrapped, and undoes dash-escaping in a clearsigned one', async () => {
    const body = Array.from({ length: 6 }, (_, i) => 'QUJD'.repeat(16 + i)).join('\n');
    const block = `-----BEGIN PGP MESSAGE-----\n\n${body}\n=AbCd\n-----END PGP MESSAGE-----\n`;
    const mail = asQuotedReply(asEmail(block, 'ann', 'ben'), 'ben', 'cid', 2).replace(/\n/g, '\r\n');
    const [found] = pgpBlocks(mail);
    expect(found!.kind).toBe('message');
    const rows = found!.text.split('\n');
    expect(rows.slice(2, -3).every((r) => r.length === 64 || r === rows[rows.length - 4])).toBe(true);
    expect(rows.slice(2, -3).join('')).toBe(body.replace(/\n/g, ''));
    expect(rows[rows.length - 3]).toBe('=AbCd');
    const signed =
      '-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\nhello\n- -----BEGIN FAIRTABLE MESSAGE-----\n-----BEGIN PGP SIGNATURE-----\n\nxyz\n-----END PGP SIGNATURE-----\n';
    const [s] = pgpBlocks(`> ${signed.split('\n').join('\n> ')}`);
    expect(clearsignedText(s!.text)).toBe('hello\n-----BEGIN FAIRTABLE MESSAGE-----\n');
    expect(() => pgpBlocks('-----BEGIN PGP MESSAGE-----\n\nQUJD\n')).toThrow(/never ends/);
  });
});

describe('a game by mail with OpenPGP bindings and mail encrypted and clearsigned by gpg', () => {
  it('every seat checks the bindings; gpg-encrypted and clearsigned mail is read with --pgp-key; the transcripts match and audit valid', async () => {
    // Ann binds with fairtable; Ben binds by hand: the statement from fairtable, signed by gpg.
    const bound = fairtable(['pgp', 'bind', '--key', 'ann.sec.asc', '--fairtable-key', 'ann.pub.json', '--out', 'ann.binding.txt']);
    expect(bound.status, bound.stderr).toBe(0);
    writeFileSync(at('ann.binding.json'), bound.stdout);
    const statement = await here(['pgp', 'statement', '--fairtable-key', 'ben.pub.json', '--pgp-key', 'ben.pub.asc']);
    expect(statement.status, statement.stderr).toBe(0);
    writeFileSync(at('ben.binding.txt'), statement.stdout);
    expect(gpg(ben.home, ['--detach-sign', '--armor', '-o', at('ben.binding.txt.asc'), at('ben.binding.txt')]).status).toBe(0);
    const benEntry = {
      player: 'ben',
      publicKey: readFileSync(at('ben.pub.asc'), 'utf8'),
      binding: statement.stdout,
      signature: readFileSync(at('ben.binding.txt.asc'), 'utf8'),
    };
    writeFileSync(at('ben.binding.json'), JSON.stringify(benEntry));

    // A binding signed by someone else's OpenPGP key is refused at creation, naming the player.
    writeFileSync(at('forged.binding.json'), JSON.stringify({ ...benEntry, publicKey: readFileSync(at('eve.pub.asc'), 'utf8') }));
    const forged = await here([
      'mail',
      'new',
      'dice',
      '--dir',
      'X',
      '--key',
      'ann.json',
      '--players',
      'ann.pub.json,ben.pub.json',
      '--binding',
      'ann.binding.json,forged.binding.json',
    ]);
    expect(forged.status).toBe(2);
    expect(forged.stderr).toMatch(/\[pgp_wrong_signer\] ben: /);
    // Mail can be encrypted only to participants who are bound: without Ben's binding, --encrypt names him.
    const unbound = await here(['mail', 'new', 'dice', '--dir', 'Y', '--key', 'ann.json', '--players', 'ann.pub.json,ben.pub.json', '--encrypt']);
    expect(unbound.status).toBe(2);
    expect(unbound.stderr).toMatch(/\[bad_binding\] ben has no OpenPGP binding/);

    const created = await here([
      'mail',
      'new',
      'dice',
      '--dir',
      'A',
      '--key',
      'ann.json',
      '--players',
      'ann.pub.json,ben.pub.json',
      '--turns',
      '1',
      '--binding',
      'ann.binding.json',
      '--binding',
      'ben.binding.json',
      '--pgp-key',
      'ann.sec.asc',
    ]);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toContain(`ann's fairtable key is bound to OpenPGP key ${ann.fingerprint}`);

    // Ann encrypts the invitation (and the first recorded line) to Ben with gpg and mails it; Ben's client
    // saves the mail quoted in a reply.
    const first = outbox('A');
    expect(first.length).toBe(2);
    const encrypted = gpg(ann.home, ['--armor', '--encrypt', '-r', 'ben@example.org'], first.join('\n'));
    expect(encrypted.status, encrypted.stderr).toBe(0);
    const saved = asQuotedReply(asEmail(encrypted.stdout, 'ann', 'ben'), 'ben', 'ben', 1);
    const locked = fairtable(['mail', 'read', '--dir', 'B', '--key', 'ben.json', '-'], saved);
    expect(locked.status).toBe(2);
    expect(locked.stderr).toMatch(/pgp_cannot_decrypt/);
    // Eve's key does not open it either.
    const wrong = await here(['mail', 'read', '--dir', 'B', '--key', 'ben.json', '--pgp-key', 'eve.sec.asc', '-'], saved);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/pgp_cannot_decrypt/);
    // Ben's seat checks the bindings against his own OpenPGP key and joins.
    const joined = await here(['mail', 'read', '--dir', 'B', '--key', 'ben.json', '--pgp-key', 'ben.sec.asc', '-'], saved);
    expect(joined.status, joined.stderr).toBe(0);
    expect(joined.stdout).toMatch(/joined game/);
    expect(joined.stdout).toContain(`ben's fairtable key is bound to OpenPGP key ${ben.fingerprint}`);

    // The game: Ann's folder encrypts what it writes to Ben's bound key and signs inside (--encrypt), Ben's
    // mail goes out clearsigned by gpg; all saved whole.
    const annPgp = ['--encrypt', '--pgp-key', 'ann.sec.asc'];
    let checkedWithGpg = false;
    let sentByAnn = 0;
    let rounds = 0;
    for (; rounds < 20; rounds++) {
      const done: boolean[] = [];
      for (const [me, other, player] of [
        ['A', 'B', ann],
        ['B', 'A', ben],
      ] as const) {
        const extra = player === ann ? annPgp : [];
        const status = JSON.parse((await here(['mail', 'status', '--dir', me, '--json', ...extra])).stdout) as { decision: unknown; done: boolean };
        done.push(status.done);
        if (status.decision !== null) expect((await here(['mail', 'decide', '--dir', me, 'null', ...extra])).status).toBe(0);
        const mails = outbox(me).map((text) => {
          if (player === ann) {
            expect(text).toContain('-----BEGIN PGP MESSAGE-----');
            expect(text).not.toContain('-----BEGIN FAIRTABLE MESSAGE-----');
            if (!checkedWithGpg) {
              // gpg opens what fairtable encrypted, and finds Ann's signature inside.
              const opened = gpg(ben.home, ['--status-fd', '2', '--decrypt'], text);
              expect(opened.status, opened.stderr).toBe(0);
              expect(opened.stdout).toContain('-----BEGIN FAIRTABLE MESSAGE-----');
              expect(opened.stderr).toContain(`VALIDSIG`);
              checkedWithGpg = true;
            }
            // A mail client re-wraps the base64 at 50 columns, and every other one comes quoted in a reply.
            const wrapped = rewrap(text, 50);
            return sentByAnn++ % 2 === 0 ? asEmail(wrapped, 'ann', other) : asQuotedReply(asEmail(wrapped, 'ann', other), 'ben', other, 1);
          }
          const wrapped = gpg(ben.home, ['--clearsign'], text);
          expect(wrapped.status, wrapped.stderr).toBe(0);
          return asEmail(wrapped.stdout, player.name, other);
        });
        if (mails.length === 0) continue;
        const r = await here(['mail', 'read', '--dir', other, ...(other === 'B' ? ['--pgp-key', 'ben.sec.asc'] : annPgp), '-'], mails.join('\n'));
        expect(r.status, r.stderr + r.stdout).toBe(0);
      }
      if (done.every((d) => d)) break;
    }
    expect(checkedWithGpg).toBe(true);
    expect(rounds).toBeLessThan(20);
    expect((await here(['mail', 'transcript', '--dir', 'A', '--out', 'a.jsonl'])).status).toBe(0);
    expect((await here(['mail', 'transcript', '--dir', 'B', '--out', 'b.jsonl'])).status).toBe(0);
    expect(readFileSync(at('b.jsonl'), 'utf8')).toBe(readFileSync(at('a.jsonl'), 'utf8'));
    const audit = await here(['audit', 'a.jsonl', '--json']);
    expect(audit.status, audit.stdout).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ valid: true, violations: [] });
    // The bindings stand in the setup of the transcript, fixed by the game id.
    const setup = JSON.parse(readFileSync(at('a.jsonl'), 'utf8').split('\n')[0]!).body.setup as GameSetup;
    expect((setup.params.pgp as { player: string }[]).map((b) => b.player)).toEqual(['ann', 'ben']);
  }, 120_000);

  it('an invitation whose setup carries a bad binding is refused by the reading seat, naming the player', async () => {
    // A creator who skipped the check: Ann signs a setup whose binding for Ben was made by Eve's OpenPGP key.
    const annKeys = generateKeyPair(new Uint8Array(32).fill(7));
    const benKeys = generateKeyPair(new Uint8Array(32).fill(8));
    writeFileSync(at('ann2.json'), JSON.stringify(toKeyFile('ann', annKeys)));
    writeFileSync(at('ben2.json'), JSON.stringify(toKeyFile('ben', benKeys)));
    writeFileSync(at('ben2.pub.json'), JSON.stringify(toPublicKeyFile('ben', benKeys.publicKey)));
    const bound = await here(['pgp', 'bind', '--key', 'eve.sec.asc', '--fairtable-key', 'ben2.pub.json', '--out', 'eve-as-ben.txt']);
    expect(bound.status, bound.stderr).toBe(0);
    const entry = JSON.parse(bound.stdout) as Record<string, string>;
    const setup: GameSetup = {
      protocol: 'chain',
      game: 'dice',
      params: { rounds: 1, timeoutMs: 86_400_000, recorder: { id: 'ann', key: toHex(annKeys.publicKey) }, pgp: [entry] },
      players: [
        { id: 'ann', key: toHex(annKeys.publicKey) },
        { id: 'ben', key: toHex(benKeys.publicKey) },
      ],
      nonce: '11'.repeat(32),
      created: 1_795_000_000_000,
    };
    const setupLine = envelopeLine(createSetupEnvelope(setup, 'ann', annKeys));
    writeFileSync(at('bad-invitation.txt'), asEmail(mailText({ kind: 'invitation', game: gameIdOf(setup), setupLine }), 'ann', 'ben'));
    // Ben's seat, knowing his OpenPGP key, refuses: the binding for his seat names Eve's key.
    const mine = await here(['mail', 'read', '--dir', 'C', '--key', 'ben2.json', '--pgp-key', 'ben.sec.asc', 'bad-invitation.txt']);
    expect(mine.status).toBe(2);
    expect(mine.stderr).toMatch(/\[pgp_wrong_signer\] ben: /);
    // A binding whose statement was altered is refused by any seat, with or without its OpenPGP key.
    const altered = { ...entry, binding: entry.binding!.replace('player: ben', 'player: bEn') };
    const setup2 = { ...setup, params: { ...setup.params, pgp: [altered] } };
    const line2 = envelopeLine(createSetupEnvelope(setup2, 'ann', annKeys));
    writeFileSync(at('bad-invitation-2.txt'), mailText({ kind: 'invitation', game: gameIdOf(setup2), setupLine: line2 }));
    const other = await here(['mail', 'read', '--dir', 'D', '--key', 'ben2.json', 'bad-invitation-2.txt']);
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(/\[(bad_pgp_signature|bad_binding)\] ben: /);
    expect(readdirSync(dir)).not.toContain('C');
  }, 60_000);
});
