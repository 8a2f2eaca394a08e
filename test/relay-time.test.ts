/**
 * Time as evidence, through real relays (docs/spec/time.md): a relay whose clock is an hour ahead, one that
 * jumps forward mid-game, one an hour behind, one whose clock steps back mid-game, a backdated setup, a game
 * bound to one relay played through another, and a relay that drops a player's moves. In each, no honest
 * player is named by the seats live or by any audit mode, and the lying relay is reported with its own signed
 * receipts as evidence where they show it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { pino } from 'pino';
import { fromHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { envelopeHash, envelopeLine, signEnvelope, type Body, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair, type KeyPair } from '@fairtable/core/identity.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { Violation } from '@fairtable/core/errors.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { receiptError } from '@fairtable/core/order/receipt.js';
import { signHello } from '@fairtable/core/order/hello.js';
import { auditWithReceipts } from '@fairtable/core/order/censorship.js';
import { Auditor } from '@fairtable/core/audit.js';
import { Referee } from '@fairtable/core/referee.js';
import { randomStrategy } from '@fairtable/core/testing';
import { bindToRelay, createGame, fetchGame, gameSocketUrl, joinGame, ClientError, type RelayGame } from '@fairtable/client';
import { startRelay, type Relay } from '@fairtable/relay';
import { startMiniRelay } from './mini-relay.js';

const HOUR = 3_600_000;
const dir = mkdtempSync(join(tmpdir(), 'fairtable-time-'));
const closing: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of closing.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

let relays = 0;
/** A real relay whose clock is `skew.ms` away from this machine's. */
async function skewedRelay(witnesses: readonly string[] = []): Promise<{ relay: Relay; skew: { ms: number } }> {
  const skew = { ms: 0 };
  const relay = await startRelay({
    host: '127.0.0.1',
    port: 0,
    dataDir: join(dir, `relay-${relays++}`),
    logger: pino({ level: 'silent' }),
    clock: () => Date.now() + skew.ms,
    witnesses,
  });
  closing.push(() => relay.close());
  return { relay, skew };
}

interface Player {
  readonly id: string;
  readonly keys: KeyPair;
}

function newSetup(
  protocol: string,
  game: string | null,
  params: Record<string, JsonValue>,
  n: number,
  created = Date.now(),
): { line: string; players: Player[] } {
  const players = Array.from({ length: n }, (_, i) => ({ id: `p${i}`, keys: generateKeyPair() }));
  const setup: GameSetup = {
    protocol,
    game,
    params,
    players: players.map((p) => ({ id: p.id, key: toHex(p.keys.publicKey) })),
    nonce: toHex(randomBytes(32)),
    created,
  };
  return { line: envelopeLine(createSetupEnvelope(setup, 'p0', players[0]!.keys)), players };
}

function seat(url: string, gameId: string, relayKey: string, p: Player, extra: Partial<Parameters<typeof joinGame>[0]> = {}): RelayGame {
  const g = joinGame({ relayUrl: url, gameId, id: p.id, keys: p.keys, random: randomBytes, WebSocket, relayKey, backoffMs: { min: 50, max: 400 }, ...extra });
  closing.push(() => g.close());
  return g;
}

/** How a seat ended: its outcome, or the code it stopped with. */
async function ending(g: RelayGame): Promise<string> {
  try {
    await g.finished;
    return 'finished';
  } catch (e) {
    return e instanceof ClientError ? e.code : String(e);
  }
}

const named = (violations: readonly Violation[]): string[] => violations.filter((v) => v.player !== null).map((v) => `${v.code} ${v.player}`);

/** The game as the relay serves it, judged by every audit mode: the players' own times, receipt times, an untrusted relay. */
async function everyAudit(
  url: string,
  gameId: string,
  relayKey: string,
): Promise<{ lines: string[]; signers: readonly Violation[]; receipts: readonly Violation[]; untrusted: readonly Violation[] }> {
  const fetched = await fetchGame(url, gameId, relayKey);
  const signers = new Auditor(fetched.lines[0]!);
  for (const l of fetched.lines.slice(1)) signers.add(l);
  const receipts = auditWithReceipts(fetched.lines, { orderer: relayKey, receipts: fetched.receipts, records: [] });
  const untrusted = auditWithReceipts(fetched.lines, { orderer: relayKey, receipts: fetched.receipts, records: [], trustTime: false });
  return { lines: fetched.lines, signers: signers.verdict().violations, receipts: receipts.violations, untrusted: untrusted.violations };
}

/** Rochambeau seats that choose their hand after 1.5 s. */
function slowHands(g: RelayGame): void {
  g.on('decision', () => setTimeout(() => g.decision() !== null && g.decide(1), 1500));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a relay clock that lies (docs/spec/time.md §2)', () => {
  it('an hour ahead: both seats report it at line 0 with its receipt, nobody is named', async () => {
    const { relay, skew } = await skewedRelay();
    skew.ms = HOUR;
    const { line, players } = newSetup('rochambeau', null, { N: '3', timeoutMs: 30_000 }, 2);
    const created = await createGame(relay.url, line);
    const seats = players.map((p) => seat(relay.url, created.game, created.relay, p));
    seats.forEach(slowHands);
    expect(await Promise.all(seats.map(ending))).toEqual(['relay_lied', 'relay_lied']);
    for (const g of seats) {
      expect(g.lie!.kind).toBe('clock_ahead');
      expect(g.lie!.line).toBe(0);
      expect(g.lie!.receipts.length).toBeGreaterThan(0);
      for (const r of g.lie!.receipts) expect(receiptError(r, fromHex(created.relay))).toBeNull();
      expect(g.lie!.receipts[0]!.time - Date.now()).toBeGreaterThan(HOUR - 60_000);
      expect(named(g.violations)).toEqual([]);
    }
    const audits = await everyAudit(relay.url, created.game, created.relay);
    for (const v of [audits.signers, audits.receipts, audits.untrusted]) expect(named(v)).toEqual([]);
  });

  it('jumps an hour forward mid-game: the seats stop on the first receipt ahead, nobody is named', async () => {
    const { relay, skew } = await skewedRelay();
    const { line, players } = newSetup('rochambeau', null, { N: '3', timeoutMs: 30_000 }, 2);
    const created = await createGame(relay.url, line);
    const seats = players.map((p) => seat(relay.url, created.game, created.relay, p));
    seats.forEach(slowHands);
    // After line 0, before the hands (chosen after 1.5 s) reach the relay.
    setTimeout(() => (skew.ms = HOUR), 500);
    expect(await Promise.all(seats.map(ending))).toEqual(['relay_lied', 'relay_lied']);
    for (const g of seats) {
      expect(g.lie!.kind).toBe('clock_ahead');
      expect(g.lie!.line).toBeGreaterThan(0);
      expect(named(g.violations)).toEqual([]);
    }
    const audits = await everyAudit(relay.url, created.game, created.relay);
    expect(audits.lines.length).toBeGreaterThan(1);
    for (const v of [audits.signers, audits.receipts, audits.untrusted]) expect(named(v)).toEqual([]);
  });

  it("an hour behind: the creator's seat shows its setup receipted before it signed it; the other refuses the setup; nobody is named", async () => {
    const { relay, skew } = await skewedRelay();
    skew.ms = -HOUR;
    const { line, players } = newSetup('chain', 'dice', { rounds: 1, timeoutMs: 1000 }, 2);
    const created = await createGame(relay.url, line);
    const seats = players.map((p) => seat(relay.url, created.game, created.relay, p, { strategy: randomStrategy(randomBytes(32)) }));
    expect(await Promise.all(seats.map(ending))).toEqual(['relay_lied', 'bad_created']);
    const lie = seats[0]!.lie!;
    expect(lie.kind).toBe('clock_before_signed');
    // The evidence: the relay's receipt and the creator's own signed envelope, an hour apart.
    expect((JSON.parse(lie.lines[0]!.text) as Envelope).time - lie.receipts[0]!.time).toBeGreaterThan(HOUR - 60_000);
    expect(receiptError(lie.receipts[0], fromHex(created.relay))).toBeNull();
    await sleep(1500);
    const audits = await everyAudit(relay.url, created.game, created.relay);
    for (const v of [audits.signers, audits.receipts, audits.untrusted]) expect(named(v)).toEqual([]);
  });

  it('steps an hour back mid-game: the seats report it with the two receipts; the receipt-timed audit names the relay, no mode names a player', async () => {
    const { relay, skew } = await skewedRelay();
    const { line, players } = newSetup('chain', 'dice', { rounds: 3, timeoutMs: 2000 }, 3);
    const created = await createGame(relay.url, line);
    const seats = players.map((p) => seat(relay.url, created.game, created.relay, p, { strategy: randomStrategy(randomBytes(32)) }));
    seats[0]!.on('line', (l) => {
      if (l.line === 3) skew.ms = -HOUR;
    });
    const ends = await Promise.all(seats.map(ending));
    expect(ends).toEqual(['relay_lied', 'relay_lied', 'relay_lied']);
    for (const g of seats) {
      expect(g.lie!.kind).toBe('clock_backwards');
      expect(g.lie!.receipts).toHaveLength(2);
      expect(g.lie!.receipts[1]!.time).toBeLessThan(g.lie!.receipts[0]!.time);
      for (const r of g.lie!.receipts) expect(receiptError(r, fromHex(created.relay))).toBeNull();
      expect(named(g.violations)).toEqual([]);
    }
    const audits = await everyAudit(relay.url, created.game, created.relay);
    const fault = audits.receipts.filter((v) => v.code === 'relay_clock');
    expect(fault.map((v) => [v.relay, v.player])).toEqual([[created.relay, null]]);
    for (const v of [audits.signers, audits.receipts, audits.untrusted]) expect(named(v)).toEqual([]);
  });
});

/** Submits `texts` as player `id` on a raw connection, one after the other's acceptance. */
function submitAs(url: string, gameId: string, id: string, keys: KeyPair, texts: readonly string[]): Promise<void> {
  const ws = new WebSocket(gameSocketUrl(url, gameId));
  closing.push(() => ws.close());
  let next = 0;
  return new Promise((resolve, reject) => {
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as { kind: string; nonce?: string };
      if (m.kind === 'challenge') ws.send(JSON.stringify({ kind: 'hello', id, sig: signHello(gameId, m.nonce!, keys.secretKey) }));
      else if (m.kind === 'welcome' || m.kind === 'accepted') {
        if (m.kind === 'accepted') next++;
        if (next === texts.length) {
          ws.close();
          resolve();
        } else ws.send(JSON.stringify({ kind: 'submit', text: texts[next] }));
      } else if (m.kind === 'refused' || m.kind === 'error') reject(new Error(String(data)));
    });
  });
}

describe('a backdated setup (docs/spec/time.md §4)', () => {
  it('every seat refuses it before joining; the creator claiming at once is the one named, on receipt times', async () => {
    const { relay } = await skewedRelay();
    const now = Date.now();
    const { line, players } = newSetup('chain', 'dice', { rounds: 1, timeoutMs: 30_000 }, 3, now - HOUR);
    const created = await createGame(relay.url, line);
    const seats = players.slice(1).map((p) => seat(relay.url, created.game, created.relay, p, { strategy: randomStrategy(randomBytes(32)) }));
    expect(await Promise.all(seats.map(ending))).toEqual(['bad_created', 'bad_created']);
    // The creator joins and, a second into the game, claims the others missed its first phase.
    const game = (JSON.parse(line) as Envelope).game;
    const p0 = players[0]!;
    const join = new Referee(line, 'p0', { now, random: randomBytes }).takeInitialOut()[0]!;
    const sign = (seq: number, prev: string, time: number, body: Body): string =>
      envelopeLine(signEnvelope({ v: 1, game, from: 'p0', seq, prev, at: seq, head: prev, time, body }, p0.keys.secretKey));
    const line1 = sign(1, envelopeHash(JSON.parse(line) as Envelope), now, join);
    const line2 = sign(2, envelopeHash(JSON.parse(line1) as Envelope), now + 1000, {
      type: 'deadline',
      phase: 'join',
      round: 0,
      missing: ['p1', 'p2'],
    } as Body);
    await submitAs(relay.url, created.game, 'p0', p0.keys, [line1, line2]);
    const audits = await everyAudit(relay.url, created.game, created.relay);
    expect(audits.lines).toHaveLength(3);
    expect(named(audits.receipts)).toEqual(['false_deadline_claim p0']);
    expect(named(audits.untrusted).filter((n) => !n.endsWith('p0'))).toEqual([]);
    // Without receipts, only the creator's clock speaks (time.md §3): here the claim is the unvouched tail, so it
    // names nobody (SPEC §4.4); a relay game is audited on its receipts for the general case.
    expect(named(audits.signers)).toEqual([]);
  });
});

describe('a game bound to its orderer (docs/spec/time.md §5)', () => {
  it("the relay publishes its key and witnesses; a new setup carries them; another relay's receipts are refused by seats and audits", async () => {
    const { relay: witness } = await skewedRelay();
    const { relay } = await skewedRelay([witness.url]);
    const info = (await (await fetch(`${relay.url}/relay`)).json()) as { relay: string; witnesses: string[] };
    expect(info).toEqual({ relay: relay.publicKey, witnesses: [witness.url] });
    const bound = await bindToRelay({ timeoutMs: 5000, rounds: 1 }, relay.url);
    expect(bound.params).toMatchObject({ relay: relay.publicKey, witnesses: [{ key: witness.publicKey, url: witness.url }] });
    // The bound setup taken to another relay: its seats refuse to play there, and its receipts judge nothing.
    const { relay: other } = await skewedRelay();
    const { line, players } = newSetup('chain', 'dice', bound.params, 2);
    const created = await createGame(other.url, line);
    const seats = players.map((p) => seat(other.url, created.game, created.relay, p, { strategy: randomStrategy(randomBytes(32)) }));
    expect(await Promise.all(seats.map(ending))).toEqual(['foreign_relay', 'foreign_relay']);
    const fetched = await fetchGame(other.url, created.game, created.relay);
    const v = auditWithReceipts(fetched.lines, { orderer: other.publicKey, receipts: fetched.receipts, records: [] });
    expect(v.relay.refused).toMatchObject({ code: 'foreign_relay', key: other.publicKey });
    expect(v.relay.timed).toBe(false);
  });
});

describe('censorship leaves evidence (docs/spec/time.md §6)', () => {
  it('a player whose moves the relay drops is told so, with the witness receipts she holds', async () => {
    const orderer = await startMiniRelay();
    closing.push(() => orderer.close());
    const { relay: witness } = await skewedRelay();
    const wkey = witness.publicKey;
    const { line, players } = newSetup('chain', 'dice', { rounds: 1, timeoutMs: 2000, witnesses: [{ key: wkey, url: witness.url }] }, 2);
    const created = await createGame(orderer.url, line);
    orderer.censor = (player) => player === 'p1';
    const seats = players.map((p) => seat(orderer.url, created.game, created.relay, p, { strategy: randomStrategy(randomBytes(32)) }));
    const told = new Promise<{ witnessed: number; waitedMs: number }>((resolve) => seats[1]!.on('unacknowledged', resolve));
    const notice = await told;
    expect(notice.waitedMs).toBeGreaterThanOrEqual(1000);
    expect(notice.witnessed).toBe(1);
    // The creator's envelopes were acknowledged: it is told nothing.
    const quiet: unknown[] = [];
    seats[0]!.on('unacknowledged', (u) => quiet.push(u));
    await sleep(300);
    expect(quiet).toEqual([]);
  });
});
