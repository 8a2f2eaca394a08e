/**
 * `fairtable audit FILE`: replays a whole game and prints the verdict.
 * Exit 0 valid, 1 violation found, 2 unreadable input.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { auditFile } from '@fairtable/node/audit-file.js';
import type { Verdict } from '@fairtable/core/audit.js';
import { fail, progressBar } from '../io.js';

function printHuman(verdict: Verdict): void {
  const out: string[] = [];
  out.push(`game ${verdict.gameId} (${verdict.protocol}), ${verdict.lines} lines`);
  if (verdict.outcome !== null) {
    out.push(`outcome: winners ${verdict.outcome.winners.join(', ') || '(none)'}${verdict.outcome.forfeits.length ? `; forfeited: ${verdict.outcome.forfeits.map((f) => `${f.player} (${f.code})`).join(', ')}` : ''}`);
  }
  if (verdict.valid) out.push('VALID: every envelope is signed, in place and by the rules');
  else {
    out.push(`INVALID: ${verdict.violations.length} violation(s)`);
    for (const v of verdict.violations) {
      out.push(`  line ${v.seq}  ${v.code}  ${v.player ?? '(nobody can be named)'}: ${v.message}`);
      for (const e of v.evidence) out.push(`      evidence: line ${e.line ?? '?'}${e.hash ? ` hash ${e.hash}` : ''}${e.note ? ` ${e.note}` : ''}`);
    }
  }
  process.stdout.write(out.join('\n') + '\n');
}

/** Verification threads: an integer from 1 to 64; anything else is refused, never quietly replaced. */
function workerCount(value: string): number {
  if (!/^\d{1,2}$/.test(value) || Number(value) < 1 || Number(value) > 64) fail(`[out_of_range] --workers must be an integer from 1 to 64, not ${JSON.stringify(value)}`);
  return Number(value);
}

export function register(program: Command): void {
  program
    .command('audit')
    .description('replay a transcript and print its verdict (exit 0 valid, 1 violation, 2 unreadable)')
    .argument('<file>', 'transcript (JSON Lines)')
    .option('--json', 'print {"valid", "violations": [{"code", "player", "seq", "evidence"}]}')
    .option('--workers <n>', 'verification threads, 1..64 (default: the machine\'s cores)')
    .action(async (file: string, opts: { json?: boolean; workers?: string }) => {
      if (!existsSync(file)) fail(`[bad_input] ${file}: no such file`);
      const bar = progressBar('auditing');
      let verdict: Verdict;
      try {
        verdict = await auditFile(file, {
          ...(opts.workers !== undefined ? { workers: workerCount(opts.workers) } : {}),
          onProgress: (done, total, lines) => bar.update(done, total, `${lines} lines`),
        });
      } catch (e) {
        bar.finish();
        const err = e as { code?: string; message: string };
        fail(`[${err.code ?? 'bad_input'}] ${file}: ${err.message}`);
      }
      bar.finish();
      if (opts.json === true) {
        const violations = verdict.violations.map((v) => ({ code: v.code, player: v.player, seq: v.seq, message: v.message, evidence: v.evidence }));
        process.stdout.write(JSON.stringify({ valid: verdict.valid, violations, game: verdict.gameId, protocol: verdict.protocol, lines: verdict.lines, outcome: verdict.outcome }) + '\n');
      } else printHuman(verdict);
      process.exitCode = verdict.valid ? 0 : 1;
    });
}
