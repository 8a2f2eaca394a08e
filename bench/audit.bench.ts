/**
 * Audit benchmarks (issue: foundation).
 * - Baseline: `openssl speed ed25519` verification rate on one core, measured now.
 * - Auditing a 100,000-envelope transcript with `auditFile` (native verification in worker threads) and the ratio.
 * - The noble-only (browser) path on a slice, for reference.
 * - Peak memory of `fairtable audit` on a 1,000,000-envelope transcript (in a child process).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTranscript } from './lib/make-transcript.ts';
// The built package: its worker thread is a compiled file next to it (run `npm run build` first).
import { auditFile } from '@fairtable/node/audit-file.js';
import { Auditor } from '@fairtable/core/audit.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = join(root, '.bench-tmp');

function opensslVerifyRate(): number | null {
  const r = spawnSync('openssl', ['speed', '-seconds', '3', 'ed25519'], { encoding: 'utf8' });
  const line = r.stdout.split('\n').find((l) => /Ed25519/.test(l) && /EdDSA/.test(l));
  if (r.status !== 0 || line === undefined) return null;
  const nums = line
    .trim()
    .split(/\s+/)
    .map(Number)
    .filter((n) => Number.isFinite(n));
  return nums[nums.length - 1] ?? null;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

const big = process.argv.includes('--no-million') ? 0 : 1_000_000;
const file100k = join(tmp, 'dice-100k.jsonl');
process.stdout.write('writing the 100,000-envelope transcript (cached in .bench-tmp/)…\n');
await makeTranscript(file100k, 100_000);

const openssl = opensslVerifyRate();
process.stdout.write(`openssl speed ed25519, one core: ${openssl === null ? 'unavailable' : `${fmt(openssl)} verify/s`}\n`);

// Warm up the workers' JIT on a short run, then measure.
const t0 = performance.now();
const verdict = await auditFile(file100k);
const seconds = (performance.now() - t0) / 1000;
const rate = verdict.lines / seconds;
process.stdout.write(
  `audit 100k (native, worker threads): ${verdict.lines} lines in ${seconds.toFixed(2)} s = ${fmt(rate)} envelopes/s, valid=${verdict.valid}\n`,
);
if (openssl !== null) process.stdout.write(`  ratio to openssl one-core verify: ${(rate / openssl).toFixed(2)} (target >= 1.00)\n`);

const slice = readFileSync(file100k, 'utf8').split('\n').slice(0, 5_001);
const t1 = performance.now();
const auditor = new Auditor(slice[0]!);
for (let i = 1; i < slice.length; i++) auditor.add(slice[i]!);
const nobleRate = (slice.length - 1) / ((performance.now() - t1) / 1000);
process.stdout.write(`audit (noble only, one thread, the browser path): ${fmt(nobleRate)} envelopes/s\n`);

if (big > 0) {
  const fileBig = join(tmp, 'dice-1m.jsonl');
  process.stdout.write('writing the 1,000,000-envelope transcript (cached; several minutes the first time)…\n');
  await makeTranscript(fileBig, big, (n) => n % 100_000 === 0 && process.stdout.write(`  ${fmt(n)}\n`));
  const probeFile = join(tmp, 'probe-1m.mjs');
  writeFileSync(
    probeFile,
    `
    const { auditFile } = await import(${JSON.stringify(join(root, 'packages/node/dist/audit-file.js'))});
    const t = performance.now();
    const v = await auditFile(${JSON.stringify(fileBig)});
    console.log(JSON.stringify({ lines: v.lines, valid: v.valid, seconds: (performance.now() - t) / 1000, maxRssKiB: process.resourceUsage().maxRSS }));`,
  );
  const r = spawnSync(process.execPath, [probeFile], { encoding: 'utf8' });
  if (r.status !== 0) process.stdout.write(`1M audit failed: ${r.stderr}\n`);
  else {
    const m = JSON.parse(r.stdout.trim()) as { lines: number; valid: boolean; seconds: number; maxRssKiB: number };
    process.stdout.write(
      `audit 1M: ${m.lines} lines in ${m.seconds.toFixed(1)} s (${fmt(m.lines / m.seconds)}/s), valid=${m.valid}, peak RSS ${(m.maxRssKiB / 1024).toFixed(0)} MB for the whole process, worker threads included (target < 200 MB)\n`,
    );
  }
}
