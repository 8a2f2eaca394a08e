/**
 * `fairtable audit FILE`: replays a whole game and prints the verdict
 * (docs/SPEC.md §9). Exit 0 valid, 1 violation found, 2 unreadable input; with
 * `--json`, exit 2 still prints one JSON object so that scripts can tell.
 * A game whose machine lives outside the core (Diplomacy) is audited in this
 * process with its registry.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import type { Command } from 'commander';
import { auditFile } from '@fairtable/node/audit-file.js';
import { auditText, type Verdict } from '@fairtable/core/audit.js';
import type { Registry } from '@fairtable/core/registry.js';
import { diplomacyRegistry } from '@fairtable/diplomacy/protocol/index.js';
import { fail, progressBar } from '../io.js';

/** More verifying threads than this only adds memory; a typo such as 400 is refused rather than obeyed. */
const MAX_WORKERS = 64;

/** The registry for a transcript whose setup names a protocol from outside the core, or null. */
function externalRegistry(file: string): Registry | null {
  const fd = openSync(file, 'r');
  const head = Buffer.alloc(1 << 20);
  const n = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  try {
    const setup = (JSON.parse(head.subarray(0, n).toString('utf8').split('\n')[0]!) as { body?: { setup?: { protocol?: unknown } } }).body?.setup;
    return setup?.protocol === 'diplomacy' ? diplomacyRegistry : null;
  } catch {
    return null; // the file auditor reports what is wrong with line 0
  }
}

function printHuman(verdict: Verdict): void {
  const out: string[] = [];
  out.push(`game ${verdict.gameId} (${verdict.protocol}), ${verdict.lines} lines`);
  if (verdict.outcome !== null) {
    out.push(
      `outcome: winners ${verdict.outcome.winners.join(', ') || '(none)'}${verdict.outcome.forfeits.length ? `; forfeited: ${verdict.outcome.forfeits.map((f) => `${f.player} (${f.code})`).join(', ')}` : ''}`,
    );
  }
  if (verdict.valid) out.push('VALID: every envelope is signed, in place and by the rules');
  else {
    const more = verdict.omitted > 0 ? ` (and ${verdict.omitted} more, counted but not kept)` : '';
    out.push(`INVALID: ${verdict.violations.length + verdict.omitted} violation(s)${more}`);
    if (verdict.alteredAt !== null) {
      out.push(
        `  the log was altered after its envelopes were signed (first seen at line ${verdict.alteredAt}): the game is not judged on it and no player is named for it; audit another copy (docs/SPEC.md §4.4)`,
      );
    }
    for (const v of verdict.violations) {
      out.push(`  line ${v.seq}  ${v.code}  ${v.player ?? '(nobody can be named)'}: ${v.message}`);
      for (const e of v.evidence) out.push(`      evidence: line ${e.line ?? '?'}${e.hash ? ` hash ${e.hash}` : ''}${e.note ? ` ${e.note}` : ''}`);
    }
  }
  process.stdout.write(out.join('\n') + '\n');
}

export function register(program: Command): void {
  program
    .command('audit')
    .description('replay a transcript and print its verdict (exit 0 valid, 1 violation, 2 unreadable)')
    .argument('<file>', 'transcript (JSON Lines)')
    .option(
      '--json',
      'print {"valid", "violations": [{"code", "player", "seq", "message", "evidence"}], "omitted", …}, or {"valid": false, "error": {"code", "message"}} on exit 2',
    )
    .option('--workers <n>', `verification threads, 1 to ${MAX_WORKERS} (default: the machine's cores less one)`)
    .action(async (file: string, opts: { json?: boolean; workers?: string }) => {
      // One way out for unreadable input: a message on stderr, and with --json the same as an object on stdout.
      const unreadable = (code: string, message: string): never => {
        if (opts.json === true) process.stdout.write(JSON.stringify({ valid: false, error: { code, message } }) + '\n');
        return fail(`[${code}] ${message}`);
      };
      let workers: number | undefined;
      if (opts.workers !== undefined) {
        workers = Number(opts.workers);
        if (!/^[0-9]+$/.test(opts.workers) || workers < 1 || workers > MAX_WORKERS) {
          unreadable('out_of_range', `--workers must be a whole number from 1 to ${MAX_WORKERS}, not "${opts.workers}"`);
        }
      }
      if (!existsSync(file)) unreadable('bad_input', `${file}: no such file`);
      const bar = progressBar('auditing');
      let verdict: Verdict;
      try {
        const registry = externalRegistry(file);
        verdict =
          registry !== null
            ? auditText(readFileSync(file), { registry })
            : await auditFile(file, {
                ...(workers !== undefined ? { workers } : {}),
                onProgress: (done, total, lines) => bar.update(done, total, `${lines} lines`),
              });
      } catch (e) {
        bar.finish();
        const err = e as { code?: string; message?: string };
        return unreadable(err.code ?? 'bad_input', `${file}: ${err.message ?? String(e)}`);
      }
      bar.finish();
      if (opts.json === true) {
        const violations = verdict.violations.map((v) => ({ code: v.code, player: v.player, seq: v.seq, message: v.message, evidence: v.evidence }));
        process.stdout.write(
          JSON.stringify({
            valid: verdict.valid,
            violations,
            omitted: verdict.omitted,
            game: verdict.gameId,
            protocol: verdict.protocol,
            lines: verdict.lines,
            outcome: verdict.outcome,
            alteredAt: verdict.alteredAt,
          }) + '\n',
        );
      } else printHuman(verdict);
      process.exitCode = verdict.valid ? 0 : 1;
    });
}
