import { createHmac } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKeyPair, toKeyFile, toPublicKeyFile } from '@fairtable/core/identity.js';
import { auditLines } from '@fairtable/core/audit.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { Choices, Decision } from '@fairtable/core/protocols/machine.js';
import { simStrategy } from '@fairtable/core/testing';
import { diplomacyRegistry } from '@fairtable/diplomacy/protocol/index.js';
import { GameFolder } from './folder.js';
import { loadKey, mailNew, mailRead, mailStatus, mailTranscript } from './index.js';
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
function replayed(dir: string, tag: string, clock: () => number = Date.now): GameFolder {
  const copy = join(root, `copy-${tag}`);
  rmSync(copy, { recursive: true, force: true });
  cpSync(dir, copy, { recursive: true });
  rmSync(snapshotPath(copy));
  const f = GameFolder.open(copy, loadKey, clock);
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

  it('diplomacy, with threshold escrow: mid-game, every folder restores the seat a full replay rebuilds, and the game ends the same', () => {
    const ps = people(['ann', 'ben', 'cid']).map((p) => ({ ...p, dir: join(root, 'diplomacy', p.id) }));
    mailNew({
      protocol: 'diplomacy',
      dir: ps[0]!.dir,
      key: ps[0]!.key,
      players: ps.map((p) => join(root, `${p.id}.pub.json`)),
      diplomacy: { years: 1, assign: 'fixed', escrow: 'threshold' },
    });
    const post = new PostOffice(ps, { hold: (n) => (n % 5 === 0 ? 1 : 0) });
    const random = simStrategy(new Uint8Array(32).fill(5));
    const choose = (_who: string, d: Decision): JsonValue => random(d);
    post.play(choose, { maxRounds: 8 });
    for (const p of ps) {
      const f = open(p.dir);
      expect(f.fromSnapshot, p.id).toBe(true);
      expect((f.seat!.referee.state as { round: number }).round, p.id).toBeGreaterThan(0);
      expect(seatState(f), p.id).toBe(seatState(replayed(p.dir, `diplomacy-${p.id}`)));
    }
    const last = post.play(choose);
    expect(last.map((r) => r.status.done)).toEqual([true, true, true]);
    const texts = ps.map((p) => {
      const out = join(root, `diplomacy-${p.id}.jsonl`);
      mailTranscript(p.dir, out);
      return readFileSync(out, 'utf8');
    });
    expect(texts[1]).toBe(texts[0]);
    expect(texts[2]).toBe(texts[0]);
    const verdict = auditLines(texts[0]!.trimEnd().split('\n'), { registry: diplomacyRegistry });
    expect(verdict.violations).toEqual([]);
    expect(verdict.valid).toBe(true);
  });

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
    case 'text':
      return c.examples[0] ?? '';
    case 'list':
      return [];
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

describe('a sealed game (docs/spec/sealed.md §7): the held commitments and the holding receipts', () => {
  /** The files a command writes that the sealed state decides. */
  const FILES = ['transcript.jsonl', 'receipts.jsonl', 'sealed.jsonl', 'holdings.jsonl', 'problems.jsonl', 'journal.jsonl', 'state.json'];
  const files = (dir: string): Record<string, string | null> =>
    Object.fromEntries(FILES.map((f) => [f, existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : null]));
  const outbox = (dir: string): Record<string, string> =>
    Object.fromEntries(
      readdirSync(join(dir, 'outbox'))
        .sort()
        .map((f) => [f, readFileSync(join(dir, 'outbox', f), 'utf8')]),
    );
  /** A copy of `dir` without its snapshot, under `tag`. */
  const twin = (dir: string, tag: string): string => {
    const copy = join(root, `twin-${tag}`);
    rmSync(copy, { recursive: true, force: true });
    cpSync(dir, copy, { recursive: true });
    rmSync(snapshotPath(copy));
    return copy;
  };

  for (const recorder of ['rec', 'ann'] as const) {
    it(`recorder ${recorder === 'rec' ? 'who does not play' : 'who plays'}: restored from the snapshot, the folders do what replayed ones do`, () => {
      const tag = `sealed-${recorder}`;
      const ps = people(['ann', 'ben', 'cid', ...(recorder === 'rec' ? ['rec'] : [])]).map((p) => ({ ...p, dir: join(root, tag, p.id) }));
      const byId = (id: string): Participant => ps.find((p) => p.id === id)!;
      let now = Date.UTC(2026, 10, 1);
      const clock = (): number => now;
      mailNew({
        protocol: 'beacon',
        dir: ps[0]!.dir,
        key: ps[0]!.key,
        players: ps.map((p) => join(root, `${p.id}.pub.json`)),
        ...(recorder === 'rec' ? { recorder: 'rec' } : {}),
        sealed: ['commit'],
        turns: 2,
        timeout: '1d',
        clock,
      });
      // cid is away: ann's and ben's commitments stay held.
      const present = ps.filter((p) => p.id !== 'cid');
      const post = new PostOffice(present);
      post.play(roll, { maxRounds: 6, clock, tick: true });
      const rec = byId(recorder);
      const ben = byId('ben');
      expect(readFileSync(join(rec.dir, 'sealed.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
      expect(readFileSync(join(ben.dir, 'holdings.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
      for (const p of present) {
        const f = GameFolder.open(p.dir, loadKey, clock);
        expect(f.fromSnapshot, p.id).toBe(true);
        expect(f.log).toHaveLength(1);
        if (f.seat !== null) expect(seatState(f), p.id).toBe(seatState(replayed(p.dir, `${tag}-${p.id}`, clock)));
      }

      // The snapshot is bound to sealed.jsonl and holdings.jsonl: either changed, the folder is replayed.
      const lost = twin(rec.dir, `${tag}-lost`);
      mailStatus(lost, clock);
      expect(GameFolder.open(lost, loadKey, clock).fromSnapshot).toBe(true);
      const held = readFileSync(join(lost, 'sealed.jsonl'), 'utf8').trim().split('\n');
      writeFileSync(join(lost, 'sealed.jsonl'), held[0]! + '\n');
      expect(GameFolder.open(lost, loadKey, clock).fromSnapshot).toBe(false);
      const forgot = twin(ben.dir, `${tag}-forgot`);
      mailStatus(forgot, clock);
      expect(GameFolder.open(forgot, loadKey, clock).fromSnapshot).toBe(true);
      writeFileSync(join(forgot, 'holdings.jsonl'), '');
      expect(GameFolder.open(forgot, loadKey, clock).fromSnapshot).toBe(false);

      // Past the set's deadline the recorder releases it: from the snapshot exactly as from a full replay.
      now = Date.UTC(2026, 10, 3);
      post.collect(rec);
      const recTwin = twin(rec.dir, `${tag}-rec`);
      const fromSnap = mailStatus(rec.dir, clock);
      const fromReplay = mailStatus(recTwin, clock);
      expect(fromSnap.status).toEqual(fromReplay.status);
      expect(files(rec.dir)).toEqual(files(recTwin));
      expect(outbox(rec.dir)).toEqual(outbox(recTwin));
      expect(readFileSync(join(rec.dir, 'sealed.jsonl'), 'utf8')).toBe('');
      // The set is in, in seat order (a recorder who plays may then add its own deadline claim).
      const released = readFileSync(join(rec.dir, 'transcript.jsonl'), 'utf8').trim().split('\n').slice(1, 3);
      expect(released.map((l) => JSON.parse(l) as { from: string; body: { type: string } }).map((e) => [e.from, e.body.type])).toEqual([
        ['ann', 'commit'],
        ['ben', 'commit'],
      ]);

      // ben reads the released set: his holding receipt is settled the same way from the snapshot as from a replay.
      const mail = Object.entries(outbox(rec.dir)).map(([name, text]) => ({ name, text }));
      expect(mail.length).toBeGreaterThan(0);
      const benTwin = twin(ben.dir, `${tag}-ben`);
      const benSnap = mailRead(ben.dir, mail, ben.key, clock);
      const benReplay = mailRead(benTwin, mail, ben.key, clock);
      expect(benSnap.status).toEqual(benReplay.status);
      expect(files(ben.dir)).toEqual(files(benTwin));
      expect(outbox(ben.dir)).toEqual(outbox(benTwin));
      expect(readFileSync(join(ben.dir, 'holdings.jsonl'), 'utf8')).toBe('');
      expect(seatState(GameFolder.open(ben.dir, loadKey, clock))).toBe(seatState(GameFolder.open(benTwin, loadKey, clock)));

      // The game ends from snapshots; cid, who never committed, is named.
      const last = post.play(roll, { maxRounds: 50, clock, tick: true });
      expect(last.map((r) => r.status.done)).toEqual(present.map(() => true));
      const out = join(root, `${tag}.jsonl`);
      mailTranscript(ps[0]!.dir, out);
      const verdict = auditLines(readFileSync(out, 'utf8').trimEnd().split('\n'));
      expect(verdict.violations.map((v) => [v.code, v.player])).toEqual([['withheld', 'cid']]);
    });
  }
  const roll = (): null => null;
});
