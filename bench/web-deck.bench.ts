/**
 * `npm run bench:web-deck` (docs/spec/deck.md §10): one shuffle of 52 cards proved and verified in headless
 * Chromium (Debian's /usr/bin/chromium, never a downloaded browser), on the noble path the browser uses, under
 * the joint key of 2, 6 and 9 players; and the same in this Node process, for comparison. Each figure is the
 * median wall time of RUNS runs (a page has no process CPU clock, so both sides are wall time; the load
 * averages before and after are printed, as the machine may be shared). Goal: prove ≤ 1.5 s and verify ≤ 0.5 s
 * in Chromium.
 */
import { loadavg } from 'node:os';
import { CHROMIUM, launchChromium, servePage } from './lib/page-server.ts';
import { combineKeyShares, makeKeyShare, newDeck, shuffle, verifyShuffle } from '@fairtable/core/deck/index.js';

const RUNS = Number(process.env.DECK_BENCH_RUNS ?? 5);
const PLAYERS = [2, 6, 9];
const print = (line: string): void => void process.stdout.write(line + '\n');
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));
type Figures = { prove: number; verify: number; proofBytes: number };

/** The page's measurement, in Node: the same code the page runs. */
function nodeRun(players: number, runs: number): Figures {
  const table = { game: `web-bench-${players}`, players: Array.from({ length: players }, (_, i) => `p${i}`) };
  const key = combineKeyShares(
    table,
    table.players.map((p) => makeKeyShare(table, p, random).share),
  ).key!;
  const input = shuffle({ table, shuffler: 'p0', index: 0, key, input: newDeck(52) }, random).output;
  const prove: number[] = [];
  const verify: number[] = [];
  let proofBytes = 0;
  for (let r = 0; r < runs; r++) {
    const st = { table, shuffler: 'p1', index: 1, key, input };
    let t = performance.now();
    const made = shuffle(st, random);
    prove.push(performance.now() - t);
    t = performance.now();
    if (!verifyShuffle({ ...st, output: made.output }, made.proof)) throw new Error('an honest shuffle did not verify');
    verify.push(performance.now() - t);
    proofBytes = JSON.stringify(made.proof).length;
  }
  return { prove: median(prove), verify: median(verify), proofBytes };
}

const row = (where: string, players: number, f: Figures): string =>
  `  ${where.padEnd(9)} ${String(players).padStart(2)} players: prove ${f.prove.toFixed(0).padStart(5)} ms, verify ${f.verify.toFixed(0).padStart(5)} ms, proof ${f.proofBytes} bytes of JSON`;

print(`load average before: ${load()}`);
const { url, server } = await servePage('bench/lib/deck-page.ts', 'Deck bench', 'deckBench', null);
const browser = await launchChromium();
const results: Record<string, { chromium: Figures | null; node: Figures }> = {};
try {
  const page = browser === null ? null : await browser.newPage();
  if (page === null) print(`${CHROMIUM} is missing: Chromium not measured`);
  else {
    await page.goto(url);
    // Warm-up: JIT, noble's base table, the card and Pedersen generators.
    await page.evaluate('globalThis.deckRun(2, 1)');
  }
  nodeRun(2, 1);
  print(
    `one shuffle of 52 cards with its proof, median wall time of ${RUNS} runs${browser === null ? '' : `; headless Chromium ${browser.version()}`}, Node ${process.version}:`,
  );
  for (const players of PLAYERS) {
    const chromium = page === null ? null : ((await page.evaluate(`globalThis.deckRun(${players}, ${RUNS})`)) as Figures);
    const node = nodeRun(players, RUNS);
    results[String(players)] = { chromium, node };
    if (chromium !== null) print(row('Chromium', players, chromium));
    print(row('Node', players, node));
  }
  const worst = Object.values(results)
    .map((r) => r.chromium)
    .filter((f): f is Figures => f !== null);
  if (worst.length > 0)
    print(
      `goal in Chromium: prove ≤ 1500 ms (slowest ${Math.max(...worst.map((f) => f.prove)).toFixed(0)} ms), verify ≤ 500 ms (slowest ${Math.max(...worst.map((f) => f.verify)).toFixed(0)} ms)`,
    );
} finally {
  await browser?.close();
  server.close();
}
print(`load average after: ${load()}`);
print(JSON.stringify({ bench: 'web-deck', runs: RUNS, results }));
