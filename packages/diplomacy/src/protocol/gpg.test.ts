/**
 * A player with nothing but gpg (docs/spec/diplomacy.md §11): Ann runs only real gpg commands (her orders
 * file with the salt line, `gpg --detach-sign --armor`); the fairtable seats carry her `.asc` and file
 * into the log. Honest phases audit valid; what a carrier could try (a made-up or older signature, a
 * changed file) is refused or named; a changed file from Ann herself ends in holds with commit_mismatch.
 * Edd's key is Ed25519 (gpg 2.3's default): he clearsigns his file's SHA-256 with the round's notation, and
 * the same holds for him: a made-up, altered, unbound or other round's commitment names its carrier.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { frozenRegistry } from '@fairtable/core/testing';
import { auditLines } from '@fairtable/core/audit.js';
import type { Violation } from '@fairtable/core/errors.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { diplomacyRegistry as registry } from './index.js';
import { diplomacyTable } from './test-table.js';
import type { DiplomacyState } from './machine.js';
import { readPgpClearsigned, verifyPgpDetached } from '@fairtable/core/pgp/verify.js';
import { gpgKey, saltPrefix } from './gpg.js';

const dir = mkdtempSync(join(tmpdir(), 'ft-dip-gpg-'));

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

interface GpgUser {
  readonly home: string;
  readonly publicKey: string;
  readonly fingerprint: string;
}

function gpgUser(name: string, algo?: string): GpgUser {
  const home = mkdtempSync(join(tmpdir(), `ft-dip-gpg-${name}-`));
  gpg(home, ['--quick-gen-key', `${name} <${name}@example.org>`, ...(algo === undefined ? [] : [algo, 'sign', 'never'])]);
  return {
    home,
    publicKey: gpg(home, ['--export', '--armor']),
    fingerprint: /^fpr:+([0-9A-F]{40}):/m.exec(gpg(home, ['--with-colons', '--fingerprint']))![1]!,
  };
}

/** What Ann does, literally: write the file (salt line first), sign it detached and armored, keep both. */
function annWrites(user: GpgUser, name: string, saltLine: string, orders: string[], extra: string[] = []): { file: string; asc: string } {
  const secret = gpg(user.home, ['--armor', '--gen-random', '1', '24']).trim();
  const file = `${saltLine} ${secret}\n${orders.join('\n')}\n`;
  writeFileSync(join(dir, name), file);
  gpg(user.home, ['--yes', ...extra, '--detach-sign', '--armor', name]);
  return { file, asc: readFileSync(join(dir, `${name}.asc`), 'utf8') };
}

/**
 * What Edd, whose key is Ed25519 (gpg 2.3's default), does: write the file, then clearsign its SHA-256 as
 * `gpg --print-md SHA256 FILE` (or `sha256sum FILE`) prints it: `... | gpg --clearsign --output FILE.asc`.
 */
function eddWrites(
  user: GpgUser,
  name: string,
  saltLine: string,
  orders: string[],
  digest: 'print-md' | 'sha256sum' = 'print-md',
  bind = true,
): { file: string; asc: string } {
  const secret = gpg(user.home, ['--armor', '--gen-random', '1', '24']).trim();
  const file = `${saltLine} ${secret}\n${orders.join('\n')}\n`;
  writeFileSync(join(dir, name), file);
  const stated = digest === 'print-md' ? gpg(user.home, ['--print-md', 'SHA256', name]) : spawnSync('sha256sum', [name], { cwd: dir, encoding: 'utf8' }).stdout;
  // The letter's notation: game, round, label and player, as the salt line's game part has them.
  const binding = saltLine.split(' ').slice(1).join('/');
  gpg(user.home, ['--yes', '--output', `${name}.asc`, '--clearsign', ...(bind ? ['-N', `orders@fairtable=${binding}`] : [])], stated);
  return { file, asc: readFileSync(join(dir, `${name}.asc`), 'utf8') };
}

let ann: GpgUser;
let eve: GpgUser;
let edd: GpgUser;
beforeAll(() => {
  ann = gpgUser('ann');
  eve = gpgUser('eve');
  edd = gpgUser('edd', 'ed25519');
}, 120_000);

/** Two fairtable seats (p0 Austria, p1 England) and Ann (France) by gpg; every submission appended and delivered at once. */
function table(params: Record<string, JsonValue> = {}, ahead = 0, who: 'ann' | 'edd' = 'ann') {
  const user = who === 'ann' ? ann : edd;
  const start = Date.now() + ahead;
  const { clock, log, seats, flush } = diplomacyTable({
    params: { timeoutMs: 60_000, gpgPlayers: [{ id: who, publicKey: user.publicKey, fingerprint: user.fingerprint }], ...params },
    players: 2,
    keySeed: 8,
    randomSeed: 20,
    created: start,
  });
  const state = (): DiplomacyState => seats[0]!.referee.state as DiplomacyState;
  /** Every fairtable seat answers its orders decision with holds. */
  const holds = (): void => {
    for (const s of seats) {
      const d = s.decision();
      if (d === null || d.choices.type !== 'record') continue;
      s.decide(Object.fromEntries(Object.entries(d.choices.fields).map(([k, f]) => [k, (f as unknown as { values: JsonValue[] }).values[0]!])));
      flush();
    }
  };
  const salt = (): string => saltPrefix(seats[0]!.gameId, state().round, `S1901M`, who).replace('S1901M', label(state()));
  const carry = (by: number, body: Record<string, JsonValue>): void => {
    seats[by]!.sendUnasked({ round: state().round, player: who, ...body, type: body.type as string });
    flush();
  };
  return { seats, log, flush, clock, state, holds, salt, carry };
}

function label(s: DiplomacyState): string {
  const { season, year, type } = s.position.phase;
  return type === 'adjustment' ? `W${year}A` : `${season === 'spring' ? 'S' : 'F'}${year}${type === 'movement' ? 'M' : 'R'}`;
}

/** The registry with every machine given deep-frozen states: a write into one throws. */
const frozen = frozenRegistry(registry);

/**
 * The audit's violations but the one every unfinished transcript has (nobody named: the game is not over yet);
 * the same log audited on frozen states gives the same verdict, so the carried path never writes into its input.
 */
function named(lines: readonly string[]): Violation[] {
  const v = auditLines(lines, { registry }).violations.filter((x) => x.player !== null);
  expect(auditLines(lines, { registry: frozen }).violations.filter((x) => x.player !== null)).toEqual(v);
  return v;
}

const FRANCE = ['F bre - mao', 'A par - bur', 'A mar - spa'];

describe('a gpg-only player in a Diplomacy game', () => {
  it('plays the game to its end by gpg alone: commits carried by one seat, files by another, adjudicated, audited valid', () => {
    const t = table();
    const { file, asc } = annWrites(ann, 's1901m.txt', t.salt(), FRANCE);
    t.carry(0, { type: 'pgp-commit', signature: asc });
    t.carry(1, { type: 'pgp-commit', signature: asc }); // the same mail, carried twice: the first counts
    t.holds();
    expect(t.state().phase).toBe('reveal');
    t.carry(1, { type: 'pgp-reveal', file });
    t.carry(0, { type: 'pgp-reveal', file });
    const s = t.state();
    expect([s.phase, s.round]).toEqual(['commit', 2]);
    expect(
      s.position.units
        .filter((u) => u.power === 'france')
        .map((u) => u.at)
        .sort(),
    ).toEqual(['bur', 'mao', 'spa']);
    expect(named(t.log)).toEqual([]);

    // The next phase: the old .asc carried again is refused and its carrier named.
    t.carry(1, { type: 'pgp-commit', signature: asc });
    const replay = named(t.log);
    expect(replay.map((x) => [x.code, x.player])).toEqual([['bad_carry', 'p1']]);
    expect(replay[0]!.message).toMatch(/earlier round/);
    // Then every phase to the end: a fresh file and signature each time (Portugal in the fall, builds waived).
    const later: Record<string, string[]> = { F1901M: ['F mao - por', 'A bur H', 'A spa H'] };
    let n = 0;
    while (t.state().phase !== 'done') {
      const phase = label(t.state());
      const next = annWrites(ann, `phase-${n++}.txt`, t.salt(), later[phase] ?? []);
      t.carry(n % 2, { type: 'pgp-commit', signature: next.asc });
      t.holds();
      t.carry((n + 1) % 2, { type: 'pgp-reveal', file: next.file });
    }
    expect(t.state().position.units.some((u) => u.power === 'france' && u.at === 'por')).toBe(true);
    const v = auditLines(t.log, { registry: frozen });
    expect(v.violations.map((x) => [x.code, x.player])).toEqual([['bad_carry', 'p1']]);
    expect(v.outcome?.summary).toMatchObject({ phase: 'S1902M', centres: { france: 5 } });
  });

  it('a carrier cannot make up a commitment: another key, a changed signature, or an old one are bad_carry', () => {
    const t = table();
    const { asc } = annWrites(ann, 'made-up.txt', t.salt(), FRANCE);
    const byEve = annWrites(eve, 'eve.txt', t.salt(), FRANCE).asc;
    t.carry(1, { type: 'pgp-commit', signature: byEve });
    // The last byte of Ann's signature changed: still a signature packet naming her key, no longer one her key made.
    const raw = Buffer.from(
      asc
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('-----') && !l.startsWith('='))
        .join(''),
      'base64',
    );
    raw[raw.length - 1]! ^= 1;
    t.carry(1, { type: 'pgp-commit', signature: `-----BEGIN PGP SIGNATURE-----\n\n${raw.toString('base64')}\n-----END PGP SIGNATURE-----\n` });
    expect(t.state().pgpCommits.ann).toBeUndefined();
    t.carry(0, { type: 'pgp-commit', signature: asc });
    expect(t.state().pgpCommits.ann).toBeDefined();
    const v = named(t.log);
    expect(v.map((x) => [x.code, x.player])).toEqual([
      ['bad_carry', 'p1'],
      ['bad_carry', 'p1'],
    ]);
  });

  it('a signature dated before its round began (an older one of hers) is bad_carry', () => {
    // The round begins a day after Ann's clock: what she signs now is older than the round.
    const t = table({}, 86_400_000);
    t.carry(1, { type: 'pgp-commit', signature: annWrites(ann, 'old.txt', t.salt(), FRANCE).asc });
    expect(t.state().pgpCommits.ann).toBeUndefined();
    const v = named(t.log);
    expect(v.map((x) => [x.code, x.player])).toEqual([['bad_carry', 'p1']]);
    expect(v[0]!.message).toMatch(/before the round began/);
  });

  it('a file changed by a carrier is set aside; the file Ann signed, carried after it, counts', () => {
    const t = table();
    const { file, asc } = annWrites(ann, 'planted.txt', t.salt(), FRANCE);
    t.carry(0, { type: 'pgp-commit', signature: asc });
    t.holds();
    t.carry(1, { type: 'pgp-reveal', file: file.replace('A par - bur', 'A par H') });
    expect(t.state().phase).toBe('reveal');
    t.carry(0, { type: 'pgp-reveal', file });
    expect(t.state().position.units.some((u) => u.power === 'france' && u.at === 'bur')).toBe(true);
    expect(named(t.log)).toEqual([]);
  });

  it('Ann changes her orders after committing: no file that matches by the deadline, commit_mismatch names her, her units hold', () => {
    const t = table();
    const { file, asc } = annWrites(ann, 'tampered.txt', t.salt(), FRANCE);
    t.carry(0, { type: 'pgp-commit', signature: asc });
    t.holds();
    const tampered = file.replace('A par - bur', 'A par - pic');
    writeFileSync(join(dir, 'tampered.txt'), tampered);
    // gpg agrees the file no longer fits her signature.
    const r = spawnSync('gpg', ['--batch', '--homedir', ann.home, '--status-fd', '1', '--verify', 'tampered.txt.asc', 'tampered.txt'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(r.stdout).toContain('BADSIG');
    t.carry(1, { type: 'pgp-reveal', file: tampered });
    expect(t.state().phase).toBe('reveal');
    t.clock.now += 100_000;
    for (const s of t.seats) s.tick();
    t.flush();
    const s = t.state();
    expect([s.phase, s.round]).toEqual(['commit', 2]);
    expect(
      s.position.units
        .filter((u) => u.power === 'france')
        .map((u) => u.at)
        .sort(),
    ).toEqual(['bre', 'mar', 'par']);
    expect(s.active).toContain('ann');
    const v = named(t.log);
    expect(v.map((x) => [x.code, x.player])).toEqual([['commit_mismatch', 'ann']]);
    expect(v[0]!.message).toMatch(/france's units take the rules' defaults/);
  });

  it("a file Ann signed with another round's salt line is her commit_mismatch at once", () => {
    const t = table();
    const { file, asc } = annWrites(ann, 'wrong-salt.txt', t.salt().replace(' 1 S1901M ', ' 7 S1901M '), FRANCE);
    t.carry(0, { type: 'pgp-commit', signature: asc });
    t.holds();
    t.carry(1, { type: 'pgp-reveal', file });
    expect(t.state().round).toBe(2);
    const v = named(t.log);
    expect(v.map((x) => [x.code, x.player])).toEqual([['commit_mismatch', 'ann']]);
  });

  it('a text-mode signature: the file verifies with CR LF line ends too', () => {
    const t = table();
    const { file, asc } = annWrites(ann, 'text.txt', t.salt(), FRANCE, ['--textmode']);
    t.carry(0, { type: 'pgp-commit', signature: asc });
    t.holds();
    t.carry(1, { type: 'pgp-reveal', file: file.replace(/\n/g, '\r\n') });
    expect(t.state().position.units.some((u) => u.power === 'france' && u.at === 'mao')).toBe(true);
    expect(named(t.log)).toEqual([]);
  });

  it('power assignment: her file holds her preference list, and its hash is her share of the lottery', () => {
    const t = table({ assign: 'weighted' });
    expect(t.state().stage).toBe('assign');
    const { file, asc } = annWrites(ann, 'prefs.txt', saltPrefix(t.seats[0]!.gameId, 0, 'powers', 'ann'), ['F']);
    t.carry(1, { type: 'pgp-commit', signature: asc });
    t.seats[0]!.decide('F');
    t.flush();
    t.seats[1]!.decide('E');
    t.flush();
    t.carry(0, { type: 'pgp-reveal', file });
    const s = t.state();
    expect(s.stage).toBe('play');
    expect(s.powers.ann === 'france' || s.powers.p0 === 'france').toBe(true);
    expect(s.powers.p1).toBe('england');
    expect(named(t.log)).toEqual([]);
  });

  it('the setup: a wrong fingerprint, escrow, or an id already taken are refused; an Ed25519 key is taken', () => {
    expect(() => table({ gpgPlayers: [{ id: 'ann', publicKey: ann.publicKey, fingerprint: eve.fingerprint }] })).toThrow(/fingerprint/);
    expect(table({}, 0, 'edd').state().gpgKeys.edd).toBe(edd.publicKey);
    expect(() => table({ escrow: 'threshold' })).toThrow(/escrow/);
    expect(() => table({ gpgPlayers: [{ id: 'p1', publicKey: ann.publicKey, fingerprint: ann.fingerprint }] })).toThrow(/not used/);
  });

  it('an RSA player may commit by a clearsigned digest too: the file is checked against the digest it states', () => {
    const t = table();
    const { file, asc } = eddWrites(ann, 'ann-clear.txt', t.salt(), FRANCE, 'sha256sum');
    t.carry(0, { type: 'pgp-commit', signature: asc });
    expect(t.state().pgpCommits.ann?.form).toBe('sha256');
    t.holds();
    t.carry(1, { type: 'pgp-reveal', file });
    expect(t.state().position.units.some((u) => u.power === 'france' && u.at === 'bur')).toBe(true);
    expect(named(t.log)).toEqual([]);
  });
});

describe('a gpg-only player whose key is Ed25519 (gpg 2.3 and later make no other by default)', () => {
  it('the clearsigned reader agrees with gpg --verify on changes to the message: only what RFC 9580 leaves unsigned passes', () => {
    const { asc } = eddWrites(edd, 'edd-oracle.txt', 'fairtable/orders/v1 g 1 S1901M edd', FRANCE);
    // gpg --print-md wraps the digest: the text is one or two lines.
    const body = /\n\n([^]*?)\n-----BEGIN PGP SIGNATURE/.exec(asc)![1]!;
    const first = body.split('\n')[0]!;
    const last = body.split('\n').at(-1)!;
    const variants: [string, string][] = [
      ['as made', asc],
      ['trailing spaces and a tab', asc.replace(first, `${first}  \t`)],
      ['CR LF line ends', asc.replace(/\n/g, '\r\n')],
      ['a space inside a line', asc.replace(first, first.replace(':', ': '))],
      ['a line added', asc.replace(body, `${body}\nF bre - mao`)],
      ['the last digit changed', asc.replace(last, last.slice(0, -1) + (last.endsWith('0') ? '1' : '0'))],
    ];
    expect(new Set(variants.map(([, m]) => m)).size).toBe(variants.length);
    const key = gpgKey(edd.publicKey);
    const verdicts = variants.map(([what, message]) => {
      writeFileSync(join(dir, 'oracle.asc'), message);
      const r = spawnSync('gpg', ['--batch', '--homedir', edd.home, '--status-fd', '1', '--verify', 'oracle.asc'], { cwd: dir, encoding: 'utf8' });
      const m = readPgpClearsigned(message);
      return [what, r.stdout.includes('[GNUPG:] GOODSIG'), verifyPgpDetached(key, m.signature, m.signed).valid];
    });
    expect(verdicts).toEqual(variants.map(([what], i) => [what, i < 3, i < 3]));
  });

  it('plays every phase to the end by clearsigned digests, both forms; nobody is named, the audit agrees', () => {
    const t = table({}, 0, 'edd');
    const later: Record<string, string[]> = { S1901M: FRANCE, F1901M: ['F mao - por', 'A bur H', 'A spa H'] };
    let n = 0;
    while (t.state().phase !== 'done') {
      const next = eddWrites(edd, `edd-${n}.txt`, t.salt(), later[label(t.state())] ?? [], n % 2 === 0 ? 'print-md' : 'sha256sum');
      t.carry(n % 2, { type: 'pgp-commit', signature: next.asc });
      t.carry((n + 1) % 2, { type: 'pgp-commit', signature: next.asc }); // carried twice: the first counts
      t.holds();
      t.carry((n + 1) % 2, { type: 'pgp-reveal', file: next.file });
      n++;
    }
    expect(n).toBeGreaterThanOrEqual(3);
    expect(t.state().position.units.some((u) => u.power === 'france' && u.at === 'por')).toBe(true);
    const v = auditLines(t.log, { registry: frozen });
    expect(v.violations.filter((x) => x.player !== null)).toEqual([]);
    expect(v.outcome?.summary).toMatchObject({ phase: 'S1902M', centres: { france: 5 } });
  });

  it("a carrier cannot make up or change Edd's commitment: each try is bad_carry for the carrier, never Edd; his own then counts", () => {
    const t = table({}, 0, 'edd');
    const { file, asc } = eddWrites(edd, 'edd-real.txt', t.salt(), FRANCE);
    // A made-up digest with Edd's signature left on it; Eve's key signing a digest; Edd's detached signature over the
    // file (an Ed25519 signature nobody can check before the file is known); a text Edd signed that states no digest.
    const altered = asc.replace(/(edd-real\.txt:\s*)([0-9A-F])/, (_, head: string, c: string) => `${head}${c === '0' ? '1' : '0'}`);
    expect(altered).not.toBe(asc);
    const byEve = eddWrites(eve, 'eve-clear.txt', t.salt(), ['A par H']).asc;
    const detached = annWrites(edd, 'edd-detached.txt', t.salt(), FRANCE).asc;
    const noDigest = gpg(edd.home, ['--clearsign', '-N', `orders@fairtable=${t.salt().split(' ').slice(1).join('/')}`], 'I commit to my orders\n');
    // Edd's genuine commitments, but for round 7, and without the notation: not this round's.
    const elsewhere = eddWrites(edd, 'edd-elsewhere.txt', t.salt().replace(' 1 S1901M ', ' 7 S1901M '), FRANCE).asc;
    const unbound = eddWrites(edd, 'edd-unbound.txt', t.salt(), FRANCE, 'print-md', false).asc;
    for (const signature of [altered, byEve, detached, noDigest, 'junk', elsewhere, unbound]) t.carry(1, { type: 'pgp-commit', signature });
    expect(t.state().pgpCommits.edd).toBeUndefined();
    const v = named(t.log);
    expect(v.map((x) => [x.code, x.player])).toEqual(Array.from({ length: 7 }, () => ['bad_carry', 'p1']));
    expect(v[0]!.message).toMatch(/not a text the player's key signed/);
    expect(v[2]!.message).toMatch(/clearsigned digest/);
    expect(v[3]!.message).toMatch(/states no SHA-256 digest/);
    expect(v[5]!.message).toMatch(/another game or round/);
    expect(v[6]!.message).toMatch(/no orders@fairtable notation/);
    // Edd's real commitment, carried by the honest seat, counts; a file changed by p1 is set aside, his own counts.
    t.carry(0, { type: 'pgp-commit', signature: asc });
    t.holds();
    t.carry(1, { type: 'pgp-reveal', file: file.replace('A par - bur', 'A par H') });
    expect(t.state().phase).toBe('reveal');
    t.carry(0, { type: 'pgp-reveal', file });
    expect(t.state().position.units.some((u) => u.power === 'france' && u.at === 'bur')).toBe(true);
    expect(named(t.log).filter((x) => x.player === 'edd')).toEqual([]);
  });

  it('Edd changes his file after committing: no matching file by the deadline, commit_mismatch names him, his units hold', () => {
    const t = table({}, 0, 'edd');
    const { file, asc } = eddWrites(edd, 'edd-changed.txt', t.salt(), FRANCE);
    t.carry(0, { type: 'pgp-commit', signature: asc });
    t.holds();
    t.carry(1, { type: 'pgp-reveal', file: file.replace('A par - bur', 'A par - pic') });
    t.clock.now += 100_000;
    for (const s of t.seats) s.tick();
    t.flush();
    expect(t.state().round).toBe(2);
    expect(
      t
        .state()
        .position.units.filter((u) => u.power === 'france')
        .map((u) => u.at)
        .sort(),
    ).toEqual(['bre', 'mar', 'par']);
    expect(named(t.log).map((x) => [x.code, x.player])).toEqual([['commit_mismatch', 'edd']]);
  });
});
