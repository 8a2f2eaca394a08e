/**
 * Lobbies and the clock in a real browser (docs/spec/web.md §2, §4, §7): an invite link takes only its own seat and
 * says at once when that seat is taken; a game that is not the one offered (another deadline, or an id the creator
 * did not sign) is refused with the difference in words and nobody is named; a lobby still gathering players
 * survives a restart of the relay; the decision shows the time left and warns before the end; a player asks for
 * more time, the other agrees and the countdown moves; a lobby whose offer cannot be read and a game the relay
 * does not hold each get a plain page.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair, type KeyPair } from '@fairtable/core/identity.js';
import { seatSecretHash, signLobbyGame } from '@fairtable/core/lobby.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { axeFindings, buildApp, launch, leave, player, startRelay, type RunningRelay } from './harness.js';

let relay: RunningRelay;
let browser: Browser;
const errors: string[] = [];

beforeAll(async () => {
  await buildApp();
  relay = await startRelay();
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
});

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  return { status: res.status, body: (await res.json()) as unknown };
}

/** A page of its own browser context, whose script errors are collected (none may happen). */
async function browserPage(): Promise<Page> {
  const { page } = await player(browser);
  page.on('pageerror', (e) => errors.push(e.message));
  return page;
}

const OFFER = { protocol: 'dice', rounds: 3, states: 3, timeoutMs: 120_000 };

/** A lobby opened from Node by a creator holding `creator`'s key, with bob's invite secret. */
async function nodeLobby(creator: KeyPair): Promise<{ id: string; secret: string }> {
  const secret = toHex(crypto.getRandomValues(new Uint8Array(16)));
  const open = await call('POST', `${relay.url}/lobbies`, {
    offer: OFFER,
    seats: ['ann', 'bob'],
    creator: 'ann',
    key: toHex(creator.publicKey),
    invites: { bob: seatSecretHash(secret) },
  });
  expect(open.status).toBe(201);
  return { id: open.body.lobby as string, secret };
}

/** A game on the relay with these players, signed by the first, with `params`. */
async function makeGame(players: readonly { id: string; keys: KeyPair }[], params: GameSetup['params']): Promise<string> {
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params,
    players: players.map((p) => ({ id: p.id, key: toHex(p.keys.publicKey) })),
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
    created: Date.now(),
  };
  const line = envelopeLine(createSetupEnvelope(setup, players[0]!.id, players[0]!.keys));
  const made = await fetch(`${relay.url}/games`, { method: 'POST', body: line, headers: { 'content-type': 'application/x-ndjson' } });
  const body = (await made.json()) as { game?: string };
  expect(made.status, JSON.stringify(body)).toBe(201);
  expect(body.game).toBe(gameIdOf(setup));
  return gameIdOf(setup);
}

describe('lobbies in Chromium', () => {
  it('lobby: an invite link takes only its own seat, and a taken seat says so at once', async () => {
    const creator = await browserPage();
    await creator.goto(relay.url + '/#/new');
    await creator.getByLabel('The other seats').fill('bob cy');
    // The create form and the lobby pass axe-core's WCAG A and AA rules with no serious finding (docs/spec/web.md §7).
    expect(await axeFindings(creator), 'the create form').toEqual([]);
    await creator.getByRole('button', { name: 'Create the game' }).click();
    await creator.waitForURL(/#\/lobby\//);
    await creator.getByTestId('invite-bob').waitFor();
    expect(await axeFindings(creator), 'the lobby with its invites').toEqual([]);
    const bobInvite = await creator.getByTestId('invite-bob').inputValue();
    const cyInvite = await creator.getByTestId('invite-cy').inputValue();
    const [, lobby, , bobSecret] = /#\/lobby\/([0-9a-f]+)\/([^/]+)\/([0-9a-f]+)$/.exec(bobInvite)!;
    expect(cyInvite).not.toContain(bobSecret!);
    // Eve holds bob's invite: she cannot take cy's seat with it, nor write a game into the lobby.
    const eve = generateKeyPair();
    const other = await call('PUT', `${relay.url}/lobbies/${lobby}/seats/cy`, { key: toHex(eve.publicKey), secret: bobSecret });
    expect([other.status, other.body.error.code]).toEqual([403, 'bad_invite']);
    expect((await call('PUT', `${relay.url}/lobbies/${lobby}/seats/bob`, { key: toHex(eve.publicKey), secret: bobSecret })).status).toBe(200);
    const written = await call('PUT', `${relay.url}/lobbies/${lobby}/game`, {
      game: 'ab'.repeat(32),
      sig: signLobbyGame(lobby!, 'ab'.repeat(32), eve.secretKey),
    });
    expect(written.status).toBe(409); // cy is still missing; and with every seat taken it would be 403 bad_signature

    // Bob opens his link after her: the page says at once that the seat is taken, and offers no join.
    const bob = await browserPage();
    await bob.goto(bobInvite);
    await expect
      .poll(() => bob.getByTestId('invite-problem').textContent(), { timeout: 10_000 })
      .toBe('The seat bob is taken: someone has already joined with its invite link.');
    expect(await bob.getByRole('button', { name: /Join as/ }).count()).toBe(0);
    // Cy's own link still works.
    const cy = await browserPage();
    await cy.goto(cyInvite);
    // Before joining, cy's page calls her own seat "you", never "missing"; the others by name with their keys.
    await cy.getByRole('button', { name: 'Join as cy' }).waitFor();
    expect(await cy.getByTestId('seat-cy').getByRole('cell').first().textContent()).toBe('you: not joined yet');
    expect(await cy.getByTestId('seat-ann').getByRole('cell').first().textContent()).toMatch(/^ann joined, key [0-9a-f]{8}…$/);
    expect(await cy.locator('main').textContent()).not.toContain('missing');
    expect(await axeFindings(cy), 'an invitee before joining').toEqual([]);
    await cy.getByRole('button', { name: 'Join as cy' }).click();
    await expect.poll(async () => (await call('GET', `${relay.url}/lobbies/${lobby}`)).body.seats[2].key, { timeout: 10_000 }).not.toBe(null);
    await expect.poll(() => cy.getByTestId('seat-cy').getByRole('cell').first().textContent(), { timeout: 10_000 }).toMatch(/^you \(cy\) joined, key /);
    for (const p of [creator, bob, cy]) await leave(p);
    expect(errors).toEqual([]);
  });

  it('lobby: a game that is not the one offered is refused with the difference in words, and nobody is named', async () => {
    const ann = generateKeyPair();
    const eve = generateKeyPair();
    const { id, secret } = await nodeLobby(ann);
    const bob = await browserPage();
    await bob.goto(`${relay.url}/#/lobby/${id}/bob/${secret}`);
    await bob.getByRole('button', { name: 'Join as bob' }).click();
    let bobKey: string | null = null;
    await expect
      .poll(async () => (bobKey = ((await call('GET', `${relay.url}/lobbies/${id}`)).body.seats as { key: string | null }[])[1]!.key), { timeout: 10_000 })
      .not.toBe(null);
    const bobEntry = { id: 'bob', keys: { publicKey: Uint8Array.from(Buffer.from(bobKey!, 'hex')), secretKey: new Uint8Array(32) } };

    // A relay (or anyone) that shows a game id the creator did not sign: eve's own game with both players in it.
    const evesGame = await makeGame([{ id: 'eve', keys: eve }, { id: 'ann', keys: ann }, bobEntry], { timeoutMs: 120_000, rounds: 3 });
    await bob.route(`**/lobbies/${id}`, async (route) => {
      const real = (await (await route.fetch()).json()) as Record<string, unknown>;
      await route.fulfill({ json: { ...real, game: evesGame, gameSig: signLobbyGame(id, evesGame, eve.secretKey) } });
    });
    await expect
      .poll(() => bob.getByRole('alert').first().textContent(), { timeout: 10_000 })
      .toBe('The game id in this lobby is not signed by its creator, ann: not joining it.');
    await bob.unroute(`**/lobbies/${id}`);

    // The creator itself signs a game whose deadline is 1.5 s where the offer said 120 s.
    const short = await makeGame([{ id: 'ann', keys: ann }, bobEntry], { timeoutMs: 1500, rounds: 3 });
    expect((await call('PUT', `${relay.url}/lobbies/${id}/game`, { game: short, sig: signLobbyGame(id, short, eve.secretKey) })).body.error.code).toBe(
      'bad_signature',
    );
    expect((await call('PUT', `${relay.url}/lobbies/${id}/game`, { game: short, sig: signLobbyGame(id, short, ann.secretKey) })).status).toBe(200);
    await bob.reload();
    await expect
      .poll(() => bob.getByRole('alert').first().textContent(), { timeout: 15_000 })
      .toBe('This game is not the one you accepted: the deadline is 1.5 s, the offer said 120 s. Not joining it.');
    // Bob never entered either game, so nobody is named anywhere on his page.
    await bob.waitForTimeout(2000);
    expect(bob.url()).toContain('#/lobby/');
    expect(await bob.textContent('body')).not.toMatch(/broke|Not valid/);
    await leave(bob);
    expect(errors).toEqual([]);
  });

  it('lobby: a lobby whose offer cannot be read, a malformed offer refused, and a wrong game address', async () => {
    const bad = await call('POST', `${relay.url}/lobbies`, {
      offer: { ...OFFER, timeoutMs: 1 },
      seats: ['ann', 'bob'],
      creator: 'ann',
      key: 'a'.repeat(64),
      invites: { bob: 'b'.repeat(64) },
    });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'bad_offer']);
    // A lobby served with an offer no page can read (one kept from before the schema, or a lying relay).
    const { id, secret } = await nodeLobby(generateKeyPair());
    const page = await browserPage();
    await page.route(`**/lobbies/${id}`, async (route) => {
      const real = (await (await route.fetch()).json()) as Record<string, unknown>;
      await route.fulfill({ json: { ...real, offer: { protocol: 'dice', rounds: 'many' } } });
    });
    await page.goto(`${relay.url}/#/lobby/${id}/bob/${secret}`);
    await expect
      .poll(() => page.getByRole('alert').first().textContent(), { timeout: 10_000 })
      .toBe("This lobby's offer cannot be read: it is not a game this page can play.");
    expect(await page.getByRole('button', { name: /Join as/ }).count()).toBe(0);

    // A game the relay does not hold, by the app's route and by the relay's own game address.
    const missing = 'ab'.repeat(32);
    for (const url of [`${relay.url}/#/game/${missing}`, `${relay.url}/games/${missing}`]) {
      await page.goto(url);
      await page.getByTestId('unknown-game').waitFor({ timeout: 10_000 });
      expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe('No such game on this relay');
      expect(await page.getByTestId('status').count()).toBe(0);
    }
    await leave(page);
    expect(errors).toEqual([]);
  });

  it('lobby: a lobby gathering players survives a relay restart, and the decision counts down and warns', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fairtable-web-restart-'));
    let own = await startRelay({ dataDir });
    const port = Number(new URL(own.url).port);
    try {
      const ann = await browserPage();
      // Ann's page runs on a clock the test can move forward, so the warning ten seconds before the end comes
      // without waiting out the twenty seconds before it; the time flows as usual until then.
      await ann.clock.install();
      await ann.goto(own.url + '/#/new');
      expect(await ann.getByLabel('Time each player has to act').locator('option').allTextContents()).toEqual(['30 s', '1 min', '2 min', '5 min', '10 min']);
      await ann.getByRole('combobox', { name: /^Game/ }).selectOption('diplomacy');
      expect(await ann.getByLabel('Time each player has to act').locator('option').allTextContents()).toEqual(['1 day', '2 days', '3 days', '7 days']);
      await ann.getByRole('combobox', { name: /^Game/ }).selectOption('dice');
      await ann.getByLabel('Time each player has to act').selectOption({ label: '30 s' });
      await ann.getByLabel('The other seats').fill('bob');
      await ann.getByRole('button', { name: 'Create the game' }).click();
      await ann.waitForURL(/#\/lobby\//);
      const invite = await ann.getByTestId('invite-bob').inputValue();

      // The relay restarts on the same data while the lobby waits for bob.
      await own.stop(true);
      own = await startRelay({ dataDir, port });
      const bob = await browserPage();
      await bob.goto(invite);
      await bob.getByRole('button', { name: 'Join as bob' }).click();
      for (const p of [ann, bob]) await p.waitForURL(/#\/game\//, { timeout: 30_000 });

      // The decision shows the time left, counting down from at most 30 s on ann's own clock.
      const timer = ann.getByTestId('countdown');
      await timer.waitFor({ timeout: 20_000 });
      const first = (await timer.textContent()) ?? '';
      expect(first).toMatch(/^Time left to decide: 0:[0-3]\d$/);
      await expect.poll(async () => (await timer.textContent()) !== first, { timeout: 5_000 }).toBe(true);
      // The sound is muted, and stays muted after a reload.
      await ann.getByRole('button', { name: 'Warning sound: on' }).click();
      await ann.reload();
      await ann.getByTestId('countdown').waitFor({ timeout: 20_000 });
      expect(await ann.getByRole('button', { name: 'Warning sound: off' }).getAttribute('aria-pressed')).toBe('true');
      // Ten seconds before the end, the tab's title and the page say so: ann's clock moves to five seconds before it.
      const left = /0:(\d\d)$/.exec((await ann.getByTestId('countdown').textContent()) ?? '');
      if (left !== null && Number(left[1]) > 5) await ann.clock.fastForward((Number(left[1]) - 5) * 1000);
      await expect.poll(() => ann.title(), { timeout: 30_000 }).toMatch(/^⏰ 0:\d\d left to decide: fairtable$/);
      expect(await ann.getByText('Hurry: the deadline is near.').isVisible()).toBe(true);
      for (const p of [ann, bob]) await leave(p);
    } finally {
      await own.stop();
    }
    expect(errors).toEqual([]);
  });
  it('lobby: a player asks for more time, the other agrees, and the countdown moves', async () => {
    const ann = await browserPage();
    await ann.goto(relay.url + '/#/new');
    await ann.getByRole('combobox', { name: /^Game/ }).selectOption('dice');
    await ann.getByLabel('Time each player has to act').selectOption({ label: '2 min' });
    await ann.getByLabel('The other seats').fill('bob');
    await ann.getByRole('button', { name: 'Create the game' }).click();
    await ann.waitForURL(/#\/lobby\//);
    const bob = await browserPage();
    await bob.goto(await ann.getByTestId('invite-bob').inputValue());
    await bob.getByRole('button', { name: 'Join as bob' }).click();
    for (const p of [ann, bob]) await p.waitForURL(/#\/game\//, { timeout: 30_000 });
    const timer = ann.getByTestId('countdown');
    await timer.waitFor({ timeout: 20_000 });
    expect(await timer.textContent()).toMatch(/^Time left to decide: [012]:\d\d$/);
    // A two-minute game offers five more minutes, no more.
    expect(await ann.getByLabel('How much more time').locator('option').allTextContents()).toEqual(['+5 min']);
    await ann.getByRole('button', { name: 'Ask for more time' }).click();
    await expect
      .poll(() => ann.getByTestId('extension-asked').textContent(), { timeout: 10_000 })
      .toMatch(/^You asked to move the deadline to \d\d:\d\d \(\+5 min\): waiting/);
    // Bob's page says who asks, to when, and offers to agree; the countdown has not moved yet.
    const offer = bob.getByTestId('extension-offer');
    await expect.poll(() => offer.textContent(), { timeout: 10_000 }).toMatch(/^ann asks to move the deadline to \d\d:\d\d \(\+5 min\)\./);
    expect(await timer.textContent()).toMatch(/^Time left to decide: [012]:\d\d$/);
    await bob.getByRole('button', { name: 'Agree' }).click();
    // Once both signed, ann's countdown shows the new deadline: five minutes more.
    await expect.poll(() => timer.textContent(), { timeout: 10_000 }).toMatch(/^Time left to decide: [567]:\d\d$/);
    for (const p of [ann, bob])
      await expect
        .poll(() => p.getByTestId('extension-agreed').textContent(), { timeout: 10_000 })
        .toMatch(/^Every player agreed: the deadline is now \d\d:\d\d\.$/);
    expect(await ann.getByRole('button', { name: 'Ask for more time' }).count()).toBe(1);
    for (const p of [ann, bob]) await leave(p);
    expect(errors).toEqual([]);
  });
});
