/**
 * Clients on any process (docs/spec/relay.md §4, "Clients on any process"): two relay processes on one
 * database, the seats of one game split across them. The process without the game's lease follows it through
 * Postgres (LISTEN/NOTIFY, catch-up from the store) and forwards its sockets' submissions to the holder (a
 * sealed game's too, held by the holder's room); a notification lost with the LISTEN connection is made good
 * from the store; a game its holder let go is taken over by the follower; a lobby opened on one process is
 * joined on the other; table talk posted to either process is pushed to the game's sockets on both, once. The server is FAIRTABLE_TEST_DATABASE_URL's (postgres-store.test.ts says how it is
 * started, and why the suite fails under CI without it).
 */
import pg from 'pg';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { auditLines } from '@fairtable/core/audit.js';
import { fromHex, toHex } from '@fairtable/core/bytes.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { seatSecretHash, signLobbyGame } from '@fairtable/core/lobby.js';
import { checkHoldingReceipt } from '@fairtable/core/order/holding.js';
import { checkReceipt } from '@fairtable/core/order/receipt.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { startRelay, type Relay } from './relay.js';
import { createGame, CuttableProxy, diceGame, noteEnvelopes, postTalk, RelaySeat, until, WireClient, type Message, type TestGame } from './test-helpers.js';

const url = process.env.FAIRTABLE_TEST_DATABASE_URL;
const skipReason = 'skipped: FAIRTABLE_TEST_DATABASE_URL is not set (`eval "$(.ci/postgres.sh start)"` starts a server and sets it)';

let schemas = 0;
const schemasMade: string[] = [];
const freshSchema = (): string => {
  const s = `f_${process.pid}_${Date.now().toString(36)}_${schemas++}`;
  schemasMade.push(s);
  return s;
};

const relays: Relay[] = [];
const seats: RelaySeat[] = [];
const clients: WireClient[] = [];
const proxies: CuttableProxy[] = [];
afterEach(async () => {
  for (const s of seats.splice(0)) s.stop();
  for (const c of clients.splice(0)) c.close();
  for (const r of relays.splice(0)) await r.close();
  for (const p of proxies.splice(0)) await p.close();
  if (url === undefined) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const s of schemasMade.splice(0)) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  } finally {
    await client.end();
  }
});

const relayOn = async (schema: string, node: string, databaseUrl = url!): Promise<Relay> => {
  const r = await startRelay({
    port: 0,
    database: { url: databaseUrl, schema, node, leaseMs: 3000 },
    logger: pino({ level: 'silent' }),
    verifyThreads: 0,
  });
  relays.push(r);
  return r;
};

type Health = { node: string; leases: { game: string; token: number }[]; fanout: Record<string, number> };
const health = async (r: Relay): Promise<Health> => (await (await fetch(`${r.url}/health`)).json()) as Health;
const lines = async (u: string): Promise<string[]> => (await (await fetch(u)).text()).trim().split('\n');

describe.skipIf(url === undefined)(`clients on any process${url === undefined ? ` (${skipReason})` : ''}`, () => {
  it('plays one game with its seats split over two processes: every seat gets every line in order under the one key, and only the holder orders', async () => {
    const schema = freshSchema();
    const a = await relayOn(schema, 'node-a');
    const b = await relayOn(schema, 'node-b');
    const g = diceGame(3, 21, 4);
    expect((await createGame(a.url, g.setupLine)).status).toBe(201);
    const playing = g.ids.map((_, i) => new RelaySeat(g, i, fromHex(a.publicKey)));
    seats.push(...playing);
    // Seat 0 on the holder, seats 1 and 2 on the follower.
    await playing[0]!.connect(a.url);
    await playing[1]!.connect(b.url);
    await playing[2]!.connect(b.url);
    const ordering = (await health(a)).leases;
    expect(ordering).toEqual([{ game: g.id, token: expect.any(Number) as number }]);
    await until(() => playing.every((s) => s.seat.outcome() !== null), 30_000, 'the game to end');
    for (const s of playing) expect(s.problems).toEqual([]);
    const transcript = await lines(`${a.url}/games/${g.id}/transcript`);
    expect(transcript.length).toBeGreaterThan(10);
    for (const s of playing) expect(s.seat.lines).toEqual(transcript);
    // Every receipt a seat holds (one per line, in order) is the one the store keeps, under the one relay key.
    const stored = (await lines(`${b.url}/games/${g.id}/receipts`)).map((r) => checkReceipt(JSON.parse(r), fromHex(a.publicKey)));
    for (const s of playing) expect(s.receipts).toEqual(stored);
    const verdict = auditLines(transcript);
    expect(verdict.violations).toEqual([]);
    expect(verdict.valid).toBe(true);
    // Nobody was named, every line was ordered by A under one token, and B forwarded its seats' lines.
    for (const s of playing) expect(s.seat.outcome()?.forfeits).toEqual([]);
    expect((await health(a)).leases).toEqual(ordering);
    const hb = await health(b);
    expect(hb.leases).toEqual([]);
    expect(hb.fanout.followed).toBe(1);
    expect(hb.fanout.forwarded).toBeGreaterThan(0);
    expect(hb.fanout.linesDelivered).toBe(transcript.length - 1);
    expect((await health(a)).fanout.answered).toBe(hb.fanout.forwarded);
    expect(await (await fetch(`${b.url}/metrics`)).text()).toMatch(/fairtable_relay_fanout_followed\{node="node-b"\} 1\n/);
  });

  it('catches up from the store after its LISTEN connection was lost: lines stored meanwhile reach its sockets, in order', async () => {
    const schema = freshSchema();
    const db = new URL(url!);
    const proxy = await CuttableProxy.start(db.hostname, Number(db.port || 5432));
    proxies.push(proxy);
    const viaProxy = new URL(url!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const a = await relayOn(schema, 'node-a');
    const b = await relayOn(schema, 'node-b', viaProxy.toString());
    const g = diceGame(4, 5, 3);
    expect((await createGame(a.url, g.setupLine)).status).toBe(201);
    const onA = [await WireClient.join(a.url, g, 0), await WireClient.join(a.url, g, 2), await WireClient.join(a.url, g, 3)];
    const onB = await WireClient.join(b.url, g, 1);
    clients.push(...onA, onB);
    // A line forwarded from B is ordered by A and acknowledged to B's socket, then seen by both.
    const [own] = noteEnvelopes(g, 1, 1);
    onB.send({ kind: 'submit', text: own });
    const ack = await onB.next('accepted');
    expect(ack.line).toBe(1);
    expect((await onB.next('entry')).text).toBe(own);
    for (const c of onA) expect((await c.next('entry')).text).toBe(own);

    // B loses the database (its LISTEN connection with it) while A stores a line of each of its three seats: no
    // notification reaches B.
    const before = (await health(b)).fanout;
    proxy.cut();
    const notes = [0, 2, 3].map((p) => noteEnvelopes(g, p, 1)[0]!);
    const receipts: unknown[] = [];
    for (const [i, n] of notes.entries()) {
      onA[i]!.send({ kind: 'submit', text: n });
      receipts.push((await onA[i]!.next('accepted')).receipt);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(onB.messages.filter((m) => m.kind === 'entry')).toEqual([]);
    // Back: B listens again and reads what it missed from the store, by line number.
    proxy.restore();
    const seen: Message[] = [];
    for (let i = 0; i < notes.length; i++) seen.push(await onB.next('entry', 10_000));
    expect(seen.map((m) => m.line)).toEqual([2, 3, 4]);
    expect(seen.map((m) => m.text)).toEqual(notes);
    expect(seen.map((m) => m.receipt)).toEqual(receipts);
    const after = (await health(b)).fanout;
    expect(after.listens).toBeGreaterThan(before.listens!);
    // Those lines came with the catch-up, not with a notification.
    expect(after.lines! - before.lines!).toBeLessThan(notes.length);
    expect(after.linesDelivered! - before.linesDelivered!).toBe(notes.length);
    expect(onB.closed).toBeNull();
  });

  it('serves a game created on one process and played only on another: the holder loads it to take its inbox', async () => {
    const schema = freshSchema();
    const a = await relayOn(schema, 'node-a');
    const b = await relayOn(schema, 'node-b');
    const g = diceGame(2, 13, 3);
    // Created on A (A takes its lease) and never asked for there again: A does not have it in memory.
    expect((await createGame(a.url, g.setupLine)).status).toBe(201);
    const onB = await WireClient.join(b.url, g, 1);
    clients.push(onB);
    const [note] = noteEnvelopes(g, 1, 1);
    onB.send({ kind: 'submit', text: note });
    const ack = await onB.next('accepted');
    expect(ack.line).toBe(1);
    expect(checkReceipt(ack.receipt, fromHex(a.publicKey)).line).toBe(1);
    expect((await onB.next('entry')).text).toBe(note);
    expect((await health(a)).leases.map((l) => l.game)).toEqual([g.id]);
    expect((await health(b)).leases).toEqual([]);
  });

  it('takes a followed game over when its holder let it go: the next line from its socket is ordered there, under a larger token', async () => {
    const schema = freshSchema();
    const a = await relayOn(schema, 'node-a');
    const b = await relayOn(schema, 'node-b');
    const g = diceGame(2, 9, 3);
    expect((await createGame(a.url, g.setupLine)).status).toBe(201);
    const onA = await WireClient.join(a.url, g, 0);
    const onB = await WireClient.join(b.url, g, 1);
    clients.push(onA, onB);
    const [first] = noteEnvelopes(g, 1, 1);
    onB.send({ kind: 'submit', text: first });
    expect((await onB.next('accepted')).line).toBe(1);
    const before = (await health(a)).leases[0]!.token;
    // A closes cleanly: it gives its leases up at once. B's socket stays; its next line finds no holder.
    relays.splice(relays.indexOf(a), 1);
    await a.close();
    const [second] = noteEnvelopes(g, 0, 1);
    const onB0 = await WireClient.join(b.url, g, 0);
    clients.push(onB0);
    onB0.send({ kind: 'submit', text: second });
    const ack = await onB0.next('accepted', 10_000);
    expect(ack.line).toBe(2);
    const hb = await health(b);
    expect(hb.leases).toEqual([{ game: g.id, token: expect.any(Number) as number }]);
    expect(hb.leases[0]!.token).toBeGreaterThan(before);
    expect(hb.fanout.takenOver).toBe(1);
    // Both of B's sockets got line 2, and its receipt checks under the one key.
    for (const c of [onB, onB0]) {
      const entries = c.messages.filter((m) => m.kind === 'entry' && m.line === 2);
      expect(entries.map((m) => m.text)).toEqual([second]);
    }
    expect(checkReceipt(ack.receipt, fromHex(b.publicKey)).line).toBe(2);
    const transcript = await lines(`${b.url}/games/${g.id}/transcript`);
    expect(transcript).toEqual([g.setupLine, first, second]);
  });

  it("forwards a sealed game's commitments: held by the holder's room, their holding receipts back on the follower, released to both", async () => {
    const schema = freshSchema();
    const a = await relayOn(schema, 'node-a');
    const b = await relayOn(schema, 'node-b');
    const ids = ['p0', 'p1', 'p2'];
    const keys = ids.map((_, i) => generateKeyPair(new Uint8Array(32).fill(90 + i)));
    const setup: GameSetup = {
      protocol: 'beacon',
      game: null,
      params: { timeoutMs: 60_000, rounds: 2, sealed: { types: ['commit'], timeoutMs: 60_000 } },
      players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
      nonce: toHex(new Uint8Array(32).fill(7)),
      created: Date.now(),
    };
    const g: TestGame = { id: gameIdOf(setup), setupLine: envelopeLine(createSetupEnvelope(setup, 'p0', keys[0]!)), ids, keys };
    const head = envelopeHash(JSON.parse(g.setupLine) as Envelope);
    const commit = (i: number): string =>
      envelopeLine(
        signEnvelope(
          {
            v: 1,
            game: g.id,
            from: ids[i]!,
            seq: i === 0 ? 1 : 0,
            prev: i === 0 ? head : g.id,
            at: 1,
            head,
            time: 1,
            body: { type: 'commit', round: 1, commitment: toHex(new Uint8Array(32).fill(40 + i)) },
          },
          keys[i]!.secretKey,
        ),
      );
    expect((await createGame(a.url, g.setupLine)).status).toBe(201);
    const c = [await WireClient.join(a.url, g, 0), await WireClient.join(b.url, g, 1), await WireClient.join(b.url, g, 2)];
    clients.push(...c);
    const lines = [0, 1, 2].map(commit);
    // p1 and p2 on the follower: their commitments are held by A's room, and the holding receipts come back to B's sockets.
    for (const i of [1, 2]) {
      c[i]!.send({ kind: 'submit', text: lines[i] });
      expect(checkHoldingReceipt((await c[i]!.next('held')).receipt, fromHex(a.publicKey))).toMatchObject({
        game: g.id,
        hash: envelopeHash(JSON.parse(lines[i]!) as Envelope),
      });
    }
    expect(c.flatMap((x) => x.messages.filter((m) => m.kind === 'entry'))).toEqual([]);
    // p0 completes the set on A: all three come out, in seat order, on both processes.
    c[0]!.send({ kind: 'submit', text: lines[0] });
    for (const client of c) {
      const got = [await client.next('entry'), await client.next('entry'), await client.next('entry')];
      expect(got.map((e) => e.line)).toEqual([1, 2, 3]);
      expect(got.map((e) => e.text)).toEqual(lines);
      for (const e of got) checkReceipt(e.receipt, fromHex(a.publicKey));
    }
    expect((await health(b)).leases).toEqual([]);
  });

  it('shares lobbies: one opened on one process is joined on the other, seats taken at once on both, the game seen on both', async () => {
    const schema = freshSchema();
    const a = await relayOn(schema, 'node-a');
    const b = await relayOn(schema, 'node-b');
    const ann = generateKeyPair(new Uint8Array(32).fill(1));
    const bob = toHex(generateKeyPair(new Uint8Array(32).fill(2)).publicKey);
    const cat = toHex(generateKeyPair(new Uint8Array(32).fill(3)).publicKey);
    const secretOf = (seat: string): string => toHex(new TextEncoder().encode(seat.padEnd(16, '.')));
    const call = async (r: Relay, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${r.url}/lobbies${path}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      return { status: res.status, body: (await res.json()) as { lobby: string; seats: { id: string; key: string | null }[]; game: string | null } };
    };
    const opened = await call(a, 'POST', '', {
      offer: { protocol: 'dice', rounds: 3, states: 3, timeoutMs: 120_000 },
      seats: ['ann', 'bob', 'cat'],
      creator: 'ann',
      key: toHex(ann.publicKey),
      invites: { bob: seatSecretHash(secretOf('bob')), cat: seatSecretHash(secretOf('cat')) },
    });
    expect(opened.status).toBe(201);
    const id = opened.body.lobby;
    expect((await call(b, 'GET', `/${id}`)).status).toBe(200);
    // Bob joins through B and Cat through A at the same moment: neither seat is lost to the other's write.
    const [tookBob, tookCat] = await Promise.all([
      call(b, 'PUT', `/${id}/seats/bob`, { key: bob, secret: secretOf('bob') }),
      call(a, 'PUT', `/${id}/seats/cat`, { key: cat, secret: secretOf('cat') }),
    ]);
    expect([tookBob.status, tookCat.status]).toEqual([200, 200]);
    for (const r of [a, b])
      expect((await call(r, 'GET', `/${id}`)).body.seats).toEqual([
        { id: 'ann', key: toHex(ann.publicKey) },
        { id: 'bob', key: bob },
        { id: 'cat', key: cat },
      ]);
    // The game is written on B and read on A.
    const game = 'c'.repeat(64);
    expect((await call(b, 'PUT', `/${id}/game`, { game, sig: signLobbyGame(id, game, ann.secretKey) })).status).toBe(200);
    expect((await call(a, 'GET', `/${id}`)).body.game).toBe(game);
  });
  it('pushes table talk posted to either process to the sockets of the game on both, each message once and in order', async () => {
    const schema = freshSchema();
    const a = await relayOn(schema, 'node-a');
    const b = await relayOn(schema, 'node-b');
    // A game whose setup allows full press, created on A (which orders it); a seat's socket on each process.
    const g = diceGame(2, 31, 2, true);
    expect((await createGame(a.url, g.setupLine)).status).toBe(201);
    const onA = await WireClient.join(a.url, g, 0);
    const onB = await WireClient.join(b.url, g, 1);
    clients.push(onA, onB);
    const first = await postTalk(a.url, g, 0, 1, 'Posted to A.');
    expect(first).toMatchObject({ status: 201, index: 0 });
    const second = await postTalk(b.url, g, 1, 1, 'Posted to B.');
    expect(second).toMatchObject({ status: 201, index: 1 });
    // Two at once, one to each process: each gets its own index, and both sockets get both, in index order.
    const both = await Promise.all([postTalk(a.url, g, 0, 2, 'A again.'), postTalk(b.url, g, 1, 2, 'B again.')]);
    expect(both.map((x) => x.status)).toEqual([201, 201]);
    const order = [first, second, ...both].sort((x, y) => Number(x.index) - Number(y.index));
    for (const client of [onA, onB]) {
      const got: Message[] = [];
      for (let k = 0; k < 4; k++) got.push(await client.next('talk'));
      expect(got.map((m) => m.index)).toEqual([0, 1, 2, 3]);
      expect(got.map((m) => m.text)).toEqual(order.map((o) => o.text));
    }
    // Nothing pushed twice, on the process a message was posted to or the other.
    await new Promise((res) => setTimeout(res, 300));
    for (const client of [onA, onB]) expect(client.messages.filter((m) => m.kind === 'talk')).toEqual([]);
    for (const r of [a, b]) expect((await health(r)).fanout.talkPushed).toBe(4);
  });

  it('pushes table talk posted while a process had lost its LISTEN connection once it listens again, read from the store', async () => {
    const schema = freshSchema();
    const db = new URL(url!);
    const proxy = await CuttableProxy.start(db.hostname, Number(db.port || 5432));
    proxies.push(proxy);
    const viaProxy = new URL(url!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const a = await relayOn(schema, 'node-a');
    const b = await relayOn(schema, 'node-b', viaProxy.toString());
    const g = diceGame(2, 33, 2, true);
    expect((await createGame(a.url, g.setupLine)).status).toBe(201);
    const onA = await WireClient.join(a.url, g, 0);
    const onB = await WireClient.join(b.url, g, 1);
    clients.push(onA, onB);
    proxy.cut();
    const sent = [await postTalk(a.url, g, 0, 1, 'While B was away.'), await postTalk(a.url, g, 0, 2, 'And again.')];
    expect(sent.map((m) => m.index)).toEqual([0, 1]);
    for (const m of sent) expect((await onA.next('talk')).text).toBe(m.text);
    await new Promise((r) => setTimeout(r, 300));
    expect(onB.messages.filter((m) => m.kind === 'talk')).toEqual([]);
    proxy.restore();
    const seen = [await onB.next('talk', 10_000), await onB.next('talk', 10_000)];
    expect(seen.map((m) => m.index)).toEqual([0, 1]);
    expect(seen.map((m) => m.text)).toEqual(sent.map((m) => m.text));
    // Heard by no notification: B was not listening when they were sent.
    expect((await health(b)).fanout.talk).toBe(0);
    expect(onB.closed).toBeNull();
  });
});
