/**
 * `npm run bench:web-monopoly` (docs/spec/web.md §4.1): a Monopoly page at round 100 in headless Chromium (Debian's
 * /usr/bin/chromium, never a downloaded browser). A two-player game among the automatic players (no trade offers,
 * so that nobody goes bankrupt early; seeds tried in a fixed order until a game reaches round 100) is simulated on
 * the in-memory network and replayed in the page through an observer referee, as the game page does. Printed: the
 * first render of the table at round 100, and for each of the next moves, feeding its line to the referee
 * (signature checked with noble) and drawing the table again with its layout (medians). Target: a move under 50 ms.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simulate, monopolyStrategy } from '@fairtable/core/testing';
import { Referee } from '@fairtable/core/referee.js';
import { taggedHash } from '@fairtable/core/hash.js';
import { u32be, utf8 } from '@fairtable/core/bytes.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ROUND = 100;
const MOVES = 21;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number): string => `${x.toFixed(1)} ms`;
const print = (line: string): void => void process.stdout.write(line + '\n');

/** The transcript of a game that reaches round ROUND, and the line at which it does (cached in .bench-tmp/). */
function game(): { lines: string[]; at: number } {
  const cache = join(root, '.bench-tmp', `monopoly-web-${ROUND}.jsonl`);
  let lines: string[] | null = existsSync(cache) ? readFileSync(cache, 'utf8').trimEnd().split('\n') : null;
  for (let attempt = 0; lines === null && attempt < 8; attempt++) {
    const seed = taggedHash('bench-web-monopoly', u32be(attempt));
    const r = simulate({
      protocol: 'chain',
      game: 'monopoly',
      players: 2,
      seed,
      verify: nativeVerify,
      sign: nativeSign,
      params: { rounds: ROUND + 10 },
      strategy: (id) => monopolyStrategy(id, taggedHash('bench-web-monopoly-player', seed, utf8(id)), { trade: false }),
    });
    const state = (r.outcome?.summary as { state?: { round?: number } } | undefined)?.state;
    if ((state?.round ?? 0) >= ROUND) lines = r.lines;
  }
  if (lines === null) throw new Error(`no seed gave a game of ${ROUND} rounds`);
  mkdirSync(join(root, '.bench-tmp'), { recursive: true });
  writeFileSync(cache, lines.join('\n') + '\n');
  const referee = new Referee(lines[0]!, null, undefined, { verify: () => true });
  let at = 1;
  for (; at < lines.length; at++) {
    referee.feedText(at, lines[at]!);
    if ((referee.state as { game: { round: number } }).game.round >= ROUND - 1) break;
  }
  return { lines, at: at + 1 };
}

const { lines, at } = game();
print(`game: ${lines.length} lines; round ${ROUND} begins after line ${at - 1}`);

const { build } = await import('esbuild');
const src = (pkg: string, path: string): string => join(root, 'packages', pkg, 'src', `${path}.ts`);
const bundle = await build({
  entryPoints: [join(root, 'apps/web/e2e/monopoly-page.tsx')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  write: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  plugins: [
    {
      name: 'fairtable-src',
      setup(b) {
        b.onResolve({ filter: /^@fairtable\/[a-z-]+\/.+\.js$/ }, (a) => {
          const m = /^@fairtable\/([a-z-]+)\/(.+)\.js$/.exec(a.path)!;
          return { path: src(m[1]!, m[2]!) };
        });
        b.onResolve({ filter: /^@fairtable\/[a-z-]+$/ }, (a) => ({ path: src(a.path.slice('@fairtable/'.length), 'index') }));
      },
    },
  ],
});
const script = bundle.outputFiles[0]!.text;
const css = readFileSync(join(root, 'apps/web/src/styles.css'), 'utf8');
const html = `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Monopoly table</title><link rel="stylesheet" href="/styles.css"><main><div id="root"></div></main><script>globalThis.lines = ${JSON.stringify(lines)};</script><script src="/page.js"></script></html>`;
const server = createServer((req, res) => {
  if (req.url === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
  else if (req.url === '/styles.css') res.writeHead(200, { 'content-type': 'text/css' }).end(css);
  else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

if (!existsSync(CHROMIUM)) {
  print(`${CHROMIUM} is missing: nothing measured`);
  server.close();
  process.exit(0);
}
// Named through a variable: playwright-core is the web app's dependency, and this file must typecheck without it.
const name = 'playwright-core';
const { chromium } = (await import(name)) as typeof import('playwright-core');
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
try {
  for (const width of [1280, 390]) {
    const page = await browser.newPage({ viewport: { width, height: width === 390 ? 844 : 900 }, deviceScaleFactor: 1 });
    await page.goto(url);
    const first = (await page.evaluate(`globalThis.prepare(${at})`)) as number;
    const round = (await page.evaluate('globalThis.round()')) as number;
    const feeds: number[] = [];
    const renders: number[] = [];
    const moves: number[] = [];
    for (let i = 0; i < MOVES; i++) {
      const r = (await page.evaluate('globalThis.move()')) as { feed: number; render: number };
      feeds.push(r.feed);
      renders.push(r.render);
      moves.push(r.feed + r.render);
    }
    print(`headless Chromium ${browser.version()}, ${width} px wide, the table at round ${round + 1}:`);
    print(`  first render (and layout): ${ms(first)}`);
    print(
      `  a move, median of ${MOVES}: ${ms(median(moves))} (its line fed to the referee ${ms(median(feeds))}, the table drawn again ${ms(median(renders))}); slowest ${ms(Math.max(...moves))}`,
    );
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
