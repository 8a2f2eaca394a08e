import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, fromHex, toHex } from '../bytes.js';
import { generateKeyPair, sign } from '../identity.js';
import { canonicalBytes, canonicalize } from '../jcs.js';
import { domainPrefix } from '../hash.js';
import type { PlayerEntry } from '../setup.js';
import { offerError, offeredSetup, setupDifferences } from '../lobby.js';
import {
  checkDisclosure,
  macKey,
  parseTalk,
  pressRulesOf,
  talkSigningBytes,
  TalkReader,
  talkText,
  unwrapContentKey,
  writeOwnTalk,
  writeTalk,
  type PressMode,
  type PressRules,
  type TalkDraft,
  type TalkMessage,
  type TalkRead,
} from './index.js';

const GAME = 'ab'.repeat(32);
const OTHER_GAME = 'cd'.repeat(32);
const seats = ['austria', 'england', 'france', 'germany'] as const;
const keys = Object.fromEntries(seats.map((id, i) => [id, generateKeyPair(new Uint8Array(32).fill(i + 1))]));
const players: PlayerEntry[] = seats.map((id) => ({ id, key: toHex(keys[id]!.publicKey) }));
const outsider = generateKeyPair(new Uint8Array(32).fill(99));

let counter = 0;
const random = (n: number): Uint8Array => {
  counter++;
  return new Uint8Array(n).map((_, i) => (counter * 31 + i * 7) & 255);
};

const FULL_SIGNED: PressRules = { rule: 'full', mode: 'signed' };
const FULL_DENIABLE: PressRules = { rule: 'full', mode: 'deniable' };

function write(from: string, to: TalkDraft['to'], seq: number, body: string, mode: PressMode = 'signed'): TalkMessage {
  return writeTalk({ game: GAME, from, to, seq, at: 1_000 * seq, body }, { mode, secretKey: keys[from]!.secretKey, players, random });
}

const readerFor = (id: string | null, rules: PressRules = FULL_SIGNED): TalkReader =>
  new TalkReader({ game: GAME, players, rules, ...(id === null ? {} : { me: { id, secretKey: keys[id]!.secretKey } }) });

function shown(r: TalkRead) {
  if (r.kind !== 'shown') throw new Error(`expected shown, got ${JSON.stringify(r)}`);
  return r.talk;
}
function refused(r: TalkRead) {
  if (r.kind !== 'refused') throw new Error(`expected refused, got ${r.kind}`);
  return r.finding;
}

/** Re-signs a tampered message as its author would (for cheats the author commits). */
function resign(m: TalkMessage, secretKey: Uint8Array): TalkMessage {
  return { ...m, sig: toHex(sign(talkSigningBytes(m), secretKey)) };
}

describe('press rules', () => {
  it('a lobby offer carries them into the setup, and a setup that changes them differs from the offer', () => {
    const offer = { protocol: 'diplomacy', rounds: 1, states: 3, timeoutMs: 60_000, press: { rule: 'full', mode: 'deniable' } } as const;
    expect(offerError(offer)).toBeNull();
    const made = offeredSetup(offer, 2);
    expect(made.params.press).toEqual({ rule: 'full', mode: 'deniable' });
    expect(offerError({ ...offer, press: { rule: 'loud', mode: 'signed' } })).not.toBeNull();
    const setup = { ...made, players, nonce: '00'.repeat(32), created: 0, params: { ...made.params, press: { rule: 'public', mode: 'deniable' } } };
    expect(setupDifferences(setup, offer, players, null).join(' ')).toMatch(/the press rules is/);
    expect(setupDifferences({ ...setup, params: made.params }, offer, players, null)).toEqual([]);
    // no press member: table chat, and the setup has no params.press
    expect(offeredSetup({ ...offer, press: undefined } as never, 2).params.press).toBeUndefined();
  });

  it('defaults to table chat, signed, and refuses what is not press rules', () => {
    expect(pressRulesOf({})).toEqual({ rule: 'public', mode: 'signed' });
    expect(pressRulesOf({ press: { rule: 'full', mode: 'deniable' } })).toEqual(FULL_DENIABLE);
    expect(pressRulesOf({ press: { rule: 'gossip', mode: 'signed' } })).toBeNull();
  });
});

describe('talk, signed', () => {
  it('a message to the table is shown to every seat and observer, signed', () => {
    const m = write('austria', 'table', 1, 'Peace in the Balkans?');
    for (const id of [...seats, null]) {
      const t = shown(readerFor(id).read(talkText(m)));
      expect(t).toMatchObject({ from: 'austria', body: 'Peace in the Balkans?', proof: 'signed', private: false });
    }
  });

  it('a private message opens for its recipients and its author only, and the relay sees from, to, when and length', () => {
    const m = write('england', ['france'], 1, 'Channel stays empty.');
    expect(talkText(m)).not.toContain('Channel');
    expect(shown(readerFor('france').read(talkText(m))).body).toBe('Channel stays empty.');
    expect(shown(readerFor('england').read(talkText(m))).body).toBe('Channel stays empty.');
    for (const id of ['germany', 'austria', null]) expect(shown(readerFor(id).read(talkText(m))).body).toBeNull();
  });

  it('a recipient can show a third party what was said; a wrong key proves nothing', () => {
    const m = write('england', ['france', 'germany'], 3, 'I will support you into Belgium.');
    const contentKey = toHex(unwrapContentKey(m, 'france', keys.france!.secretKey));
    const proof = checkDisclosure(m, contentKey, keys.england!.publicKey);
    expect(proof).toEqual({ signedByAuthor: true, opened: { ok: true, body: 'I will support you into Belgium.', innerSig: expect.any(String) } });
    expect(checkDisclosure(m, '00'.repeat(32), keys.england!.publicKey).opened.ok).toBe(false);
    expect(checkDisclosure(m, contentKey, keys.france!.publicKey).signedByAuthor).toBe(false);
  });

  it('a forged signature names nobody', () => {
    const honest = write('austria', 'table', 1, 'hello');
    const forged = { ...honest, body: 'I attack Venice' };
    const f = refused(readerFor('germany').read(talkText(forged)));
    expect(f).toMatchObject({ code: 'talk_bad_signature', player: null });
    // a signature by another seat's key on austria's name: only germany could have made it, so germany is named
    const wrongAuthor = resign({ ...forged, sig: undefined } as unknown as TalkMessage, keys.germany!.secretKey);
    expect(refused(readerFor('france').read(talkText(wrongAuthor)))).toMatchObject({ code: 'talk_forged', player: 'germany', provable: true });
    // ...and never austria, whose name it bears
    expect(refused(readerFor('austria').read(talkText(wrongAuthor))).player).toBe('germany');
  });

  it('an author who is not seated, or a message for another game, names nobody', () => {
    const m = write('austria', 'table', 1, 'hi');
    const stranger = resign({ ...m, from: 'italy' }, outsider.secretKey);
    expect(refused(readerFor('france').read(talkText(stranger)))).toMatchObject({ code: 'talk_unknown_author', player: null });
    const elsewhere = writeTalk(
      { game: OTHER_GAME, from: 'austria', to: 'table', seq: 1, at: 0, body: 'hi' },
      { mode: 'signed', secretKey: keys.austria!.secretKey, players, random },
    );
    expect(refused(readerFor('france').read(talkText(elsewhere)))).toMatchObject({ code: 'talk_wrong_game', player: null });
  });

  it("an author cannot write with another seat's key, even one whose bytes changed after a first message", () => {
    const secretKey = keys.austria!.secretKey.slice();
    const o = { mode: 'signed' as const, secretKey, players, random };
    writeTalk({ game: GAME, from: 'austria', to: 'table', seq: 1, at: 0, body: 'mine' }, o);
    expect(() => writeTalk({ game: GAME, from: 'england', to: 'table', seq: 1, at: 0, body: 'not mine' }, o)).toThrow(/not england's/);
    secretKey.set(keys.england!.secretKey);
    expect(() => writeTalk({ game: GAME, from: 'austria', to: 'table', seq: 2, at: 0, body: 'not mine' }, o)).toThrow(/not austria's/);
    const m = writeTalk({ game: GAME, from: 'england', to: 'table', seq: 2, at: 0, body: 'now mine' }, o);
    expect(readerFor('france').read(talkText(m))).toMatchObject({ kind: 'shown', talk: { from: 'england', proof: 'signed' } });
  });

  it('a replay is dropped and names nobody; two different messages with one seq name their author with both', () => {
    const reader = readerFor('france');
    const first = write('germany', 'table', 5, 'We are friends.');
    shown(reader.read(talkText(first)));
    expect(reader.read(talkText(first))).toEqual({ kind: 'duplicate' });
    const second = write('germany', 'table', 5, 'We were never friends.');
    const f = refused(reader.read(talkText(second)));
    expect(f).toMatchObject({ code: 'talk_equivocation', player: 'germany', provable: true });
    expect(f.evidence).toEqual([first, second]);
    // the next seq is fine
    shown(reader.read(talkText(write('germany', 'table', 6, 'Well then.'))));
  });

  it('press the game forbids is refused by every reader, naming its author', () => {
    const priv = write('austria', ['germany'], 1, 'secret');
    for (const id of ['germany', 'france', null]) {
      expect(refused(readerFor(id, { rule: 'public', mode: 'signed' }).read(talkText(priv)))).toMatchObject({ code: 'talk_rule', player: 'austria' });
    }
    const pub = write('austria', 'table', 2, 'hello');
    expect(refused(readerFor('france', { rule: 'none', mode: 'signed' }).read(talkText(pub)))).toMatchObject({ code: 'talk_rule', player: 'austria' });
    // a signed message in a deniable game makes it provable: refused, and the signature names its author
    expect(refused(readerFor('france', FULL_DENIABLE).read(talkText(pub)))).toMatchObject({ code: 'talk_rule', player: 'austria' });
  });

  it('a private message to someone not seated names its author', () => {
    const m = write('austria', ['germany'], 1, 'x');
    const bad = resign({ ...m, to: ['germany', 'italy'] }, keys.austria!.secretKey);
    expect(refused(readerFor('france').read(talkText(bad)))).toMatchObject({ code: 'talk_bad_recipients', player: 'austria' });
  });

  it('a box that does not open for a recipient is a flag naming nobody; a box that opens to no message names its author, provably', () => {
    const m = write('austria', ['france', 'germany'], 1, 'real');
    // austria spoils france's wrap and signs the result: only france can see that it does not open
    const spoiled = resign({ ...m, sealed: { ...m.sealed!, wraps: { ...m.sealed!.wraps, france: m.sealed!.wraps.germany! } } }, keys.austria!.secretKey);
    expect(refused(readerFor('france').read(talkText(spoiled)))).toMatchObject({ code: 'talk_unreadable', player: null });
    expect(shown(readerFor('germany').read(talkText(spoiled))).body).toBe('real');

    // austria seals, under the key it commits to, a body without its inner signature
    const cheat = write('austria', ['france'], 2, 'placeholder');
    const contentKey = unwrapContentKey(cheat, 'france', keys.france!.secretKey);
    const box = toHex(chacha20poly1305(contentKey, new Uint8Array(12)).encrypt(canonicalBytes({ body: 'unsigned words', sig: '00'.repeat(64) })));
    const bad = resign({ ...cheat, sealed: { ...cheat.sealed!, box } }, keys.austria!.secretKey);
    const f = refused(readerFor('france').read(talkText(bad)));
    expect(f).toMatchObject({ code: 'talk_bad_box', player: 'austria', provable: true });
    // a third party checks it from the evidence alone
    const disclosed = f.evidence[1] as { contentKey: string };
    const check = checkDisclosure(bad, disclosed.contentKey, keys.austria!.publicKey);
    expect(check.signedByAuthor).toBe(true);
    expect(check.opened.ok).toBe(false);
  });

  it('the author cannot be framed: a recipient that lies about a box gets nowhere with a third party', () => {
    const m = write('austria', ['france'], 1, 'honest words');
    // france claims some key opens the box to something else: the key does not match the committed hash
    const liar = checkDisclosure(m, toHex(new Uint8Array(32).fill(7)), keys.austria!.publicKey);
    expect(liar.signedByAuthor).toBe(true);
    expect(liar.opened).toMatchObject({ ok: false, reason: 'the key is not the message’s content key' });
  });

  it('honest players are never named in an honest conversation, whatever the relay drops, repeats or reorders', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 11 }), { minLength: 1, maxLength: 30 }), (order) => {
        const log: TalkMessage[] = [];
        const seq = new Map<string, number>();
        for (let i = 0; i < 12; i++) {
          const from = seats[i % 4]!;
          const n = (seq.get(from) ?? 0) + 1;
          seq.set(from, n);
          log.push(write(from, i % 3 === 0 ? 'table' : [seats[(i + 1) % 4]!], n, `message ${i}`));
        }
        for (const id of [...seats, null]) {
          const r = readerFor(id);
          for (const k of order) {
            const got = r.read(talkText(log[k]!));
            if (got.kind === 'refused') return false;
          }
        }
        return true;
      }),
      { numRuns: 20 },
    );
  });

  it('any change to a signed message fails verification', () => {
    const m = write('austria', ['france'], 1, 'Let us split the Balkans.');
    const text = talkText(m);
    fc.assert(
      fc.property(fc.nat({ max: text.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, delta) => {
        const chars = [...text];
        const c = chars[at]!.charCodeAt(0);
        chars[at] = String.fromCharCode((c + delta) % 128 || 1);
        const tampered = chars.join('');
        if (tampered === text) return true;
        const r = readerFor('france').read(tampered);
        return r.kind === 'refused' && r.finding.player === null;
      }),
      { numRuns: 200 },
    );
  });
});

describe("an author's own messages read back", () => {
  const draft = (to: TalkDraft['to'], seq: number, body: string): TalkDraft => ({ game: GAME, from: 'austria', to, seq, at: 1_000 * seq, body });
  const writeOwn = (to: TalkDraft['to'], seq: number, body: string, mode: PressMode = 'signed') =>
    writeOwnTalk(draft(to, seq, body), { mode, secretKey: keys.austria!.secretKey, players, random });

  it('reads its very text as a reader without the note does, public and sealed, signed and deniable', () => {
    for (const mode of ['signed', 'deniable'] as const) {
      const rules: PressRules = { rule: 'full', mode };
      const cases: [number, TalkDraft['to']][] = [
        [1, 'table'],
        [2, ['france']],
        [3, ['england', 'germany']],
      ];
      for (const [seq, to] of cases) {
        const w = writeOwn(to, seq, `message ${seq}, ${mode}`, mode);
        expect(w.contentKey === null).toBe(to === 'table');
        const noted = readerFor('austria', rules);
        noted.wrote(w);
        const fast = shown(noted.read(talkText(w.message)));
        const full = shown(readerFor('austria', rules).read(talkText(w.message)));
        expect(fast).toEqual(full);
        expect(fast.body).toBe(`message ${seq}, ${mode}`);
        // Read back once only: the same text again is a duplicate, as for any reader.
        expect(noted.read(talkText(w.message)).kind).toBe('duplicate');
      }
    }
  });

  it('reads in full a text that differs from what was written, and ignores a note from another seat or an observer', () => {
    const w = writeOwn(['france'], 4, 'Hold Galicia.');
    const forged = { ...w.message, sig: toHex(sign(talkSigningBytes(w.message), keys.england!.secretKey)) };
    const noted = readerFor('austria');
    // A note of a message writeOwnTalk did not make (here one signed by england in austria's name) is ignored.
    noted.wrote({ ...w, message: forged });
    expect(refused(noted.read(talkText(forged)))).toMatchObject({ code: 'talk_forged', player: 'england' });
    const reader = readerFor('austria');
    reader.wrote(w);
    const tampered = talkText({ ...w.message, at: w.message.at + 1 });
    expect(refused(reader.read(tampered))).toMatchObject({ code: 'talk_bad_signature', player: null });
    const france = readerFor('france');
    france.wrote(w);
    expect(shown(france.read(talkText(w.message))).body).toBe('Hold Galicia.');
    const observer = readerFor(null);
    observer.wrote(w);
    expect(shown(observer.read(talkText(w.message))).body).toBeNull();
  });
});

describe('talk, deniable', () => {
  it('each recipient knows the author; nobody else can tell, and nothing in it is a signature', () => {
    const m = write('england', ['france'], 1, 'Let us talk.', 'deniable');
    expect(m.sig).toBeUndefined();
    expect(shown(readerFor('france', FULL_DENIABLE).read(talkText(m)))).toMatchObject({ body: 'Let us talk.', proof: 'deniable' });
    expect(shown(readerFor('england', FULL_DENIABLE).read(talkText(m)))).toMatchObject({ body: 'Let us talk.', proof: 'deniable' });
    expect(shown(readerFor('germany', FULL_DENIABLE).read(talkText(m)))).toMatchObject({ body: null, proof: 'unverified' });
    const pub = write('england', 'table', 2, 'Hello all.', 'deniable');
    expect(shown(readerFor('austria', FULL_DENIABLE).read(talkText(pub)))).toMatchObject({ proof: 'deniable' });
    expect(shown(readerFor(null, FULL_DENIABLE).read(talkText(pub)))).toMatchObject({ proof: 'unverified', body: 'Hello all.' });
  });

  it('a recipient can make the same MAC itself, so its copy proves nothing to a third party', () => {
    const m = write('england', ['france'], 1, 'original', 'deniable');
    // france writes a message "from england" that france's own reader accepts: exactly why it convinces nobody else
    const forgedByFrance = writeFromRecipient(m, 'france', 'something england never said');
    expect(shown(readerFor('france', FULL_DENIABLE).read(talkText(forgedByFrance)))).toMatchObject({ proof: 'deniable', body: 'something england never said' });
  });

  it('a forged MAC names nobody', () => {
    const m = write('england', ['france'], 1, 'hi', 'deniable');
    const forged = { ...m, macs: { france: '00'.repeat(32) } };
    expect(refused(readerFor('france', FULL_DENIABLE).read(talkText(forged)))).toMatchObject({ code: 'talk_bad_mac', player: null });
  });

  it("a MAC another seat made, on a message in the author's name, names that seat to the reader only", () => {
    const m = write('germany', 'table', 5, 'England will attack you.', 'deniable');
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    const { macs, ...rest } = { ...m, from: 'england' };
    const mac = toHex(hmac(sha256, macKey(keys.germany!.secretKey, keys.france!.publicKey, GAME), concatBytes(domainPrefix('talk-mac'), canonicalBytes(rest))));
    const forged = { ...rest, macs: { france: mac } };
    expect(refused(readerFor('france', FULL_DENIABLE).read(talkText(forged)))).toMatchObject({ code: 'talk_forged', player: 'germany', provable: false });
  });

  it('equivocation is named to the reader, marked as not provable', () => {
    const reader = readerFor('france', FULL_DENIABLE);
    shown(reader.read(talkText(write('england', ['france'], 4, 'A', 'deniable'))));
    expect(refused(reader.read(talkText(write('england', ['france'], 4, 'B', 'deniable'))))).toMatchObject({
      code: 'talk_equivocation',
      player: 'england',
      provable: false,
    });
  });
});

describe('talk encoding', () => {
  it('refuses malformed messages naming nobody', () => {
    for (const text of ['{', '[]', '{"game":1}', canonicalize({ ...write('austria', 'table', 1, 'x'), extra: 1 })]) {
      expect(refused(readerFor('france').read(text))).toMatchObject({ code: 'talk_malformed', player: null });
    }
    const m = write('austria', ['france', 'germany'], 1, 'x');
    expect(() => parseTalk(canonicalize({ ...m, to: ['germany', 'france'] }))).toThrow(/sorted/);
  });

  it('the signature is over the domain-separated canonical message without sig', () => {
    const m = write('austria', 'table', 1, 'x');
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    const { sig, ...unsigned } = m;
    expect(toHex(talkSigningBytes(m))).toBe(toHex(concatBytes(domainPrefix('talk'), canonicalBytes(unsigned))));
    expect(fromHex(m.sig!).length).toBe(64);
  });
});

/** What a recipient can make on its own in a deniable game: a message from the author with a MAC for itself. */
function writeFromRecipient(m: TalkMessage, recipient: string, body: string): TalkMessage {
  const contentKey = unwrapContentKey(m, recipient, keys[recipient]!.secretKey);
  const box = toHex(chacha20poly1305(contentKey, new Uint8Array(12)).encrypt(canonicalBytes({ body })));
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { macs, ...rest } = { ...m, sealed: { ...m.sealed!, box } };
  const key = macKey(keys[recipient]!.secretKey, keys[m.from]!.publicKey, m.game);
  const mac = toHex(hmac(sha256, key, concatBytes(domainPrefix('talk-mac'), canonicalBytes(rest))));
  return { ...rest, macs: { [recipient]: mac } };
}
