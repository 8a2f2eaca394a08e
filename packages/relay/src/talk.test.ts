/**
 * Table talk on the relay (docs/spec/press.md §6): messages kept beside the log and never in it, pushed to the
 * game's connections, read back from an index; shape, size, rates and caps checked; nothing else trusted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { TalkReader, talkText, writeTalk, type TalkMessage } from '@fairtable/core/press/index.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { joinGame, TableTalk } from '@fairtable/client';
import { WebSocket } from 'ws';
import { createGame, diceGame, testRelays, until, WireClient, type TestGame } from './test-helpers.js';

const { relay, directory, closeAll } = testRelays();
afterEach(closeAll);

let n = 0;
const random = (k: number): Uint8Array => new Uint8Array(k).map((_, i) => (++n * 13 + i) & 255);
/** A dice game whose setup allows full press. */
function pressGame(n: number): TestGame {
  const ids = Array.from({ length: n }, (_, i) => `p${i}`);
  const keys = ids.map((_, i) => generateKeyPair(new Uint8Array(32).fill(200 + i)));
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params: { timeoutMs: 60_000, rounds: 2, press: { rule: 'full', mode: 'signed' } },
    players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
    nonce: toHex(new Uint8Array(32).fill(9)),
    created: Date.now(),
  };
  return { id: gameIdOf(setup), setupLine: envelopeLine(createSetupEnvelope(setup, ids[0]!, keys[0]!)), ids, keys };
}

const players = (g: TestGame) => g.ids.map((id, i) => ({ id, key: Buffer.from(g.keys[i]!.publicKey).toString('hex') }));

function talk(g: TestGame, from: number, to: TalkMessage['to'], seq: number, body: string): TalkMessage {
  return writeTalk(
    { game: g.id, from: g.ids[from]!, to, seq, at: Date.now(), body },
    { mode: 'signed', secretKey: g.keys[from]!.secretKey, players: players(g), random },
  );
}

const post = async (url: string, game: string, text: string) => {
  const res = await fetch(`${url}/games/${game}/talk`, { method: 'POST', body: text });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('talk on the relay', () => {
  it('keeps messages beside the log, pushes them to connections with a hello, and reads them back from an index', async () => {
    const r = await relay();
    const g = pressGame(3);
    await createGame(r.url, g.setupLine);
    const p1 = await WireClient.join(r.url, g, 1);
    const stranger = await WireClient.open(r.url, g.id);
    const pub = talk(g, 0, 'table', 1, 'Good luck, all.');
    const priv = talk(g, 0, ['p2'], 2, 'Between us: I roll last.');
    expect(await post(r.url, g.id, talkText(pub))).toMatchObject({ status: 201, body: { index: 0 } });
    expect(await post(r.url, g.id, talkText(priv))).toMatchObject({ status: 201, body: { index: 1 } });
    const pushed = await p1.next('talk');
    expect(pushed).toMatchObject({ kind: 'talk', index: 0, text: talkText(pub) });
    expect(await p1.next('talk')).toMatchObject({ index: 1, text: talkText(priv) });
    // a connection without a hello gets nothing
    await new Promise((res) => setTimeout(res, 100));
    expect(stranger.messages.filter((m) => m.kind === 'talk')).toEqual([]);
    // not in the transcript
    const transcript = (await (await fetch(`${r.url}/games/${g.id}/transcript`)).text()).trim().split('\n');
    expect(transcript.length).toBe(1);
    expect(transcript.join('\n')).not.toContain('Good luck');
    // read back; the private body is not there in clear, and p2 opens it, p1 does not
    const page = (await (await fetch(`${r.url}/games/${g.id}/talk?from=0`)).json()) as { talk: { index: number; text: string; at: number }[]; next: number };
    expect(page.next).toBe(2);
    expect(page.talk.map((t) => t.text)).toEqual([talkText(pub), talkText(priv)]);
    expect(page.talk[1]!.text).not.toContain('roll last');
    const rules = { rule: 'full', mode: 'signed' } as const;
    const reader = (i: number) => new TalkReader({ game: g.id, players: players(g), rules, me: { id: g.ids[i]!, secretKey: g.keys[i]!.secretKey } });
    const r2 = reader(2);
    const r1 = reader(1);
    const bodies = (rd: TalkReader) => page.talk.map((t) => rd.read(t.text)).map((x) => (x.kind === 'shown' ? x.talk.body : x.kind));
    expect(bodies(r2)).toEqual(['Good luck, all.', 'Between us: I roll last.']);
    expect(bodies(r1)).toEqual(['Good luck, all.', null]);
    expect((await (await fetch(`${r.url}/games/${g.id}/talk?from=1`)).json()) as { next: number }).toMatchObject({ next: 2 });
    p1.close();
    stranger.close();
  });

  it('checks shape, game, seats, the press rule and size only, with coded refusals', async () => {
    const r = await relay();
    const g = diceGame(2);
    const other = diceGame(2, 2);
    await createGame(r.url, g.setupLine);
    await createGame(r.url, other.setupLine);
    const code = async (game: string, text: string) => ((await post(r.url, game, text)).body.error as { code: string } | undefined)?.code;
    expect(await code(g.id, 'not json')).toBe('bad_message');
    expect(await code(g.id, '{"kind":"talk"}')).toBe('bad_message');
    expect(await code(other.id, talkText(talk(g, 0, 'table', 1, 'hi')))).toBe('bad_message');
    const stranger = { ...talk(g, 0, 'table', 1, 'hi'), from: 'p9' };
    expect(await code(g.id, talkText(stranger))).toBe('bad_message');
    expect(await code(g.id, talkText({ ...talk(g, 0, ['p1'], 2, 'x'), to: ['p1', 'p7'] }))).toBe('bad_message');
    expect(await code('ab'.repeat(32), talkText(talk(g, 0, 'table', 3, 'hi')))).toBe('unknown_game');
    // dice games have table chat only: a private message is not kept
    expect(await post(r.url, g.id, talkText(talk(g, 0, ['p1'], 5, 'psst')))).toMatchObject({ status: 403, body: { error: { code: 'no_press' } } });
    const big = await fetch(`${r.url}/games/${g.id}/talk`, { method: 'POST', body: 'x'.repeat(20_000) });
    expect(big.status).toBe(413);
    // the relay does not check signatures: a forged message is kept, and every reader refuses it naming nobody
    const forged = { ...talk(g, 0, 'table', 4, 'honest'), body: 'forged' };
    expect((await post(r.url, g.id, talkText(forged))).status).toBe(201);
    const reader = new TalkReader({
      game: g.id,
      players: players(g),
      rules: { rule: 'public', mode: 'signed' },
      me: { id: 'p1', secretKey: g.keys[1]!.secretKey },
    });
    expect(reader.read(talkText(forged))).toMatchObject({ kind: 'refused', finding: { code: 'talk_bad_signature', player: null } });
  });

  it('limits each author’s rate and each game’s talk, and keeps talk across a restart', async () => {
    const g = diceGame(2);
    const dataDir = directory();
    const r = await relay({ dataDir, talk: { perAuthorPerMinute: 1, perAuthorBurst: 3, gameMessages: 5 } });
    await createGame(r.url, g.setupLine);
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i++) statuses.push((await post(r.url, g.id, talkText(talk(g, 0, 'table', i, `m${i}`)))).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    // another author has a bucket of its own
    for (let i = 1; i <= 2; i++) expect((await post(r.url, g.id, talkText(talk(g, 1, 'table', i, `n${i}`)))).status).toBe(201);
    const full = await post(r.url, g.id, talkText(talk(g, 1, 'table', 3, 'n3')));
    expect(full).toMatchObject({ status: 403, body: { error: { code: 'game_full' } } });
    const page = (await (await fetch(`${r.url}/games/${g.id}/talk`)).json()) as { talk: { text: string }[] };
    expect(page.talk.length).toBe(5);
    await r.close();
    // the same data directory: the talk is still there, and the cap still counts it
    const again = await relay({ dataDir, talk: { gameMessages: 5 } });
    const kept = (await (await fetch(`${again.url}/games/${g.id}/talk`)).json()) as { talk: { text: string }[] };
    expect(kept.talk.map((t) => t.text)).toEqual(page.talk.map((t) => t.text));
    expect((await post(again.url, g.id, talkText(talk(g, 1, 'table', 4, 'n4')))).status).toBe(403);
  });

  it("reaches a seat's client as a talk event, which its TableTalk reads at once", async () => {
    const r = await relay();
    const g = diceGame(2);
    await createGame(r.url, g.setupLine);
    const seat = joinGame({ relayUrl: r.url, gameId: g.id, id: 'p1', keys: g.keys[1]!, WebSocket, backoffMs: { min: 50, max: 400 } });
    try {
      const params = { timeoutMs: 60_000, rounds: 2 };
      const p1 = new TableTalk({ relayUrl: r.url, gameId: g.id, players: players(g), params, me: { id: 'p1', secretKey: g.keys[1]!.secretKey } });
      await p1.load();
      // nothing is fetched after this: only the pushed frame can bring the message
      seat.on('talk', (frame) => p1.take(frame));
      await until(() => seat.status === 'ready', 10_000, 'the seat is welcomed');
      const p0 = new TableTalk({ relayUrl: r.url, gameId: g.id, players: players(g), params, me: { id: 'p0', secretKey: g.keys[0]!.secretKey } });
      await p0.send('table', 'Pushed to you.');
      await until(() => p1.unread === 1, 10_000, 'the pushed message is read');
      expect(p1.entries[0]).toMatchObject({ kind: 'shown', talk: { from: 'p0', body: 'Pushed to you.', proof: 'signed' } });
    } finally {
      seat.close();
    }
  });

  it('bounds each read in bytes and each address in reads a second', async () => {
    const r = await relay({ talk: { pageBytes: 1_000, readsPerSecond: 0.01 } });
    const g = diceGame(2);
    await createGame(r.url, g.setupLine);
    const texts = [1, 2, 3].map((i) => talkText(talk(g, 0, 'table', i, 'x'.repeat(400))));
    for (const t of texts) expect((await post(r.url, g.id, t)).status).toBe(201);
    const page = (await (await fetch(`${r.url}/games/${g.id}/talk`)).json()) as { talk: { text: string }[]; next: number };
    expect(page.talk.length).toBe(page.next);
    expect(page.next).toBeLessThan(3);
    expect(page.next).toBeGreaterThan(0);
    const rest = (await (await fetch(`${r.url}/games/${g.id}/talk?from=${page.next}`)).json()) as { talk: { text: string }[]; next: number };
    expect([...page.talk, ...rest.talk].map((m) => m.text).slice(0, 3)).toEqual(texts.slice(0, page.talk.length + rest.talk.length));
    // a burst of two reads, then one each 100 s: the third is refused
    expect((await fetch(`${r.url}/games/${g.id}/talk`)).status).toBe(429);
  });
});
