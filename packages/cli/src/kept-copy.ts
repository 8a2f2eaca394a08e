/**
 * A seat's copy kept by `--out` (`play`, `signidice house`): the transcript's complete lines and their receipts
 * (`FILE.receipts.jsonl`), read back for `--resume`, cut to what both files hold and written back so, since the
 * next lines are appended after these. A last line cut short by a crash is not one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fail } from './io.js';

function completeLines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').slice(0, -1);
}

/** The lines and receipts of the copy at `file`, both of length n ≥ 1; `whose` names the copy in errors ("the house's copy"). */
export function readKeptCopy(file: string, whose = 'the copy'): { lines: string[]; receipts: unknown[] } {
  let lines: string[];
  let receipts: unknown[];
  try {
    lines = completeLines(file);
    receipts = completeLines(`${file}.receipts.jsonl`).map((l) => JSON.parse(l) as unknown);
  } catch (e) {
    fail(`[bad_journal] ${file}: ${whose} and its receipts (${file}.receipts.jsonl) are unreadable (${(e as Error).message})`);
  }
  const n = Math.min(lines.length, receipts.length);
  if (n === 0) fail(`[bad_journal] ${file} holds no line with its receipt`);
  lines = lines.slice(0, n);
  receipts = receipts.slice(0, n);
  writeFileSync(file, lines.map((l) => l + '\n').join(''));
  writeFileSync(`${file}.receipts.jsonl`, receipts.map((r) => JSON.stringify(r) + '\n').join(''));
  return { lines, receipts };
}
