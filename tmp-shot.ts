import { launch, player, startRelay } from './apps/web/e2e/harness.js';
import type { Page } from 'playwright-core';

const relay = await startRelay();
const browser = await launch();
try {
  const ann = await player(browser, { width: 1280, height: 900 });
  await ann.page.goto(relay.url + '/#/new');
  await ann.page.getByLabel('Game').selectOption('monopoly');
  await ann.page.getByLabel(/Rounds/).fill('20');
  await ann.page.getByLabel('The other seats').fill('bob');
  await ann.page.getByRole('button', { name: 'Create the game' }).click();
  await ann.page.waitForURL(/#\/lobby\//);
  const invite = await ann.page.getByTestId('invite-bob').inputValue();
  const bob = await player(browser, { width: 390, height: 844 });
  await bob.page.goto(invite);
  await bob.page.getByRole('button', { name: 'Join as bob' }).click();
  const pages: Page[] = [ann.page, bob.page];
  for (const p of pages) await p.waitForURL(/#\/game\//, { timeout: 20_000 });
  const steps = Number(process.env.STEPS ?? 30);
  let done = 0;
  const end = Date.now() + 120_000;
  while (done < steps && Date.now() < end) {
    for (const p of pages) {
      const form = p.getByRole('form', { name: 'Your decision' });
      if (await form.isVisible()) {
        const buy = form.getByRole('button', { name: /^Buy / });
        const bid = form.getByRole('button', { name: 'Seal the bid' });
        if ((await buy.count()) > 0) await buy.click().catch(() => undefined);
        else if ((await bid.count()) > 0) await bid.click().catch(() => undefined);
        else await form.locator('.buttons button').first().click({ timeout: 3000 }).catch(() => undefined);
        done++;
      }
    }
    await pages[0]!.waitForTimeout(200);
  }
  await pages[0]!.waitForTimeout(1000);
  const broken = (p: Page) =>
    p.evaluate(() => {
      const out: string[] = [];
      for (const li of document.querySelectorAll('li.msq')) {
        const box = li.getBoundingClientRect();
        for (const span of li.querySelectorAll('.n, .price')) {
          const text = span.firstChild;
          if (text === null || text.nodeType !== 3) continue;
          const s = text.textContent ?? '';
          let at = 0;
          for (const word of s.split(' ')) {
            const r = document.createRange();
            r.setStart(text, at);
            r.setEnd(text, at + word.length);
            at += word.length + 1;
            const rects = [...r.getClientRects()].filter((x) => x.width > 0);
            const inside = rects.every((x) => x.left >= box.left - 0.5 && x.right <= box.right + 0.5 && x.top >= box.top - 0.5 && x.bottom <= box.bottom + 0.5);
            if (rects.length !== 1 || !inside) out.push(`${s}: ${word} (${rects.length} pieces${inside ? '' : ', cut'})`);
          }
        }
      }
      return out;
    });
  for (const [name, p] of [['1280', pages[0]!], ['390', pages[1]!]] as const) {
    console.log(name, 'broken:', JSON.stringify(await broken(p)));
    console.log(name, 'title:', await p.title());
    await p.screenshot({ path: `/tmp/shots/monopoly-${name}.png` });
    await p.screenshot({ path: `/tmp/shots/monopoly-${name}-full.png`, fullPage: true });
  }
  await pages[1]!.setViewportSize({ width: 1280, height: 900 });
  console.log('bob at 1280 broken:', JSON.stringify(await broken(pages[1]!)));
  await pages[0]!.setViewportSize({ width: 390, height: 844 });
  console.log('ann at 390 broken:', JSON.stringify(await broken(pages[0]!)));
  await pages[0]!.screenshot({ path: `/tmp/shots/monopoly-ann-390.png` });
} finally {
  await browser.close();
  await relay.stop();
}
