/**
 * Sealed mode by mail (docs/spec/sealed.md §7): a recorder who does not play collects the commitments,
 * mails each author alone a holding receipt, and records each set in seat order once it is complete or its
 * deadline has passed; a recorder that loses a held commitment is caught by its author's folder.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auditLines } from '@fairtable/core/audit.js';
import type { Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair, toKeyFile, toPublicKeyFile } from '@fairtable/core/identity.js';
import { mailNew, mailStatus, mailTranscript, readMail } from './index.js';
import { PostOffice, type Participant } from './post-office.js';

const root = mkdtempSync(join(tmpdir(), 'fairtable-sealed-mail-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function people(tag: string): Participant[] {
  return ['alice', 'bob', 'carol', 'rita'].map((id, i) => {
    const keys = generateKeyPair(new Uint8Array(32).fill(i + 1 + tag.length * 11));
    const key = join(root, `${tag}-${id}.json`);
    writeFileSync(key, JSON.stringify(toKeyFile(id, keys)));
    writeFileSync(join(root, `${tag}-${id}.pub.json`), JSON.stringify(toPublicKeyFile(id, keys.publicKey)));
    return { id, dir: join(root, tag, id), key };
  });
}

function newGame(tag: string, ps: readonly Participant[], clock: () => number, rounds = 1): void {
  mailNew({
    protocol: 'beacon',
    dir: ps[0]!.dir,
    key: ps[0]!.key,
    players: ps.map((p) => join(root, `${tag}-${p.id}.pub.json`)),
    recorder: 'rita',
    sealed: ['commit'],
    turns: rounds,
    timeout: '1d',
    clock,
  });
}

const transcript = (p: Participant): string[] => {
  const out = join(root, `${p.id}-${Math.random().toString(36).slice(2)}.jsonl`);
  mailTranscript(p.dir, out);
  return readFileSync(out, 'utf8').trimEnd().split('\n');
};
const envelopes = (lines: readonly string[]): Envelope[] => lines.map((l) => JSON.parse(l) as Envelope);
/** What the recorder mailed, read back as messages. */
const mailed = (p: Participant) =>
  readdirSync(join(p.dir, 'sent'))
    .sort()
    .map((f) => ({ file: f, messages: readMail(readFileSync(join(p.dir, 'sent', f), 'utf8')) }));
const noop = (): null => null;

describe('sealed commitments by mail', () => {
  it('every set of commitments is mailed whole, in seat order; holding receipts go to their authors alone', () => {
    const tag = 'whole';
    const ps = people(tag);
    newGame(tag, ps, Date.now, 2);
    const last = new PostOffice(ps).play(noop);
    expect(last.map((r) => r.status.done)).toEqual([true, true, true, true]);
    const lines = transcript(ps[0]!);
    for (const p of ps.slice(1)) expect(transcript(p)).toEqual(lines);
    const verdict = auditLines(lines);
    expect(verdict.violations).toEqual([]);
    expect(verdict.valid).toBe(true);
    const commits = envelopes(lines)
      .map((e, i) => ({ e, i }))
      .filter(({ e }) => e.body.type === 'commit');
    expect(commits.map(({ e }) => e.from)).toEqual(['alice', 'bob', 'carol', 'alice', 'bob', 'carol']);
    // No player ever received part of a set: every entries message with a commitment of a round holds all three.
    const rita = mailed(ps[3]!);
    for (const { messages } of rita)
      for (const m of messages) {
        if (m.kind !== 'entries') continue;
        const rounds = envelopes(m.lines).filter((e) => e.body.type === 'commit');
        for (const r of new Set(rounds.map((e) => e.body.round))) expect(rounds.filter((e) => e.body.round === r)).toHaveLength(3);
      }
    // Two of each set's three were held (the third completed it); each holding receipt was addressed to its author.
    const holdings = rita.flatMap(({ file, messages }) => messages.filter((m) => m.kind === 'holding').map((m) => ({ file, m })));
    expect(holdings).toHaveLength(4);
    for (const { file, m } of holdings) {
      if (m.kind !== 'holding') continue;
      expect(file).toMatch(new RegExp(`-holding-for-${m.to}\\.txt$`));
      expect(commits.some(({ e }) => e.from === m.to)).toBe(true);
    }
  });

  it('a set is held while one player is silent, and recorded at its deadline; the silent one is then named withheld', () => {
    const tag = 'late';
    const ps = people(tag);
    const [alice, bob, carol, rita] = ps;
    let now = Date.UTC(2026, 10, 1);
    const clock = (): number => now;
    newGame(tag, ps, clock);
    // Carol is away: the post office never reaches her.
    const post = new PostOffice([alice!, bob!, rita!]);
    post.play(noop, { maxRounds: 6, clock, tick: true });
    // Both commitments are held: nobody's copy of the log shows either, and each author holds its receipt.
    for (const p of [alice!, bob!, rita!]) expect(transcript(p)).toHaveLength(1);
    for (const p of [alice!, bob!]) {
      const held = readFileSync(join(p.dir, 'holdings.jsonl'), 'utf8').trim().split('\n');
      expect(held).toHaveLength(1);
      expect((JSON.parse(held[0]!) as { until: number }).until).toBe(Date.UTC(2026, 10, 2));
    }
    now = Date.UTC(2026, 10, 3);
    const last = post.play(noop, { maxRounds: 50, clock, tick: true });
    expect(last.map((r) => r.status.done)).toEqual([true, true, true]);
    const lines = transcript(alice!);
    expect(envelopes(lines.slice(1, 3)).map((e) => [e.from, e.body.type])).toEqual([
      ['alice', 'commit'],
      ['bob', 'commit'],
    ]);
    const receipts = readFileSync(join(alice!.dir, 'receipts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((r) => JSON.parse(r) as { time: number });
    expect(receipts[1]!.time).toBe(Date.UTC(2026, 10, 2));
    expect(receipts[2]!.time).toBe(Date.UTC(2026, 10, 2));
    expect(readFileSync(join(alice!.dir, 'holdings.jsonl'), 'utf8')).toBe('');
    const verdict = auditLines(lines);
    expect(verdict.violations.map((v) => [v.code, v.player])).toEqual([['withheld', 'carol']]);
    void carol;
  });

  it("a recorder that loses a held commitment is caught by its author's folder", () => {
    const tag = 'lost';
    const ps = people(tag);
    const [alice, bob, , rita] = ps;
    let now = Date.UTC(2026, 10, 1);
    const clock = (): number => now;
    newGame(tag, ps, clock);
    const post = new PostOffice([alice!, bob!, rita!]);
    post.play(noop, { maxRounds: 6, clock, tick: true });
    // The recorder forgets alice's commitment.
    const file = join(rita!.dir, 'sealed.jsonl');
    const kept = readFileSync(file, 'utf8').trim().split('\n');
    expect(kept).toHaveLength(2);
    writeFileSync(file, kept.filter((l) => !l.includes('\\"from\\":\\"alice\\"') && !l.includes('"from":"alice"')).join('\n') + '\n');
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
    now = Date.UTC(2026, 10, 3);
    post.play(noop, { maxRounds: 50, clock, tick: true });
    const status = mailStatus(alice!.dir, clock).status;
    expect(status.problems.map((p) => p.code)).toContain('recorder_lost_sealed');
    expect(mailStatus(bob!.dir, clock).status.problems).toEqual([]);
  });
});
