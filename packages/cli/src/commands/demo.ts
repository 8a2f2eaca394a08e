/**
 * `fairtable demo`: a local demonstration with no network. Plays a
 * two-player Monopoly (chance parts) on the in-memory network, honestly and
 * then with a cheater, writes both transcripts and audits them.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { violationMeaning } from '@fairtable/core/violation-words.js';
import { randomBytes } from '@fairtable/core/bytes.js';
import { simulate } from '@fairtable/core/testing';
import { auditFile } from '@fairtable/node/audit-file.js';

export function register(program: Command): void {
  program
    .command('demo')
    .description('play a short local demo game, honest and with a cheater, and audit both')
    .option('--dir <dir>', 'where to write the transcripts')
    .action(async (opts: { dir?: string }) => {
      const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'fairtable-demo-'));
      mkdirSync(dir, { recursive: true });
      for (const [name, cheat] of [
        ['honest', undefined],
        ['cheater', 'wrong-opening'],
      ] as const) {
        const result = simulate({ protocol: 'monopoly', players: 2, seed: randomBytes(32), turns: 5, drop: 0.05, ...(cheat ? { cheat, cheater: 'p1' } : {}) });
        const file = join(dir, `monopoly-${name}.jsonl`);
        writeFileSync(file, result.lines.join('\n') + '\n');
        const verdict = await auditFile(file);
        process.stdout.write(`\n${name} game: ${result.lines.length} envelopes -> ${file}\n`);
        process.stdout.write(`  winners: ${verdict.outcome?.winners.join(', ') ?? '(unfinished)'}\n`);
        process.stdout.write(
          `  audit: ${verdict.valid ? 'VALID' : verdict.violations.map((v) => `${v.code} by ${v.player ?? '?'} (line ${v.seq})`).join('; ')}\n`,
        );
        const first = verdict.violations[0];
        const words = first === undefined ? null : violationMeaning(first.code);
        if (words !== null) process.stdout.write(`  ${first!.code}: ${words}\n`);
      }
      process.stdout.write(`\nAudit them yourself: npx fairtable audit ${join(dir, 'monopoly-cheater.jsonl')}\n`);
    });
}
