/**
 * Lobbies kept in the store (docs/spec/web.md §2): a lobby and its members outlive a restart of the relay on the
 * same DATA_DIR and the game made from it is played to its end; a lobby past its time is gone after a restart
 * too (the relay's clock); and the bounds on lobbies answer with codes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { fromHex, toHex } from '@fairtable/core/bytes.js';
import { auditLines } from '@fairtable/core/audit.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { seatSecretHash, signLobbyGame } from '@fairtable/core/lobby.js';
import { lobbyRoutes } from './lobby.js';
import { startRelay, type Relay } from './relay.js';
import { createGame, diceGame, RelaySeat, until, type TestGame } from './test-helpers.js';

const OFFER = { protocol: 'dice', rounds: 2, states: 3, timeoutMs: 60_000 };
const SECRET1 = '01'.repeat(16);
const SECRET2 = '02'.repeat(16);
/** A lobby's opening body with the test's offer and invites. */
const opening = (key: string) => ({ offer: OFFER, seats: ['ann', 'bob'], creator: 'ann', key, invites: { bob: seatSecretHash(SECRET1) } });
const dirs: string[] = [];
const relays: Relay[] = [];
afterEach(async () => {
  for (const r of relays.splice(0)) await r.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function relay(dataDir: string, clock: () => number = Date.now): Promise<Relay> {
  const r = await startRelay({ host: '127.0.0.1', port: 0, dataDir, clock, logger: pino({ level: 'silent' }) });
  relays.push(r);
  return r;
}

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe('lobbies across a restart (web.md §2)', () => {
  it('keeps a lobby and its members; the game made from it after the restart is played to its end', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fairtable-lobby-'));
    dirs.push(dataDir);
    // The players' keys; the game itself is made from what the lobby holds.
    const keys = diceGame(3, 31).keys;
    const first = await relay(dataDir);
    const open = await call('POST', `${first.url}/lobbies`, {
      offer: OFFER,
      seats: ['p0', 'p1', 'p2'],
      creator: 'p0',
      key: toHex(keys[0]!.publicKey),
      invites: { p1: seatSecretHash(SECRET1), p2: seatSecretHash(SECRET2) },
    });
    expect(open.status).toBe(201);
    const id = open.body.lobby as string;
    expect((await call('PUT', `${first.url}/lobbies/${id}/seats/p1`, { key: toHex(keys[1]!.publicKey), secret: SECRET1 })).status).toBe(200);
    await first.close();
    relays.splice(0);

    const second = await relay(dataDir);
    const kept = await call('GET', `${second.url}/lobbies/${id}`);
    expect(kept.status).toBe(200);
    expect(kept.body).toEqual({
      lobby: id,
      offer: OFFER,
      creator: 'p0',
      seats: [
        { id: 'p0', key: toHex(keys[0]!.publicKey) },
        { id: 'p1', key: toHex(keys[1]!.publicKey) },
        { id: 'p2', key: null },
      ],
      game: null,
      gameSig: null,
    });
    // A seat taken before the restart stays taken; the invite of the seat still open is still its own only.
    expect((await call('PUT', `${second.url}/lobbies/${id}/seats/p1`, { key: toHex(keys[0]!.publicKey), secret: SECRET1 })).body.error.code).toBe('seat_taken');
    expect((await call('PUT', `${second.url}/lobbies/${id}/seats/p2`, { key: toHex(keys[2]!.publicKey), secret: SECRET1 })).body.error.code).toBe('bad_invite');
    expect((await call('PUT', `${second.url}/lobbies/${id}/seats/p2`, { key: toHex(keys[2]!.publicKey), secret: SECRET2 })).status).toBe(200);
    const all = (await call('GET', `${second.url}/lobbies/${id}`)).body;

    // The creator makes the game from the lobby's seats, writes its id there, and everybody plays it.
    const setup: GameSetup = {
      protocol: 'chain',
      game: 'dice',
      params: { timeoutMs: 60_000, rounds: 2 },
      players: (all.seats as { id: string; key: string }[]).map((s) => ({ id: s.id, key: s.key })),
      nonce: toHex(new Uint8Array(32).fill(31)),
      created: Date.now(),
    };
    const g: TestGame = { id: gameIdOf(setup), setupLine: envelopeLine(createSetupEnvelope(setup, 'p0', keys[0]!)), ids: ['p0', 'p1', 'p2'], keys };
    expect((await createGame(second.url, g.setupLine)).status).toBe(201);
    const sig = signLobbyGame(id, g.id, keys[0]!.secretKey);
    expect((await call('PUT', `${second.url}/lobbies/${id}/game`, { game: g.id, sig })).body.game).toBe(g.id);
    await second.close();
    relays.splice(0);

    // Once more: the game's id written into the lobby is kept too, and the game is played from it.
    const third = await relay(dataDir);
    const made = await call('GET', `${third.url}/lobbies/${id}`);
    expect([made.body.game, made.body.gameSig]).toEqual([g.id, sig]);
    const seats = g.ids.map((_, i) => new RelaySeat(g, i, fromHex(third.publicKey)));
    for (const s of seats) await s.connect(third.url);
    await until(() => seats.every((s) => s.seat.outcome() !== null), 20_000, 'the game made from the lobby to end');
    for (const s of seats) s.stop();
    for (const s of seats) expect(s.problems).toEqual([]);
    const transcript = (await (await fetch(`${third.url}/games/${g.id}/transcript`)).text()).trim().split('\n');
    expect(auditLines(transcript).valid).toBe(true);
  });

  it("forgets a lobby past its time on the relay's clock, also across a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fairtable-lobby-'));
    dirs.push(dataDir);
    let now = 1_000_000;
    const day = 24 * 3_600_000;
    const first = await relay(dataDir, () => now);
    const key = 'a'.repeat(64);
    const old = (await call('POST', `${first.url}/lobbies`, opening(key))).body.lobby as string;
    now += day / 2;
    const young = (await call('POST', `${first.url}/lobbies`, opening(key))).body.lobby as string;
    await first.close();
    relays.splice(0);
    now += day / 2 + 1;
    const second = await relay(dataDir, () => now);
    expect((await call('GET', `${second.url}/lobbies/${old}`)).body.error.code).toBe('unknown_lobby');
    expect((await call('GET', `${second.url}/lobbies/${young}`)).status).toBe(200);
    now += day;
    expect((await call('GET', `${second.url}/lobbies/${young}`)).status).toBe(404);
  });
});

describe('lobby bounds', () => {
  it('refuses more open lobbies from one address than its share (429 too_many_lobbies), and room comes back as they expire', async () => {
    let now = 0;
    const routes = lobbyRoutes(() => now, { maxLobbies: 100, ttlMs: 1000, maxSeats: 4, maxOfferBytes: 100, maxLobbiesPerClient: 3 });
    const open = async () => {
      const r = await routes.request('/', {
        method: 'POST',
        body: JSON.stringify(opening('a'.repeat(64))),
        headers: { 'content-type': 'application/json' },
      });
      return { status: r.status, body: (await r.json()) as any };
    };
    for (let i = 0; i < 3; i++) expect((await open()).status).toBe(201);
    const refused = await open();
    expect([refused.status, refused.body.error.code]).toEqual([429, 'too_many_lobbies']);
    now = 1001;
    expect((await open()).status).toBe(201);
  });
});
