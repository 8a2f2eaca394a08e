import { launch, player, startRelay } from './harness.js';
const relay = await startRelay();
const browser = await launch();
const log = (...a: unknown[]) => console.log(new Date().toISOString().slice(11, 19), ...a);
try {
  const { page } = await player(browser);
  const trace = (p: import('playwright-core').Page, n: string) => p.on('console', (m) => log(n, m.text()));
  page.on('console', (m) => log('ann console', m.text()));
  await page.goto(relay.url + '/#/new');
  log('loaded', await page.title());
  await page.getByLabel('Game').selectOption('dice');
  await page.getByLabel('The other seats').fill('bob');
  await page.getByRole('button', { name: 'Create the game' }).click();
  await page.waitForURL(/#\/lobby\//, { timeout: 5000 });
  log('lobby', page.url());
  const invite = await page.getByTestId('invite-bob').inputValue({ timeout: 5000 });
  log('invite', invite);
  const bob = await player(browser);
  bob.page.on('console', (m) => log('bob console', m.text()));
  await bob.page.goto(invite);
  await bob.page.getByRole('button', { name: 'Join as bob' }).click({ timeout: 5000 });
  log('joined');
  await page.waitForURL(/#\/game\//, { timeout: 10000 });
  log('ann in game');
  await bob.page.waitForURL(/#\/game\//, { timeout: 10000 });
  log('bob in game');
  const pages = [page, bob.page];
  for (let k = 0; k < 200; k++) {
    let over = 0;
    for (const [i, p] of pages.entries()) {
      if (await p.getByTestId('outcome').isVisible()) { over++; continue; }
      const form = p.getByRole('form', { name: 'Your decision' });
      if (await form.isVisible()) {
        log('decide', i);
        await form.locator('button[type=submit]').click({ timeout: 5_000 }).catch((e) => log('click failed', e.message.slice(0, 200)));
      }
    }
    if (over === 2) break;
    if (k % 20 === 0) log(await page.getByTestId('status').textContent(), await bob.page.getByTestId('status').textContent());
    if (k === 2) { await bob.page.reload(); log('reloaded'); trace(bob.page, 'bob2'); }
    await page.waitForTimeout(150);
  }
  log(await page.locator('main').innerText());
} catch (e) {
  log('FAILED', (e as Error).message.slice(0, 500));
} finally {
  await browser.close();
  await relay.stop();
}
