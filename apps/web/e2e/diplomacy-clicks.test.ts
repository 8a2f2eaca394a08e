/**
 * Diplomacy's orders by clicks in Chromium (docs/spec/web.md §4, "Diplomacy"): on a phone-sized page, England
 * enters a convoy through two fleets (A lon - por via convoy, F eng and F mao convoying) and France's army's
 * support by clicks and taps only, clears and re-enters an order, and the form sends exactly those orders; axe finds
 * nothing serious with a unit selected; a province takes Enter from the keyboard; an order chosen in the form is
 * drawn on the map.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { launchChromium, servePage } from '../../../bench/lib/page-server.js';
import { axeFindings } from './harness.js';

const position = {
  phase: { season: 'spring', year: 1901, type: 'movement' },
  units: [
    { power: 'england', type: 'army', at: 'lon' },
    { power: 'england', type: 'fleet', at: 'eng' },
    { power: 'england', type: 'fleet', at: 'mao' },
    { power: 'england', type: 'army', at: 'wal' },
    { power: 'france', type: 'army', at: 'spa' },
  ],
  supplyCenterOwners: null,
};

/** A point of province `id` on screen, well inside it, where the province (or its unit) takes the pointer. */
async function pointIn(page: Page, id: string): Promise<{ x: number; y: number }> {
  return page.evaluate((p) => {
    const path = document.querySelector(`svg.diplomacy-map path[data-province="${p}"]`)!;
    path.scrollIntoView({ block: 'center' });
    const r = path.getBoundingClientRect();
    for (let i = 1; i < 16; i++)
      for (let j = 1; j < 16; j++) {
        const x = r.left + (r.width * i) / 16;
        const y = r.top + (r.height * j) / 16;
        // The province, or the disc of the unit standing in it (which takes a click as its province does).
        const inside = (dx: number, dy: number): boolean => {
          const e = document.elementFromPoint(x + dx, y + dy);
          const unit = e?.closest('.unit-disc')?.querySelector('text.unit')?.getAttribute('data-unit')?.split(' ')[2]?.split('/')[0];
          return e === path || unit === p;
        };
        // Well inside: the province also takes the points 5 px around.
        if (inside(0, 0) && inside(-5, -5) && inside(5, -5) && inside(-5, 5) && inside(5, 5)) return { x, y };
      }
    throw new Error(`no point of ${p} takes the pointer`);
  }, id);
}

let browser: Browser | null = null;
let server: Server | null = null;
let url = '';

beforeAll(async () => {
  browser = await launchChromium();
  if (browser === null) throw new Error('no Chromium at /usr/bin/chromium (or $CHROMIUM): the browser tests need it');
  ({ url, server } = await servePage('apps/web/e2e/diplomacy-orders-page.tsx', 'Diplomacy orders by clicks', 'ordersFixture', { power: 'england', position }));
});

afterAll(async () => {
  await browser?.close();
  server?.close();
});

describe('Diplomacy orders by clicks', () => {
  it('enters a two-fleet convoy and a support by taps on a phone, and the form sends them', async () => {
    const context = await browser!.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const page: Page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url);
    const prompt = page.getByTestId('click-prompt');
    await expect.poll(() => prompt.textContent()).toContain('Click one of your units');
    const tap = async (p: string): Promise<void> => {
      const { x, y } = await pointIn(page, p);
      await page.touchscreen.tap(x, y);
    };

    // The army: London, then Portugal; only the move by convoy goes there.
    await tap('lon');
    expect(await prompt.textContent()).toContain('A Lon: click where it moves');
    expect(await page.locator('svg.diplomacy-map path.clicked').count()).toBe(1);
    const findings = await axeFindings(page);
    expect(findings, JSON.stringify(findings, null, 1)).toEqual([]);
    await tap('por');
    expect(await prompt.textContent()).toContain('Entered: A Lon → Por via convoy.');
    // The fleets: the Channel by its clicks (F eng, A lon, Portugal); the Mid-Atlantic from the offer to order the rest.
    await tap('eng');
    await tap('lon');
    await tap('por');
    expect(await prompt.textContent()).toContain('Entered: F Eng convoys A Lon → Por.');
    await tap('lon');
    await tap('por');
    await page.getByTestId('convoy-follow-ups').tap();
    // Wales supports London's move to... Wales cannot reach Portugal: it supports London holding, then is changed.
    await tap('wal');
    await tap('lon');
    await tap('lon');
    expect(await prompt.textContent()).toContain('Entered: A Wal supports A Lon holding.');
    await page.getByRole('button', { name: 'Clear: A Wal supports A Lon holding' }).tap();
    await tap('wal');
    await tap('lon');
    // Wales onto London: a move there is offered as a choice, and the clicks may go on; Yorkshire ends the support.
    expect(await page.locator('.click-choices button[data-order="A wal - lon"]').count()).toBe(1);
    await tap('yor');
    expect(await prompt.textContent()).toContain('Entered: A Wal supports A Lon → Yor.');

    const written = await page
      .getByTestId('written-orders')
      .locator('li')
      .evaluateAll((li) => li.map((l) => l.getAttribute('data-order')));
    expect(written.sort()).toEqual(['A lon - por via convoy', 'A wal S A lon - yor', 'F eng C A lon - por', 'F mao C A lon - por']);
    expect(await page.locator('svg.diplomacy-map line.order-draft').count()).toBe(4);
    // The form shows the same orders.
    expect(await page.locator('select').evaluateAll((s) => s.map((x) => JSON.parse((x as HTMLSelectElement).value) as string).sort())).toEqual(
      expect.arrayContaining(['A lon - por via convoy', 'F eng C A lon - por', 'F mao C A lon - por', 'A wal S A lon - yor']),
    );
    await page.getByRole('button', { name: 'Commit these orders' }).tap();
    const sent = (await page.evaluate(() => (globalThis as unknown as { sent: unknown[] }).sent)) as Record<string, string>[];
    expect(sent).toHaveLength(1);
    expect({ lon: sent[0]!.lon, eng: sent[0]!.eng, mao: sent[0]!.mao, wal: sent[0]!.wal }).toEqual({
      lon: 'A lon - por via convoy',
      eng: 'F eng C A lon - por',
      mao: 'F mao C A lon - por',
      wal: 'A wal S A lon - yor',
    });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('takes a province from the keyboard, and a drag on the map is not a click', async () => {
    const context = await browser!.newContext({ viewport: { width: 900, height: 1000 } });
    const page = await context.newPage();
    await page.goto(url);
    const lon = page.locator('svg.diplomacy-map path[data-province="lon"]');
    await lon.focus();
    expect(await page.locator('svg.diplomacy-map .focus-ring').count()).toBe(1);
    await page.keyboard.press('Enter');
    expect(await page.getByTestId('click-prompt').textContent()).toContain('A Lon: click where it moves');
    await page.keyboard.press('Enter');
    expect(await page.getByTestId('click-prompt').textContent()).toContain('Entered: A Lon holds.');
    // An order chosen in the form is drawn on the map and listed under it: one answer for both.
    await page.locator(`select:has(option[value='"A wal - yor"'])`).selectOption(JSON.stringify('A wal - yor'));
    expect(await page.locator('svg.diplomacy-map line.order-draft[data-order="A wal - yor"]').count()).toBe(1);
    expect(await page.getByTestId('written-orders').textContent()).toContain('A Wal → Yor by land');
    // A drag that starts and ends on Wales starts nothing.
    const { x, y } = await pointIn(page, 'wal');
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + 8, y + 8, { steps: 4 });
    await page.mouse.move(x, y, { steps: 4 });
    await page.mouse.up();
    expect(await page.getByTestId('click-prompt').textContent()).not.toContain('A Wal:');
    // …and a click there does.
    await page.mouse.click(x, y);
    expect(await page.getByTestId('click-prompt').textContent()).toContain('A Wal:');
    await context.close();
  });
});
