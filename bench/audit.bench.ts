/**
 * Audit benchmarks (issue: foundation; the audit's speed).
 * - Baseline: `openssl speed ed25519` verification rate on one core, read just before and just after each
 *   audit: this machine's speed drifts by a fifth within minutes, so each ratio is taken against the mean
 *   of the two readings that bracket its run.
 * - The whole `fairtable audit --json` command (start-up, worker threads and all) on a 50,000-envelope
 *   transcript, timed from its launch to its exit, and the ratio to openssl, in several rounds (`--rounds N`,
 *   default 3) with their median; then the same with
 *   `--workers` 1, 2, 4, 8 and 15. Each run also reports its process's CPU time (user + system, all
 *   threads) per envelope, the figure that stays meaningful on a shared machine.
 * - The noble-only (browser) path on a slice, for reference.
 * - The whole command on a 1,000,000-envelope transcript: rate, ratio and peak RSS (whole process,
 *   worker threads included).
 * Options: `--no-million` skips the million-envelope run, `--no-workers` the runs by worker count, `--rounds N` sets
 * the rounds of the first run.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { opensslVerifyRate } from './lib/openssl-speed.ts';
import { makeTranscript } from './lib/make-transcript.ts';
import { Auditor } from '@fairtable/core/audit.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = join(root, '.bench-tmp');
mkdirSync(tmp, { recursive: true });
const cli = join(root, 'packages/cli/bin/fairtable.js');

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Prints the main thread's resource usage (all threads: getrusage) on stderr as the command exits. */
const usageProbe = join(tmp, 'usage-probe.mjs');
writeFileSync(
  usageProbe,
  `import { isMainThread } from 'node:worker_threads';
if (isMainThread) process.on('exit', () => process.stderr.write('\\nUSAGE ' + JSON.stringify(process.resourceUsage()) + '\\n'));
`,
);

interface Run {
  readonly lines: number;
  readonly valid: boolean;
  readonly seconds: number;
  readonly cpuMicros: number;
  readonly maxRssKiB: number;
}

/** `fairtable audit --json FILE`, as a user runs it: a new process, timed from launch to exit. */
function auditCommand(file: string, workers?: number): Run {
  const args = ['--import', usageProbe, cli, 'audit', '--json', ...(workers === undefined ? [] : ['--workers', String(workers)]), file];
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  const seconds = (performance.now() - t) / 1000;
  const usageLine = r.stderr.split('\n').find((l) => l.startsWith('USAGE '));
  if (r.status !== 0 || usageLine === undefined) throw new Error(`fairtable audit exited with ${r.status}: ${r.stderr.slice(0, 2000)}`);
  const usage = JSON.parse(usageLine.slice(6)) as { userCPUTime: number; systemCPUTime: number; maxRSS: number };
  const verdict = JSON.parse(r.stdout) as { lines: number; valid: boolean };
  return { lines: verdict.lines, valid: verdict.valid, seconds, cpuMicros: usage.userCPUTime + usage.systemCPUTime, maxRssKiB: usage.maxRSS };
}

/** openssl's rate read before and after a run; null where openssl is missing. */
type Bracket = { readonly before: number; readonly after: number } | null;

/** The last openssl reading, shared by consecutive runs: the reading after one run is the one before the next. */
let lastOpenssl: number | null = null;

/** Runs `run` between two openssl readings. */
function bracketed(run: () => Run): { run: Run; openssl: Bracket } {
  const before = lastOpenssl;
  const result = run();
  lastOpenssl = opensslVerifyRate();
  return { run: result, openssl: before === null || lastOpenssl === null ? null : { before, after: lastOpenssl } };
}

/** Prints a run and returns its ratio to openssl's one core (null without openssl). */
function report(label: string, { run, openssl }: { run: Run; openssl: Bracket }, target: number): number | null {
  const rate = run.lines / run.seconds;
  const baseline = openssl === null ? null : (openssl.before + openssl.after) / 2;
  const ratio =
    openssl === null || baseline === null
      ? ''
      : `, ratio to openssl one core ${(rate / baseline).toFixed(2)} (target >= ${target.toFixed(2)}; openssl ${fmt(openssl.before)} before, ${fmt(openssl.after)} after)`;
  process.stdout.write(
    `${label}: ${fmt(run.lines)} lines in ${run.seconds.toFixed(2)} s = ${fmt(rate)} envelopes/s${ratio}; ` +
      `CPU ${(run.cpuMicros / run.lines).toFixed(0)} µs/envelope, peak RSS ${(run.maxRssKiB / 1024).toFixed(0)} MB, valid=${run.valid}\n`,
  );
  return baseline === null ? null : rate / baseline;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};

const file50k = join(tmp, 'dice-50k.jsonl');
process.stdout.write('writing the 50,000-envelope transcript (cached in .bench-tmp/)…\n');
await makeTranscript(file50k, 50_000);

lastOpenssl = opensslVerifyRate();
process.stdout.write(`openssl speed ed25519, one core: ${lastOpenssl === null ? 'unavailable' : `${fmt(lastOpenssl)} verify/s`}\n`);

const rounds = Number(argValue('--rounds') ?? 3);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds wants a whole number of at least 1, not ${argValue('--rounds')}`);
const ratios: number[] = [];
for (let r = 1; r <= rounds; r++) {
  const ratio = report(
    `fairtable audit 50k (whole command, default workers), round ${r} of ${rounds}`,
    bracketed(() => auditCommand(file50k)),
    1.2,
  );
  if (ratio !== null) ratios.push(ratio);
}
if (ratios.length > 0) process.stdout.write(`  median ratio of the ${ratios.length} rounds: ${median(ratios).toFixed(2)} (target >= 1.20)\n`);
if (!process.argv.includes('--no-workers')) {
  for (const workers of [1, 2, 4, 8, 15])
    report(
      `  --workers ${workers}`,
      bracketed(() => auditCommand(file50k, workers)),
      1.2,
    );
}

const slice = readFileSync(file50k, 'utf8').split('\n').slice(0, 5_001);
const t1 = performance.now();
const auditor = new Auditor(slice[0]!);
for (let i = 1; i < slice.length; i++) auditor.add(slice[i]!);
const nobleRate = (slice.length - 1) / ((performance.now() - t1) / 1000);
process.stdout.write(`audit (noble only, one thread, the browser path): ${fmt(nobleRate)} envelopes/s\n`);

if (!process.argv.includes('--no-million')) {
  const fileBig = join(tmp, 'dice-1m.jsonl');
  process.stdout.write('writing the 1,000,000-envelope transcript (cached; several minutes the first time)…\n');
  await makeTranscript(fileBig, 1_000_000, (n) => n % 100_000 === 0 && process.stdout.write(`  ${fmt(n)}\n`));
  lastOpenssl = opensslVerifyRate(); // read again: writing the transcript may have taken minutes
  const big = bracketed(() => auditCommand(fileBig));
  report('fairtable audit 1M (whole command)', big, 1.2);
  process.stdout.write(`  peak RSS ${(big.run.maxRssKiB / 1024).toFixed(0)} MB for the whole process, worker threads included (target < 200 MB)\n`);
}
