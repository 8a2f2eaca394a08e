/**
 * Monopoly benchmark (docs/spec/monopoly.md §14; issue 14's figure).
 *
 *   npm run bench monopoly
 *
 * A 4-player game of 200 rounds among the automatic players, on each chance
 * protocol (chain, and seed 000's keyed-stream with an audit on demand every
 * 50 rolls), simulated on the in-memory network with native signing, written
 * out, then audited with `auditFile` (native verification in worker threads,
 * what `fairtable audit` runs) and with the core's single-threaded auditor.
 * The automatic players here make no trade offers, so that fewer go
 * bankrupt early; seeds are tried in a fixed order until a game runs its 200
 * rounds (at most eight), and the rounds actually played are printed. The
 * audit's CPU time (all threads) is printed beside its wall time, since the
 * machine may be shared. Target: the audit under 10 s.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simulate, monopolyStrategy } from '@fairtable/core/testing';
import { auditLines } from '@fairtable/core/audit.js';
import { taggedHash } from '@fairtable/core/hash.js';
import { u32be, utf8 } from '@fairtable/core/bytes.js';
// The built package: its worker thread is a compiled file next to it (run `npm run build` first).
import { auditFile } from '@fairtable/node/audit-file.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = join(root, '.bench-tmp');
mkdirSync(tmp, { recursive: true });
const line = (label: string, value: string): void => {
  process.stdout.write(`${label.padEnd(52)} ${value}\n`);
};
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

const play = (protocol: 'chain' | 'keyed-stream', attempt: number) => {
  const seed = taggedHash('bench-monopoly', utf8(protocol), u32be(attempt));
  return simulate({
    protocol,
    game: 'monopoly',
    players: 4,
    seed,
    verify: nativeVerify,
    sign: nativeSign,
    params: { rounds: 200, ...(protocol === 'keyed-stream' ? { auditEvery: 50 } : {}) },
    strategy: (id) => monopolyStrategy(id, taggedHash('bench-monopoly-player', seed, utf8(id)), { trade: false }),
  });
};
const roundsOf = (r: ReturnType<typeof simulate>) => (r.outcome?.summary as { state?: { round?: number; out?: string[] } } | undefined)?.state;

for (const protocol of ['chain', 'keyed-stream'] as const) {
  let t = performance.now();
  let r = play(protocol, 0);
  let attempt = 0;
  while ((roundsOf(r)?.round ?? 0) < 200 && attempt < 7) {
    attempt++;
    t = performance.now();
    r = play(protocol, attempt);
  }
  const simMs = performance.now() - t;
  const state = roundsOf(r);
  const file = join(tmp, `monopoly-${protocol}.jsonl`);
  writeFileSync(file, r.lines.join('\n') + '\n');
  process.stdout.write(`\n${protocol}: 4 players, rounds set to 200\n`);
  line('  seed attempt, rounds played, players out', `${attempt}, ${state?.round ?? '?'}, [${(state?.out ?? []).join(', ')}]`);
  line('  envelopes', r.lines.length.toLocaleString('en-US'));
  line('  simulate (4 seats, in-memory network)', seconds(simMs));
  t = performance.now();
  const cpu = process.cpuUsage();
  // The threads, as `fairtable audit` starts them for a large file (a small one is audited on one thread).
  const verdict = await auditFile(file, { workers: Math.max(1, availableParallelism() - 1) });
  const auditMs = performance.now() - t;
  const used = process.cpuUsage(cpu);
  line(
    '  audit: auditFile (native verify, workers)',
    `${seconds(auditMs)} wall, ${seconds((used.user + used.system) / 1000)} CPU (valid: ${verdict.valid}, winners: ${verdict.outcome?.winners.join(', ')}); target < 10 s`,
  );
  t = performance.now();
  const core = auditLines(r.lines);
  line('  audit: core auditor alone (noble, one thread)', `${seconds(performance.now() - t)} (valid: ${core.valid})`);
}
