/**
 * Plain files of a game folder (docs/spec/mail.md §2), each written whole and atomically (a temporary file
 * in the same folder, then a rename), so a folder is never left half written when a command is stopped.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

let counter = 0;

export function writeAtomic(path: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${process.pid}.${counter++}.tmp`);
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, path);
}

export function readText(path: string): string | null {
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
}

export function readJsonLines<T>(path: string): T[] {
  const text = readText(path);
  if (text === null) return [];
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as T);
}

/** Lines of text kept verbatim (transcript lines must keep their exact bytes). */
export function readLines(path: string): string[] {
  const text = readText(path);
  if (text === null) return [];
  return text.split('\n').filter((l) => l.length > 0);
}

export const linesText = (lines: readonly string[]): string => (lines.length === 0 ? '' : lines.join('\n') + '\n');
