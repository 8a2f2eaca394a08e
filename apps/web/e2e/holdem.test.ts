/**
 * Texas Hold'em in the web app (docs/spec/web.md §4.3, §7): a hand between browser contexts on the deck nobody
 * controls, created from the lobby. Each page shows its own hole cards and nobody else's; one player closes its
 * tab mid-hand and the others finish the hand without it, naming it absent, never a cheat; the hand's result on
 * every page is the one the transcript replays to; the hole cards of the player who left (and of one who folds,
 * at four seats or more) are in no other page and cannot be opened from the transcript with every other player's
 * decryption shares. axe-core runs on the table with the bet bar showing; one seat plays on a 390 px screen.
 *
 * The number of seats is FAIRTABLE_HOLDEM_SEATS (4 unless set; 3 to 9): four is the fewest at which every claim
 * above holds (a leaver, a folder, and two players left for the showdown; three present to stand in for the leaver),
 * and every page shuffles and proves its shuffle in turn. The time to act is the form's shortest, 15 s: the hand
 * waits twice for the leaver (late to act, then late to a deal step), 1.5 times that each, and those two waits are
 * most of the test's time (docs/spec/web.md §7).
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ristretto255 } from '@noble/curves/ed25519.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLines } from '@fairtable/core/audit.js';
import { cardUnder } from '@fairtable/core/deck/index.js';
import { cardCode, cardName, parseCard } from '@fairtable/core/games/holdem/index.js';
import type { HoldemState } from '@fairtable/core/protocols/holdem/machine.js';
import { holdemRegistry } from '@fairtable/core/protocols/holdem/registry.js';
import { Referee } from '@fairtable/core/referee.js';
import { axeFindings, buildApp, launch, leave, player, startRelay, type RunningRelay } from './harness.js';

const SEATS = Number(process.env.FAIRTABLE_HOLDEM_SEATS ?? 4);
if (!(Number.isInteger(SEATS) && SEATS >= 3 && SEATS <= 9))
  throw new Error(`FAIRTABLE_HOLDEM_SEATS must be 3 to 9 (a leaver needs two others to stand in), not ${SEATS}`);
const NAMES = ['ann', 'bob', 'cy', 'dee', 'eve', 'fay', 'gus', 'hal', 'ivy'].slice(0, SEATS);
/** The player who closes its tab once the hole cards are dealt. */
const LEAVER = 'bob';
/** A player who folds at its first turn (at four seats or more, so that two players still reach the showdown). */
const FOLDER = SEATS >= 4 ? NAMES[SEATS - 1]! : null;
/** The seat played on a phone-sized screen. */
const PHONE = 'cy';
/** The time to act: a player late by half as much again is claimed against. */
const DEADLINE_MS = 15_000;

// Screenshots go to a temporary folder, so a test run leaves the tree clean (SCREENSHOTS_DIR=docs/screenshots keeps them).
const SHOTS = process.env.SCREENSHOTS_DIR ?? join(tmpdir(), 'fairtable-web-shots');
mkdirSync(SHOTS, { recursive: true });

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

/** The creator opens a Hold'em lobby for one hand; every other player joins by its invite link. */
async function startHoldem(): Promise<Map<string, Page>> {
  const creator = await player(browser);
  const page = creator.page;
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(relay.url + '/#/new');
  await page.getByLabel('Game').selectOption('holdem');
  await page.getByLabel('Hands at most').fill('1');
  await page.getByLabel(/^Big blind/).fill('100');
  await page.getByLabel(/^Starting chips/).fill('10000');
  await page.getByLabel('Time each player has to act').selectOption(String(DEADLINE_MS));
  await page.getByLabel('The other seats').fill(NAMES.slice(1).join(' '));
  await page.getByRole('button', { name: 'Create the game' }).click();
  await page.waitForURL(/#\/lobby\//);
  const pages = new Map<string, Page>([[NAMES[0]!, page]]);
  for (const name of NAMES.slice(1)) {
    const invite = await page.getByTestId(`invite-${name}`).inputValue();
    const other = await player(browser, name === PHONE ? { width: 390, height: 844 } : undefined);
    other.page.on('pageerror', (e) => errors.push(e.message));
    await other.page.goto(invite);
    await other.page.getByRole('button', { name: `Join as ${name}` }).click();
    pages.set(name, other.page);
  }
  for (const p of pages.values()) await p.waitForURL(/#\/game\//, { timeout: 30_000 });
  return pages;
}

/** The cards a page shows in a seat's row, as ASCII codes. */
const rowCards = (page: Page, seat: string): Promise<string[]> =>
  page
    .getByTestId(`seat-${seat}`)
    .locator('[data-card]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-card') ?? ''));

/** Whether any of `cards` (codes) is in the page, as a card drawn or as a card's name in its text. */
async function showsAny(page: Page, cards: readonly string[], names: readonly string[]): Promise<string[]> {
  return page.evaluate(
    ({ cards, names }) => {
      const found = cards.filter((c) => document.querySelector(`[data-card="${c}"]`) !== null);
      const text = document.body.innerText;
      return [...found, ...names.filter((n) => text.includes(n))];
    },
    { cards, names },
  );
}

describe("Texas Hold'em in the web app", () => {
  it(`${SEATS} browsers play a hand; one closes its tab mid-hand, the others finish it, and hidden cards stay hidden`, async () => {
    const started = Date.now();
    const pages = await startHoldem();
    const gameId = /#\/game\/([0-9a-f]+)/.exec(pages.get(NAMES[0]!)!.url())![1]!;

    // Every page opens its own two hole cards, and shows nobody else's.
    const holes = new Map<string, string[]>();
    for (const [name, page] of pages) {
      await expect.poll(() => rowCards(page, name), { timeout: 60_000 * SEATS, interval: 500 }).toHaveLength(2);
      holes.set(name, await rowCards(page, name));
    }
    const allHoles = [...holes.values()].flat();
    expect(new Set(allHoles).size).toBe(2 * SEATS);
    for (const [name, page] of pages)
      for (const [other, cards] of holes) if (other !== name) expect(await showsAny(page, cards, []), `${name}'s page shows ${other}'s cards`).toEqual([]);
    const dealtMs = Date.now() - started;

    // bob closes his tab mid-hand.
    await leave(pages.get(LEAVER)!);
    pages.delete(LEAVER);

    let raised = false;
    let checkedBar = false;
    let checkedPhone = false;
    const end = Date.now() + 8 * 60_000;
    for (;;) {
      let over = 0;
      for (const [name, page] of pages) {
        if (await page.getByTestId('outcome').isVisible()) {
          over++;
          continue;
        }
        const bar = page.getByTestId('bet-bar');
        if (!(await bar.isVisible())) continue;
        if (name === PHONE && !checkedPhone) {
          // The table and its bet bar fit a phone's width: nothing to scroll sideways.
          expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
          // The seats' table itself fits too, every column seen without scrolling inside the board.
          expect(await page.evaluate(() => (document.querySelector('.holdem-seats')?.getBoundingClientRect().right ?? Infinity) <= innerWidth)).toBe(true);
          await page.screenshot({ path: join(SHOTS, 'holdem-390.png'), fullPage: true });
          checkedPhone = true;
        }
        if (name === FOLDER) {
          await page
            .getByTestId('bet-fold')
            .click({ timeout: 5_000 })
            .catch(() => undefined);
          continue;
        }
        if (name === NAMES[0] && !raised && (await page.getByTestId('bet-raise').isVisible())) {
          if (!checkedBar) {
            expect(await axeFindings(page), "axe-core on the Hold'em table with the bet bar").toEqual([]);
            await page.screenshot({ path: join(SHOTS, 'holdem-900.png'), fullPage: true });
            checkedBar = true;
          }
          // An amount out of range is refused in words, and nothing is sent.
          const min = Number(await page.locator('#raise-range').getAttribute('min'));
          await page.getByTestId('bet-amount').fill(String(min - 1));
          await page.getByTestId('bet-raise').click();
          expect((await page.getByTestId('bet-error').textContent()) ?? '').toMatch(new RegExp(`goes to between ${min.toLocaleString('en-US')} and`));
          expect(await bar.isVisible()).toBe(true);
          await page.getByTestId('bet-amount').fill(String(min));
          await page.getByTestId('bet-raise').click();
          raised = true;
          continue;
        }
        const check = page.getByTestId('bet-check');
        await ((await check.isVisible()) ? check : page.getByTestId('bet-call')).click({ timeout: 5_000 }).catch(() => undefined);
      }
      if (over === pages.size) break;
      if (Date.now() > end)
        throw new Error(
          `the hand did not end: ${(await Promise.all([...pages.values()].map((p) => p.getByTestId('holdem-table').textContent()))).join(' | ')}`,
        );
      await pages.get(NAMES[0]!)!.waitForTimeout(300);
    }
    const playedMs = Date.now() - started;
    console.log(`Hold'em, ${SEATS} browsers: hole cards after ${Math.round(dealtMs / 1000)} s, the hand over after ${Math.round(playedMs / 1000)} s`);
    expect(raised).toBe(true);

    // The transcript replayed with the relay's receipt times: bob is named absent (withheld, an absence), nobody else.
    const lines = (await (await fetch(`${relay.url}/games/${gameId}/transcript`)).text()).split('\n').filter((l) => l.trim() !== '');
    const times = (await (await fetch(`${relay.url}/games/${gameId}/receipts`)).text())
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { line: number; time: number });
    const timeOf = (line: number): number | undefined => times.find((r) => r.line === line)?.time;
    const verdict = auditLines(lines, { registry: holdemRegistry, timeOf });
    expect(verdict.violations.length).toBeGreaterThan(0);
    for (const v of verdict.violations) expect([v.player, v.code, v.kind]).toEqual([LEAVER, 'withheld', 'absence']);
    expect(verdict.outcome?.forfeits).toEqual([{ player: LEAVER, code: 'withheld' }]);
    const referee = new Referee(lines[0]!, null, undefined, { registry: holdemRegistry, timeOf });
    for (let i = 1; i < lines.length; i++) referee.feedText(i, lines[i]!);
    const state = referee.state as HoldemState;
    const hand = state.table.lastHand!;
    const result = hand.result!;

    // Every page that stayed shows the result the transcript gives, in words, bob gone as absent, and the outcome.
    for (const [name, page] of pages) {
      const words = (await page.getByTestId('hand-result').textContent()) ?? '';
      for (const pot of result.pots)
        for (const w of pot.winners) {
          expect(words, `${name}'s page`).toContain(`${w} wins ${(pot.shares[w] ?? 0).toLocaleString('en-US')}`);
          if (result.hands[w] !== undefined) expect(words).toContain(result.hands[w]!.name);
        }
      const gone = (await page.getByTestId(`gone-${LEAVER}`).textContent()) ?? '';
      expect(gone).toContain(`${LEAVER} left the table`);
      expect(gone).not.toMatch(/broke a rule/);
      const headline = (await page.getByTestId('outcome').locator('h3').textContent()) ?? '';
      for (const w of verdict.outcome!.winners) expect(headline).toContain(w);
      // Cards shown at the showdown are on every page.
      for (const [shower, cards] of Object.entries(state.shown))
        expect(await rowCards(page, shower), `${name} sees ${shower}'s shown hand`).toEqual(cards.map(cardCode));
    }

    // The hole cards of the player who left, and of the one who folded, stay hidden: in no other page, and not
    // opened from the transcript with every other player's decryption share of them.
    const hidden = [LEAVER, ...(FOLDER === null ? [] : [FOLDER])];
    for (const h of hidden) {
      expect(state.shown[h]).toBeUndefined();
      const cards = holes.get(h)!;
      const names = cards.map((c) => cardName(parseCard(c)));
      for (const [name, page] of pages) if (name !== h) expect(await showsAny(page, cards, names), `${name}'s page shows ${h}'s cards`).toEqual([]);
      const seat = hand.seats.indexOf(h);
      for (const position of [2 * seat, 2 * seat + 1]) {
        const parts = state.parts[String(position)] ?? [];
        expect(parts).toHaveLength(SEATS - 1);
        const opened = cardUnder(
          state.deck[position]!,
          parts.map((p) => ristretto255.Point.fromHex(p)),
          52,
        );
        expect(opened === null ? null : cardCode(opened), `${h}'s card at position ${position}`).not.toBe(cards[position - 2 * seat]);
        expect(opened === null || !cards.includes(cardCode(opened))).toBe(true);
      }
    }
    expect(errors).toEqual([]);
  }, 900_000);
});
