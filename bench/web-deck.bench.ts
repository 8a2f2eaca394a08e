/**
 * `npm run bench:web-deck` (docs/spec/deck.md §10): one shuffle of 52 cards proved and verified in headless
 * Chromium (Debian's /usr/bin/chromium, never a downloaded browser), on the noble path the browser uses, under
 * the joint key of 2, 6 and 9 players; and the same in this Node process, for comparison. Each figure is the
 * median of RUNS runs, as wall time and as CPU time: in Node the process's, in Chromium the CPU time of the
 * browser's processes (read from /proc around each call; 10 ms ticks), so that a machine shared with other
 * work, whose load averages are printed, stretches the wall times but not the CPU times. Goal: prove ≤ 1.5 s
 * and verify ≤ 0.5 s in Chromium.
 */
import { readdirSync, readFileSync } from 'node:fs';
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
const nodeCpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
type Figures = { proveMs: number; verifyMs: number; proveCpuMs: number; verifyCpuMs: number; proofBytes: number };

/** User + system CPU time, in ms, of the processes under this one (the browser Playwright started; Linux /proc, 10 ms ticks). */
function browserCpu(): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // The process ended meanwhile.
    }
  }
  let ticks = 0;
  const todo = [process.pid];
  while (todo.length > 0) {
    const pid = todo.pop()!;
    if (pid !== process.pid) ticks += stats.get(pid)?.ticks ?? 0;
    for (const [child, s] of stats) if (s.ppid === pid) todo.push(child);
  }
  return ticks * 10;
}

/** The page's measurement, in Node: the same calls. */
function nodeRun(players: number, runs: number): Figures {
  const table = { game: `web-bench-${players}`, players: Array.from({ length: players }, (_, i) => `p${i}`) };
  const key = combineKeyShares(
    table,
    table.players.map((p) => makeKeyShare(table, p, random).share),
  ).key!;
  const input = shuffle({ table, shuffler: 'p0', index: 0, key, input: newDeck(52) }, random).output;
  const f = { prove: [] as number[], verify: [] as number[], proveCpu: [] as number[], verifyCpu: [] as number[] };
  let proofBytes = 0;
  for (let r = 0; r < runs; r++) {
    const st = { table, shuffler: 'p1', index: 1, key, input };
    let [t, c] = [performance.now(), nodeCpu()];
    const made = shuffle(st, random);
    f.prove.push(performance.now() - t);
    f.proveCpu.push(nodeCpu() - c);
    [t, c] = [performance.now(), nodeCpu()];
    if (!verifyShuffle({ ...st, output: made.output }, made.proof)) throw new Error('an honest shuffle did not verify');
    f.verify.push(performance.now() - t);
    f.verifyCpu.push(nodeCpu() - c);
    proofBytes = JSON.stringify(made.proof).length;
  }
  return { proveMs: median(f.prove), verifyMs: median(f.verify), proveCpuMs: median(f.proveCpu), verifyCpuMs: median(f.verifyCpu), proofBytes };
}

const row = (where: string, players: number, f: Figures): string =>
  `  ${where.padEnd(9)} ${String(players).padStart(2)} players: prove ${f.proveMs.toFixed(0).padStart(5)} ms (CPU ${f.proveCpuMs.toFixed(0).padStart(5)} ms), verify ${f.verifyMs.toFixed(0).padStart(5)} ms (CPU ${f.verifyCpuMs.toFixed(0).padStart(4)} ms), proof ${f.proofBytes} bytes of JSON`;

print(`load average (1, 5, 15 min) at the start: ${load()}`);
const { url, server } = await servePage('bench/lib/deck-page.ts', 'Deck bench', 'deckBench', null);
const browser = await launchChromium();
const results: Record<string, { chromium: Figures | null; node: Figures }> = {};
try {
  const page = browser === null ? null : await browser.newPage();
  if (page === null) print(`${CHROMIUM} is missing: Chromium not measured`);
  else {
    await page.goto(url);
    // Warm-up: JIT, noble's base table, the card and Pedersen generators.
    await page.evaluate('globalThis.deckSetup(2), globalThis.deckProve(), globalThis.deckVerify()');
  }
  nodeRun(2, 1);
  print(
    `one shuffle of 52 cards with its proof, median of ${RUNS} runs${browser === null ? '' : `; headless Chromium ${browser.version()}`}, Node ${process.version}:`,
  );
  for (const players of PLAYERS) {
    let chromium: Figures | null = null;
    if (page !== null) {
      await page.evaluate(`globalThis.deckSetup(${players})`);
      const f = { prove: [] as number[], verify: [] as number[], proveCpu: [] as number[], verifyCpu: [] as number[] };
      let proofBytes = 0;
      for (let r = 0; r < RUNS; r++) {
        let c = browserCpu();
        f.prove.push((await page.evaluate('globalThis.deckProve()')) as number);
        f.proveCpu.push(browserCpu() - c);
        c = browserCpu();
        const v = (await page.evaluate('globalThis.deckVerify()')) as { ms: number; proofBytes: number };
        f.verifyCpu.push(browserCpu() - c);
        f.verify.push(v.ms);
        proofBytes = v.proofBytes;
      }
      chromium = { proveMs: median(f.prove), verifyMs: median(f.verify), proveCpuMs: median(f.proveCpu), verifyCpuMs: median(f.verifyCpu), proofBytes };
    }
    const node = nodeRun(players, RUNS);
    results[String(players)] = { chromium, node };
    if (chromium !== null) print(row('Chromium', players, chromium));
    print(row('Node', players, node));
  }
  const measured = Object.values(results)
    .map((r) => r.chromium)
    .filter((f): f is Figures => f !== null);
  if (measured.length > 0)
    print(
      `goal in Chromium: prove ≤ 1500 ms (slowest median ${Math.max(...measured.map((f) => f.proveMs)).toFixed(0)} ms wall, ${Math.max(...measured.map((f) => f.proveCpuMs)).toFixed(0)} ms CPU), verify ≤ 500 ms (slowest median ${Math.max(...measured.map((f) => f.verifyMs)).toFixed(0)} ms wall, ${Math.max(...measured.map((f) => f.verifyCpuMs)).toFixed(0)} ms CPU)`,
    );
} finally {
  await browser?.close();
  server.close();
}
print(`load average at the end: ${load()}`);
print(JSON.stringify({ bench: 'web-deck', runs: RUNS, results }));
