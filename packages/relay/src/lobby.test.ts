/**
 * The lobby routes and the app's static files (docs/spec/web.md §1–§2), through the Hono apps themselves.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { lobbyRoutes } from './lobby.js';
import { servePage } from './page.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const G = 'c'.repeat(64);

function lobbies(clock: () => number = () => 0, limits?: Parameters<typeof lobbyRoutes>[1]) {
  const routes = lobbyRoutes(clock, limits);
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
    const open = await call('POST', '/', { offer: { protocol: 'dice' }, seats: ['ann', 'bob'], creator: 'ann', key: A });
    expect(open.status).toBe(201);
    const id = open.body.lobby as string;
    expect(open.body.seats).toEqual([
      { id: 'ann', key: A },
      { id: 'bob', key: null },
    ]);
    expect((await call('PUT', `/${id}/game`, { game: G })).status).toBe(409); // bob is missing
    expect((await call('PUT', `/${id}/seats/bob`, { key: B })).status).toBe(200);
    expect((await call('PUT', `/${id}/seats/bob`, { key: B })).status).toBe(200); // the same key again: a retry
    const taken = await call('PUT', `/${id}/seats/bob`, { key: A });
    expect([taken.status, taken.body.error.code]).toEqual([409, 'seat_taken']);
    expect((await call('PUT', `/${id}/seats/cy`, { key: A })).body.error.code).toBe('unknown_player');
    expect((await call('PUT', `/${id}/game`, { game: G })).body.game).toBe(G);
    expect((await call('PUT', `/${id}/game`, { game: 'd'.repeat(64) })).body.error.code).toBe('game_exists');
    expect((await call('GET', `/${id}`)).body).toMatchObject({ lobby: id, creator: 'ann', game: G, offer: { protocol: 'dice' } });
  });

  it('refuses malformed lobbies with a code', async () => {
    const call = lobbies();
    const bad = [
      { seats: ['ann'], creator: 'ann', key: A },
      { seats: ['ann', 'ann'], creator: 'ann', key: A },
      { seats: ['ann', 'no spaces'], creator: 'ann', key: A },
      { seats: ['ann', 'bob'], creator: 'cy', key: A },
      { seats: ['ann', 'bob'], creator: 'ann', key: 'zz' },
      { seats: ['ann', 'bob'], creator: 'ann', key: A, offer: 'x'.repeat(9000) },
    ];
    for (const body of bad) expect((await call('POST', '/', body)).status).toBe(400);
    expect((await call('GET', `/${'0'.repeat(32)}`)).body.error.code).toBe('unknown_lobby');
  });

  it('forgets a lobby after its time, and the oldest when full', async () => {
    let now = 0;
    const call = lobbies(() => now, { maxLobbies: 2, ttlMs: 1000, maxSeats: 4, maxOfferBytes: 100 });
    const open = async () => (await call('POST', '/', { seats: ['ann', 'bob'], creator: 'ann', key: A })).body.lobby as string;
    const first = await open();
    now = 500;
    const second = await open();
    await open();
    expect((await call('GET', `/${first}`)).status).toBe(404);
    expect((await call('GET', `/${second}`)).status).toBe(200);
    now = 1600;
    expect((await call('GET', `/${second}`)).status).toBe(404);
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
