/**
 * `npm run bench:web-monopoly` (docs/spec/web.md §4.1): a Monopoly page at round 100 in headless Chromium (Debian's
 * /usr/bin/chromium, never a downloaded browser). A two-player game among the automatic players (no trade offers,
 * so that nobody goes bankrupt early; seeds tried in a fixed order until a game reaches round 100) is simulated on
 * the in-memory network and replayed in the page through an observer referee, as the game page does. Printed: the
 * first render of the table at round 100, and for each of the next moves, feeding its line to the referee
 * (signature checked with noble) and drawing the table again with its layout (medians). Target: a move under 50 ms.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM, launchChromium, servePage } from './lib/page-server.ts';
import { simulate, monopolyStrategy } from '@fairtable/core/testing';
import { Referee } from '@fairtable/core/referee.js';
import { taggedHash } from '@fairtable/core/hash.js';
import { u32be, utf8 } from '@fairtable/core/bytes.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';

const root = fileURLToPath(new URL('..', import.meta.url));
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

const { url, server } = await servePage('apps/web/e2e/monopoly-page.tsx', 'Monopoly table', 'lines', lines);
const launched = await launchChromium();
if (launched === null) {
  print(`${CHROMIUM} is missing: nothing measured`);
  server.close();
  process.exit(0);
}
const browser = launched;
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
