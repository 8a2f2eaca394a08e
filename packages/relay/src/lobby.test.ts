/**
 * The lobby routes and the app's static files (docs/spec/web.md §1–§2), through the Hono apps themselves: the
 * lobby's own checks (the offer's schema, each seat's invite secret, the creator's signature on the game id).
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { seatSecretHash, signLobbyGame } from '@fairtable/core/lobby.js';
import { lobbyRoutes } from './lobby.js';
import { servePage } from './page.js';
import type { StoredLobby } from './store.js';

const A = 'a'.repeat(64);
const G = 'c'.repeat(64);
const OFFER = { protocol: 'dice', rounds: 3, states: 3, timeoutMs: 120_000 };
const ann = generateKeyPair(new Uint8Array(32).fill(1));
const bob = generateKeyPair(new Uint8Array(32).fill(2));
const ANN = toHex(ann.publicKey);
const BOB = toHex(bob.publicKey);
/** Each seat's invite secret (a fixed one per name, for the tests). */
const secretOf = (seat: string): string => toHex(new TextEncoder().encode(seat.padEnd(16, '.')));

/** A lobby's opening body: the offer, the seats, the creator's key and an invite-secret hash for every other seat. */
function opening(seats: readonly string[] = ['ann', 'bob'], creator = 'ann', extra: Record<string, unknown> = {}) {
  const invites = Object.fromEntries(seats.filter((s) => s !== creator).map((s) => [s, seatSecretHash(secretOf(s))]));
  return { offer: OFFER, seats, creator, key: ANN, invites, ...extra };
}

function lobbies(clock: () => number = () => 0, limits?: Parameters<typeof lobbyRoutes>[1], options?: Parameters<typeof lobbyRoutes>[2]) {
  const routes = lobbyRoutes(clock, limits, options);
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await routes.request(path, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  return call;
}

describe('lobbies', () => {
  it('gathers the seats, one key each, then records the game made from it once', async () => {
    const call = lobbies();
    const open = await call('POST', '/', opening());
    expect(open.status).toBe(201);
    const id = open.body.lobby as string;
    expect(open.body.seats).toEqual([
      { id: 'ann', key: ANN },
      { id: 'bob', key: null },
    ]);
    // No invite hash is shown.
    expect(JSON.stringify(open.body)).not.toContain(seatSecretHash(secretOf('bob')));
    const sig = signLobbyGame(id, G, ann.secretKey);
    expect((await call('PUT', `/${id}/game`, { game: G, sig })).status).toBe(409); // bob is missing
    expect((await call('PUT', `/${id}/seats/bob`, { key: BOB, secret: secretOf('bob') })).status).toBe(200);
    expect((await call('PUT', `/${id}/seats/bob`, { key: BOB, secret: secretOf('bob') })).status).toBe(200); // the same key again: a retry
    const taken = await call('PUT', `/${id}/seats/bob`, { key: A, secret: secretOf('bob') });
    expect([taken.status, taken.body.error.code]).toEqual([409, 'seat_taken']);
    expect((await call('PUT', `/${id}/seats/cy`, { key: A, secret: secretOf('cy') })).body.error.code).toBe('unknown_player');
    expect((await call('PUT', `/${id}/game`, { game: G, sig })).body).toMatchObject({ game: G, gameSig: sig });
    const other = 'd'.repeat(64);
    expect((await call('PUT', `/${id}/game`, { game: other, sig: signLobbyGame(id, other, ann.secretKey) })).body.error.code).toBe('game_exists');
    expect((await call('GET', `/${id}`)).body).toMatchObject({ lobby: id, creator: 'ann', game: G, gameSig: sig, offer: OFFER });
  });

  it("takes a seat only with that seat's own invite secret", async () => {
    const call = lobbies();
    const id = (await call('POST', '/', opening(['ann', 'bob', 'cy']))).body.lobby as string;
    for (const secret of [undefined, secretOf('cy'), secretOf('ann'), 'zz', '00'.repeat(16), secretOf('bob') + '00']) {
      const r = await call('PUT', `/${id}/seats/bob`, { key: BOB, ...(secret === undefined ? {} : { secret }) });
      expect([r.status, r.body.error.code]).toEqual([403, 'bad_invite']);
    }
    // The creator's seat has no invite: nobody takes it.
    expect((await call('PUT', `/${id}/seats/ann`, { key: BOB, secret: secretOf('ann') })).body.error.code).toBe('bad_invite');
    expect((await call('PUT', `/${id}/seats/bob`, { key: BOB, secret: secretOf('bob') })).status).toBe(200);
    expect((await call('GET', `/${id}`)).body.seats).toEqual([
      { id: 'ann', key: ANN },
      { id: 'bob', key: BOB },
      { id: 'cy', key: null },
    ]);
  });

  it("writes the game only with the creator's signature over {lobby, game}", async () => {
    const call = lobbies();
    const id = (await call('POST', '/', opening())).body.lobby as string;
    await call('PUT', `/${id}/seats/bob`, { key: BOB, secret: secretOf('bob') });
    const elsewhere = (await call('POST', '/', opening())).body.lobby as string;
    const forged = [
      undefined,
      'zz',
      signLobbyGame(id, G, bob.secretKey), // a player who is not the creator
      signLobbyGame(elsewhere, G, ann.secretKey), // the creator's signature for another lobby
      signLobbyGame(id, 'e'.repeat(64), ann.secretKey), // for another game
    ];
    for (const sig of forged) {
      const r = await call('PUT', `/${id}/game`, { game: G, ...(sig === undefined ? {} : { sig }) });
      expect([r.status, r.body.error.code]).toEqual([403, 'bad_signature']);
    }
    expect((await call('GET', `/${id}`)).body.game).toBe(null);
    expect((await call('PUT', `/${id}/game`, { game: G, sig: signLobbyGame(id, G, ann.secretKey) })).status).toBe(200);
  });

  it('refuses malformed lobbies and offers with a code', async () => {
    const call = lobbies();
    const bad = [
      opening(['ann']),
      { ...opening(), seats: ['ann', 'ann'] },
      opening(['ann', 'no spaces']),
      opening(['ann', 'bob'], 'cy'),
      opening(['ann', 'bob'], 'ann', { key: 'zz' }),
      opening(['ann', 'bob'], 'ann', { offer: 'x'.repeat(9000) }),
      opening(['ann', 'bob'], 'ann', { invites: {} }),
      opening(['ann', 'bob'], 'ann', { invites: { bob: 'zz' } }),
      opening(['ann', 'bob'], 'ann', { invites: { bob: A, cy: A } }),
    ];
    for (const body of bad) expect((await call('POST', '/', body)).body.error.code).toMatch(/^bad_(input|hex)$/);
    const offers: unknown[] = [
      undefined,
      null,
      'dice',
      { ...OFFER, protocol: 'poker' },
      { ...OFFER, rounds: '3' },
      { ...OFFER, rounds: 0 },
      { ...OFFER, timeoutMs: 500 },
      { ...OFFER, timeoutMs: 8 * 86_400_000 },
      { ...OFFER, timeoutMs: 1.5 },
      { ...OFFER, witnesses: ['w'] },
      { protocol: 'dice', rounds: 3, timeoutMs: 120_000 },
      { ...OFFER, protocol: 'rochambeau', states: 4 },
    ];
    for (const offer of offers) {
      const r = await call('POST', '/', opening(['ann', 'bob'], 'ann', { offer }));
      expect([r.status, r.body.error.code], JSON.stringify(offer)).toEqual([400, 'bad_offer']);
    }
    // Deadlines of days, up to a week, are offers like any other.
    expect((await call('POST', '/', opening(['ann', 'bob'], 'ann', { offer: { ...OFFER, protocol: 'diplomacy', timeoutMs: 3 * 86_400_000 } }))).status).toBe(
      201,
    );
    expect((await call('GET', `/${'0'.repeat(32)}`)).body.error.code).toBe('unknown_lobby');
  });

  it('forgets a lobby after its time, and the oldest when full', async () => {
    let now = 0;
    const call = lobbies(() => now, { maxLobbies: 2, ttlMs: 1000, maxSeats: 4, maxOfferBytes: 100 });
    const open = async () => (await call('POST', '/', opening())).body.lobby as string;
    const first = await open();
    now = 500;
    const second = await open();
    await open();
    expect((await call('GET', `/${first}`)).status).toBe(404);
    expect((await call('GET', `/${second}`)).status).toBe(200);
    now = 1600;
    expect((await call('GET', `/${second}`)).status).toBe(404);
  });

  it('serves a stored lobby as it was kept, never an unsigned game id, and opens no seat stored without its invite', async () => {
    const kept: StoredLobby[] = [];
    const body = (extra: Record<string, unknown>) =>
      JSON.stringify({
        offer: { protocol: 'dice', rounds: 'many' },
        creator: 'ann',
        seats: [
          ['ann', ANN],
          ['bob', null],
        ],
        game: null,
        ...extra,
      });
    kept.push({ id: '1'.repeat(32), created: 0, body: body({}) });
    kept.push({
      id: '2'.repeat(32),
      created: 0,
      body: body({
        seats: [
          ['ann', ANN],
          ['bob', BOB],
        ],
        game: G,
        gameSig: signLobbyGame('2'.repeat(32), G, bob.secretKey),
      }),
    });
    kept.push({ id: '3'.repeat(32), created: 0, body: '{not json' });
    const deleted: string[] = [];
    const store = {
      listLobbies: () => Promise.resolve([...kept]),
      saveLobby: () => Promise.resolve(),
      deleteLobby: (id: string) => Promise.resolve(void deleted.push(id)),
    };
    const call = lobbies(() => 0, undefined, { store });
    // The offer, malformed, is served as stored (the pages refuse to read it); the lobby is not trusted anyway.
    const old = await call('GET', `/${'1'.repeat(32)}`);
    expect(old.body.offer).toEqual({ protocol: 'dice', rounds: 'many' });
    expect((await call('PUT', `/${'1'.repeat(32)}/seats/bob`, { key: BOB, secret: secretOf('bob') })).body.error.code).toBe('bad_invite');
    // A game id signed by someone other than the creator is not served.
    expect((await call('GET', `/${'2'.repeat(32)}`)).body.game).toBe(null);
    expect((await call('GET', `/${'3'.repeat(32)}`)).status).toBe(404);
    expect(deleted).toEqual(['3'.repeat(32)]);
  });
});

describe('the page', () => {
  it("serves the built app's index and assets, and nothing outside them", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairtable-page-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>app</title>');
    writeFileSync(join(dir, 'assets', 'index-1.js'), 'console.log(1)');
    writeFileSync(join(dir, 'secret.txt'), 'no');
    const app = new Hono();
    servePage(app, A, dir);
    expect(await (await app.request('/')).text()).toContain('<title>app</title>');
    const js = await app.request('/assets/index-1.js');
    expect([js.status, js.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect((await app.request('/assets/..%2fsecret.txt')).status).toBe(404);
    expect((await app.request('/assets/missing.js')).status).toBe(404);
  });

  it('falls back to the command-line page when the app is not built', async () => {
    const app = new Hono();
    servePage(app, A, join(tmpdir(), 'fairtable-no-such-dir'));
    expect(await (await app.request('/')).text()).toContain(`The relay's key: <code>${A}</code>`);
  });
});

describe("a game's address", () => {
  it('is the app for a browser and left to the JSON route for everyone else', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairtable-page-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>app</title>');
    const app = new Hono();
    servePage(app, A, dir);
    app.get('/games/:game', (c) => c.json({ game: c.req.param('game') }));
    const html = await app.request(`/games/${G}`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(await html.text()).toContain('<title>app</title>');
    expect(await (await app.request(`/games/${G}`)).json()).toEqual({ game: G });
    expect(await (await app.request('/games/nothex', { headers: { accept: 'text/html' } })).json()).toEqual({ game: 'nothex' });
  });
});
