/**
 * `npm run bench:web-diplomacy` (docs/spec/web.md §4, "Diplomacy"): the Diplomacy board in headless Chromium
 * (Debian's /usr/bin/chromium, never a downloaded browser): how long its modules and map take to load, its first
 * render, and a render after one more phase (medians of several runs); the label size on screen at 1280 and 390 px
 * wide; and the screenshots under docs/screenshots/ (diplomacy-1280.png, diplomacy-390.png,
 * diplomacy-390-zoomed.png), for a person to look at. The game is seeded random orders for Austria and France
 * from the standard opening (bench/lib/diplomacy-fixture.ts).
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM, launchChromium, servePage } from './lib/page-server.ts';
import { diplomacyFixture } from './lib/diplomacy-fixture.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = 5;
const tmp = tmpdir();
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number): string => `${x.toFixed(1)} ms`;
const print = (line: string): void => void process.stdout.write(line + '\n');

// Through the fall of 1902's movement: eight phases at most (retreats and builds only where they are due).
const fixture = diplomacyFixture(12);
const lastMovement = fixture.events.findLastIndex((e, i) => i < 9 && e.phase.endsWith('M')) + 1;
print(`game: ${fixture.events.length} phases adjudicated (${fixture.events.map((e) => e.phase).join(' ')}); drawn after ${lastMovement}`);

const { url, server } = await servePage('apps/web/e2e/diplomacy-page.tsx', 'Diplomacy board', 'fixture', fixture);
const launched = await launchChromium();
if (launched === null) {
  print(`${CHROMIUM} is missing: nothing measured`);
  server.close();
  process.exit(0);
}
const browser = launched;
try {
  const modules: number[] = [];
  const first: number[] = [];
  const again: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(url);
    const r = (await page.evaluate(`({ modules: globalThis.loaded - globalThis.started, first: globalThis.show(${lastMovement - 1}) })`)) as {
      modules: number;
      first: number;
    };
    modules.push(r.modules);
    first.push(r.first);
    again.push((await page.evaluate(`globalThis.show(${lastMovement})`)) as number);
    await page.close();
  }
  print(`headless Chromium ${browser.version()}, 1280 px wide, median of ${RUNS} page loads:`);
  print(`  the board's modules and the map's geometry, evaluated: ${ms(median(modules))}`);
  print(`  first render (and layout) of the board: ${ms(median(first))}`);
  print(`  render after one more phase: ${ms(median(again))}`);

  const out = join(root, 'docs/screenshots');
  mkdirSync(out, { recursive: true });
  for (const width of [1280, 390]) {
    const page = await browser.newPage({ viewport: { width, height: width === 390 ? 844 : 900 }, deviceScaleFactor: 1 });
    await page.goto(url);
    await page.evaluate(`globalThis.show(${lastMovement})`);
    const label = (await page.evaluate(
      `(() => { const t = document.querySelector('.diplomacy-map .land-label'); return t.getBoundingClientRect().height; })()`,
    )) as number;
    const font = (await page.evaluate(
      `(() => { const s = document.querySelector('svg.diplomacy-map'); const w = s.viewBox.baseVal.width; return s.getBoundingClientRect().width / w * parseFloat(getComputedStyle(document.querySelector('.diplomacy-map .land-label')).fontSize); })()`,
    )) as number;
    print(`  ${width} px wide: labels drawn at ${font.toFixed(1)} px (a label's box ${label.toFixed(1)} px high) with the whole map shown`);
    await page.screenshot({ path: join(out, `diplomacy-${width}.png`), fullPage: true });
    if (width === 1280) {
      // The crowded middle of the map at twice the size, to check that labels, units and centres stay apart.
      const box = (await page.locator('svg.diplomacy-map').boundingBox())!;
      await page.screenshot({ path: join(tmp, 'middle.png'), clip: { x: box.x + box.width * 0.15, y: box.y + box.height * 0.3, width: 560, height: 420 } });
      await page.screenshot({ path: join(tmp, 'south.png'), clip: { x: box.x + box.width * 0.4, y: box.y + box.height * 0.55, width: 600, height: 380 } });
      await page.screenshot({ path: join(tmp, 'west.png'), clip: { x: box.x, y: box.y + box.height * 0.5, width: 450, height: 420 } });
    }
    if (width === 390) {
      const zoom = page.getByRole('button', { name: 'Zoom in' });
      for (let k = 0; k < 3; k++) await zoom.click();
      const zoomed = (await page.evaluate(
        `(() => { const s = document.querySelector('svg.diplomacy-map'); return s.getBoundingClientRect().width / s.viewBox.baseVal.width * 14; })()`,
      )) as number;
      print(`  390 px wide, zoomed in three times: labels at ${zoomed.toFixed(1)} px`);
      await page.locator('.diplomacy-map-frame').screenshot({ path: join(out, 'diplomacy-390-zoomed.png') });
    }
    await page.close();
  }
  print(`screenshots: docs/screenshots/diplomacy-1280.png, diplomacy-390.png, diplomacy-390-zoomed.png`);
} finally {
  await browser.close();
  server.close();
}
