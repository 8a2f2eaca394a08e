/**
 * `npm run bench:web` (issue 10, docs/spec/explain.md §4): auditing a
 * 10,000-envelope transcript the way a page does (`auditTranscript` from
 * `@fairtable/client/explain`, in slices that yield to the event loop), with
 * the WebCrypto fast path and with noble alone, against `fairtable audit` on
 * the same file. In headless Chromium when /usr/bin/chromium and
 * playwright-core are there (the auditor bundled by esbuild, served from
 * 127.0.0.1 so that the page is a secure context with `crypto.subtle`);
 * always in Node too, for reference. Figures are the median of three runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTranscript } from './lib/make-transcript.ts';
// The built package, as the web app imports it (run `npm run build` first: the script does).
import { auditTranscript, explainOutcomes, nobleVerifier, outcomeDistributions, webCryptoVerifier, type Verifier } from '@fairtable/client/explain';

const root = fileURLToPath(new URL('..', import.meta.url));
const file = join(root, '.bench-tmp', 'dice-10k.jsonl');
const CHROMIUM = '/usr/bin/chromium';
const RUNS = 3;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number): string => `${Math.round(x)} ms`;
const print = (line: string): void => {
  process.stdout.write(line + '\n');
};

process.stdout.write('writing the 10,000-envelope transcript (cached in .bench-tmp/)…\n');
await makeTranscript(file, 10_000);
const text = readFileSync(file, 'utf8');
const envelopes = text.trimEnd().split('\n').length;
print(`transcript: ${envelopes} lines, ${(text.length / 1e6).toFixed(1)} MB`);

// ---------------------------------------------------------------- fairtable audit (the CLI, a fresh process each run)
const main = join(root, 'packages/cli/dist/main.js');
const cliTimes: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [main, 'audit', '--json', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  cliTimes.push(performance.now() - t0);
  if (r.status !== 0) throw new Error(`fairtable audit exited ${r.status}: ${r.stderr}`);
}
const cli = median(cliTimes);
print(`fairtable audit (a whole process, native verification, worker threads): ${ms(cli)}`);

// ---------------------------------------------------------------- auditTranscript in Node
async function timeNode(verifier: Verifier): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const v = await auditTranscript(text, { verifier });
    times.push(performance.now() - t0);
    if (!v.valid) throw new Error('the bench transcript must be valid');
  }
  return median(times);
}
const nodeWeb = await webCryptoVerifier();
const nodeNoble = await timeNode(nobleVerifier);
print(`Node ${process.version}, auditTranscript, noble alone: ${ms(nodeNoble)} (${(nodeNoble / cli).toFixed(2)}× fairtable audit)`);
if (nodeWeb !== undefined) {
  const t = await timeNode(nodeWeb);
  print(`Node ${process.version}, auditTranscript, WebCrypto: ${ms(t)} (${(t / cli).toFixed(2)}× fairtable audit)`);
} else print('Node: no WebCrypto Ed25519');

// ---------------------------------------------------------------- provenance and the chart, on lines already audited
{
  const lines = text.trimEnd().split('\n');
  const trusted = { verify: (): boolean => true };
  const t0 = performance.now();
  const entries = explainOutcomes(lines, trusted);
  const t1 = performance.now();
  // A copy of the array: the same array would reuse the walk explainOutcomes just made.
  const charts = outcomeDistributions([...lines], trusted);
  const t2 = performance.now();
  print(
    `Node, explainOutcomes (signatures already checked): ${entries.length} outcomes in ${ms(t1 - t0)}; outcomeDistributions: ${charts.length} charts in ${ms(t2 - t1)}`,
  );
}

// ---------------------------------------------------------------- auditTranscript in headless Chromium
type PlaywrightCore = {
  chromium: {
    launch(o: { executablePath: string; headless: boolean; args: string[] }): Promise<{
      newPage(): Promise<{
        goto(url: string): Promise<unknown>;
        evaluate(expression: string): Promise<unknown>;
      }>;
      version(): string;
      close(): Promise<void>;
    }>;
  };
};
let playwright: PlaywrightCore | null = null;
try {
  // Named through a variable: playwright-core is the web app's dependency, and this file must typecheck without it.
  const name = 'playwright-core';
  playwright = (await import(name)) as PlaywrightCore;
} catch {
  playwright = null;
}
if (!existsSync(CHROMIUM) || playwright === null) {
  print(
    `headless Chromium: not measured (${existsSync(CHROMIUM) ? 'playwright-core is not installed' : `${CHROMIUM} is missing`}); the Node figures above stand in`,
  );
} else {
  const { build } = await import('esbuild');
  const bundle = await build({
    entryPoints: [join(root, 'packages/client/dist/explain/index.js')],
    bundle: true,
    format: 'iife',
    globalName: 'fairtableExplain',
    platform: 'browser',
    minify: true,
    write: false,
  });
  const script = bundle.outputFiles[0]!.text;
  print(`auditor bundle: ${(script.length / 1024).toFixed(0)} KiB minified`);
  const server = createServer((req, res) => {
    if (req.url === '/explain.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else if (req.url === '/transcript.jsonl') res.writeHead(200, { 'content-type': 'text/plain' }).end(text);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>bench</title><script src="/explain.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const browser = await playwright.chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    // Plain JavaScript text: a function written here would reach the page with the TypeScript loader's helpers in it.
    const inPage = `(async (runs) => {
      const api = globalThis.fairtableExplain;
      const t = await (await fetch('/transcript.jsonl')).text();
      const time = async (verifier) => {
        const times = [];
        let longest = 0;
        for (let i = 0; i < runs; i++) {
          const t0 = performance.now();
          let lastReport = t0;
          const onProgress = () => {
            const now = performance.now();
            longest = Math.max(longest, now - lastReport);
            lastReport = now;
          };
          const v = await api.auditTranscript(t, { verifier, onProgress });
          times.push(performance.now() - t0);
          if (!v.valid) throw new Error('invalid');
        }
        return { median: times.sort((a, b) => a - b)[Math.floor(runs / 2)], longest };
      };
      const web = await api.webCryptoVerifier();
      const noble = await time(api.nobleVerifier);
      const webcrypto = web === undefined ? null : await time(web);
      return { secure: isSecureContext, noble, webcrypto };
    })(${RUNS})`;
    type Timed = { median: number; longest: number };
    const result = (await page.evaluate(inPage)) as { secure: boolean; noble: Timed; webcrypto: Timed | null };
    const held = (t: Timed): string => `; the page's thread held at most ${ms(t.longest)} between two progress reports`;
    print(`headless Chromium ${browser.version()} (secure context: ${result.secure}):`);
    const { noble, webcrypto } = result;
    print(`  auditTranscript, noble alone (the plain-HTTP LAN page): ${ms(noble.median)} (${(noble.median / cli).toFixed(2)}× fairtable audit)${held(noble)}`);
    if (webcrypto === null) print('  WebCrypto Ed25519: not available in this page');
    else print(`  auditTranscript, WebCrypto: ${ms(webcrypto.median)} (${(webcrypto.median / cli).toFixed(2)}× fairtable audit)${held(webcrypto)}`);
    // The same page from the machine's own LAN address over plain HTTP: not a secure context, so no
    // crypto.subtle, and webCryptoVerifier must say so (the page then audits with noble).
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
    if (lan === undefined) print('  plain HTTP on a LAN address: no non-loopback IPv4 address here to try');
    else {
      const lanServer = createServer(server.listeners('request')[0] as Parameters<typeof createServer>[1]);
      await new Promise<void>((resolve) => lanServer.listen(0, lan, resolve));
      try {
        const lanPage = await browser.newPage();
        await lanPage.goto(`http://${lan}:${(lanServer.address() as AddressInfo).port}/`);
        const seen = (await lanPage.evaluate(
          `(async () => ({ secure: isSecureContext, subtle: globalThis.crypto?.subtle !== undefined, web: (await globalThis.fairtableExplain.webCryptoVerifier()) !== undefined }))()`,
        )) as { secure: boolean; subtle: boolean; web: boolean };
        print(
          `  plain HTTP on ${lan}: secure context ${seen.secure}, crypto.subtle ${seen.subtle ? 'present' : 'absent'}, webCryptoVerifier ${seen.web ? 'found' : 'undefined (noble is used)'}`,
        );
      } finally {
        lanServer.close();
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
}
