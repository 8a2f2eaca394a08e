/**
 * A Diplomacy game by mail with a player who has nothing but gpg (docs/spec/diplomacy.md §11, mail.md §12):
 * Ann runs only real gpg commands on the letters the recorder mails her (her orders file with the salt line
 * the letter gives plus her own secret, `gpg --detach-sign --armor`, the `.asc` mailed, later the file);
 * Ben's and Cat's folders carry her mail into the log. The game is played to its end with identical
 * transcripts that audit valid; a file Ann changes after committing ends in holds, commit_mismatch naming her.
 * Edd, whose key is Ed25519, plays a whole game too, by the clearsigned-digest command his letters give.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLines } from '@fairtable/core/audit.js';
import { generateKeyPair, toKeyFile, toPublicKeyFile } from '@fairtable/core/identity.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { diplomacyRegistry } from '@fairtable/diplomacy/protocol/index.js';
import { mailDecide, mailNew, mailRead, mailStatus, mailTranscript } from './index.js';

const root = mkdtempSync(join(tmpdir(), 'fairtable-diplomacy-gpg-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let now = Date.now();
const clock = (): number => now;

function gpg(home: string, args: string[], cwd = root, input?: string): string {
  // Ann's gpg runs on the game's clock, so that her signatures are dated as the folders see time pass.
  const r = spawnSync(
    'gpg',
    ['--batch', '--homedir', home, '--pinentry-mode', 'loopback', '--passphrase', '', '--faked-system-time', String(Math.floor(now / 1000)), ...args],
    {
      encoding: 'utf8',
      cwd,
      timeout: 60_000,
      ...(input === undefined ? {} : { input }),
    },
  );
  if (r.error) throw new Error(`gpg could not run (${r.error.message}); install GnuPG (apt-get install gnupg)`);
  if (r.status !== 0) throw new Error(`gpg ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

let annHome: string;
let annKey: string;
let eddHome: string;
let eddKey: string;
beforeAll(() => {
  annHome = mkdtempSync(join(tmpdir(), 'ft-gpg-ann-'));
  // gpg 2.2's default key: RSA-3072, signing with the primary key.
  gpg(annHome, ['--quick-gen-key', 'Ann <ann@example.org>']);
  annKey = join(root, 'ann.asc');
  writeFileSync(annKey, gpg(annHome, ['--export', '--armor']));
  // gpg 2.3's default: an Ed25519 primary key (legacy EdDSA, algorithm 22).
  eddHome = mkdtempSync(join(tmpdir(), 'ft-gpg-edd-'));
  gpg(eddHome, ['--quick-gen-key', 'Edd <edd@example.org>', 'ed25519', 'sign', 'never']);
  eddKey = join(root, 'edd.asc');
  writeFileSync(eddKey, gpg(eddHome, ['--export', '--armor']));
}, 120_000);

interface Folder {
  readonly id: string;
  readonly dir: string;
  readonly key: string;
}

function folders(tag: string): Folder[] {
  return ['ben', 'cat', 'rita'].map((id, i) => {
    const keys = generateKeyPair(new Uint8Array(32).fill(i + 40 + tag.length));
    const key = join(root, `${tag}-${id}.json`);
    writeFileSync(key, JSON.stringify(toKeyFile(id, keys)));
    writeFileSync(join(root, `${tag}-${id}.pub.json`), JSON.stringify(toPublicKeyFile(id, keys.publicKey)));
    return { id, dir: join(root, tag, id), key };
  });
}

/** A mail client's message with one attachment, base64 as clients send text attachments. */
function withAttachment(name: string, type: string, content: string): string {
  const b = 'XyZzY-boundary';
  const b64 = Buffer.from(content, 'utf8')
    .toString('base64')
    .replace(/(.{76})/g, '$1\r\n');
  return [
    'From: Ann <ann@example.org>',
    'To: diplomacy@example.org',
    'Subject: my orders',
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Here you are.',
    '',
    `--${b}`,
    `Content-Type: ${type}; name="${name}"`,
    `Content-Disposition: attachment; filename="${name}"`,
    'Content-Transfer-Encoding: base64',
    '',
    b64,
    `--${b}--`,
    '',
  ].join('\r\n');
}

/** The game: Ben creates it, Rita records and does not play, Ann (or Edd) plays France by gpg alone. */
function game(tag: string, gpgPlayer: 'ann' | 'edd' = 'ann') {
  const fs = folders(tag);
  const [ben, cat, rita] = fs as [Folder, Folder, Folder];
  const created = mailNew({
    protocol: 'diplomacy',
    dir: ben.dir,
    key: ben.key,
    players: fs.map((p) => join(root, `${tag}-${p.id}.pub.json`)),
    recorder: 'rita',
    diplomacy: { years: 1, assign: 'fixed', gpgPlayers: [{ id: gpgPlayer, publicKey: readFileSync(gpgPlayer === 'ann' ? annKey : eddKey, 'utf8') }] },
    timeout: '1d',
    clock,
  });
  const annInbox: { name: string; text: string }[] = [];
  const annDir = join(root, tag, gpgPlayer);
  mkdirSync(annDir, { recursive: true });
  /** Everything in a folder's outbox goes to the list: the other folders and Ann. */
  const post = (from: Folder): number => {
    const out = join(from.dir, 'outbox');
    const sent = join(from.dir, 'sent');
    mkdirSync(sent, { recursive: true });
    const names = readdirSync(out).sort();
    for (const f of names) {
      const text = readFileSync(join(out, f), 'utf8');
      renameSync(join(out, f), join(sent, f));
      annInbox.push({ name: f, text });
      for (const to of fs) if (to !== from) mailRead(to.dir, [{ name: f, text }], to.key, clock);
    }
    return names.length;
  };
  /** Ann mails everyone (the folders; she keeps no copy). */
  const annMails = (text: string): void => {
    for (const to of fs) mailRead(to.dir, [{ name: 'from-ann', text }], to.key, clock);
  };
  /** Ben and Cat order holds whenever asked. */
  const holds = (): void => {
    for (const p of [ben, cat]) {
      const d = mailStatus(p.dir, clock).status.decision;
      if (d === null || d.choices.type !== 'record') continue;
      const choice = Object.fromEntries(Object.entries(d.choices.fields).map(([k, f]) => [k, (f as unknown as { values: JsonValue[] }).values[0]!]));
      mailDecide(p.dir, choice, clock);
    }
  };
  const transcript = (p: Folder): string[] => {
    const out = join(root, `${tag}-${p.id}-t.jsonl`);
    mailTranscript(p.dir, out, clock);
    return readFileSync(out, 'utf8').trimEnd().split('\n');
  };
  return { fs, ben, cat, rita, annInbox, annDir, post, annMails, holds, transcript, created };
}

/** What Ann does with a letter that asks for orders: the file (salt line as the letter gives it, her secret, orders) and its signature. */
function annCommits(letter: string, dir: string, name: string, orders: string[]): { file: string; asc: string } {
  const prefix = /^ {3}(fairtable\/orders\/v1 \S+ \d+ \S+ ann)$/m.exec(letter)?.[1];
  expect(prefix, 'the letter gives the salt line').toBeDefined();
  const secret = gpg(annHome, ['--armor', '--gen-random', '1', '24']).trim();
  const file = `${prefix!} ${secret}\n${orders.join('\n')}\n`;
  writeFileSync(join(dir, name), file);
  gpg(annHome, ['--yes', '--detach-sign', '--armor', name], dir);
  return { file, asc: readFileSync(join(dir, `${name}.asc`), 'utf8') };
}

const ORDERS: Record<string, string[]> = {
  S1901M: ['F Bre-MAO', 'A Par-Bur', 'A Mar-Spa'],
  F1901M: ['F MAO-Por', 'A Bur H', 'A Spa H'],
};

describe('Diplomacy by mail with a player who has only gpg', () => {
  it('Ann plays the whole game by gpg: letters, .asc and files carried, identical transcripts that audit valid', () => {
    const g = game('full');
    const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(gpg(annHome, ['--with-colons', '--fingerprint']))![1]!;
    // The creator is told the fingerprint to compare with the one Ann gave them.
    expect(g.created.notes.join('\n')).toContain(`ann plays with gpg alone, OpenPGP key ${fingerprint}`);
    const signed: Record<string, { file: string; asc: string }> = {};
    let phases = 0;
    for (let round = 0; round < 40; round++) {
      now += 60_000;
      let moved = 0;
      for (const p of g.fs) moved += g.post(p);
      g.holds();
      // Ann reads her letters, in order, and does what each says.
      while (g.annInbox.length > 0) {
        const { name, text } = g.annInbox.shift()!;
        if (!name.includes('letter-to-ann')) continue;
        const label = /^ {3}fairtable\/orders\/v1 \S+ \d+ (\S+) ann$/m.exec(text)?.[1];
        if (label !== undefined) {
          expect(text).toContain('gpg --detach-sign --armor orders.txt');
          signed[label] = annCommits(text, g.annDir, `orders-${label}.txt`, ORDERS[label] ?? []);
          phases++;
          // The first .asc goes attached; later ones pasted in the body of a reply that quotes it.
          if (phases === 1) g.annMails(withAttachment(`orders-${label}.txt.asc`, 'application/pgp-signature', signed[label].asc));
          else
            g.annMails(
              `From: ann@example.org\nSubject: Re: orders\n\nMy signature:\n\n${signed[label].asc
                .split('\n')
                .map((l) => `> ${l}`)
                .join('\n')}\n`,
            );
        } else {
          expect(text).toMatch(/Mail orders\.txt now/);
          const last = Object.keys(signed).at(-1)!;
          // gpg agrees this is the file she signed, then she mails it attached.
          const v = spawnSync('gpg', ['--batch', '--homedir', annHome, '--status-fd', '1', '--verify', `orders-${last}.txt.asc`, `orders-${last}.txt`], {
            cwd: g.annDir,
            encoding: 'utf8',
          });
          expect(v.stdout).toContain('GOODSIG');
          g.annMails(withAttachment(`orders-${last}.txt`, 'text/plain; charset=utf-8', signed[last]!.file));
        }
        moved++;
      }
      if (moved === 0 && g.fs.every((p) => mailStatus(p.dir, clock).status.done)) break;
    }
    expect(g.fs.every((p) => mailStatus(p.dir, clock).status.done)).toBe(true);
    expect(Object.keys(signed)).toEqual(expect.arrayContaining(['S1901M', 'F1901M']));
    const ts = g.fs.map(g.transcript);
    expect(ts[1]).toEqual(ts[0]);
    expect(ts[2]).toEqual(ts[0]);
    const v = auditLines(ts[0]!, { registry: diplomacyRegistry });
    expect(v.violations).toEqual([]);
    expect(v.valid).toBe(true);
    // Her orders were carried, adjudicated and held: France took Spain and Portugal.
    expect(v.outcome?.summary).toMatchObject({ phase: 'S1902M', centres: { france: 5 } });
    const carried = ts[0]!.filter((l) => l.includes('"pgp-commit"') || l.includes('"pgp-reveal"'));
    expect(carried.length).toBeGreaterThanOrEqual(2 * 2);
  }, 300_000);

  it("Edd, whose key is Ed25519, plays the whole game: he clearsigns each file's SHA-256, carried; identical transcripts that audit valid", () => {
    const g = game('edd', 'edd');
    let phases = 0;
    let last: { label: string; file: string } | null = null;
    for (let round = 0; round < 40; round++) {
      now += 60_000;
      let moved = 0;
      for (const p of g.fs) moved += g.post(p);
      g.holds();
      while (g.annInbox.length > 0) {
        const { name, text } = g.annInbox.shift()!;
        if (!name.includes('letter-to-edd')) continue;
        const salt = /^ {3}(fairtable\/orders\/v1 \S+ \d+ (\S+) edd)$/m.exec(text);
        if (salt !== null) {
          // The letter's own command, run as written: the digest, clearsigned.
          const command = /^ {6}gpg --print-md SHA256 orders\.txt \| gpg --clearsign -N (orders@fairtable=\S+) --output orders\.txt\.asc$/m.exec(text)?.[1];
          expect(command, 'the letter gives the Ed25519 command').toBeDefined();
          expect(text).not.toContain('--detach-sign');
          const secret = gpg(eddHome, ['--armor', '--gen-random', '1', '24']).trim();
          const file = `${salt[1]!} ${secret}\n${(ORDERS[salt[2]!] ?? []).join('\n')}\n`;
          writeFileSync(join(g.annDir, 'orders.txt'), file);
          const digest = gpg(eddHome, ['--print-md', 'SHA256', 'orders.txt'], g.annDir);
          expect(command).toBe(`orders@fairtable=${salt[1]!.split(' ').slice(1).join('/')}`);
          gpg(eddHome, ['--yes', '--output', 'orders.txt.asc', '--clearsign', '-N', command!], g.annDir, digest);
          const asc = readFileSync(join(g.annDir, 'orders.txt.asc'), 'utf8');
          last = { label: salt[2]!, file };
          phases++;
          // Attached the first time; then pasted in the body of a reply that quotes it.
          if (phases === 1) g.annMails(withAttachment('orders.txt.asc', 'text/plain; charset=us-ascii', asc));
          else
            g.annMails(
              `From: edd@example.org\nSubject: Re: orders\n\nMy digest, signed:\n\n${asc
                .split('\n')
                .map((l) => `> ${l}`)
                .join('\n')}\n`,
            );
        } else {
          expect(text).toMatch(/Mail orders\.txt now/);
          expect(text).toContain('gpg --print-md SHA256 orders.txt');
          const v = spawnSync('gpg', ['--batch', '--homedir', eddHome, '--status-fd', '1', '--verify', 'orders.txt.asc'], { cwd: g.annDir, encoding: 'utf8' });
          expect(v.stdout).toContain('GOODSIG');
          g.annMails(withAttachment('orders.txt', 'text/plain; charset=utf-8', last!.file));
        }
        moved++;
      }
      if (moved === 0 && g.fs.every((p) => mailStatus(p.dir, clock).status.done)) break;
    }
    expect(g.fs.every((p) => mailStatus(p.dir, clock).status.done)).toBe(true);
    expect(phases).toBeGreaterThanOrEqual(3);
    const ts = g.fs.map(g.transcript);
    expect(ts[1]).toEqual(ts[0]);
    expect(ts[2]).toEqual(ts[0]);
    const v = auditLines(ts[0]!, { registry: diplomacyRegistry });
    expect(v.violations).toEqual([]);
    expect(v.valid).toBe(true);
    expect(v.outcome?.summary).toMatchObject({ phase: 'S1902M', centres: { france: 5 } });
    expect(ts[0]!.filter((l) => l.includes('"pgp-commit"') && l.includes('BEGIN PGP SIGNED MESSAGE')).length).toBeGreaterThanOrEqual(3);
  }, 300_000);

  it("Ann changes her file after committing: nothing matching by the deadline, commit_mismatch names her, France's units hold", () => {
    const g = game('tampered');
    let tampered = false;
    for (let round = 0; round < 12 && !tampered; round++) {
      now += 60_000;
      for (const p of g.fs) g.post(p);
      g.holds();
      while (g.annInbox.length > 0) {
        const { name, text } = g.annInbox.shift()!;
        if (!name.includes('letter-to-ann')) continue;
        if (/^ {3}fairtable\/orders\/v1 /m.test(text)) {
          const s = annCommits(text, g.annDir, 'orders.txt', ORDERS.S1901M!);
          g.annMails(withAttachment('orders.txt.asc', 'application/pgp-signature', s.asc));
        } else {
          // She changes her mind after seeing the others' commitments, and mails the changed file.
          const file = readFileSync(join(g.annDir, 'orders.txt'), 'utf8').replace('A Par-Bur', 'A Par-Pic');
          g.annMails(withAttachment('orders.txt', 'text/plain', file));
          tampered = true;
        }
      }
    }
    expect(tampered).toBe(true);
    for (const p of g.fs) g.post(p);
    // No matching file comes; two days later a seat claims the deadline.
    now += 2 * 86_400_000;
    for (let i = 0; i < 4; i++) {
      for (const p of g.fs) mailStatus(p.dir, clock);
      for (const p of g.fs) g.post(p);
    }
    const t = g.transcript(g.rita);
    const v = auditLines(t, { registry: diplomacyRegistry });
    const named = v.violations.filter((x) => x.player !== null);
    expect(named.map((x) => [x.code, x.player])).toEqual([['commit_mismatch', 'ann']]);
    expect(named[0]!.message).toMatch(/france's units take the rules' defaults/);
    const agreed = t.filter((l) => l.includes('"sign"'));
    expect(agreed.length).toBeGreaterThan(0);
    // France's army is still in Paris: its units held.
    const status = mailStatus(g.ben.dir, clock);
    expect(status.board).toMatch(/France \(ann\): .*A par/);
  }, 300_000);

  it('the command: mail new diplomacy --gpg-player puts the key and its fingerprint in the setup; an Ed25519 key is taken, a short RSA key refused', () => {
    const cli = join(fileURLToPath(new URL('../../../..', import.meta.url)), 'packages/cli/bin/fairtable.js');
    const fs = folders('cli');
    const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: root });
    const players = fs.map((p) => join(root, `cli-${p.id}.pub.json`)).join(',');
    const ok = run([
      'mail',
      'new',
      'diplomacy',
      '--dir',
      fs[0]!.dir,
      '--key',
      fs[0]!.key,
      '--players',
      players,
      '--recorder',
      'rita',
      '--gpg-player',
      `ann=${annKey}`,
    ]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/ann plays with gpg alone, OpenPGP key [0-9A-F]{40}/);
    const setup = JSON.parse(readFileSync(join(fs[0]!.dir, 'transcript.jsonl'), 'utf8').split('\n')[0]!) as {
      body: { setup: { params: { gpgPlayers: { id: string; fingerprint: string; publicKey: string }[] } } };
    };
    const entry = setup.body.setup.params.gpgPlayers[0]!;
    expect(entry.id).toBe('ann');
    expect(entry.publicKey).toBe(readFileSync(annKey, 'utf8'));
    // An Ed25519 key commits by a clearsigned digest (spec/diplomacy.md §11.2): taken. An RSA key under 2048 bits is not.
    const edd = run([
      'mail',
      'new',
      'diplomacy',
      '--dir',
      join(root, 'cli3'),
      '--key',
      fs[0]!.key,
      '--players',
      players,
      '--recorder',
      'rita',
      '--gpg-player',
      `edd=${eddKey}`,
    ]);
    expect(edd.status, edd.stderr).toBe(0);
    expect(edd.stdout).toMatch(/edd plays with gpg alone, OpenPGP key [0-9A-F]{40}/);
    const shortHome = mkdtempSync(join(tmpdir(), 'ft-gpg-short-'));
    gpg(shortHome, ['--quick-gen-key', 'Sam <sam@example.org>', 'rsa1024', 'sign', 'never']);
    writeFileSync(join(root, 'sam.asc'), gpg(shortHome, ['--export', '--armor']));
    const refused = run([
      'mail',
      'new',
      'diplomacy',
      '--dir',
      join(root, 'cli2'),
      '--key',
      fs[0]!.key,
      '--players',
      players,
      '--recorder',
      'rita',
      '--gpg-player',
      `sam=${join(root, 'sam.asc')}`,
    ]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/\[bad_pgp_key\].*at least 2048/);
    expect(existsSync(join(root, 'cli2')), 'nothing is made').toBe(false);
  });
});
