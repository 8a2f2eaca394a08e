/**
 * The relay (docs/spec/relay.md) on 127.0.0.1: games created by POST, players through the hello, every
 * line stored, receipted and fanned out in order; the door's refusals on the wire; the limits against
 * hostile clients; a whole game played by core seats and audited from the fetched transcript.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fromHex, toHex } from '@fairtable/core/bytes.js';
import { auditLines } from '@fairtable/core/audit.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { signHello } from '@fairtable/core/order/hello.js';
import { checkReceipt, firstLogHash, nextLogHash } from '@fairtable/core/order/receipt.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';
import { createGame, diceGame, RelaySeat, testRelays, until, WireClient, type TestGame } from './test-helpers.js';

const { relay, directory, closeAll } = testRelays();

afterEach(closeAll);

/** The next envelope of player `index` in `game`, signed on a log whose last line is `head` (line `at − 1`). */
function envelope(
  game: TestGame,
  index: number,
  seq: number,
  prev: string,
  at: number,
  head: string,
  body: Record<string, unknown>,
  overrides: Partial<Envelope> = {},
): string {
  return envelopeLine(
    signEnvelope(
      { v: 1, game: game.id, from: game.ids[index]!, seq, prev, at, head, time: 1000 + at, body: body as Envelope['body'], ...overrides },
      game.keys[index]!.secretKey,
    ),
  );
}

const hashOf = (line: string): string => envelopeHash(JSON.parse(line) as Envelope);

describe('the relay', () => {
  it('creates a game from its setup line, serves it, and answers health, metrics and its page', async () => {
    const r = await relay();
    const g = diceGame(3);
    const made = await createGame(r.url, g.setupLine);
    expect(made).toEqual({ status: 201, body: { game: g.id, relay: r.publicKey } });
    expect((await createGame(r.url, g.setupLine)).status).toBe(200);
    const info = (await (await fetch(`${r.url}/games/${g.id}`)).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ game: g.id, protocol: 'chain', lines: 1 });
    expect((info.players as unknown[]).length).toBe(3);
    const bad = await createGame(r.url, g.setupLine.replace('"p1"', '"px"'));
    expect(bad.status).toBe(400);
    expect((bad.body.error as { code: string }).code).toMatch(/bad_/);
    expect((await fetch(`${r.url}/games/${'ab'.repeat(32)}`)).status).toBe(404);
    expect(await (await fetch(`${r.url}/health`)).json()).toEqual({ ok: true });
    expect(await (await fetch(`${r.url}/metrics`)).text()).toMatch(/fairtable_relay_lines_accepted_total 0/);
    expect(await (await fetch(`${r.url}/`)).text()).toMatch(/fairtable play/);
    const receipts = (await (await fetch(`${r.url}/games/${g.id}/receipts`)).text()).trim().split('\n');
    const r0 = checkReceipt(JSON.parse(receipts[0]!), fromHex(r.publicKey));
    expect(r0).toMatchObject({ game: g.id, line: 0, hash: hashOf(g.setupLine), log: firstLogHash(g.id, hashOf(g.setupLine)) });
  });

  it('acknowledges a stored line with a receipt and fans it out, in order, to every player', async () => {
    const r = await relay();
    const g = diceGame(3);
    await createGame(r.url, g.setupLine);
    const [a, b] = [await WireClient.join(r.url, g, 0), await WireClient.join(r.url, g, 1)];
    const h0 = hashOf(g.setupLine);
    const line1 = envelope(g, 1, 0, g.id, 1, h0, { type: 'note', n: 1 });
    b.send({ kind: 'submit', text: line1 });
    const accepted = await b.next('accepted');
    expect(accepted.line).toBe(1);
    const receipt = checkReceipt(accepted.receipt, fromHex(r.publicKey));
    const l1 = nextLogHash(firstLogHash(g.id, h0), hashOf(line1));
    expect(receipt).toMatchObject({ line: 1, hash: hashOf(line1), log: l1 });
    for (const c of [a, b]) expect(await c.next('entry')).toMatchObject({ line: 1, text: line1, receipt: accepted.receipt });
    // A resend is no new line: the submitter is told where it stands.
    b.send({ kind: 'submit', text: line1 });
    expect((await b.next('accepted')).line).toBe(1);
    // Sync from 0 replays the log with its receipts.
    a.send({ kind: 'sync', from: 0 });
    expect(await a.next('entry')).toMatchObject({ line: 0, text: g.setupLine });
    expect(await a.next('entry')).toMatchObject({ line: 1, text: line1 });
    expect((await (await fetch(`${r.url}/games/${g.id}/transcript`)).text()).split('\n')).toEqual([g.setupLine, line1, '']);
  });

  it('acknowledges and fans out a line only once its append has committed; a failed append acknowledges nothing', async () => {
    const dataDir = directory();
    const inner = new SqliteStore(dataDir);
    let gate: { release: () => void; fail: () => void } | null = null;
    const store: Store = {
      createGame: (...a) => inner.createGame(...a),
      readLines: (...a) => inner.readLines(...a),
      lineCount: (...a) => inner.lineCount(...a),
      listGames: () => inner.listGames(),
      relayKey: () => inner.relayKey(),
      close: () => inner.close(),
      append: (lines) =>
        new Promise<void>((resolve, reject) => {
          gate = { release: () => void inner.append(lines).then(resolve, reject), fail: () => reject(new Error('disk full')) };
        }),
    };
    const failures: unknown[] = [];
    const r = await relay({ store, onStoreFailure: (e) => failures.push(e) });
    const g = diceGame(3, 6);
    await createGame(r.url, g.setupLine);
    const [a, b] = [await WireClient.join(r.url, g, 0), await WireClient.join(r.url, g, 1)];
    const h0 = hashOf(g.setupLine);
    const line1 = envelope(g, 1, 0, g.id, 1, h0, { type: 'note' });
    b.send({ kind: 'submit', text: line1 });
    await until(() => gate !== null, 5000, 'the append');
    await new Promise((res) => setTimeout(res, 200));
    expect([...a.messages, ...b.messages]).toEqual([]);
    gate!.release();
    expect((await b.next('accepted')).line).toBe(1);
    expect((await a.next('entry')).line).toBe(1);
    gate = null;
    const line2 = envelope(g, 0, 1, h0, 2, hashOf(line1), { type: 'note' });
    a.send({ kind: 'submit', text: line2 });
    await until(() => gate !== null, 5000, 'the second append');
    gate!.fail();
    await until(() => failures.length === 1, 5000, 'the failure to be reported');
    await new Promise((res) => setTimeout(res, 200));
    expect(a.messages.filter((m) => m.kind === 'accepted' || (m.kind === 'entry' && m.line === 2))).toEqual([]);
    expect(await inner.lineCount(g.id)).toBe(2);
  });

  it('lets a game nobody is connected to leave memory, and rebuilds its door from the store when it is asked for', async () => {
    const r = await relay({ limits: { unloadAfterMs: 100 } });
    const g = diceGame(3, 8);
    await createGame(r.url, g.setupLine);
    const b = await WireClient.join(r.url, g, 1);
    const line1 = envelope(g, 1, 0, g.id, 1, hashOf(g.setupLine), { type: 'note' });
    b.send({ kind: 'submit', text: line1 });
    await b.next('accepted');
    const loaded = async (): Promise<string> => /fairtable_relay_games_loaded (\d+)/.exec(await (await fetch(`${r.url}/metrics`)).text())![1]!;
    expect(await loaded()).toBe('1');
    b.close();
    await b.waitClosed();
    await new Promise((res) => setTimeout(res, 400));
    expect(await loaded()).toBe('0');
    const again = await WireClient.join(r.url, g, 1);
    expect(await loaded()).toBe('1');
    // The rebuilt door knows line 1: the same line is a resend, another at its place an equivocation.
    again.send({ kind: 'submit', text: line1 });
    expect((await again.next('accepted')).line).toBe(1);
    again.send({ kind: 'submit', text: envelope(g, 1, 0, g.id, 1, hashOf(g.setupLine), { type: 'other' }) });
    expect((await again.next('refused')).code).toBe('equivocation');
    const line2 = envelope(g, 1, 1, hashOf(line1), 2, hashOf(line1), { type: 'note' });
    again.send({ kind: 'submit', text: line2 });
    const accepted = await again.next('accepted');
    expect(checkReceipt(accepted.receipt, fromHex(r.publicKey)).log).toBe(
      nextLogHash(nextLogHash(firstLogHash(g.id, hashOf(g.setupLine)), hashOf(line1)), hashOf(line2)),
    );
  });

  it('refuses, with codes and storing nothing: another author, a foreign game, unsigned, malformed, equivocation', async () => {
    const r = await relay();
    const g = diceGame(3);
    const other = diceGame(3, 2);
    await createGame(r.url, g.setupLine);
    const b = await WireClient.join(r.url, g, 1);
    const h0 = hashOf(g.setupLine);
    const codeOf = async (text: string): Promise<unknown> => {
      b.send({ kind: 'submit', text });
      return (await b.next('refused')).code;
    };
    expect(await codeOf(envelope(g, 2, 0, g.id, 1, h0, { type: 'x' }))).toBe('not_your_seat');
    // Signed by this player's own key, but for another game.
    expect(await codeOf(envelope(g, 1, 0, other.id, 1, hashOf(other.setupLine), { type: 'x' }, { game: other.id }))).toBe('wrong_game');
    const unsigned = JSON.parse(envelope(g, 1, 0, g.id, 1, h0, { type: 'x' })) as Record<string, unknown>;
    unsigned.sig = '00'.repeat(64);
    expect(await codeOf(JSON.stringify(unsigned))).toBe('bad_signature');
    expect(await codeOf('{"not": "an envelope"}')).toBe('malformed');
    expect(await codeOf('not json at all')).toBe('malformed');
    b.send({ kind: 'submit', text: envelope(g, 1, 0, g.id, 1, h0, { type: 'first' }) });
    await b.next('accepted');
    expect(await codeOf(envelope(g, 1, 0, g.id, 1, h0, { type: 'second' }))).toBe('equivocation');
    expect((await (await fetch(`${r.url}/games/${g.id}`)).json()) as object).toMatchObject({ lines: 2 });
    expect(r.metrics.refusalCount('not_your_seat')).toBe(1);
    expect(b.closed).toBeNull();
  });

  it('closes with a coded error: a bad hello, a frame that is not JSON, an oversized frame, a silent connection', async () => {
    const r = await relay({ limits: { helloTimeoutMs: 300, maxFrameBytes: 4096 } });
    const g = diceGame(3);
    await createGame(r.url, g.setupLine);
    const forged = await WireClient.open(r.url, g.id);
    const challenge = await forged.next('challenge');
    expect(challenge.relay).toBe(r.publicKey);
    forged.send({ kind: 'hello', id: 'p1', sig: signHello(g.id, challenge.nonce as string, g.keys[2]!.secretKey) });
    expect((await forged.next('error')).code).toBe('bad_hello');
    await forged.waitClosed();
    const stale = await WireClient.open(r.url, g.id);
    await stale.next('challenge');
    // A signature over another nonce is no hello for this one.
    stale.send({ kind: 'hello', id: 'p1', sig: signHello(g.id, challenge.nonce as string, g.keys[1]!.secretKey) });
    expect((await stale.next('error')).code).toBe('bad_hello');
    const junk = await WireClient.join(r.url, g, 1);
    junk.send('{{{');
    expect((await junk.next('error')).code).toBe('bad_message');
    const big = await WireClient.join(r.url, g, 1);
    big.send({ kind: 'submit', text: 'x'.repeat(5000) });
    expect((await big.next('error')).code).toBe('line_too_long');
    const huge = await WireClient.join(r.url, g, 1);
    huge.send('x'.repeat(20_000));
    expect((await huge.waitClosed()).code).toBe(1009);
    const silent = await WireClient.open(r.url, g.id);
    expect((await silent.next('error')).code).toBe('hello_timeout');
    expect((await fetch(`${r.url}/health`)).status).toBe(200);
  });

  it('rate-limits a flood from one connection while another game goes on', async () => {
    const r = await relay({ limits: { messagesPerSecond: 50, messageBurst: 100 } });
    const g = diceGame(3);
    const h = diceGame(3, 3);
    await createGame(r.url, g.setupLine);
    await createGame(r.url, h.setupLine);
    const flooder = await WireClient.join(r.url, g, 1);
    const calm = await WireClient.join(r.url, h, 1);
    for (let i = 0; i < 500; i++) flooder.send({ kind: 'sync', from: 0 });
    expect((await flooder.next('error')).code).toBe('rate_limited');
    await flooder.waitClosed();
    const line = envelope(h, 1, 0, h.id, 1, hashOf(h.setupLine), { type: 'calm' });
    calm.send({ kind: 'submit', text: line });
    expect((await calm.next('accepted')).line).toBe(1);
    expect(r.metrics.dropCount('rate_limited')).toBe(1);
  });

  it('gives the oldest connection without a hello way when full, and drops idle ones', async () => {
    const r = await relay({ limits: { maxConnections: 3, idleMs: 400, helloTimeoutMs: 60_000 } });
    const g = diceGame(3);
    await createGame(r.url, g.setupLine);
    const idle = await WireClient.open(r.url, g.id);
    await idle.next('challenge');
    const players = [await WireClient.join(r.url, g, 0), await WireClient.join(r.url, g, 1)];
    const late = await WireClient.join(r.url, g, 2);
    expect((await idle.next('error')).code).toBe('too_many_connections');
    expect(late.closed).toBeNull();
    // ws answers pings by itself; a client that stops reading answers nothing and is dropped as idle.
    players[0]!.ws.pause();
    await until(() => r.metrics.dropCount('idle') === 1, 5000, 'the idle connection to be dropped');
    await new Promise((res) => setTimeout(res, 500));
    expect(r.metrics.dropCount('idle')).toBe(1);
    expect(players[1]!.closed).toBeNull();
  });

  it('drops a connection that does not read what it asks for, and serves the others', async () => {
    const r = await relay({ limits: { maxOutputBytes: 256 * 1024 } });
    const g = diceGame(3, 4);
    await createGame(r.url, g.setupLine);
    const writer = await WireClient.join(r.url, g, 1);
    let head = hashOf(g.setupLine);
    let prev = g.id;
    for (let n = 1; n <= 40; n++) {
      const line = envelope(g, 1, n - 1, prev, n, head, { type: 'note', pad: 'x'.repeat(50_000) });
      writer.send({ kind: 'submit', text: line });
      expect((await writer.next('accepted')).line).toBe(n);
      head = prev = hashOf(line);
    }
    const reader = await WireClient.join(r.url, g, 2);
    reader.ws.pause();
    // Each answer is a page of about 1 MB (a sync asked while one is answered waits for it); the client reads none of them.
    for (let i = 0; i < 100 && r.metrics.dropCount('slow_reader') === 0; i++) {
      reader.send({ kind: 'sync', from: 0 });
      await new Promise((res) => setTimeout(res, 50));
    }
    await until(() => r.metrics.dropCount('slow_reader') === 1, 10_000, 'the slow reader to be dropped');
    writer.messages.length = 0;
    writer.send({ kind: 'sync', from: 40 });
    expect((await writer.next('entry')).line).toBe(40);
  });

  it('plays a whole dice game for three seats through the relay; the fetched transcript audits valid', async () => {
    const r = await relay();
    const g = diceGame(3, 5, 3);
    await createGame(r.url, g.setupLine);
    const seats = g.ids.map((_, i) => new RelaySeat(g, i, fromHex(r.publicKey)));
    for (const s of seats) await s.connect(r.url);
    await until(() => seats.every((s) => s.seat.outcome() !== null), 30_000, 'the game to end');
    for (const s of seats) s.stop();
    for (const s of seats) expect(s.problems).toEqual([]);
    const transcript = (await (await fetch(`${r.url}/games/${g.id}/transcript`)).text()).trim().split('\n');
    const receipts = (await (await fetch(`${r.url}/games/${g.id}/receipts`)).text()).trim().split('\n');
    expect(transcript.length).toBeGreaterThan(9);
    expect(receipts.length).toBe(transcript.length);
    expect(transcript).toEqual(seats[0]!.seat.lines);
    let log = '';
    transcript.forEach((text, i) => {
      const rc = checkReceipt(JSON.parse(receipts[i]!), fromHex(r.publicKey));
      log = i === 0 ? firstLogHash(g.id, hashOf(text)) : nextLogHash(log, hashOf(text));
      expect(rc).toMatchObject({ line: i, hash: hashOf(text), log });
    });
    const verdict = auditLines(transcript);
    expect(verdict.valid).toBe(true);
    expect(verdict.outcome).not.toBeNull();
    expect(toHex(fromHex(g.id))).toBe(verdict.gameId);
  });
});
