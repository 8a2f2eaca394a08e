/**
 * A newcomer takes over a Diplomacy power in civil disorder, in the browser (docs/spec/diplomacy.md §10.15, "Front
 * ends"; docs/spec/web.md §4): ann and bob play a two-player game, so England is held by nobody; nia, in a browser
 * of her own, makes her newcomer file on the game page and waits; ann pastes it and proposes her (a file altered on
 * the way is refused first), bob approves her with a click, and nia's page joins the game as a newcomer and is
 * given England's orders from the next round, and writes private press to ann that ann reads. Nobody is named for a fault.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, launch, leave, player, startRelay, type RunningRelay } from './harness.js';

let relay: RunningRelay;
let browser: Browser;

beforeAll(async () => {
  await buildApp();
  relay = await startRelay();
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
});

/** ann opens a two-player Diplomacy lobby of one year, bob joins from his invite; both pages land in the game. */
async function twoPlayers(): Promise<[Page, Page]> {
  const ann = (await player(browser)).page;
  await ann.goto(`${relay.url}/#/new`);
  await ann.getByLabel('Game').selectOption('diplomacy');
  await ann.getByLabel(/Game years/).fill('1');
  await ann.getByLabel('The other seats').fill('bob');
  await ann.getByRole('button', { name: 'Create the game' }).click();
  await ann.waitForURL(/#\/lobby\//);
  const invite = await ann.getByTestId('invite-bob').inputValue();
  const bob = (await player(browser)).page;
  await bob.goto(invite);
  await bob.getByRole('button', { name: 'Join as bob' }).click();
  for (const p of [ann, bob]) await p.waitForURL(/#\/game\//, { timeout: 20_000 });
  return [ann, bob];
}

/**
 * Each page with a decision to make sends it: with `prefs`, only the preferences, typed in (so that no orders are
 * sent before the newcomer is approved, and the hand-over takes effect in Fall 1901); else orders as the form
 * offers them (holds).
 */
async function answer(pages: readonly Page[], prefs?: readonly string[]): Promise<void> {
  for (const [i, p] of pages.entries()) {
    const form = p.getByRole('form', { name: 'Your decision' });
    if (!(await form.isVisible())) continue;
    const list = form.locator('input[type=text]');
    if (prefs !== undefined) {
      if (!(await list.isVisible()) || prefs[i] === undefined) continue;
      await list.fill(prefs[i]);
    }
    await form
      .locator('button[type=submit]')
      .click({ timeout: 5_000 })
      .catch(() => undefined);
  }
}

describe('a Diplomacy newcomer in the browser', () => {
  it('is proposed by one player, approved by the other, and orders the absent power from the next round', async () => {
    const [ann, bob] = await twoPlayers();
    // Preferences: ann Austria, bob France; England and four more are held by nobody.
    const panel = ann.getByTestId('handover');
    for (let waited = 0; !(await panel.isVisible()); waited += 200) {
      if (waited > 60_000) throw new Error('the powers were not assigned in 60 s');
      await answer([ann, bob], ['AE', 'FA']);
      await ann.waitForTimeout(200);
    }
    expect(await panel.getByRole('heading').textContent()).toMatch(/^Hand .*England.* to a newcomer$/);
    const gameId = /#\/game\/([0-9a-f]{64})/.exec(ann.url())![1]!;

    // nia, in her own browser (her own key), makes her newcomer file on the game page and waits to be proposed.
    const nia = (await player(browser)).page;
    await nia.goto(`${relay.url}/#/game/${gameId}`);
    const join = nia.getByTestId('newcomer-join');
    await join.getByLabel('Your name').fill('nia');
    await join.getByLabel('Power').selectOption('england');
    await join.getByRole('button', { name: 'Make my newcomer file' }).click();
    const file = await join.getByTestId('newcomer-file').inputValue();
    expect(JSON.parse(file)).toMatchObject({ type: 'fairtable-newcomer', game: gameId, power: 'england', newcomer: { id: 'nia', name: 'nia' } });
    await join.getByRole('button', { name: 'Join as a newcomer' }).click();

    // The file altered on the way (another name on nia's consent) is refused on ann's page, and nothing is sent.
    const altered = JSON.parse(file) as { newcomer: { name: string } };
    altered.newcomer.name = 'Mallory';
    await panel.getByLabel('Newcomer file').fill(JSON.stringify(altered));
    await panel.getByRole('button', { name: 'Propose the newcomer' }).click();
    expect(await panel.getByRole('alert').textContent()).toMatch(/not signed by nia's key for england/);
    await ann.waitForTimeout(1000);
    expect(await bob.getByTestId('proposal-nia').count()).toBe(0);

    // The file as nia made it: ann proposes her, which is ann's approval; bob approves her with a click.
    await panel.getByLabel('Newcomer file').fill(file);
    await panel.getByRole('button', { name: 'Propose the newcomer' }).click();
    const proposal = bob.getByTestId('proposal-nia');
    await proposal.waitFor({ timeout: 20_000 });
    expect(await proposal.textContent()).toMatch(/nia \(nia, key [0-9a-f ]{19}\) for England, proposed by ann; waiting for bob/);
    // Nothing is approved for a player: bob's approval waits for his click.
    await bob.waitForTimeout(1000);
    expect(await proposal.textContent()).toMatch(/waiting for bob/);
    expect(await ann.getByTestId('proposal-nia').getByRole('button').count()).toBe(0);
    await proposal.getByRole('button', { name: 'Approve nia' }).click();

    // nia's page saw the proposal, joined as a newcomer, and is given England's orders once the round turns.
    await nia.getByTestId('status').filter({ hasText: 'You play nia' }).waitFor({ timeout: 30_000 });
    const niaForm = nia.getByRole('form', { name: 'Your decision' });
    for (let waited = 0; !(await niaForm.isVisible()); waited += 200) {
      if (waited > 90_000)
        throw new Error(
          `nia was not given orders in 90 s: ${(await Promise.all([ann, bob, nia].map((p) => p.locator('main').innerText()))).join('\n----\n').slice(0, 6000)}`,
        );
      await answer([ann, bob]);
      await ann.waitForTimeout(200);
    }
    expect(await niaForm.textContent()).toMatch(/^Your orders for england, Fall 1901, movement/);
    expect(await niaForm.textContent()).toContain('F lon H');
    // nia's page reloaded: her seat is resumed from the page's copy of the log, as a newcomer, and asks the same orders.
    await nia.reload();
    await niaForm.waitFor({ timeout: 30_000 });
    expect(await niaForm.textContent()).toMatch(/^Your orders for england, Fall 1901, movement/);
    // The form is drawn from the page's copy; the connection to the relay may still be loading when it shows.
    await expect.poll(async () => (await nia.getByTestId('status').textContent()) ?? '', { timeout: 15_000 }).toMatch(/You play nia\. Connection: ready/);
    // nia talks as England's new player (docs/spec/press.md §10): private press to ann, sealed to ann's key from
    // nia's, which ann's page reads as nia's, signed; bob's page shows it sealed, not for him.
    await nia.locator('details.chat summary').click();
    await nia.getByRole('checkbox', { name: 'ann' }).check();
    await nia.getByLabel('Message').fill('Ann, England will support you into Munich.');
    await nia.getByRole('button', { name: 'Send to ann' }).click();
    await expect.poll(async () => await ann.getByTestId('talk-unread').textContent(), { timeout: 15_000 }).toBe('1');
    await ann.locator('details.chat summary').click();
    const annTalk = ann.getByRole('group', { name: 'Table talk' });
    await expect.poll(async () => (await annTalk.textContent()) ?? '', { timeout: 10_000 }).toContain('Ann, England will support you into Munich.');
    expect(await annTalk.getByTestId('talk-message').first().textContent()).toMatch(/^nia to ann/);
    await bob.locator('details.chat summary').click();
    await bob.getByTestId('talk-sealed').waitFor({ timeout: 10_000 });
    expect(await bob.getByRole('group', { name: 'Table talk' }).textContent()).not.toContain('Munich');
    for (const p of [ann, bob, nia]) expect(await p.getByTestId('talk-refused').count()).toBe(0);
    // Nobody was named for a fault on any page.
    for (const p of [ann, bob, nia]) expect(await p.getByRole('region', { name: 'Rule breaking seen' }).count()).toBe(0);
    for (const p of [ann, bob, nia]) await leave(p);
  }, 240_000);
});
