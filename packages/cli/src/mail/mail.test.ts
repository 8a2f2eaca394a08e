import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { Decision } from '@fairtable/core/protocols/machine.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKeyPair, toKeyFile, toPublicKeyFile } from '@fairtable/core/identity.js';
import { auditLines } from '@fairtable/core/audit.js';
import { randomChoice } from '@fairtable/core/testing';
import { RandomStream } from '@fairtable/core/stream.js';
import { mailNew, mailRead, mailStatus, mailTranscript, parseDuration, formatDuration, readMail } from './index.js';
import { PostOffice, asEmail, asQuotedReply, type Participant } from './post-office.js';

const root = mkdtempSync(join(tmpdir(), 'fairtable-mail-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function people(tag: string, names: readonly string[]): Participant[] {
  const base = join(root, tag);
  return names.map((id, i) => {
    const keys = generateKeyPair(new Uint8Array(32).fill(i + 1 + tag.length * 7));
    const key = join(root, `${tag}-${id}.json`);
    writeFileSync(key, JSON.stringify(toKeyFile(id, keys)));
    writeFileSync(join(root, `${tag}-${id}.pub.json`), JSON.stringify(toPublicKeyFile(id, keys.publicKey)));
    return { id, dir: join(base, id), key };
  });
}
const pub = (tag: string, p: Participant): string => join(root, `${tag}-${p.id}.pub.json`);

function strategy(seed: number) {
  const stream = new RandomStream(new Uint8Array(32).fill(seed), 'test-strategy');
  return (_who: string, d: { choices: Parameters<typeof randomChoice>[0] }) => randomChoice(d.choices, stream);
}

function transcripts(ps: readonly Participant[]): string[] {
  return ps.map((p) => {
    const out = join(root, `${p.id}-${Math.random().toString(36).slice(2)}.jsonl`);
    mailTranscript(p.dir, out);
    return readFileSync(out, 'utf8');
  });
}

describe('deadlines in human units', () => {
  it('reads days, hours, minutes, seconds and combinations', () => {
    expect(parseDuration('3d')).toBe(3 * 86_400_000);
    expect(parseDuration('12h')).toBe(12 * 3_600_000);
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('1d12h')).toBe(36 * 3_600_000);
    expect(formatDuration(parseDuration('1d12h'))).toBe('1d12h');
    for (const bad of ['', '3', 'd', '3x', '3 d', '-1d', '0s']) expect(() => parseDuration(bad), bad).toThrow(/duration/);
  });
});

describe('dice by mail among three folders', () => {
  const tag = 'dice';
  const ps = people(tag, ['alice', 'bob', 'carol']);
  it('plays to the end through outbox files wrapped in e-mails, quoted, duplicated and late, with identical transcripts that audit valid', () => {
    const [alice] = ps;
    mailNew({ protocol: 'dice', dir: alice!.dir, key: alice!.key, players: ps.map((p) => pub(tag, p)), turns: 4, timeout: '3d' });
    const post = new PostOffice(ps, {
      wrap: (text, from, to, n) =>
        n % 3 === 0 ? asEmail(text, from, to) : n % 3 === 1 ? asQuotedReply(text, from, to, 1 + (n % 2)) : asEmail(text, from, to).replace(/\n/g, '\r\n'),
      twice: (n) => n % 4 === 0,
      hold: (n) => (n % 5 === 0 ? 2 : 0),
    });
    const last = post.play(strategy(1));
    expect(last.map((r) => r.status.done)).toEqual([true, true, true]);
    const texts = transcripts(ps);
    expect(texts[1]).toBe(texts[0]);
    expect(texts[2]).toBe(texts[0]);
    const verdict = auditLines(texts[0]!.trimEnd().split('\n'));
    expect(verdict.valid).toBe(true);
    expect(verdict.outcome).not.toBeNull();
    expect(verdict.violations).toEqual([]);
    // Nobody found anything wrong with the recorder or the mail.
    for (const r of last) expect(r.status.problems).toEqual([]);
    expect(last[1]!.status.outcome).toEqual(verdict.outcome);
    // Reading every message again changes nothing (idempotent).
    const sent = readdirSync(join(alice!.dir, 'sent')).map((f) => readFileSync(join(alice!.dir, 'sent', f), 'utf8'));
    const again = mailRead(
      ps[1]!.dir,
      sent.map((text, i) => ({ name: String(i), text })),
    );
    expect(again.written).toEqual([]);
    expect(transcripts([ps[1]!])[0]).toBe(texts[0]);
  });
});

describe('dice by mail with a dice expression', () => {
  it('mail new --roll: every turn rolls the expression, the status says it in words, the audit recomputes it; a bad one is refused', () => {
    const tag = 'roll';
    const ps = people(tag, ['ann', 'bob']);
    mailNew({ protocol: 'dice', dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => pub(tag, p)), turns: 2, roll: '4d6kh3 + 1' });
    const last = new PostOffice(ps).play(strategy(3));
    expect(last.map((r) => r.status.done)).toEqual([true, true]);
    const notes = mailStatus(ps[1]!.dir).notes;
    expect(notes).toContain('Dice: 4d6kh3+1 a turn, 2 rounds; 4 of 4 turns played.');
    expect(notes.filter((n) => /^ {2}turn \d+: (ann|bob) rolled 4d6kh3\+1: \d\+\d\+\d \(dropped \d\)\+1 = \d+$/.test(n))).toHaveLength(4);
    const verdict = auditLines(transcripts([ps[0]!])[0]!.trimEnd().split('\n'));
    expect([verdict.valid, verdict.violations]).toEqual([true, []]);
    const other = people('roll-bad', ['ann', 'bob']);
    const make = (protocol: string, roll: string) => () =>
      mailNew({ protocol, dir: other[0]!.dir, key: other[0]!.key, players: other.map((p) => pub('roll-bad', p)), roll });
    expect(make('dice', '3d6+')).toThrow(/at the end at position 5/);
    expect(make('snakes', '1d6')).toThrow(/--roll is for the dice game/);
  });
});

describe('a game of chance in words, mid-game (docs/spec/mail.md §3.2)', () => {
  /** `turn N: ann rolled …` lines of a status, and the standing lines before them. */
  const turnLines = (notes: readonly string[]): string[] => notes.filter((n) => /^ {2}turn \d+: /.test(n)).map((n) => n.trim());

  for (const protocol of ['chain', 'keyed-stream'] as const)
    it(`dice over ${protocol}: mail status lists every roll so far, and the scores are their sums`, () => {
      const tag = `words-${protocol}`;
      const ps = people(tag, ['ann', 'ben']);
      mailNew({ protocol, game: 'dice', dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => pub(tag, p)), turns: 20 });
      const post = new PostOffice(ps);
      const last = post.play(strategy(7), { maxRounds: 4 });
      expect(last.map((r) => r.status.done)).toEqual([false, false]);
      for (const p of ps) {
        const notes = mailStatus(p.dir).notes;
        const turns = turnLines(notes);
        expect(turns.length).toBeGreaterThan(1);
        const sums: Record<string, number> = { ann: 0, ben: 0 };
        turns.forEach((t, i) => {
          const m = /^turn (\d+): (ann|ben) rolled (\d) \+ (\d) = (\d+)$/.exec(t);
          expect(m, t).not.toBeNull();
          expect(Number(m![1])).toBe(i);
          expect(Number(m![3]) + Number(m![4])).toBe(Number(m![5]));
          sums[m![2]!] = (sums[m![2]!] ?? 0) + Number(m![5]);
        });
        expect(notes).toContain(`Dice: 2d6 a turn, 20 rounds; ${turns.length} of 40 turns played.`);
        expect(notes).toContain(`Scores: ann ${sums.ann}, ben ${sums.ben}.`);
      }
      // The mail carries the scores too: the last message the recorder wrote has them before its block.
      const sent = readdirSync(join(ps[0]!.dir, 'sent')).sort();
      const text = readFileSync(join(ps[0]!.dir, 'sent', sent.at(-1)!), 'utf8');
      expect(text.slice(0, text.indexOf('-----BEGIN'))).toMatch(/^Scores: ann \d+, ben \d+\.$/m);
    });

  it('Snakes & Ladders: mail status says where each piece stands and how it got there', () => {
    const tag = 'words-snakes';
    const ps = people(tag, ['ann', 'ben']);
    mailNew({ protocol: 'snakes', dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => pub(tag, p)) });
    expect(mailStatus(ps[0]!.dir).notes).toContain('No turn played yet.');
    new PostOffice(ps).play(strategy(8), { maxRounds: 4 });
    const notes = mailStatus(ps[1]!.dir).notes;
    const turns = turnLines(notes);
    expect(turns.length).toBeGreaterThan(1);
    const at: Record<string, number> = { ann: 0, ben: 0 };
    for (const t of turns) {
      const m = /^turn \d+: (ann|ben) rolled ([1-6]): (?:(\d+) to (\d+)(?:, (?:up a ladder|down a snake) to (\d+))?|stays on (\d+) \(past 100\))$/.exec(t);
      expect(m, t).not.toBeNull();
      const who = m![1]!;
      if (m![6] !== undefined) continue;
      expect(Number(m![3])).toBe(at[who]);
      expect(Number(m![4])).toBe(at[who]! + Number(m![2]));
      at[who] = Number(m![5] ?? m![4]);
    }
    expect(notes).toContain(`Positions: ann on ${at.ann}, ben on ${at.ben}.`);
  });
});

describe('a separate recorder who does not play', () => {
  const tag = 'rec';
  const ps = people(tag, ['alice', 'bob', 'carol', 'rita']);
  it('orders a Monopoly game; the players verify its receipts', () => {
    const [alice] = ps;
    const r = mailNew({ protocol: 'monopoly', dir: alice!.dir, key: alice!.key, players: ps.map((p) => pub(tag, p)), turns: 2, recorder: 'rita' });
    expect(r.status.recorder).toBe('rita');
    const post = new PostOffice(ps, { wrap: (text, from, to, n) => (n % 2 === 0 ? asEmail(text, from, to) : text), twice: (n) => n % 3 === 0 });
    const last = post.play(strategy(2));
    expect(last.map((x) => x.status.done)).toEqual([true, true, true, true]);
    expect(last[3]!.status.role).toBe('recorder');
    const texts = transcripts(ps);
    for (const t of texts) expect(t).toBe(texts[0]);
    const verdict = auditLines(texts[0]!.trimEnd().split('\n'));
    expect(verdict.valid).toBe(true);
    expect(JSON.parse(texts[0]!.split('\n')[0]!).body.setup.players.map((p: { id: string }) => p.id)).toEqual(['alice', 'bob', 'carol']);
    const receipts = readFileSync(join(ps[1]!.dir, 'receipts.jsonl'), 'utf8').trimEnd().split('\n');
    expect(receipts.length).toBe(texts[0]!.trimEnd().split('\n').length);
    // Every message the recorder mailed has the board in plain words before its armored block, and the
    // messages asking a player something list that player's legal decisions, numbered.
    const mailed = readdirSync(join(ps[3]!.dir, 'sent'))
      .sort()
      .map((f) => readFileSync(join(ps[3]!.dir, 'sent', f), 'utf8'));
    expect(mailed.length).toBeGreaterThan(3);
    for (const m of mailed) {
      const plain = m.slice(0, m.indexOf('-----BEGIN'));
      expect(plain).toMatch(/^Monopoly, round \d+ of 2: /m);
      expect(plain).toContain('  alice');
      expect(plain).toContain('Deeds:');
      expect(plain).toMatch(/Bank: \d+ houses, \d+ hotels\./);
    }
    expect(mailed.some((m) => /(alice|bob|carol)'s choices now[^\n]*\n {2}1\. Roll the dice: \{"do":"roll"\}/.test(m))).toBe(true);
    const lastText = mailed.at(-1)!;
    expect(lastText).toContain('the game is over');
  });
});

describe('tampering', () => {
  const tag = 'cheat';
  const ps = people(tag, ['alice', 'bob']);
  it('a file altered in transit is refused by its checksum', () => {
    const [alice, bob] = ps;
    mailNew({ protocol: 'dice', dir: alice!.dir, key: alice!.key, players: ps.map((p) => pub(tag, p)), turns: 2 });
    const files = readdirSync(join(alice!.dir, 'outbox')).sort();
    const invitation = readFileSync(join(alice!.dir, 'outbox', files[0]!), 'utf8');
    const lines = invitation.split('\n');
    const i = lines.findIndex((l) => l.startsWith('-----BEGIN')) + 3;
    lines[i] = lines[i]!.slice(0, 10) + (lines[i]![10] === 'A' ? 'B' : 'A') + lines[i]!.slice(11);
    expect(() => readMail(lines.join('\n'))).toThrow(/checksum/);
    expect(() => mailRead(bob!.dir, [{ name: 'altered', text: lines.join('\n') }], bob!.key)).toThrow(/invitation/);
    expect(existsSync(join(bob!.dir, 'game.json'))).toBe(false);
  });

  it('a recorder that alters a recorded line is caught with its own receipt as evidence', async () => {
    const [alice, bob] = ps;
    const { armorMessage } = await import('./message.js');
    const { signReceipt, nextLogHash } = await import('@fairtable/core/order/receipt.js');
    const { fromKeyFile } = await import('@fairtable/core/identity.js');
    const files = readdirSync(join(alice!.dir, 'outbox')).sort();
    const texts = files.map((f) => readFileSync(join(alice!.dir, 'outbox', f), 'utf8'));
    mailRead(
      bob!.dir,
      texts.map((text, i) => ({ name: String(i), text })),
      bob!.key,
    );
    // The recorder (alice) changes her own line 1 (a commitment) and signs a receipt for the altered line.
    const entries = readMail(texts[1]!)[0]!;
    if (entries.kind !== 'entries') throw new Error('expected entries');
    const original = JSON.parse(entries.lines[1]!);
    original.body.commitment = 'ab'.repeat(32);
    const altered = JSON.stringify(original, Object.keys(original).sort());
    const { envelopeHash } = await import('@fairtable/core/envelope.js');
    const h = envelopeHash(JSON.parse(altered));
    const key = fromKeyFile(JSON.parse(readFileSync(alice!.key, 'utf8'))).keys;
    const r1 = signReceipt({ v: 1, game: entries.game, line: 1, hash: h, log: nextLogHash(entries.receipts[0]!.log, h), time: 1 }, key.secretKey);
    const forged = armorMessage({ kind: 'entries', game: entries.game, first: 1, lines: [altered], receipts: [r1] });
    // Bob already holds line 1: the second receipt for it is a fork, signed by the recorder.
    const r = mailRead(bob!.dir, [{ name: 'forged', text: forged }]);
    expect(r.status.problems.map((p) => p.code)).toContain('recorder_fork');
    // A folder that had not seen line 1 yet finds the altered line fails the door (its signature).
    const carolKeys = generateKeyPair(new Uint8Array(32).fill(99));
    void carolKeys;
    const fresh = join(root, 'cheat-bob2');
    const inv = texts[0]!;
    mailRead(fresh, [{ name: 'inv', text: inv }], bob!.key);
    const r2 = mailRead(fresh, [{ name: 'forged', text: forged }]);
    expect(r2.status.problems.map((p) => p.code)).toContain('recorder_altered');
    expect(r2.status.lines).toBe(1);
    const status = mailStatus(fresh);
    expect(status.status.next.what).toMatch(/recorder/);
  });
});

describe('deadlines by mail', () => {
  const tag = 'late';
  const ps = people(tag, ['alice', 'bob', 'carol']);
  it('a player who never answers is named withheld once the deadline (in days) has passed on the clock', () => {
    let now = Date.UTC(2026, 10, 1);
    const clock = (): number => now;
    const [alice, bob, carol] = ps;
    mailNew({ protocol: 'dice', dir: alice!.dir, key: alice!.key, players: ps.map((p) => pub(tag, p)), turns: 2, timeout: '1d', clock });
    // Carol is on holiday: the post office never reaches her.
    const post = new PostOffice([alice!, bob!]);
    let last = post.play(strategy(3), { maxRounds: 6, clock, tick: true });
    expect(last.map((r) => r.status.done)).toEqual([false, false]);
    expect(last[0]!.status.next.who).toEqual(['carol']);
    expect(last[0]!.status.next.deadline).toBe(Date.UTC(2026, 10, 2));
    expect(last[0]!.status.next.claimFrom).toBe(Date.UTC(2026, 10, 2, 12));
    // A day later the deadline has passed, but the half day of grace has not: no claim yet.
    now = Date.UTC(2026, 10, 2, 6);
    expect(mailStatus(alice!.dir, clock).written).toEqual([]);
    now = Date.UTC(2026, 10, 3);
    last = post.play(strategy(3), { maxRounds: 50, clock, tick: true });
    expect(last.map((r) => r.status.done)).toEqual([true, true]);
    expect(last[0]!.status.outcome!.forfeits).toEqual([{ player: 'carol', code: 'withheld' }]);
    const texts = transcripts([alice!, bob!]);
    expect(texts[1]).toBe(texts[0]);
    const verdict = auditLines(texts[0]!.trimEnd().split('\n'));
    // The auditor agrees: carol, and only carol, withheld; the game still has its outcome.
    expect(verdict.violations.map((v) => [v.code, v.player])).toEqual([['withheld', 'carol']]);
    expect(verdict.outcome).toEqual(last[0]!.status.outcome);
    void carol;
  });
});

describe('every protocol by mail', () => {
  for (const protocol of ['beacon', 'chain', 'keyed-stream', 'snakes', 'rochambeau'] as const) {
    it(`${protocol}: two folders play to the end, transcripts identical and valid`, () => {
      const tag = `proto-${protocol}`;
      const ps = people(tag, ['ann', 'ben']);
      mailNew({ protocol, dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => pub(tag, p)), turns: 2 });
      const last = new PostOffice(ps, { twice: (n) => n % 2 === 0 }).play(strategy(4));
      expect(last.map((r) => r.status.done)).toEqual([true, true]);
      const texts = transcripts(ps);
      expect(texts[1]).toBe(texts[0]);
      expect(auditLines(texts[0]!.trimEnd().split('\n')).valid).toBe(true);
    });
  }
  it('refuses a protocol it cannot play by mail, and a recorder who is the creator', () => {
    const tag = 'refuse';
    const ps = people(tag, ['ann', 'ben']);
    expect(() => mailNew({ protocol: 'poker', dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => pub(tag, p)) })).toThrow(/poker/);
    expect(() => mailNew({ protocol: 'dice', dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => pub(tag, p)), recorder: 'ann' })).toThrow(/recorder/);
    expect(() => mailNew({ protocol: 'dice', dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => pub(tag, p)), recorder: 'ben' })).toThrow(/two players/);
  });
});

describe('Signidice by mail (docs/spec/mail.md §10)', () => {
  it('the creator is the house, its folder keeps the contract key; three folders play every round to the end', () => {
    const tag = 'signidice';
    const ps = people(tag, ['bank', 'ann', 'ben']);
    const created = mailNew({ protocol: 'signidice', dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => pub(tag, p)), turns: 3, game: 'dice' });
    expect(created.status).toMatchObject({ seat: 'house', protocol: 'signidice', recorder: 'house' });
    // A copy of the unique-signature secret, readable by its owner only; the setup carries its public key.
    const kept = JSON.parse(readFileSync(join(ps[0]!.dir, 'house-secret.json'), 'utf8')) as { scheme: string; secret: string };
    expect(kept.scheme).toBe('ecvrf-ell2');
    expect(statSync(join(ps[0]!.dir, 'house-secret.json')).mode & 0o777).toBe(0o600);
    const post = new PostOffice(ps, {
      wrap: (text, from, to, n) => (n % 2 === 0 ? asEmail(text, from, to) : asQuotedReply(text, from, to)),
      twice: (n) => n % 3 === 0,
      hold: (n) => (n % 4 === 0 ? 1 : 0),
    });
    const last = post.play(strategy(6));
    expect(last.map((r) => r.status.done)).toEqual([true, true, true]);
    const texts = transcripts(ps);
    expect(texts[1]).toBe(texts[0]);
    expect(texts[2]).toBe(texts[0]);
    const lines = texts[0]!.trimEnd().split('\n');
    const verdict = auditLines(lines);
    expect(verdict.valid).toBe(true);
    expect(verdict.violations).toEqual([]);
    expect(verdict.outcome).toEqual(last[1]!.status.outcome);
    // The house signed with the key in the contract: every round has its signatures.
    expect(lines.filter((l) => JSON.parse(l).body.type === 'sign').length).toBeGreaterThan(0);
    expect(JSON.parse(lines[0]!).body.setup.params.houseKey.publicKey).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a house that stops signing forfeits as the contract says once the deadline (in days) passes: bets back, the bounty to the players', () => {
    let now = Date.UTC(2026, 10, 1);
    const clock = (): number => now;
    const tag = 'signidice-late';
    const ps = people(tag, ['bank', 'rec', 'ann', 'ben']);
    // A third party records, so that the players' claims are recorded while the house is silent.
    mailNew({ protocol: 'signidice', dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => pub(tag, p)), turns: 2, timeout: '2d', recorder: 'rec', clock });
    const post = new PostOffice(ps);
    const bet = (_who: string, d: Decision): JsonValue => (d.kind === 'bet' ? { kind: 'red', pick: null, amount: 10 } : null);
    // The house sends its invitation, then reads and signs nothing (on holiday).
    const away = (who: string): boolean => who === 'bank';
    let last = post.play(bet, { maxRounds: 6, clock, away });
    expect(last.map((r) => r.status.done)).toEqual([false, false, false]);
    expect(last[1]!.status.next.who).toEqual(['house']);
    expect(last[1]!.status.next.deadline).toBe(Date.UTC(2026, 10, 3));
    // Two days and the half day of grace later, the players claim the deadline.
    now = Date.UTC(2026, 10, 4, 13);
    last = post.play(bet, { maxRounds: 20, clock, tick: true, away });
    expect(last.map((r) => r.status.done)).toEqual([true, true, true]);
    const outcome = last[1]!.status.outcome!;
    expect(outcome.forfeits).toEqual([{ player: 'house', code: 'withheld' }]);
    const texts = transcripts(ps.slice(1));
    expect(texts[1]).toBe(texts[0]);
    expect(texts[2]).toBe(texts[0]);
    // The claim naming the house is the game's last line: the players' seats settle on it, while an audit of the
    // file alone names nobody on a claim no later line vouches for (the unvouched tail, docs/SPEC.md §4.4).
    const verdict = auditLines(texts[0]!.trimEnd().split('\n'));
    expect(verdict.violations.map((v) => [v.code, v.player])).toEqual([['withheld', null]]);
    expect(verdict.violations[0]!.message).toMatch(/deadline claim names house withheld/);
    expect(verdict.outcome).toBeNull();
    // The escrow as the contract says: each player's bet back and a share of the bounty (1000 between two).
    expect((outcome.summary as { balances: Record<string, number> }).balances).toMatchObject({ ann: 1500, ben: 1500 });
  });
});

describe('folders kept open between commands', () => {
  it('give the same game as folders replayed at every command', async () => {
    const { keepFolders } = await import('./folder.js');
    const tag = 'kept';
    const ps = people(tag, ['ann', 'ben', 'cat']);
    keepFolders(true);
    try {
      mailNew({ protocol: 'dice', dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => pub(tag, p)), turns: 3 });
      const last = new PostOffice(ps, { hold: (n) => (n % 4 === 0 ? 1 : 0) }).play(strategy(5));
      expect(last.map((r) => r.status.done)).toEqual([true, true, true]);
    } finally {
      keepFolders(false);
    }
    const texts = transcripts(ps);
    for (const t of texts) expect(t).toBe(texts[0]);
    expect(auditLines(texts[0]!.trimEnd().split('\n')).valid).toBe(true);
  });
});

describe('reading mail into a game folder', () => {
  const tag = 'misc';
  const ps = people(tag, ['ann', 'ben']);
  it('refuses a mangled file among good ones, takes the good ones, and ignores its own mail coming back', () => {
    const [ann, ben] = ps;
    mailNew({ protocol: 'dice', dir: ann!.dir, key: ann!.key, players: ps.map((p) => pub(tag, p)), turns: 1 });
    const files = readdirSync(join(ann!.dir, 'outbox')).sort();
    const texts = files.map((f) => readFileSync(join(ann!.dir, 'outbox', f), 'utf8'));
    const r = mailRead(ben!.dir, [...texts.map((text, i) => ({ name: `f${i}`, text })), { name: 'junk', text: 'no block here' }], ben!.key);
    expect(r.refused).toEqual([expect.stringMatching(/^junk: \[bad_armor\]/)]);
    expect(r.status.lines).toBe(2);
    expect(r.written).toHaveLength(1);
    const mine = readFileSync(join(ben!.dir, r.written[0]!), 'utf8');
    // Ben's own submission back from the list, and Ann's mail once more: nothing new to send.
    const again = mailRead(ben!.dir, [{ name: 'own', text: mine }, ...texts.map((text, i) => ({ name: `g${i}`, text }))]);
    expect(again.written).toEqual([]);
    expect(again.refused).toEqual([]);
    // Mail for another game is ignored with a note.
    const other = people('misc2', ['cy', 'di']);
    mailNew({ protocol: 'dice', dir: other[0]!.dir, key: other[0]!.key, players: other.map((p) => pub('misc2', p)) });
    const foreign = readFileSync(join(other[0]!.dir, 'outbox', readdirSync(join(other[0]!.dir, 'outbox')).sort()[0]!), 'utf8');
    const ignored = mailRead(ben!.dir, [{ name: 'foreign', text: foreign }]);
    expect(ignored.notes.join('\n')).toMatch(/another game/);
    expect(ignored.written).toEqual([]);
  });
});
