/**
 * Talk by a newcomer (docs/spec/press.md §10): the relay takes a newcomer's press from the `newcomer` line
 * that made it an author of the log (SPEC §4.6) on, public and sealed to it; every reader, given the roster
 * the log makes, reads it, opens what is sealed to it, refuses a departed player's press from the hand-over on
 * naming nobody, and names the departed key for a post it forged in the newcomer's name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair, sign } from '@fairtable/core/identity.js';
import { newcomersOfLog, TalkReader, talkSigningBytes, talkText, writeTalk, type TalkMessage, type TalkRoster } from '@fairtable/core/press/index.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { TableTalk } from '@fairtable/client';
import { createRegistry } from '@fairtable/core/registry.js';
import type { Machine } from '@fairtable/core/protocols/machine.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { createGame, diceGame, testRelays, WireClient, type TestGame } from './test-helpers.js';

/**
 * A machine that hands a seat over when a line says so: `{type: "seat", player, replaces}` emits the
 * `newcomer-seated` event Diplomacy's machine emits (diplomacy.md §10.15), which is all the relay reads.
 */
const handoverMachine: Machine<null> = {
  protocol: 'handover-test',
  decision: () => null,
  decide: () => {
    throw new Error('nothing to decide');
  },
  init: () => ({ state: null, out: [], events: [], violations: [] }),
  step: (_, msg) => {
    const b = msg.envelope.body as { type: string; player?: string; replaces?: string };
    const events =
      b.type === 'seat' && b.player !== undefined && b.replaces !== undefined ? [{ type: 'newcomer-seated', player: b.player, replaces: b.replaces }] : [];
    return { state: null, out: [], events, violations: [] };
  },
  tick: () => ({ state: null, out: [], events: [], violations: [] }),
  outcome: () => null,
  penalize: () => ({ state: null, out: [], events: [], violations: [] }),
};
const talkRegistry = createRegistry({ machines: [handoverMachine] });

function handoverGame(): TestGame {
  const ids = ['p0', 'p1', 'p2'];
  const keys = ids.map((_, i) => generateKeyPair(new Uint8Array(32).fill(120 + i)));
  const setup: GameSetup = {
    protocol: 'handover-test',
    game: null,
    params: { press: { rule: 'full', mode: 'signed' } },
    players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
    nonce: toHex(new Uint8Array(32).fill(3)),
    created: Date.now(),
  };
  return { id: gameIdOf(setup), setupLine: envelopeLine(createSetupEnvelope(setup, 'p0', keys[0]!)), ids, keys };
}

const { relay, closeAll } = testRelays();
afterEach(closeAll);

const nia = generateKeyPair(new Uint8Array(32).fill(77));
const niaEntry = { id: 'nia', key: toHex(nia.publicKey) };
let n = 0;
const random = (k: number): Uint8Array => new Uint8Array(k).map((_, i) => (++n * 13 + i) & 255);
const post = async (url: string, game: string, text: string) => {
  const res = await fetch(`${url}/games/${game}/talk`, { method: 'POST', body: text });
  return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
};
const transcript = async (url: string, game: string): Promise<string[]> =>
  (await (await fetch(`${url}/games/${game}/transcript`)).text()).split('\n').filter((l) => l !== '');
const talkPage = async (url: string, game: string) =>
  ((await (await fetch(`${url}/games/${game}/talk?from=0`)).json()) as { talk: { index: number; at: number; text: string }[] }).talk;

describe('talk by a newcomer on the relay', () => {
  it('refuses the newcomer before its newcomer line, then keeps its public and private press and press sealed to it; readers check it all', async () => {
    const r = await relay();
    const g = diceGame(3, 4, 2, true);
    const players = g.ids.map((id, i) => ({ id, key: toHex(g.keys[i]!.publicKey) }));
    await createGame(r.url, g.setupLine);
    const params = { timeoutMs: 60_000, rounds: 2, press: { rule: 'full', mode: 'signed' } };
    const write = (from: string, secretKey: Uint8Array, to: TalkMessage['to'], seq: number, body: string, at = Date.now()) =>
      writeTalk({ game: g.id, from, to, seq, at, body }, { mode: 'signed', secretKey, players: [...players, niaEntry], random });

    // Before any newcomer line, nia is no author of the game: its press is not kept.
    expect(await post(r.url, g.id, talkText(write('nia', nia.secretKey, 'table', 1, 'too early')))).toMatchObject({
      status: 400,
      body: { error: { code: 'bad_message' } },
    });
    expect(await post(r.url, g.id, talkText(write('p0', g.keys[0]!.secretKey, ['nia'], 1, 'to nobody yet')))).toMatchObject({ status: 400 });

    // p0 writes the newcomer line (the envelope layer reads its id and key).
    const p0 = await WireClient.join(r.url, g, 0);
    const setupHash = envelopeHash(JSON.parse(g.setupLine) as Envelope);
    const intro = signEnvelope(
      { v: 1, game: g.id, from: 'p0', seq: 1, prev: setupHash, at: 1, head: setupHash, time: 5, body: { type: 'newcomer', power: 'x', newcomer: niaEntry } },
      g.keys[0]!.secretKey,
      nativeSign,
    );
    p0.send({ kind: 'submit', text: envelopeLine(intro) });
    expect((await p0.next('entry')).line).toBe(1);
    p0.ws.close();

    // The roster every reader takes from the log: nia with the key its line gave it.
    const log = await transcript(r.url, g.id);
    expect(newcomersOfLog(log)).toEqual([niaEntry]);
    let roster: TalkRoster = { newcomers: newcomersOfLog(log), departed: [] };
    const niaTalk = new TableTalk({ relayUrl: r.url, gameId: g.id, players, params, roster: () => roster, me: { id: 'nia', secretKey: nia.secretKey } });
    const p1Talk = new TableTalk({ relayUrl: r.url, gameId: g.id, players, params, roster: () => roster, me: { id: 'p1', secretKey: g.keys[1]!.secretKey } });
    expect(niaTalk.seats.map((p) => p.id)).toEqual(['p0', 'p1', 'p2', 'nia']);

    await niaTalk.send('table', 'Nia here: I play x now.');
    await niaTalk.send(['p1'], 'p1, shall we?');
    await p1Talk.send(['nia'], 'Yes. Welcome.');
    await niaTalk.load();
    await p1Talk.load();
    const bodies = (t: TableTalk) => t.entries.map((e) => (e.kind === 'shown' ? `${e.talk.from}: ${e.talk.body ?? '[sealed]'}` : e.finding.code));
    expect(bodies(niaTalk)).toEqual(['nia: Nia here: I play x now.', 'nia: p1, shall we?', 'p1: Yes. Welcome.']);
    expect(bodies(p1Talk)).toEqual(['nia: Nia here: I play x now.', 'nia: p1, shall we?', 'p1: Yes. Welcome.']);
    // p2 is not among the readers of either private message.
    const p2 = new TableTalk({ relayUrl: r.url, gameId: g.id, players, params, roster: () => roster, me: { id: 'p2', secretKey: g.keys[2]!.secretKey } });
    await p2.load();
    expect(bodies(p2)).toEqual(['nia: Nia here: I play x now.', 'nia: [sealed]', 'p1: [sealed]']);
    // The relay stores the private body sealed.
    expect((await talkPage(r.url, g.id)).map((t) => t.text).join('\n')).not.toContain('Welcome');

    // The hand-over takes effect: nia holds p2's power from now on. p2's earlier press stays its own.
    const before = write('p2', g.keys[2]!.secretKey, 'table', 1, 'I may be away for a while.', Date.now() - 60_000);
    expect((await post(r.url, g.id, talkText(before))).status).toBe(201);
    roster = { newcomers: [niaEntry], departed: [{ id: 'p2', by: 'nia', line: 7, at: Date.now() - 1_000 }] };
    expect(niaTalk.seats.map((p) => p.id)).toEqual(['p0', 'p1', 'nia']);
    // The departed seat's own client writes no more, nor is written to.
    await expect(p2.send('table', 'still here')).rejects.toThrow(/writes no more press/);
    await expect(p1Talk.send(['p2'], 'hello?')).rejects.toThrow(/not a seat that reads press now: p2/);
    // A post of the departed key after the hand-over (the relay does not know the hand-over: it keeps it), and
    // one it forged in nia's name: every reader refuses both, naming nobody for the first and p2 for the forgery.
    const after = write('p2', g.keys[2]!.secretKey, 'table', 2, 'I still speak for x!');
    const niaForm = write('p2', g.keys[2]!.secretKey, 'table', 3, 'Nia: I will attack p1.');
    const forged = { ...niaForm, from: 'nia' };
    const forgedSigned = { ...forged, sig: toHex(sign(talkSigningBytes(forged), g.keys[2]!.secretKey)) };
    expect((await post(r.url, g.id, talkText(after))).status).toBe(201);
    expect((await post(r.url, g.id, talkText(forgedSigned))).status).toBe(201);

    const page = await talkPage(r.url, g.id);
    for (const me of [null, 0, 1] as const) {
      const reader = new TalkReader({
        game: g.id,
        players,
        rules: { rule: 'full', mode: 'signed' },
        roster: () => roster,
        ...(me === null ? {} : { me: { id: g.ids[me]!, secretKey: g.keys[me]!.secretKey } }),
      });
      const reads = page.map((t) => reader.read(t.text));
      const named = reads.flatMap((x) => (x.kind === 'refused' ? [[x.finding.code, x.finding.player]] : []));
      expect(named).toEqual([
        ['talk_departed', null],
        ['talk_forged', 'p2'],
      ]);
      expect(reads[3]).toMatchObject({ kind: 'shown', talk: { from: 'p2', body: 'I may be away for a while.' } });
    }
    // Honest seats are never named: the only player named anywhere above is p2, for its forgery.
  });

  it('refuses the departed key after the hand-over its machine reads in the log, and private press sealed to it; admits the newcomer', async () => {
    const g = handoverGame();
    const players = g.ids.map((id, i) => ({ id, key: toHex(g.keys[i]!.publicKey) }));
    const write = (from: string, secretKey: Uint8Array, to: TalkMessage['to'], seq: number, body: string) =>
      writeTalk({ game: g.id, from, to, seq, at: Date.now(), body }, { mode: 'signed', secretKey, players: [...players, niaEntry], random });
    const code = (x: { body: { error?: { code: string } } }) => x.body.error?.code;
    const withMachine = await relay({ talkRegistry });
    const without = await relay();
    for (const r of [withMachine, without]) {
      await createGame(r.url, g.setupLine);
      const p0 = await WireClient.join(r.url, g, 0);
      const setupHash = envelopeHash(JSON.parse(g.setupLine) as Envelope);
      const line = (seq: number, prev: string, at: number, head: string, body: Envelope['body']) =>
        signEnvelope({ v: 1, game: g.id, from: 'p0', seq, prev, at, head, time: 5, body }, g.keys[0]!.secretKey, nativeSign);
      const intro = line(1, setupHash, 1, setupHash, { type: 'newcomer', power: 'x', newcomer: niaEntry });
      p0.send({ kind: 'submit', text: envelopeLine(intro) });
      expect((await p0.next('entry')).line).toBe(1);
      // Before the hand-over, p2 writes and is written to.
      expect((await post(r.url, g.id, talkText(write('p2', g.keys[2]!.secretKey, 'table', 1, 'still here')))).status).toBe(201);
      const seat = line(2, envelopeHash(intro), 2, envelopeHash(intro), { type: 'seat', player: 'nia', replaces: 'p2' });
      p0.send({ kind: 'submit', text: envelopeLine(seat) });
      expect((await p0.next('entry')).line).toBe(2);
      p0.ws.close();
      const late = await post(r.url, g.id, talkText(write('p2', g.keys[2]!.secretKey, 'table', 2, 'I still speak for x')));
      const toP2 = await post(r.url, g.id, talkText(write('p1', g.keys[1]!.secretKey, ['p2'], 3, 'are you there?')));
      const fromNia = await post(r.url, g.id, talkText(write('nia', nia.secretKey, ['p1'], 4, 'I hold x now')));
      expect(fromNia.status).toBe(201);
      if (r === withMachine) {
        expect([late.status, code(late)]).toEqual([403, 'talk_departed']);
        expect([toP2.status, code(toP2)]).toEqual([403, 'talk_departed']);
        const page = await talkPage(r.url, g.id);
        expect(page.map((t) => (JSON.parse(t.text) as TalkMessage).from)).toEqual(['p2', 'nia']);
      } else {
        // A relay without the game's machine sees no hand-over: it keeps both, and readers refuse the first (press.md §10).
        expect([late.status, toP2.status]).toEqual([201, 201]);
      }
    }
  });
});
