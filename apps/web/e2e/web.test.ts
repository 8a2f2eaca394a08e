/**
 * The web app end to end in a real browser (docs/spec/web.md §7): two or three browser contexts, each with its own
 * keys, create a game through the lobby, join from the invite links, play it to the end by answering their
 * decisions on the page, and audit it with the Audit button; a reload mid-game carries on; a seat made to send a
 * wrong opening is named in the verdict; a transcript file dropped onto the page is audited.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { armor } from '@fairtable/core/armor.js';
import { axeFindings, buildApp, LAN_HOST, launch, leave, player, ROOT, startRelay, type RunningRelay } from './harness.js';

let relay: RunningRelay;
let browser: Browser;
// Screenshots go to a temporary folder, so a test run leaves the tree clean; SCREENSHOTS_DIR=docs/images
// refreshes the README's pictures.
const SHOTS = process.env.SCREENSHOTS_DIR ?? join(tmpdir(), 'fairtable-web-shots');
mkdirSync(SHOTS, { recursive: true });

beforeAll(async () => {
  await buildApp();
  // openpgp.js stays out of the page: nothing the app imports reaches @fairtable/pgp.
  const assets = join(ROOT, 'apps/web/dist/assets');
  for (const f of readdirSync(assets)) expect(readFileSync(join(assets, f), 'utf8').includes('openpgp'), f).toBe(false);
  relay = await startRelay();
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
});

interface Setup {
  readonly game: string;
  /** The seat whose page is made to send a wrong opening (the test hook). */
  readonly cheater?: string;
  /** The seat played on a phone-sized screen. */
  readonly phone?: string;
  readonly rounds?: number;
  readonly states?: number;
  /** Dice: the dice expression each turn rolls. */
  readonly roll?: string;
  readonly creator?: string;
  readonly others: readonly string[];
  /** Where the pages load the app from (default: the relay's loopback address). */
  readonly base?: string;
  /** Where to save a screenshot of the creator's lobby once the first invite is open. */
  readonly lobbyShot?: string;
  /** The lobby's press rule (the Press select). */
  readonly press?: 'full' | 'public' | 'none';
}

/** The creator opens a lobby; every other player opens its invite link and joins; all pages land in the game. */
async function startGame(s: Setup): Promise<Page[]> {
  const creator = await player(browser);
  const page = creator.page;
  await page.goto((s.base ?? relay.url) + '/#/new');
  await page.getByLabel('Game').selectOption(s.game);
  if (s.states !== undefined) await page.getByLabel('Number of states').fill(String(s.states));
  if (s.rounds !== undefined) await page.getByLabel(/Rounds|Most rounds|Game years/).fill(String(s.rounds));
  if (s.roll !== undefined) await page.getByLabel(/Dice rolled each turn/).fill(s.roll);
  if (s.creator !== undefined) await page.getByLabel('Your name').fill(s.creator);
  if (s.press !== undefined) await page.getByLabel(/^Press/).selectOption(s.press);
  await page.getByLabel('The other seats').fill(s.others.join(' '));
  await page.getByRole('button', { name: 'Create the game' }).click();
  await page.waitForURL(/#\/lobby\//);
  const pages = [page];
  if (s.lobbyShot !== undefined) await page.screenshot({ path: join(SHOTS, s.lobbyShot), fullPage: true });
  for (const name of s.others) {
    const invite = await page.getByTestId(`invite-${name}`).inputValue();
    const other = await player(browser, name === s.phone ? { width: 390, height: 844 } : undefined);
    if (name === s.cheater) await other.page.addInitScript(() => ((globalThis as { __fairtableCheat?: string }).__fairtableCheat = 'wrong-opening'));
    await other.page.goto(invite);
    await other.page.getByRole('button', { name: `Join as ${name}` }).click();
    if (name === s.phone) await fitsWidth(other.page);
    pages.push(other.page);
  }
  for (const p of pages) await p.waitForURL(/#\/game\//, { timeout: 20_000 });
  return pages;
}

/** The first element of the page's main column (its test id, else its tag). */
async function firstInMain(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.querySelector('main')?.firstElementChild;
    return el === null || el === undefined ? '' : (el.getAttribute('data-testid') ?? el.tagName);
  });
}

/**
 * Monopoly's square names and prices, word by word: each word must lie on one line (not broken inside it) and
 * wholly inside its square (not cut off). Returns the words that do not.
 */
async function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const li of document.querySelectorAll('li.msq')) {
      const box = li.getBoundingClientRect();
      for (const span of li.querySelectorAll('.n, .price')) {
        const text = span.firstChild;
        if (text === null || text.nodeType !== Node.TEXT_NODE) continue;
        const whole = text.textContent ?? '';
        let at = 0;
        for (const word of whole.split(' ')) {
          const range = document.createRange();
          range.setStart(text, at);
          range.setEnd(text, at + word.length);
          at += word.length + 1;
          const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
          const inside = rects.every((r) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5);
          if (rects.length !== 1 || !inside) out.push(`${whole}: "${word}" in ${rects.length} pieces${inside ? '' : ', cut off'}`);
        }
      }
    }
    return out;
  });
}

/** The page is no wider than its screen: nothing to scroll sideways. */
async function fitsWidth(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
}

/**
 * Answers every decision shown, as a player would, until every page shows the outcome. `answer` fills the form in;
 * it returns true when it has sent the answer itself (from the keyboard), else the form's button is clicked.
 */
async function playToEnd(
  pages: readonly Page[],
  answer: (page: Page, index: number) => Promise<boolean | void> = async () => undefined,
  budgetMs = 90_000,
  /** Stops early, before the end, once this holds. */
  stopWhen: () => Promise<boolean> = async () => false,
): Promise<void> {
  const end = Date.now() + budgetMs;
  for (;;) {
    if (await stopWhen()) return;
    let over = 0;
    for (let i = 0; i < pages.length; i++) {
      const p = pages[i]!;
      if (await p.getByTestId('outcome').isVisible()) {
        over++;
        continue;
      }
      const form = p.getByRole('form', { name: 'Your decision' });
      if (await form.isVisible()) {
        if ((await answer(p, i)) === true) continue;
        await form
          .locator('button[type=submit]')
          .click({ timeout: 5_000 })
          .catch(() => undefined);
      }
    }
    if (over === pages.length) return;
    if (Date.now() > end)
      throw new Error(`the game did not end in ${budgetMs} ms: ${(await Promise.all(pages.map((p) => p.getByTestId('status').textContent()))).join(' | ')}`);
    await pages[0]!.waitForTimeout(150);
  }
}

/** No serious or critical accessibility finding of axe-core on the page as it stands (docs/spec/web.md §7). */
async function accessible(page: Page, where: string): Promise<void> {
  expect(await axeFindings(page), `axe-core on ${where}`).toEqual([]);
}

/**
 * Every control on the page is reached by the Tab key, in turn, and shows where the focus is: an outline or a
 * ring (box-shadow) while focused. Returns how many controls it reached.
 */
async function keyboardReaches(page: Page, where: string): Promise<number> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  // Each control's path in the page; a radio group is one stop (arrow keys move inside it), named by its first radio.
  const path = `(e) => { const p = []; for (let n = e; n !== null && n !== document.body; n = n.parentElement) p.unshift(n.tagName + [...(n.parentElement?.children ?? [])].indexOf(n)); return p.join('/'); }`;
  const expected = await page.evaluate((pathSrc) => {
    const pathOf = eval(pathSrc) as (e: Element) => string;
    const groups = new Set<string>();
    const out: { key: string; name: string }[] = [];
    for (const e of document.querySelectorAll<HTMLElement>(
      'main a[href], main button, main input, main select, main textarea, main summary, main [tabindex]',
    )) {
      if ((e as HTMLButtonElement).disabled || e.tabIndex < 0 || e.getClientRects().length === 0 || getComputedStyle(e).visibility === 'hidden') continue;
      // Inside a closed <details>, only its summary can take the focus.
      const shut = e.closest('details:not([open])');
      if (shut !== null && !(e.tagName === 'SUMMARY' && e.parentElement === shut)) continue;
      const radio = e instanceof HTMLInputElement && e.type === 'radio' && e.name !== '';
      if (radio && groups.has(e.name)) continue;
      if (radio) groups.add(e.name);
      out.push({
        key: radio ? `radio:${e.name}` : pathOf(e),
        name: `${e.tagName.toLowerCase()} "${(e.getAttribute('aria-label') ?? e.textContent ?? '').trim().slice(0, 30)}"`,
      });
    }
    return out;
  }, path);
  const seen = new Set<string>();
  const unmarked: string[] = [];
  // Tab goes through the header and the browser too: a generous budget of presses, stopping once every control is seen.
  for (let i = 0; i < 2 * expected.length + 60 && seen.size < expected.length; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate((pathSrc) => {
      const pathOf = eval(pathSrc) as (e: Element) => string;
      const e = document.activeElement as HTMLElement | null;
      if (e === null || e === document.body || e.closest('main') === null) return null;
      const st = getComputedStyle(e);
      const marked = (st.outlineStyle !== 'none' && parseFloat(st.outlineWidth) > 0) || st.boxShadow !== 'none';
      const radio = e instanceof HTMLInputElement && e.type === 'radio' && e.name !== '';
      return {
        key: radio ? `radio:${e.name}` : pathOf(e),
        marked,
        name: `${e.tagName.toLowerCase()} "${(e.getAttribute('aria-label') ?? e.textContent ?? '').trim().slice(0, 30)}"`,
      };
    }, path);
    if (f === null) continue;
    if (!f.marked) unmarked.push(f.name);
    seen.add(f.key);
  }
  expect(unmarked, `focus not shown on ${where}`).toEqual([]);
  expect(
    expected.filter((x) => !seen.has(x.key)).map((x) => x.name),
    `controls not reached by Tab on ${where}`,
  ).toEqual([]);
  return expected.length;
}

async function auditOn(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Audit', exact: true }).click();
  const verdict = page.getByRole('region', { name: 'Audit verdict' });
  await verdict.waitFor();
  return (await verdict.textContent()) ?? '';
}

async function close(pages: readonly Page[]): Promise<void> {
  for (const p of pages) await leave(p);
}

describe('the web app in Chromium', () => {
  it('hands a context its player left to the next player with nothing of the first: no keys, no games, no settings', async () => {
    const first = (await player(browser)).page;
    await first.goto(relay.url + '/');
    await first.getByRole('heading').first().waitFor();
    const held = await first.evaluate(async () => {
      localStorage.setItem('fairtable-test', 'first');
      await new Promise((resolve, reject) => {
        const open = indexedDB.open('fairtable-test', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('s');
        open.onsuccess = () => (open.result.close(), resolve(null));
        open.onerror = () => reject(open.error);
      });
      return (await indexedDB.databases()).map((d) => d.name).sort();
    });
    expect(held).toContain('fairtable-test');
    const context = first.context();
    await leave(first);
    const next = (await player(browser)).page;
    expect(next.context()).toBe(context);
    // The first player's page is closed; the context holds the next one's and its blank keeper.
    expect(first.isClosed()).toBe(true);
    expect(context.pages()).toHaveLength(2);
    // A page of the relay's origin that runs none of the app's code: what storage it finds is what was left.
    await next.goto(relay.url + '/health');
    expect(await next.evaluate(async () => [localStorage.getItem('fairtable-test'), (await indexedDB.databases()).length])).toEqual([null, 0]);
    await leave(next);
  });

  it('plays a game of dice between two browsers to a valid audit, one of them reloading mid-game', async () => {
    const pages = await startGame({ game: 'dice', rounds: 3, roll: '3d6+2', others: ['bob'] });
    // A few turns, then bob's page reloads and carries on from its stored copy.
    const [ann, bob] = pages as [Page, Page];
    await ann.getByRole('button', { name: 'Roll the dice' }).click();
    await bob.getByRole('button', { name: 'Roll the dice' }).click();
    await expect
      .poll(async () => Number(/(\d+) lines/.exec((await bob.getByTestId('status').textContent()) ?? '')?.[1] ?? 0), { timeout: 15_000 })
      .toBeGreaterThan(6);
    expect(await bob.getByTestId('outcome').isVisible()).toBe(false);
    await bob.reload();
    await bob.getByTestId('status').waitFor();
    await playToEnd(pages);
    // The ending, first on the page, says who won and why in dice's terms: the totals, the winner's first.
    for (const p of pages) {
      expect(await firstInMain(p)).toBe('now-bar');
      const headline = (await p.getByTestId('outcome').locator('h3').textContent()) ?? '';
      const why = (await p.getByTestId('ending-why').textContent()) ?? '';
      expect(why).toMatch(/^The highest total wins: (ann|bob) \d+, (ann|bob) \d+\.$/);
      const winner = /^Game over: (ann|bob) won$/.exec(headline)?.[1];
      if (winner !== undefined) expect(why).toMatch(new RegExp(`^The highest total wins: ${winner} `));
    }
    // Each turn rolls the expression and says so in its own words.
    const rolled = (await ann.getByRole('list', { name: 'Just now' }).textContent()) ?? '';
    expect(rolled).toMatch(/(ann|bob) 3d6\+2: \d\+\d\+\d\+2 = \d+/);
    mkdirSync(SHOTS, { recursive: true });
    await ann.screenshot({ path: join(SHOTS, 'web-game.png'), fullPage: true });
    for (const p of pages) expect(await auditOn(p)).toContain('Valid');
    await accessible(ann, 'a finished game of dice with its audit');
    for (const p of pages)
      expect(await p.getByTestId('audit-times').textContent()).toMatch(/judged on the relay's receipt times: (\d+) of \1 lines carry a receipt/);
    // The chart of the outcomes, and where each roll came from, every input checked in the page.
    expect(await ann.getByRole('region', { name: 'Outcomes against their expected distribution' }).isVisible()).toBe(true);
    const rolls = ann.getByRole('region', { name: 'Where did each outcome come from?' }).locator('details');
    expect(await rolls.count()).toBe(6);
    await rolls.first().locator('summary').click();
    const first = (await rolls.first().textContent()) ?? '';
    expect(first).toContain('✓ checked');
    expect(first).not.toContain('✗');
    await ann.screenshot({ path: join(SHOTS, 'web-audit.png'), fullPage: true });
    // The home page lists the game (and no longer its lobby): the opponent by name beside a key fingerprint, and
    // the result; its Rematch opens a lobby for the same players and options.
    await ann.goto(relay.url + '/#/');
    const listed = ann.getByRole('list', { name: 'Your games' }).getByRole('listitem');
    await listed.getByRole('link', { name: 'Dice (highest total wins)' }).waitFor();
    await expect
      .poll(async () => (await listed.getByTestId('game-state').textContent()) ?? '', { timeout: 10_000 })
      .toMatch(/^(You won|bob won|A tie: you and bob share the win)$/);
    expect(await listed.textContent()).toMatch(/as ann, against bob [0-9a-f]{8}…/);
    expect(await ann.getByText('Lobbies you opened').count()).toBe(0);
    await ann.screenshot({ path: join(SHOTS, 'web-home.png'), fullPage: true });
    await accessible(ann, 'the home page with a game listed');
    await listed.getByRole('button', { name: 'Rematch' }).click();
    await ann.waitForURL(/#\/lobby\//);
    expect(await ann.getByRole('heading', { level: 2 }).textContent()).toBe('Lobby: Dice (highest total wins)');
    expect(await ann.locator('main').textContent()).toContain('3 rounds, rolling 3d6+2 each turn');
    expect(await ann.getByTestId('invite-bob').inputValue()).toMatch(/#\/lobby\/[0-9a-f]+\/bob\//);
    await close(pages);
  }, 120_000);

  it('talks at the table: a message from one browser reaches the others with an unread count, a private one only its recipient', async () => {
    const pages = await startGame({ game: 'dice', rounds: 3, others: ['bob', 'cy'], press: 'full' });
    const [ann, bob, cy] = pages as [Page, Page, Page];
    const talkOf = (p: Page) => p.getByRole('group', { name: 'Table talk' });
    await ann.locator('details.chat summary').click();
    await ann.getByLabel('Message').fill('Good luck, everyone.');
    await ann.getByRole('button', { name: 'Send to the table' }).click();
    await expect.poll(async () => await bob.getByTestId('talk-unread').textContent(), { timeout: 15_000 }).toBe('1');
    await expect.poll(async () => await cy.getByTestId('talk-unread').textContent(), { timeout: 15_000 }).toBe('1');
    // private press to bob alone
    await ann.getByRole('checkbox', { name: 'bob' }).check();
    await ann.getByLabel('Message').fill('Bob, roll high for me.');
    await ann.getByRole('button', { name: 'Send to bob' }).click();
    await expect.poll(async () => await bob.getByTestId('talk-unread').textContent(), { timeout: 15_000 }).toBe('2');
    await bob.locator('details.chat summary').click();
    await expect.poll(async () => (await talkOf(bob).textContent()) ?? '', { timeout: 10_000 }).toContain('Bob, roll high for me.');
    // The panel's toggle event, which clears the count, is a task of its own after the panel opens (HTML's
    // details element), so the count is waited for, not read at once: it must go within the poll's time.
    await expect.poll(async () => await bob.getByTestId('talk-unread').count(), { timeout: 5_000 }).toBe(0);
    // cy sees that ann wrote to bob, and nothing of what
    await cy.locator('details.chat summary').click();
    await cy.getByTestId('talk-sealed').waitFor({ timeout: 10_000 });
    expect(await talkOf(cy).textContent()).toContain('Good luck, everyone.');
    expect(await talkOf(cy).textContent()).not.toContain('roll high');
    expect(await talkOf(cy).textContent()).toContain('Full press');
    // a watcher with no seat: the table's talk, not the private message
    const watcher = await player(browser);
    await watcher.page.goto(ann.url());
    await watcher.page.locator('details.chat summary').click();
    await expect.poll(async () => (await talkOf(watcher.page).textContent()) ?? '', { timeout: 10_000 }).toContain('Good luck, everyone.');
    expect(await talkOf(watcher.page).textContent()).not.toContain('roll high');
    expect(await watcher.page.getByRole('form', { name: 'Write to the table' }).count()).toBe(0);
    // the relay keeps the private message sealed: its text is nowhere in the talk it serves
    const game = /#\/game\/([0-9a-f]{64})/.exec(ann.url())![1]!;
    const served = await (await fetch(`${relay.url}/games/${game}/talk`)).text();
    expect(served).toContain('Good luck');
    expect(served).not.toContain('roll high');
    await accessible(watcher.page, 'a watcher reading the table talk');
    await close([...pages, watcher.page]);
  }, 120_000);

  it('plays Rochambeau between three browsers, each choosing its state, one on a phone-sized screen', async () => {
    const pages = await startGame({ game: 'rochambeau', states: 5, others: ['bob', 'cy'], phone: 'cy', lobbyShot: 'web-lobby.png' });
    // ann chooses first. The form says in one sentence that the hand is a fair draw nobody can aim, and names the five hands.
    const ann = pages[0]!;
    const first = ann.getByRole('form', { name: 'Your decision' });
    await first.waitFor();
    expect(await first.getByTestId('fair-draw').textContent()).toMatch(/^Your hand is a fair draw that nobody, you included, can aim/);
    expect(await first.getByTestId('hand-names').textContent()).toMatch(/^The 5 hands: rock, lizard, Spock, scissors, paper\./);
    expect((await ann.getByTestId('now-bar').textContent()) ?? '').toMatch(/^Your turn:/);
    await accessible(ann, 'the Rochambeau hand form');
    await accessible(pages[2]!, 'Rochambeau at 390 px');
    // She plays from the keyboard alone: into the state's radio group, one state on, Enter sends the form.
    const radios = first.getByRole('radio');
    await radios.nth(0).focus();
    await ann.keyboard.press('ArrowRight');
    expect(await radios.nth(1).isChecked()).toBe(true);
    await ann.keyboard.press('Enter');
    // What now on her page then names both players the game waits for, with their time left.
    await expect.poll(async () => (await ann.getByTestId('now-bar').textContent()) ?? '').toMatch(/^Waiting for bob and cy — \d+:\d\d left/);
    // On the phone, what now stays at the top of the screen as the page scrolls.
    expect(await pages[2]!.getByTestId('now-bar').evaluate((e) => getComputedStyle(e).position)).toBe('sticky');
    expect(await ann.getByTestId('now-bar').evaluate((e) => getComputedStyle(e).position)).toBe('static');
    await playToEnd(pages, async (page, i) => {
      if (i === 0) {
        // ann again (a later attempt), from the keyboard alone as before.
        await page.getByRole('radio', { name: '1' }).focus();
        await page.keyboard.press('ArrowRight');
        expect(await page.getByRole('radio', { name: '2' }).isChecked()).toBe(true);
        await page.keyboard.press('Enter');
        return true;
      }
      await page.getByRole('radio', { name: String(1 + ((i * 2) % 4)) }).check();
      return false;
    });
    // The draft's rounds, judged in the page: each player's assigned state and score.
    const table = pages[0]!.getByRole('region', { name: 'Rochambeau table' });
    const round1 = table.getByRole('table', { name: 'Round 1: assigned states and scores' });
    expect(await round1.isVisible()).toBe(true);
    // Beside the state played, what each player chose (ann: 2) and the tweak that moved it.
    expect(await round1.getByRole('row', { name: /^ann / }).getByRole('cell').first().textContent()).toBe('2');
    // The state played by its name.
    expect(await round1.getByRole('row', { name: /^ann / }).getByRole('cell').nth(2).textContent()).toMatch(/^[0-4] \((rock|lizard|Spock|scissors|paper)\)$/);
    await fitsWidth(pages[2]!);
    await pages[2]!.screenshot({ path: join(SHOTS, 'web-phone.png'), fullPage: true });
    for (const p of pages) expect(await auditOn(p)).toContain('Valid');
    await accessible(pages[0]!, 'the house page after an audit');
    await close(pages);
  }, 150_000);

  it('shows the Monopoly board on a phone-sized screen with nothing to scroll sideways, what now first, every name whole', async () => {
    const pages = await startGame({ game: 'monopoly', rounds: 1, others: ['bob'], phone: 'bob' });
    const [ann, bob] = pages as [Page, Page];
    await ann.setViewportSize({ width: 1280, height: 900 });
    await bob.getByRole('region', { name: 'Monopoly board' }).waitFor();
    await fitsWidth(bob);
    // ann moves first: her page says it is her turn (and its tab says so); bob's names her as the one awaited.
    await ann.getByRole('form', { name: 'Your decision' }).waitFor();
    await expect.poll(() => firstInMain(bob)).toBe('now-bar');
    await expect.poll(async () => (await bob.getByTestId('now-bar').textContent()) ?? '').toMatch(/^Waiting for ann — \d+:\d\d left/);
    expect((await ann.getByTestId('now-bar').textContent()) ?? '').toMatch(/^Your turn:/);
    expect(await ann.title()).toBe('(●) Your turn — fairtable');
    expect(await bob.title()).toBe('fairtable');
    // The badge clears once the page gets the focus.
    await ann.evaluate(() => dispatchEvent(new FocusEvent('focus')));
    await expect.poll(() => ann.title()).toBe('fairtable');
    // No square's name is broken inside a word or cut off, at 1280 px and at 390 px.
    expect(await bob.locator('li.msq .n').count()).toBe(40);
    expect(await brokenWords(ann)).toEqual([]);
    expect(await brokenWords(bob)).toEqual([]);
    // Accessible at both widths, and ann's page is played from the keyboard: every control reached, its focus shown.
    await accessible(ann, 'Monopoly at 1280 px, ann to move');
    await accessible(bob, 'Monopoly at 390 px, waiting');
    expect(await keyboardReaches(ann, 'Monopoly, ann to move')).toBeGreaterThan(3);
    // When bob's turn comes, his decision is on his phone's first screen, under the bar.
    const form = bob.getByRole('form', { name: 'Your decision' });
    for (let i = 0; i < 40 && !(await form.isVisible()); i++) {
      const mine = ann.getByRole('form', { name: 'Your decision' });
      if (await mine.isVisible())
        await mine
          .locator('.buttons button')
          .first()
          .click({ timeout: 3_000 })
          .catch(() => undefined);
      await ann.waitForTimeout(250);
    }
    await form.waitFor();
    const first = (await form.locator('button').first().boundingBox())!;
    expect(first.y + first.height).toBeLessThanOrEqual(844);
    expect((await bob.getByTestId('now-bar').textContent()) ?? '').toMatch(/^Your turn:/);
    // bob's tab says it is his turn until he turns the badge off, a choice his browser keeps.
    await expect.poll(() => bob.title()).toBe('(●) Your turn — fairtable');
    await bob.getByRole('button', { name: 'Tab badge: on' }).click();
    await expect.poll(() => bob.title()).toBe('fairtable');
    expect(await bob.evaluate(() => localStorage.getItem('fairtable/turn-badge'))).toBe('0');
    await close(pages);
  }, 90_000);

  it('carries a choice on when the page reloads the moment its player made it: no second hand', async () => {
    const pages = await startGame({ game: 'rochambeau', states: 7, others: ['bob'] });
    const [ann] = pages as [Page, Page];
    const form = ann.getByRole('form', { name: 'Your decision' });
    await form.waitFor();
    await form.getByRole('radio', { name: '5' }).check();
    await form.locator('button[type=submit]').click();
    await ann.reload();
    // A resumed seat that decided again would sign a second Commit for the same position: the door refuses it
    // and the game would never end. Here it ends, and the audit finds nothing.
    await playToEnd(pages);
    for (const p of pages) expect(await auditOn(p)).toContain('Valid');
    await close(pages);
  }, 150_000);

  it('plays Signidice roulette against a house in a browser: bets chosen on the page, every spin proved', async () => {
    const pages = await startGame({ game: 'signidice', rounds: 3, others: ['ann', 'bob'] });
    let refused = false;
    let checked = false;
    // Once round 1 has been spun, the house's page reloads: its wheel's key comes back from the page's store.
    const house = pages[0]!;
    const spun = async () => ((await house.locator('main').textContent()) ?? '').includes('Round 1: ann bet');
    let reloaded = false;
    // True: this page's form is left unanswered for now (playToEnd).
    const bets = async (page: Page, i: number): Promise<boolean> => {
      if (i === 0) return false; // the house has no bet to make
      // Until the house's page has reloaded, nobody bets past the first spin: on a loaded machine the players'
      // pages could otherwise play the game to its end before the reload, which must come mid-game.
      if (!reloaded && (await spun())) return true;
      const form = page.getByRole('form', { name: 'Your decision' });
      if (i === 2) {
        // bob first switches to one number and sends without choosing it: refused in words, nothing sent.
        if (!refused) {
          await form.getByRole('radio', { name: 'One number' }).check();
          await form.getByLabel(/Amount/).fill('2');
          await form.getByRole('button', { name: 'Place the bet' }).click();
          expect(await form.getByRole('alert').textContent()).toBe('Choose the number to bet on, 0 to 36.');
          refused = true;
        }
        await form.getByRole('radio', { name: 'Red', exact: true }).check();
        await form.getByLabel(/Amount/).fill('1');
        return false;
      }
      if (!checked) {
        checked = true;
        await accessible(page, 'the roulette bet form');
      }
      await form.getByRole('radio', { name: 'Black', exact: true }).check();
      await form.getByLabel(/Amount/).fill('5');
      expect(await form.getByTestId('bet-summary').textContent()).toMatch(/^You bet 5 on black: if it wins you get 5 more/);
      return false;
    };
    await playToEnd(pages, bets, 90_000, spun);
    expect(await house.getByTestId('outcome').isVisible()).toBe(false);
    await house.reload();
    reloaded = true;
    await playToEnd(pages, bets);
    const text = (await pages[1]!.getByRole('region', { name: 'Roulette table' }).textContent()) ?? '';
    // Every page heads the game with the label the lobby offered it under, not the protocol's name.
    for (const p of pages) expect((await p.getByRole('heading', { level: 2 }).textContent()) ?? '').toMatch(/^Roulette against a house \(Signidice\) game /);
    expect(text).toContain('ann bet 5 on black');
    expect(text).toContain('bob bet 1 on red');
    expect(refused).toBe(true);
    expect(text).not.toContain('on straight');
    await pages[0]!.screenshot({ path: join(SHOTS, 'web-roulette.png'), fullPage: true });
    for (const p of pages) expect(await auditOn(p)).toContain('Valid');
    await close(pages);
  }, 150_000);

  it('plays Snakes & Ladders on its board to a valid audit over plain HTTP on a non-local name, with no crypto.subtle', async () => {
    const pages = await startGame({ game: 'snakes', rounds: 4, others: ['bob'], base: relay.url.replace('127.0.0.1', LAN_HOST) });
    for (const p of pages) expect(await p.evaluate(() => [isSecureContext, typeof crypto.subtle, typeof indexedDB])).toEqual([false, 'undefined', 'object']);
    await playToEnd(pages);
    expect(await pages[0]!.getByRole('grid', { name: 'Squares 1 to 100' }).isVisible()).toBe(true);
    await pages[0]!.screenshot({ path: join(SHOTS, 'web-snakes.png'), fullPage: true });
    for (const p of pages) {
      expect(await auditOn(p)).toContain('Valid');
      expect(await p.getByText('signatures by noble').isVisible()).toBe(true);
    }
    await close(pages);
  }, 150_000);

  it('plays the whole game of Monopoly to its end and a valid audit: deeds bought show their owner, a sealed auction, a trade offered and answered', async () => {
    const pages = await startGame({ game: 'monopoly', rounds: 5, others: ['bob'] });
    const names = ['ann', 'bob'];
    let bought: { square: string; by: string } | null = null;
    let offered = false;
    let declined: string | null = null;
    await playToEnd(
      pages,
      async (page, i) => {
        const form = page.getByRole('form', { name: 'Your decision' });
        const buy = form.getByRole('button', { name: /^Buy / });
        // The first deed anyone could buy is declined: it goes to a sealed auction, where ann bids $10 and bob passes.
        if (declined === null && (await buy.count()) > 0) {
          declined = /^Buy (.+) for/.exec((await buy.textContent()) ?? '')![1]!;
          await page.screenshot({ path: join(SHOTS, 'web-monopoly-decision.png'), fullPage: true });
          await form.getByRole('button', { name: /^Decline / }).click();
          return true;
        }
        if ((await buy.count()) > 0) {
          const label = (await buy.textContent()) ?? '';
          await buy.click();
          // The first deed bought shows its owner on the other player's board.
          if (bought === null) {
            bought = { square: /^Buy (.+) for \$\d+$/.exec(label)![1]!, by: names[i]! };
            const other = pages[1 - i]!.getByRole('listitem', { name: new RegExp(`^${bought.square.replace('.', '\\.')}, owned by ${bought.by}`) });
            // On a loaded machine a click can land as the form is redrawn for a new line: the button stays until the
            // answer is taken, so it is clicked again until it goes.
            await expect
              .poll(
                async () => {
                  if ((await buy.count()) > 0) await buy.click({ timeout: 2_000 }).catch(() => undefined);
                  return buy.count();
                },
                { timeout: 30_000 },
              )
              .toBe(0);
            await other.waitFor({ timeout: 30_000 });
          }
          return true;
        }
        // Once ann holds a deed, she offers it to bob for $1 from the trade form: "You give" and "bob gives", the
        // offer in words, then a confirm step before it is sent.
        const trades = form.locator('details.trades');
        if (!offered && i === 0 && (await trades.count()) > 0) {
          if ((await trades.getAttribute('open')) === null) await form.getByText('Offer a trade').click();
        }
        const trade = form.getByRole('form', { name: 'Offer bob a trade' });
        const gives = trade.getByRole('group', { name: 'You give' });
        if (!offered && i === 0 && (await trade.count()) > 0 && (await gives.getByRole('checkbox').count()) > 0) {
          const deed = ((await gives.locator('label.square').first().textContent()) ?? '').replace(/\s*\(.*$/, '').trim();
          await gives.getByRole('checkbox').first().check();
          await trade.getByRole('group', { name: 'bob gives' }).getByLabel(/Cash/).fill('1');
          await trade.getByRole('button', { name: 'Review the offer' }).click();
          expect(await trade.getByTestId('trade-summary-bob').textContent()).toBe(`You give ${deed}; bob gives $1.`);
          offered = true;
          await trade.getByRole('button', { name: 'Send the offer' }).click();
          return true;
        }
        const bid = form.getByRole('button', { name: 'Seal the bid' });
        if ((await bid.count()) > 0) {
          if (i === 0) await form.getByRole('spinbutton').fill('10');
          await bid.click();
          return true;
        }
        // Otherwise the first legal answer: roll, accept a trade, raise the money.
        await form
          .locator('.buttons button')
          .first()
          .click({ timeout: 5_000 })
          .catch(() => undefined);
        return true;
      },
      150_000,
    );
    expect(bought).not.toBeNull();
    expect(offered).toBe(true);
    const board = (await pages[1]!.getByRole('region', { name: 'Monopoly board' }).textContent()) ?? '';
    expect(board).toMatch(/Chance pile: \d+ cards left/);
    expect(board).toContain('Players at the end, after 5 rounds');
    // The history is collapsed under its latest steps; opened, it says every step in words.
    expect(await pages[1]!.locator('.history details').getAttribute('open')).toBeNull();
    expect(await pages[1]!.getByRole('list', { name: 'Just now' }).locator('li').count()).toBe(3);
    await pages[1]!.locator('.history details summary').click();
    const history = (await pages[1]!.getByRole('list', { name: 'History' }).textContent()) ?? '';
    expect(history).toContain('ann chose trade with bob');
    expect(history).toMatch(/bob chose (accept|decline)/);
    expect(declined).not.toBeNull();
    expect(history).toMatch(new RegExp(`(ann|bob) chose decline`));
    expect(history).toContain(`the auction of ${declined!} went to ann for $10; bob did not bid`);
    // The ending says who won and why, in Monopoly's terms.
    for (const p of pages) {
      expect(await firstInMain(p)).toBe('now-bar');
      expect((await p.getByTestId('outcome').textContent()) ?? '').toMatch(/^Game over: (ann|bob) won|^Game over: a tie/);
      expect((await p.getByTestId('ending-why').textContent()) ?? '').toMatch(
        /^The richest after 5 rounds wins: net worth (ann|bob) \$[\d,]+, (ann|bob) \$[\d,]+\.$/,
      );
    }
    await pages[1]!.screenshot({ path: join(SHOTS, 'web-monopoly.png'), fullPage: true });
    for (const p of pages) expect(await auditOn(p)).toContain('Valid');
    // Every roll's origin, checked in the page.
    const rolls = pages[0]!.getByRole('region', { name: 'Where did each outcome come from?' }).locator('details');
    expect(await rolls.count()).toBeGreaterThan(5);
    expect((await pages[0]!.getByRole('region', { name: 'Where did each outcome come from?' }).textContent()) ?? '').not.toContain('✗');
    await close(pages);
  }, 240_000);

  it('names a seat that sends a wrong opening in the verdict, on every page and on a dropped transcript', async () => {
    const pages = await startGame({ game: 'dice', rounds: 2, others: ['bob'], cheater: 'bob' });
    await playToEnd(pages);
    for (const p of pages) {
      const verdict = await auditOn(p);
      expect(verdict).toContain('Not valid: bob broke the rules');
      // The code in plain words, for a player who has not read the spec.
      expect(verdict).toContain('What it means: the player locked in a hidden value (a commitment) and later opened it to a different value');
    }
    await pages[0]!.screenshot({ path: join(SHOTS, 'web-cheat.png'), fullPage: true });
    // The transcript, as anyone can fetch it from the relay, dropped onto a fresh page's drop zone.
    const game = /#\/game\/([0-9a-f]{64})/.exec(pages[0]!.url())![1]!;
    const transcript = await (await fetch(`${relay.url}/games/${game}/transcript`)).text();
    const reader = await player(browser);
    await reader.page.goto(relay.url + '/');
    await reader.page.getByTestId('dropzone').waitFor();
    await reader.page.evaluate((text) => {
      const data = new DataTransfer();
      data.items.add(new File([text], 'game.jsonl', { type: 'application/jsonl' }));
      document.querySelector('[data-testid=dropzone]')!.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, transcript);
    const verdict = reader.page.getByRole('region', { name: 'Audit verdict' });
    await verdict.waitFor();
    expect(await verdict.textContent()).toContain('Not valid: bob broke the rules');
    // The same transcript as it comes by mail: armored, quoted in a reply, saved whole.
    const mail = `From: ann\nSubject: our game\n\nHere it is:\n\n${armor(new TextEncoder().encode(transcript))
      .split('\n')
      .map((l) => `> ${l}`)
      .join('\n')}\n`;
    const mailed = await player(browser);
    await mailed.page.goto(relay.url + '/');
    await mailed.page.getByTestId('dropzone').waitFor();
    await mailed.page.evaluate((text) => {
      const data = new DataTransfer();
      data.items.add(new File([text], 'game.eml', { type: 'message/rfc822' }));
      document.querySelector('[data-testid=dropzone]')!.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, mail);
    const fromMail = mailed.page.getByRole('region', { name: 'Audit verdict' });
    await fromMail.waitFor();
    expect(await fromMail.textContent()).toContain('Not valid: bob broke the rules');
    await close([...pages, reader.page, mailed.page]);
  }, 150_000);

  it('plays roulette against a house that is a fairtable play process, with a key made by the CLI, imported into the page and exported again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairtable-web-cli-'));
    const cli = join(ROOT, 'packages/cli/dist/main.js');
    for (const name of ['house', 'ann']) {
      const made = spawnSync(process.execPath, [cli, 'keygen', '--name', name, '--out', join(dir, `${name}.json`)], { encoding: 'utf8' });
      expect(made.status).toBe(0);
      writeFileSync(join(dir, `${name}.pub.json`), made.stdout);
    }
    const { page } = await player(browser);
    await page.goto(relay.url + '/');
    await page.getByLabel('Import a key file').setInputFiles(join(dir, 'ann.json'));
    await page.getByText('Imported the key of ann.').waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: "Export ann's key file" }).click();
    const exported = JSON.parse(readFileSync((await (await download).path())!, 'utf8')) as unknown;
    expect(exported).toEqual(JSON.parse(readFileSync(join(dir, 'ann.json'), 'utf8')));

    const house = spawn(
      process.execPath,
      [
        cli,
        'play',
        'signidice',
        '--relay',
        relay.url,
        '--key',
        join(dir, 'house.json'),
        '--players',
        `${join(dir, 'house.pub.json')},${join(dir, 'ann.pub.json')}`,
        '--turns',
        '2',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    house.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => house.on('exit', resolve));
    await expect.poll(() => out.includes('\n'), { timeout: 20_000 }).toBe(true);
    const [game, invite] = out.split('\n')[0]!.split(' ') as [string, string];
    expect(invite).toBe(`${relay.url}/games/${game}`);
    // The invite the CLI prints, opened in the browser: the app, which offers the seat whose key the page holds.
    await page.goto(invite);
    await page.getByRole('button', { name: 'Play as ann' }).click();
    await playToEnd([page], async () => {
      const form = page.getByRole('form', { name: 'Your decision' });
      await form.getByRole('radio', { name: 'A dozen' }).check();
      await form.getByRole('radio', { name: /^1st dozen/ }).check();
      await form.getByLabel(/Amount/).fill('3');
    });
    expect(await exited).toBe(0);
    const outcome = JSON.parse(out.trim().split('\n').at(-1)!) as { game: string; violations: unknown[] };
    expect([outcome.game, outcome.violations]).toEqual([game, []]);
    expect((await page.getByRole('region', { name: 'Roulette table' }).textContent()) ?? '').toMatch(/Round 2: ann bet 3 on dozen 1/);
    expect(await auditOn(page)).toContain('Valid');
    await close([page]);
  }, 150_000);

  it('continues a seat in a second browser that imports the key while the first is still open: one hand, nobody named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairtable-web-key-'));
    const cli = join(ROOT, 'packages/cli/dist/main.js');
    for (const name of ['ann', 'bob', 'cy']) {
      const made = spawnSync(process.execPath, [cli, 'keygen', '--name', name, '--out', join(dir, `${name}.json`)], { encoding: 'utf8' });
      expect(made.status).toBe(0);
      writeFileSync(join(dir, `${name}.pub.json`), made.stdout);
    }
    const run = (args: string[]) => {
      const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      return { out: () => out, err: () => err, exited };
    };
    const pubs = ['ann', 'bob', 'cy'].map((n) => join(dir, `${n}.pub.json`)).join(',');
    const bob = run(['play', 'rochambeau', '--relay', relay.url, '--key', join(dir, 'bob.json'), '--players', pubs, '--hand', '1']);
    await expect.poll(() => bob.out().includes('\n'), { timeout: 20_000 }).toBe(true);
    const [game, invite] = bob.out().split('\n')[0]!.split(' ') as [string, string];
    // The first browser: ann's key imported, her hand chosen and committed.
    const first = await player(browser);
    await first.page.goto(relay.url + '/');
    await first.page.getByLabel('Import a key file').setInputFiles(join(dir, 'ann.json'));
    await first.page.getByText('Imported the key of ann.').waitFor();
    await first.page.goto(invite);
    await first.page.getByRole('button', { name: 'Play as ann' }).click();
    const form = first.page.getByRole('form', { name: 'Your decision' });
    await form.getByRole('radio', { name: '2' }).check();
    await form.locator('button[type=submit]').click();
    const annCommitted = async (): Promise<boolean> => {
      const log = await (await fetch(`${relay.url}/games/${game}/transcript`)).text();
      return log.split('\n').some((l) => l.includes('"from":"ann"') && l.includes('"type":"commit"'));
    };
    await expect.poll(annCommitted, { timeout: 20_000 }).toBe(true);
    // The second browser, the first still open: the same key imported, the seat taken from the relay's log.
    const second = await player(browser);
    await second.page.goto(relay.url + '/');
    await second.page.getByLabel('Import a key file').setInputFiles(join(dir, 'ann.json'));
    await second.page.getByText('Imported the key of ann.').waitFor();
    await second.page.goto(invite);
    await second.page.getByRole('button', { name: 'Play as ann' }).click();
    await second.page.getByText('You play ann.').waitFor();
    // cy joins last: only now can the hands be revealed, by both of ann's browsers alike.
    const cy = run(['play', '--relay', relay.url, '--key', join(dir, 'cy.json'), '--join', game, '--hand', '1']);
    await playToEnd([first.page, second.page], async (page, i) => {
      throw new Error(`ann was asked for her hand again in browser ${i + 1}: ${await page.getByTestId('status').textContent()}`);
    });
    expect(await bob.exited, bob.err()).toBe(0);
    expect(await cy.exited, cy.err()).toBe(0);
    for (const o of [bob.out(), cy.out()]) expect((JSON.parse(o.trim().split('\n').at(-1)!) as { violations: unknown[] }).violations).toEqual([]);
    const log = (await (await fetch(`${relay.url}/games/${game}/transcript`)).text()).split('\n').filter((l) => l.includes('"from":"ann"'));
    // One hand: each of ann's steps once (the Reveal's escrow check included), never twice from her two browsers.
    expect(log.map((l) => (JSON.parse(l) as { body: { type: string } }).body.type)).toEqual(['commit', 'check', 'reveal']);
    for (const p of [first.page, second.page]) expect(await auditOn(p)).toContain('Valid');
    await close([first.page, second.page]);
  }, 150_000);

  it('plays a year of Diplomacy between two browsers: preferences, orders from the form, the board with arrows, a valid audit', async () => {
    const pages = await startGame({ game: 'diplomacy', rounds: 1, others: ['bob'] });
    const prefs = ['AE', 'FA'];
    // Once ann has committed a movement phase's orders and bob has not: ann's board draws them as pending arrows.
    let pendingSeen = 0;
    let movesGrouped = 0;
    let votesOffered = 0;
    let ordersChecked = false;
    await playToEnd(
      pages,
      async (page, i) => {
        const form = page.getByRole('form', { name: 'Your decision' });
        const list = form.locator('input[type=text]');
        if (await list.isVisible()) {
          await list.fill(prefs[i]!);
          return false;
        }
        // ann answers first in each pass: by bob's turn she has sent her orders, and they stay pending until he
        // commits. Her page may show them a moment after she sent them (a loaded machine): wait a little for the
        // phase line to say so (a phase in which she had nothing to order costs that little wait).
        const annPhase = pages[0]!.getByTestId('diplomacy-phase');
        if (i === 1)
          for (let waited = 0; waited < 5_000 && !((await annPhase.textContent()) ?? '').includes('not yet revealed'); waited += 100)
            await pages[0]!.waitForTimeout(100);
        if (i === 1 && (await annPhase.textContent())?.includes('not yet revealed')) {
          // ann has committed and bob not yet: her orders stay pending until he does. The map may draw them a
          // moment after the phase line changes (a loaded machine), so wait a little for them.
          const pending = pages[0]!.locator('svg.diplomacy-map line.order-pending');
          for (let waited = 0; waited < 5_000 && (await pending.count()) === 0; waited += 100) await pages[0]!.waitForTimeout(100);
          pendingSeen += await pending.count();
        }
        // Orders: each unit's second legal order (its first move) where it has one; the first is its hold.
        // (Not the vote beside them: a vote for a draw from both would end the year early.)
        const selects = form.locator('div.record > label > select');
        // A unit's orders come under headings (docs/spec/web.md §4): its moves under "Move".
        movesGrouped += await form.locator('select optgroup[label="Move"] option').count();
        // Beside the orders, a vote to end the game, offered in words and left at "no vote" (docs/spec/diplomacy.md §10.12).
        const vote = form.getByRole('combobox', { name: /^Vote to end the game/ });
        if ((await vote.count()) > 0 && (await vote.locator('option', { hasText: /^a draw$/ }).count()) === 1) votesOffered++;
        if (votesOffered === 1 && !ordersChecked) {
          ordersChecked = true;
          await accessible(page, 'the Diplomacy orders form and board');
        }
        for (let k = 0; k < (await selects.count()); k++) {
          const values = await selects
            .nth(k)
            .locator('option')
            .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
          if (values.length > 1) await selects.nth(k).selectOption(values[1]!);
        }
        return false;
      },
      150_000,
    );
    const [ann, bob] = pages as [Page, Page];
    const powers = ann.getByTestId('powers');
    // Both first choices are unopposed: the first pass gives them.
    const table = (await ann.getByRole('region', { name: 'Diplomacy table' }).textContent()) ?? '';
    expect(await powers.getByRole('row', { name: /ann austria/ }).isVisible(), table).toBe(true);
    expect(await powers.getByRole('row', { name: /bob france/ }).isVisible(), table).toBe(true);
    // The board: the last movement phase's orders drawn as arrows, their results in the table, the units on their provinces.
    expect(await ann.locator('svg.diplomacy-map line.order').count()).toBeGreaterThan(0);
    expect(movesGrouped).toBeGreaterThan(0);
    expect(votesOffered).toBeGreaterThan(0);
    expect(await ann.locator('svg.diplomacy-map text.unit').count()).toBeGreaterThan(20);
    expect(await ann.getByTestId('results').getByRole('row').count()).toBeGreaterThan(1);
    expect(await ann.getByTestId('diplomacy-phase').textContent()).toContain('Spring 1902, movement');
    // The map: every province a region; the legend says who plays each power, and that the others' units hold.
    expect(await ann.locator('svg.diplomacy-map path.province').count()).toBe(76);
    expect(await ann.getByTestId('legend').getByText('not played: its units hold').count()).toBe(5);
    await ann.locator('svg.diplomacy-map path[data-province="par"]').click();
    expect(await ann.getByTestId('province-info').textContent()).toContain('Paris (par)');
    const viewBox = await ann.locator('svg.diplomacy-map').getAttribute('viewBox');
    await ann.getByRole('button', { name: 'Zoom in' }).click();
    expect(await ann.locator('svg.diplomacy-map').getAttribute('viewBox')).not.toBe(viewBox);
    // Every phase replayed from the transcript, and the board steps back to the one before now.
    expect(await ann.locator('.diplomacy p.note').count()).toBe(0);
    await ann.getByRole('button', { name: '◀ Earlier' }).click();
    expect(await ann.getByTestId('shown-phase').textContent()).toMatch(/^(Fall|Winter) 1901, \w+: the position and its orders \((\d+) of \2\)$/);
    await ann.getByRole('button', { name: 'Now', exact: true }).click();
    expect(pendingSeen).toBeGreaterThan(0);
    expect(await ann.locator('svg.diplomacy-map line.order-pending').count()).toBe(0);
    await ann.screenshot({ path: join(SHOTS, 'web-diplomacy.png'), fullPage: true });
    for (const p of [ann, bob]) expect(await auditOn(p)).toContain('Valid');
    await accessible(ann, 'the Diplomacy board after a year, with its audit');
    await close(pages);
  }, 240_000);
});
