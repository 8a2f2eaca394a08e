/**
 * Sealed mode on the relay (docs/spec/sealed.md): commitments held out of the log until the set is
 * complete or its deadline passes, invisible to other players (WebSocket, GET, /metrics), released in seat
 * order whatever the arrival order, with a holding receipt to the author, kept through a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { fromHex, toHex } from '@fairtable/core/bytes.js';
import { auditLines } from '@fairtable/core/audit.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { checkHoldingReceipt } from '@fairtable/core/order/holding.js';
import { checkReceipt } from '@fairtable/core/order/receipt.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { startRelay, type Relay } from './relay.js';
import { createGame, RelaySeat, until, WireClient, type TestGame } from './test-helpers.js';

const dirs: string[] = [];
const relays: Relay[] = [];
const quiet = pino({ level: 'silent' });

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'fairtable-sealed-'));
  dirs.push(d);
  return d;
}

async function relay(dir = dataDir()): Promise<Relay> {
  const r = await startRelay({ host: '127.0.0.1', port: 0, dataDir: dir, logger: quiet });
  relays.push(r);
  return r;
}

afterEach(async () => {
  for (const r of relays.splice(0)) await r.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A beacon game of `n` players whose commitments are sealed, held at most `sealedMs`. */
function sealedBeacon(n: number, seed: number, sealedMs: number, timeoutMs = 60_000): TestGame {
  const ids = Array.from({ length: n }, (_, i) => `p${i}`);
  const keys = ids.map((_, i) => generateKeyPair(new Uint8Array(32).fill(seed * 16 + i + 1)));
  const setup: GameSetup = {
    protocol: 'beacon',
    game: null,
    params: { timeoutMs, rounds: 2, sealed: { types: ['commit'], timeoutMs: sealedMs } },
    players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
    nonce: toHex(new Uint8Array(32).fill(seed)),
    created: Date.now(),
  };
  return { id: gameIdOf(setup), setupLine: envelopeLine(createSetupEnvelope(setup, ids[0]!, keys[0]!)), ids, keys };
}

const hashOf = (line: string): string => envelopeHash(JSON.parse(line) as Envelope);

/** Player `i`'s first envelope after the setup (p0 signed the setup: its #0), or #seq after `prev`, written on a log of one line. */
function first(g: TestGame, i: number, body: Record<string, unknown>, seq = i === 0 ? 1 : 0, prev = i === 0 ? hashOf(g.setupLine) : g.id): string {
  return envelopeLine(
    signEnvelope(
      { v: 1, game: g.id, from: g.ids[i]!, seq, prev, at: 1, head: hashOf(g.setupLine), time: 1, body: body as Envelope['body'] },
      g.keys[i]!.secretKey,
    ),
  );
}
const commit = (g: TestGame, i: number, round = 1): string => first(g, i, { type: 'commit', round, commitment: toHex(new Uint8Array(32).fill(40 + i)) });

const transcript = async (r: Relay, g: TestGame): Promise<string[]> => (await (await fetch(`${r.url}/games/${g.id}/transcript`)).text()).trim().split('\n');
const entries = (c: WireClient): unknown[] => c.messages.filter((m) => m.kind === 'entry');
/** The relay's counters in /metrics (not the connection gauge, memory or time): a held envelope must not move them. */
const counters = async (r: Relay): Promise<string[]> =>
  (await (await fetch(`${r.url}/metrics`)).text())
    .split('\n')
    .filter((l) => /^fairtable_relay_(lines|refusals|games|store_appended)/.test(l) || /_count /.test(l));
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sealed mode on the relay', () => {
  it('nobody sees a held commitment, or that one exists, until the set is complete; then all come out in seat order', async () => {
    const r = await relay();
    const g = sealedBeacon(3, 1, 60_000);
    await createGame(r.url, g.setupLine);
    const c = await Promise.all([0, 1, 2].map((i) => WireClient.join(r.url, g, i)));
    const before = await counters(r);
    // Arrival order: p2, then p0; p1 completes the set.
    const lines = [0, 1, 2].map((i) => commit(g, i));
    c[2]!.send({ kind: 'submit', text: lines[2] });
    const held2 = await c[2]!.next('held');
    const hr = checkHoldingReceipt(held2.receipt, fromHex(r.publicKey));
    expect(hr).toMatchObject({ game: g.id, hash: hashOf(lines[2]!), until: hr.time + 60_000 });
    await pause(20);
    c[0]!.send({ kind: 'submit', text: lines[0] });
    // Each author's promise runs from its own arrival: it tells p0 nothing of p2's earlier commitment.
    const hr0 = checkHoldingReceipt((await c[0]!.next('held')).receipt, fromHex(r.publicKey));
    expect(hr0.until).toBe(hr0.time + 60_000);
    expect(hr0.time).toBeGreaterThan(hr.time);
    await pause(100);
    // What p1 can see: no entry, a log of one line by sync, GET, a new connection's welcome, and /metrics.
    expect(entries(c[1]!)).toEqual([]);
    c[1]!.send({ kind: 'sync', from: 0 });
    expect((await c[1]!.next('entry')).line).toBe(0);
    await pause(50);
    expect(entries(c[1]!)).toEqual([]);
    expect(await transcript(r, g)).toEqual([g.setupLine]);
    expect((await (await fetch(`${r.url}/games/${g.id}/receipts`)).text()).trim().split('\n')).toHaveLength(1);
    expect(((await (await fetch(`${r.url}/games/${g.id}`)).json()) as { lines: number }).lines).toBe(1);
    const late = await WireClient.open(r.url, g.id);
    await late.next('challenge');
    late.close();
    expect(await counters(r)).toEqual(before);
    // p2's resend is answered with the same holding receipt; nothing else happens.
    c[2]!.send({ kind: 'submit', text: lines[2] });
    expect((await c[2]!.next('held')).receipt).toEqual(held2.receipt);

    c[1]!.send({ kind: 'submit', text: lines[1] });
    for (const client of c) {
      const got = [await client.next('entry'), await client.next('entry'), await client.next('entry')];
      expect(got.map((e) => e.line)).toEqual([1, 2, 3]);
      expect(got.map((e) => e.text)).toEqual(lines);
      // One release, one moment: the three receipts carry the same time.
      expect(new Set(got.map((e) => checkReceipt(e.receipt, fromHex(r.publicKey)).time)).size).toBe(1);
    }
    expect(await transcript(r, g)).toEqual([g.setupLine, ...lines]);
    expect(await (await fetch(`${r.url}/metrics`)).text()).toMatch(/fairtable_relay_lines_accepted_total 3/);
  });

  it("the release order is the seats' order whatever the arrival order", async () => {
    const r = await relay();
    for (const [k, order] of [
      [0, 1, 2],
      [2, 1, 0],
      [1, 2, 0],
      [1, 0, 2],
    ].entries()) {
      const g = sealedBeacon(3, 10 + k, 60_000);
      await createGame(r.url, g.setupLine);
      const c = await Promise.all([0, 1, 2].map((i) => WireClient.join(r.url, g, i)));
      for (const i of order) c[i]!.send({ kind: 'submit', text: commit(g, i) });
      await until(() => entries(c[0]!).length === 3, 5000, 'the release');
      expect(await transcript(r, g)).toEqual([g.setupLine, commit(g, 0), commit(g, 1), commit(g, 2)]);
      for (const x of c) x.close();
    }
  });

  it('refuses an author its next envelope while one is held, and another envelope for the held position', async () => {
    const r = await relay();
    const g = sealedBeacon(3, 2, 60_000);
    await createGame(r.url, g.setupLine);
    const a = await WireClient.join(r.url, g, 0);
    const mine = commit(g, 0);
    a.send({ kind: 'submit', text: mine });
    await a.next('held');
    a.send({ kind: 'submit', text: first(g, 0, { type: 'deadline', phase: 'commit', round: 1, missing: ['p1', 'p2'] }, 2, hashOf(mine)) });
    expect(await a.next('refused')).toMatchObject({ code: 'sealed_pending' });
    a.send({ kind: 'submit', text: first(g, 0, { type: 'commit', round: 1, commitment: 'ee'.repeat(32) }) });
    expect(await a.next('refused')).toMatchObject({ code: 'equivocation' });
    // A forged envelope is still the door's to refuse.
    a.send({ kind: 'submit', text: mine.replace(/"sig":"[0-9a-f]{4}/, '"sig":"0000') });
    expect(await a.next('refused')).toMatchObject({ code: 'bad_signature' });
    expect(await transcript(r, g)).toEqual([g.setupLine]);
  });

  it('releases what it holds at the deadline, receipted at the deadline; the next set waits only for those who were in', async () => {
    const r = await relay();
    const g = sealedBeacon(3, 3, 400);
    await createGame(r.url, g.setupLine);
    const c = await Promise.all([0, 1, 2].map((i) => WireClient.join(r.url, g, i)));
    const lines = [commit(g, 1), commit(g, 2)];
    c[2]!.send({ kind: 'submit', text: lines[1] });
    const held = checkHoldingReceipt((await c[2]!.next('held')).receipt, fromHex(r.publicKey));
    c[1]!.send({ kind: 'submit', text: lines[0] });
    await c[1]!.next('held');
    const got = [await c[0]!.next('entry', 3000), await c[0]!.next('entry', 3000)];
    expect(got.map((e) => e.text)).toEqual(lines);
    for (const e of got) expect(checkReceipt(e.receipt, fromHex(r.publicKey)).time).toBe(held.until);
    // Round 2: p0 sent nothing in round 1's set, so p1 and p2 complete round 2's set by themselves.
    const round2 = (i: number, prev: string): string =>
      envelopeLine(
        signEnvelope(
          {
            v: 1,
            game: g.id,
            from: g.ids[i]!,
            seq: 1,
            prev: hashOf(prev),
            at: 3,
            head: hashOf(lines[1]!),
            time: 2,
            body: { type: 'commit', round: 2, commitment: toHex(new Uint8Array(32).fill(60 + i)) },
          },
          g.keys[i]!.secretKey,
        ),
      );
    c[1]!.send({ kind: 'submit', text: round2(1, lines[0]!) });
    await c[1]!.next('held');
    c[2]!.send({ kind: 'submit', text: round2(2, lines[1]!) });
    const more = [await c[0]!.next('entry'), await c[0]!.next('entry')];
    expect(more.map((e) => e.line)).toEqual([3, 4]);
  });

  it('keeps held commitments through a restart, and releases them on completion or, with nobody connected, at the deadline', async () => {
    const dir = dataDir();
    const r1 = await relay(dir);
    const g = sealedBeacon(3, 4, 60_000);
    const h = sealedBeacon(3, 5, 1500);
    await createGame(r1.url, g.setupLine);
    await createGame(r1.url, h.setupLine);
    const a = await WireClient.join(r1.url, g, 0);
    a.send({ kind: 'submit', text: commit(g, 0) });
    const receipt = (await a.next('held')).receipt;
    const b = await WireClient.join(r1.url, h, 1);
    b.send({ kind: 'submit', text: commit(h, 1) });
    const hReceipt = checkHoldingReceipt((await b.next('held')).receipt, fromHex(r1.publicKey));
    await r1.close();
    relays.splice(relays.indexOf(r1), 1);

    const r2 = await relay(dir);
    expect(await transcript(r2, g)).toEqual([g.setupLine]);
    // The relay still holds p0's commitment: its resend gets the very receipt, and the set completes without it being sent again.
    const a2 = await WireClient.join(r2.url, g, 0);
    a2.send({ kind: 'submit', text: commit(g, 0) });
    expect((await a2.next('held')).receipt).toEqual(receipt);
    for (const i of [1, 2]) (await WireClient.join(r2.url, g, i)).send({ kind: 'submit', text: commit(g, i) });
    await until(() => entries(a2).length === 3, 5000, 'the release after the restart');
    expect(await transcript(r2, g)).toEqual([g.setupLine, commit(g, 0), commit(g, 1), commit(g, 2)]);
    // Game h: nobody connects to the restarted relay, and p1's commitment still comes out at its deadline.
    await until(() => Date.now() > hReceipt.until + 100, 5000, 'the deadline');
    await pause(100);
    const lines = await transcript(r2, h);
    expect(lines).toEqual([h.setupLine, commit(h, 1)]);
    const receipts = (await (await fetch(`${r2.url}/games/${h.id}/receipts`)).text()).trim().split('\n');
    expect((JSON.parse(receipts[1]!) as { time: number }).time).toBe(hReceipt.until);
  });

  it('a whole beacon game with sealed commitments, played by core seats, audits valid', async () => {
    const r = await relay();
    const g = sealedBeacon(3, 6, 60_000, 60_000);
    await createGame(r.url, g.setupLine);
    const seats = g.ids.map((_, i) => new RelaySeat(g, i, fromHex(r.publicKey)));
    for (const s of seats) await s.connect(r.url);
    await until(() => seats.every((s) => s.seat.outcome() !== null), 15_000, 'the game to end');
    for (const s of seats) s.stop();
    for (const s of seats) expect(s.problems).toEqual([]);
    const lines = await transcript(r, g);
    // Two rounds: each round's three commitments are consecutive lines in seat order.
    const commits = lines.map((l, i) => [i, JSON.parse(l) as Envelope] as const).filter(([, e]) => e.body.type === 'commit');
    expect(commits.map(([, e]) => e.from)).toEqual(['p0', 'p1', 'p2', 'p0', 'p1', 'p2']);
    expect(commits[2]![0] - commits[0]![0]).toBe(2);
    expect(commits[5]![0] - commits[3]![0]).toBe(2);
    const verdict = auditLines(lines);
    expect(verdict.violations).toEqual([]);
    expect(verdict.valid).toBe(true);
  });

  it('refuses to create a game whose sealed parameters are malformed', async () => {
    const r = await relay();
    const g = sealedBeacon(2, 7, 1000);
    const bad = g.setupLine;
    const setup = (JSON.parse(bad) as { body: { setup: GameSetup } }).body.setup;
    const broken: GameSetup = { ...setup, params: { ...setup.params, sealed: { types: ['deadline'] } } };
    const line = envelopeLine(createSetupEnvelope(broken, 'p0', g.keys[0]!));
    const res = await createGame(r.url, line);
    expect(res.status).toBe(400);
    expect((res.body.error as { code: string }).code).toBe('bad_setup');
  });
});
