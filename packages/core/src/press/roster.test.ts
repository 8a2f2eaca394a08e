import { describe, expect, it } from 'vitest';
import { toHex } from '../bytes.js';
import { generateKeyPair, sign } from '../identity.js';
import type { PlayerEntry } from '../setup.js';
import { Door } from '../door.js';
import { envelopeLine, signEnvelope, type Body } from '../envelope.js';
import type { KeyPair } from '../identity.js';
import { createSetupEnvelope } from '../setup.js';
import {
  newcomersOfLog,
  talkingSeats,
  TalkReader,
  talkSigningBytes,
  writeTalk,
  type PressMode,
  type TalkDraft,
  type TalkRead,
  type TalkRoster,
} from './index.js';

const GAME = 'ab'.repeat(32);
const seats = ['austria', 'england', 'france'] as const;
const keys = Object.fromEntries([...seats, 'nia'].map((id, i) => [id, generateKeyPair(new Uint8Array(32).fill(i + 1))]));
const players: PlayerEntry[] = seats.map((id) => ({ id, key: toHex(keys[id]!.publicKey) }));
const nia: PlayerEntry = { id: 'nia', key: toHex(keys.nia!.publicKey) };
/** France's power went to nia at line 40, whose time is 50,000. */
const HANDED: TalkRoster = { newcomers: [nia], departed: [{ id: 'france', by: 'nia', line: 40, at: 50_000 }] };
const PROPOSED: TalkRoster = { newcomers: [nia], departed: [] };

let counter = 0;
const random = (n: number): Uint8Array => {
  counter++;
  return new Uint8Array(n).map((_, i) => (counter * 31 + i * 7) & 255);
};

function write(from: string, to: TalkDraft['to'], seq: number, at: number, body: string, opts: { mode?: PressMode; as?: string } = {}) {
  const signer = opts.as ?? from;
  const m = writeTalk(
    { game: GAME, from: signer, to, seq, at, body },
    { mode: opts.mode ?? 'signed', secretKey: keys[signer]!.secretKey, players: [...players, nia], random },
  );
  if (signer === from) return m;
  // A table message in another seat's name, signed by `signer` (a forgery the signature gives away).
  const forged = { ...m, from };
  return { ...forged, sig: toHex(sign(talkSigningBytes(forged), keys[signer]!.secretKey)) };
}

function readerFor(id: string | null, roster: () => TalkRoster, mode: PressMode = 'signed'): TalkReader {
  return new TalkReader({
    game: GAME,
    players,
    rules: { rule: 'full', mode },
    roster,
    ...(id === null ? {} : { me: { id, secretKey: keys[id]!.secretKey } }),
  });
}

const shown = (r: TalkRead) => {
  if (r.kind !== 'shown') throw new Error(`expected shown, got ${JSON.stringify(r)}`);
  return r.talk;
};
const refused = (r: TalkRead) => {
  if (r.kind !== 'refused') throw new Error(`expected refused, got ${r.kind}`);
  return r.finding;
};

describe('talk by a newcomer (press.md §10)', () => {
  it('without a roster the newcomer is no seat; with the roster its public and private press is read, and press sealed to it opens', () => {
    const hello = write('nia', 'table', 1, 60_000, 'Nia here, playing France now.');
    const setupOnly = new TalkReader({ game: GAME, players, rules: { rule: 'full', mode: 'signed' } });
    expect(refused(setupOnly.read(hello))).toMatchObject({ code: 'talk_unknown_author', player: null });

    for (const reader of [readerFor('austria', () => HANDED), readerFor(null, () => HANDED)]) {
      expect(shown(reader.read(hello))).toMatchObject({ from: 'nia', body: 'Nia here, playing France now.', proof: 'signed' });
    }
    const toNia = write('austria', ['nia'], 2, 61_000, 'Welcome. Support me into Munich?');
    expect(shown(readerFor('nia', () => HANDED).read(toNia))).toMatchObject({ from: 'austria', body: 'Welcome. Support me into Munich?', private: true });
    const fromNia = write('nia', ['austria'], 3, 62_000, 'Done.');
    expect(shown(readerFor('austria', () => HANDED).read(fromNia))).toMatchObject({ body: 'Done.', proof: 'signed' });
    // Deniable: the MAC each of them shares with the other checks.
    const deniable = write('nia', ['england'], 4, 63_000, 'Between us.', { mode: 'deniable' });
    expect(shown(readerFor('england', () => HANDED, 'deniable').read(deniable))).toMatchObject({ body: 'Between us.', proof: 'deniable' });
  });

  it('the roster is asked at each message: a newcomer introduced later is read from then on', () => {
    let roster: TalkRoster = { newcomers: [], departed: [] };
    const reader = readerFor('england', () => roster);
    expect(refused(reader.read(write('nia', 'table', 1, 1_000, 'too early')))).toMatchObject({ code: 'talk_unknown_author', player: null });
    roster = PROPOSED;
    expect(shown(reader.read(write('nia', 'table', 2, 2_000, 'now I am an author'))).from).toBe('nia');
  });

  it("the departed player's press from before the hand-over stays its own; from the hand-over on it is refused, naming nobody", () => {
    const before = write('france', ['austria'], 7, 49_999, 'Old alliance still stands.');
    const after = write('france', 'table', 8, 50_000, 'I still speak for France!');
    for (const me of ['austria', 'england', 'nia', null] as const) {
      const reader = readerFor(me, () => HANDED);
      const old = shown(reader.read(before));
      expect(old.from).toBe('france');
      if (me === 'austria') expect(old.body).toBe('Old alliance still stands.');
      const f = refused(reader.read(after));
      expect(f).toMatchObject({ code: 'talk_departed', player: null, provable: false });
      expect(f.evidence[1]).toEqual({ handover: HANDED.departed[0] });
      // Each message counts once: the same refused message again is a duplicate.
      expect(reader.read(after).kind).toBe('duplicate');
    }
    // Deniable: refused the same way, naming nobody, by the recipient whose MAC checks.
    const deniable = write('france', ['austria'], 11, 50_001, 'still me', { mode: 'deniable' });
    expect(refused(readerFor('austria', () => HANDED, 'deniable').read(deniable))).toMatchObject({ code: 'talk_departed', player: null });
    // A message to the departed seat after the hand-over is shown, naming nobody (its author may not have seen it).
    const toFrance = write('england', ['france'], 12, 60_000, 'France, are you there?');
    expect(shown(readerFor('austria', () => HANDED).read(toFrance))).toMatchObject({ from: 'england', body: null, private: true });
    // Before the hand-over took effect (the newcomer only proposed), France writes as before.
    expect(shown(readerFor('austria', () => PROPOSED).read(after)).from).toBe('france');
  });

  it('a post the departed key forges in the newcomer’s name is talk_forged, naming the departed player; honest seats are never named', () => {
    const forged = write('nia', 'table', 9, 70_000, 'France will attack Austria.', { as: 'france' });
    for (const me of ['austria', 'england', null] as const) {
      const f = refused(readerFor(me, () => HANDED).read(forged));
      expect(f).toMatchObject({ code: 'talk_forged', player: 'france', provable: true });
    }
    // And the newcomer's key writing in the departed player's name names the newcomer, not France.
    const other = write('france', 'table', 10, 40_000, 'forged by nia', { as: 'nia' });
    expect(refused(readerFor('austria', () => HANDED).read(other))).toMatchObject({ code: 'talk_forged', player: 'nia' });
    // A whole honest exchange names nobody.
    const reader = readerFor('england', () => HANDED);
    const honest = [
      write('austria', 'table', 1, 10_000, 'hello'),
      write('france', 'table', 2, 20_000, 'bye for now'),
      write('nia', 'table', 3, 60_000, 'hi all'),
      write('england', ['nia'], 4, 61_000, 'private hi'),
      write('nia', ['england', 'austria'], 5, 62_000, 'to you both'),
    ];
    for (const m of honest) expect(reader.read(m).kind).toBe('shown');
  });

  it('talkingSeats: the setup and the newcomers, less the departed', () => {
    expect(talkingSeats(players, HANDED).map((p) => p.id)).toEqual(['austria', 'england', 'nia']);
    expect(talkingSeats(players, PROPOSED).map((p) => p.id)).toEqual(['austria', 'england', 'france', 'nia']);
  });

  it('newcomersOfLog: the authors a log’s newcomer lines introduced, with their keys, and none from a line the log does not accept', () => {
    const setupLine = envelopeLine(
      createSetupEnvelope({ protocol: 'beacon', game: null, params: {}, players, nonce: '00'.repeat(32), created: 0 }, 'austria', keys.austria!),
    );
    const door = new Door(setupLine);
    const log = [setupLine];
    const line = (from: string, key: KeyPair, body: Body): string => {
      const pos = door.checker.authorPosition(from) ?? { count: 0, lastHash: door.checker.gameId };
      const at = log.length;
      const env = {
        v: 1 as const,
        game: door.checker.gameId,
        from,
        seq: pos.count,
        prev: pos.lastHash,
        at,
        head: door.checker.hashOfLine(at - 1)!,
        time: at,
        body,
      };
      return envelopeLine(signEnvelope(env, key.secretKey));
    };
    const introduce = { type: 'newcomer', power: 'france', newcomer: { id: 'nia', key: nia.key, name: 'Nia' } };
    expect(newcomersOfLog(log)).toEqual([]);
    // A newcomer line whose signature is not its author's introduces nobody (a checking orderer refuses it).
    const tampered = line('england', keys.england!, introduce).replace(/"sig":"(..)/, (_, h: string) => `"sig":"${h === '00' ? '11' : '00'}`);
    expect(newcomersOfLog([...log, tampered])).toEqual([]);
    const text = line('england', keys.england!, introduce);
    expect(door.admit(text, 'england')).toMatchObject({ ok: true });
    log.push(text);
    expect(newcomersOfLog(log)).toEqual([nia]);
  });
});
