/**
 * Rochambeau judge benchmark (docs/spec/rochambeau.md §6).
 *
 *   npm run bench rochambeau
 *
 * 1. judges 1,000,000 honest players with N = 2^31 - 1 in memory (inputs
 *    generated first, not timed): seconds and peak memory, and again with
 *    noble's SHA-256 instead of the one-block fast path;
 * 2. runs `fairtable rochambeau judge FILE` on the same game written as a
 *    ~190 MB judge input: seconds, end to end;
 * 3. the draft's pairwise judge against the fast one at M = 10,000;
 * 4. fairness: the χ² of winners by position over many honest games.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nobleDigest } from '@fairtable/core/rochambeau/hashes.js';
import { judge, judgePairwise } from '@fairtable/core/rochambeau/judge.js';
import { judgeInputChunks } from '@fairtable/core/rochambeau/judge-json.js';
import { honestTable, seededRandom, tallyWins } from '@fairtable/core/rochambeau/simulation.js';

const N = 2 ** 31 - 1;
const MILLION = 1_000_000;
const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const line = (label: string, value: string): void => {
  process.stdout.write(`${label.padEnd(48)} ${value}\n`);
};

// 1. In memory.
let t = performance.now();
const table = honestTable(MILLION, { N, random: seededRandom('bench/rochambeau') });
line('generate 1,000,000 players (not timed below)', seconds(performance.now() - t));
gc();
const rssBefore = process.memoryUsage().rss;
t = performance.now();
const verdict = judge({ N, players: table });
const judgeMs = performance.now() - t;
const peakRss = process.resourceUsage().maxRSS * 1024;
line('judge 1,000,000 players, N = 2^31 - 1', seconds(judgeMs));
line('  verdict', `${verdict.outcome} ${verdict.winner} after ${verdict.rounds.length} round(s), ${verdict.disqualified.length} disqualified`);
line('  RSS before judging (inputs in memory)', mb(rssBefore));
line('  peak RSS of the process (maxRSS)', mb(peakRss));
t = performance.now();
const withNoble = judge({ N, players: table }, { digest: nobleDigest('sha-256', { transient: true }) });
line('  the same with noble alone for SHA-256', `${seconds(performance.now() - t)} (same verdict: ${withNoble.winner === verdict.winner})`);

// 2. The command, end to end.
const scratch = mkdtempSync(join(tmpdir(), 'rochambeau-bench-'));
const input = join(scratch, 'million.json');
const fd = openSync(input, 'w');
let size = 0;
for (const chunk of judgeInputChunks({ N, players: table })) size += writeSync(fd, chunk);
closeSync(fd);
const root = fileURLToPath(new URL('..', import.meta.url));
const output = join(scratch, 'verdict.json');
const peakFile = join(scratch, 'peak.txt');
// The built command when every build output is newer than its source, else the same code from source through tsx.
const compiled = (source: string): string => source.replace('/src/', '/dist/').replace(/\.ts$/, '.js');
const sources = [
  join(root, 'packages/cli/src/commands/rochambeau.ts'),
  ...readdirSync(join(root, 'packages/core/src/rochambeau'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => join(root, 'packages/core/src/rochambeau', f)),
];
const builtIsFresh =
  existsSync(join(root, 'packages/cli/dist/main.js')) && sources.every((f) => existsSync(compiled(f)) && statSync(f).mtimeMs <= statSync(compiled(f)).mtimeMs);
const command = builtIsFresh
  ? `"${process.execPath}" packages/cli/dist/main.js rochambeau judge "${input}"`
  : `"${process.execPath}" --import tsx test/rochambeau-cli-driver.ts rochambeau judge "${input}"`;
// GNU time, when present, reports the command's peak memory.
const timed = existsSync('/usr/bin/time') ? `/usr/bin/time -f %M -o "${peakFile}" ${command}` : command;
t = performance.now();
const run = spawnSync('sh', ['-c', `${timed} > "${output}"`], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'inherit'],
  env: { ...process.env, TSX_TSCONFIG_PATH: join(root, 'test/rochambeau-source.tsconfig.json') },
});
const commandMs = performance.now() - t;
line(`fairtable rochambeau judge on a ${mb(size)} file`, `${seconds(commandMs)} (exit ${run.status}, ${builtIsFresh ? 'built CLI' : 'from source via tsx'})`);
if (existsSync(peakFile)) line('  peak RSS of the command', mb(Number(readFileSync(peakFile, 'utf8').trim()) * 1024));
rmSync(scratch, { recursive: true, force: true });

// 3. The draft's pairwise method against the fast judge, M = 10,000.
const small = honestTable(10_000, { N, random: seededRandom('bench/rochambeau/10k') });
// The fast judge takes milliseconds here, so take the median of seven runs.
const fastRuns: number[] = [];
let fast = judge({ N, players: small });
for (let i = 0; i < 7; i++) {
  t = performance.now();
  fast = judge({ N, players: small });
  fastRuns.push(performance.now() - t);
}
const fastMs = fastRuns.sort((a, b) => a - b)[3]!;
t = performance.now();
const slow = judgePairwise({ N, players: small });
const slowMs = performance.now() - t;
line('judge, M = 10,000 (median of 7)', `${fastMs.toFixed(1)} ms`);
line('judgePairwise (the draft literally), M = 10,000', seconds(slowMs));
line('  ratio pairwise / fast', `${(slowMs / fastMs).toFixed(0)}x (same winner: ${fast.winner === slow.winner})`);

// 4. Fairness.
t = performance.now();
const tally = tallyWins({ games: 20_000, players: 5, N, random: seededRandom('bench/rochambeau/fairness') });
line('fairness: 20,000 honest games of 5 players', `wins by position ${tally.wins.join(' ')}, no winner ${tally.noWinner}`);
line('  chi-square vs uniform', `${tally.chiSquare.toFixed(2)} with ${tally.degreesOfFreedom} degrees of freedom (5% critical value 9.49)`);
line('  time', seconds(performance.now() - t));
