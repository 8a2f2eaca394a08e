import { createHmac } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKeyPair, toKeyFile, toPublicKeyFile } from '@fairtable/core/identity.js';
import { auditLines } from '@fairtable/core/audit.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { Choices } from '@fairtable/core/protocols/machine.js';
import { GameFolder } from './folder.js';
import { loadKey, mailNew, mailStatus, mailTranscript } from './index.js';
import { PostOffice, type Participant } from './post-office.js';

const root = mkdtempSync(join(tmpdir(), 'fairtable-mail-snapshot-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function people(names: readonly string[]): Participant[] {
  return names.map((id, i) => {
    const keys = generateKeyPair(new Uint8Array(32).fill(40 + i));
    const key = join(root, `${id}.json`);
    writeFileSync(key, JSON.stringify(toKeyFile(id, keys)));
    writeFileSync(join(root, `${id}.pub.json`), JSON.stringify(toPublicKeyFile(id, keys.publicKey)));
    return { id, dir: join(root, 'game', id), key };
  });
}

const open = (dir: string): GameFolder => GameFolder.open(dir, loadKey, Date.now);
/** The seat's state, but for its resend and sync timers (a folder mails its envelope in flight itself and never syncs). */
function seatState(f: GameFolder): string {
  const s = f.seat!.save()!;
  return JSON.stringify({ ...s, current: s.current === null ? null : { ...s.current, sentAt: null }, lastProgress: null, lastSync: null });
}
const snapshotPath = (dir: string): string => join(dir, 'snapshot.json');

/** A copy of `dir` without its snapshot: opening it replays the whole log. */
function replayed(dir: string, tag: string): GameFolder {
  const copy = join(root, `copy-${tag}`);
  rmSync(copy, { recursive: true, force: true });
  cpSync(dir, copy, { recursive: true });
  rmSync(snapshotPath(copy));
  const f = open(copy);
  expect(f.fromSnapshot).toBe(false);
  return f;
}

describe('the folder snapshot (docs/spec/mail.md §2)', () => {
  const ps = people(['ann', 'ben', 'cid']);
  const [ann, ben] = ps as [Participant, Participant, Participant];
  mailNew({ protocol: 'dice', dir: ann.dir, key: ann.key, players: ps.map((p) => join(root, `${p.id}.pub.json`)), turns: 3 });
  const post = new PostOffice(ps);
  const roll = (): null => null;

  it('a command goes on from the snapshot, and the seat it restores is the one a full replay rebuilds', () => {
    post.play(roll, { maxRounds: 4 });
    for (const p of ps) {
      const f = open(p.dir);
      expect(f.fromSnapshot, p.id).toBe(true);
      expect(f.log.length).toBeGreaterThan(1);
      expect(seatState(f), p.id).toBe(seatState(replayed(p.dir, p.id)));
    }
  });

  it('an edited snapshot is not sealed by the key: it is ignored and the folder replayed, with the same seat', () => {
    const path = snapshotPath(ben.dir);
    const good = readFileSync(path, 'utf8');
    const [mac, body] = [good.slice(0, good.indexOf('\n')), good.slice(good.indexOf('\n') + 1)];
    const snap = JSON.parse(body) as { seat: { referee: { checker: { authors: Record<string, { count: number }> } } } };
    // Would let ann's next envelope be taken for a duplicate of one she never signed, were it believed.
    snap.seat.referee.checker.authors.ann!.count += 1;
    writeFileSync(path, `${mac}\n${JSON.stringify(snap)}`);
    const f = open(ben.dir);
    expect(f.fromSnapshot).toBe(false);
    expect(f.seat!.referee.checker.authorPosition('ann')!.count).toBe(replayed(ben.dir, 'ben-edited').seat!.referee.checker.authorPosition('ann')!.count);
    // Sealed again under another key (anyone's but ben's): still ignored.
    const other = generateKeyPair(new Uint8Array(32).fill(99));
    const forged = createHmac('sha256', other.secretKey).update('fairtable/mail-snapshot/v1\u0000').update(JSON.stringify(snap)).digest('hex');
    writeFileSync(path, `${forged}\n${JSON.stringify(snap)}`);
    expect(open(ben.dir).fromSnapshot).toBe(false);
    // The genuine one is taken again.
    writeFileSync(path, good);
    expect(open(ben.dir).fromSnapshot).toBe(true);
  });

  it('a snapshot that no longer matches the files (an older one put back) is ignored', () => {
    const old = readFileSync(snapshotPath(ann.dir), 'utf8');
    post.play(roll, { maxRounds: 6 });
    const now = open(ann.dir);
    expect(now.fromSnapshot).toBe(true);
    writeFileSync(snapshotPath(ann.dir), old);
    const f = open(ann.dir);
    expect(f.fromSnapshot).toBe(false);
    expect(seatState(f)).toBe(seatState(now));
    // The next command writes a snapshot that matches again.
    mailStatus(ann.dir);
    expect(open(ann.dir).fromSnapshot).toBe(true);
  });

  it('the game finishes from snapshots with identical transcripts that audit valid', () => {
    const last = post.play(roll);
    expect(last.map((r) => r.status.done)).toEqual([true, true, true]);
    const texts = ps.map((p) => {
      const out = join(root, `${p.id}.jsonl`);
      mailTranscript(p.dir, out);
      return readFileSync(out, 'utf8');
    });
    expect(texts[1]).toBe(texts[0]);
    expect(texts[2]).toBe(texts[0]);
    expect(auditLines(texts[0]!.trimEnd().split('\n')).valid).toBe(true);
    for (const p of ps) expect(open(p.dir).fromSnapshot).toBe(true);
  });
});

describe('snapshots of every machine that can save its state', () => {
  for (const protocol of ['beacon', 'keyed-stream', 'snakes', 'monopoly', 'signidice'] as const) {
    it(`${protocol}: mid-game, every folder restores the seat a full replay rebuilds, and the game ends the same`, () => {
      const ps = people(['ann', 'ben', 'cid']).map((p) => ({ ...p, dir: join(root, protocol, p.id) }));
      mailNew({ protocol, dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => join(root, `${p.id}.pub.json`)), turns: 3 });
      const post = new PostOffice(ps, { hold: (n) => (n % 5 === 0 ? 1 : 0) });
      const choose = (_who: string, d: { choices: Choices }): JsonValue => firstChoice(d.choices);
      post.play(choose, { maxRounds: 3 });
      for (const p of ps) {
        const f = open(p.dir);
        expect(f.fromSnapshot, p.id).toBe(true);
        expect(seatState(f), p.id).toBe(seatState(replayed(p.dir, `${protocol}-${p.id}`)));
      }
      const last = post.play(choose);
      expect(last.map((r) => r.status.done)).toEqual([true, true, true]);
      const texts = ps.map((p) => {
        const out = join(root, `${protocol}-${p.id}.jsonl`);
        mailTranscript(p.dir, out);
        return readFileSync(out, 'utf8');
      });
      expect(texts[1]).toBe(texts[0]);
      expect(texts[2]).toBe(texts[0]);
      expect(auditLines(texts[0]!.trimEnd().split('\n')).valid).toBe(true);
    });
  }

  it('rochambeau cannot save its state: its folders keep no snapshot and are replayed', () => {
    const ps = people(['ann', 'ben']).map((p) => ({ ...p, dir: join(root, 'rochambeau', p.id) }));
    mailNew({ protocol: 'rochambeau', dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => join(root, `${p.id}.pub.json`)) });
    const last = new PostOffice(ps).play((_who, d) => firstChoice(d.choices));
    expect(last.map((r) => r.status.done)).toEqual([true, true]);
    for (const p of ps) {
      expect(existsSync(snapshotPath(p.dir))).toBe(false);
      expect(open(p.dir).fromSnapshot).toBe(false);
    }
  });
});

/** The first answer a decision allows (a bet of the least on the first kind, a hand of the least). */
function firstChoice(c: Choices): JsonValue {
  switch (c.type) {
    case 'one-of':
      return c.values[0] ?? null;
    case 'integer':
      return Number(c.min);
    case 'any-of':
      return firstChoice(c.options[0]!);
    case 'record':
      return Object.fromEntries(Object.entries(c.fields).map(([k, v]) => [k, firstChoice(v)]));
  }
}

describe('a recorder who does not play', () => {
  it('keeps its door and its observer in the snapshot: status from the snapshot is status from a full replay', () => {
    const ps = people(['ann', 'ben', 'rec']).map((p) => ({ ...p, dir: join(root, 'third-party', p.id) }));
    mailNew({ protocol: 'dice', dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => join(root, `${p.id}.pub.json`)), turns: 3, recorder: 'rec' });
    const post = new PostOffice(ps);
    const roll = (): null => null;
    const rec = ps[2]!;
    for (const rounds of [4, 8]) {
      post.play(roll, { maxRounds: rounds });
      const f = open(rec.dir);
      expect(f.fromSnapshot).toBe(true);
      const snap = JSON.parse(readFileSync(snapshotPath(rec.dir), 'utf8').split('\n')[1]!) as { observer: { checker: { lines: number } } | null };
      expect(snap.observer!.checker.lines).toBe(f.log.length);
      const copy = join(root, `copy-rec-${rounds}`);
      cpSync(rec.dir, copy, { recursive: true });
      rmSync(snapshotPath(copy));
      const full = open(copy);
      expect(full.fromSnapshot).toBe(false);
      expect(JSON.stringify(f.status())).toBe(JSON.stringify(full.status()));
    }
    const last = post.play(roll);
    expect(last.map((r) => r.status.done)).toEqual([true, true, true]);
    expect(last[2]!.status.outcome).toEqual(last[0]!.status.outcome);
  });
});
