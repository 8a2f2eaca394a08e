/** Small I/O helpers shared by the commands: reading input, a progress bar on a terminal, coded exits. */
import { readFileSync } from 'node:fs';

export function readInput(path: string): string {
  return path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
}

/** A one-line progress bar on stderr, drawn only when stderr is a terminal. */
export function progressBar(label: string): { update: (done: number, total: number, extra?: string) => void; finish: () => void } {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  return {
    update(done, total, extra = '') {
      if (!tty) return;
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      const width = 30;
      const frac = total > 0 ? Math.min(1, done / total) : 0;
      const filled = Math.round(frac * width);
      process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(frac * 100).toFixed(0)}% ${extra}   `);
    },
    finish() {
      if (tty) process.stderr.write('\n');
    },
  };
}

export function fail(message: string, code = 2): never {
  process.stderr.write(`fairtable: ${message}\n`);
  process.exit(code);
}

/**
 * Exits 2 with a caught error as one coded line (`[code] message`): a
 * fairtable code as it is; a system error (ENOENT, EACCES…) is `[bad_input]`,
 * its message naming the file; anything else `[internal]`.
 */
export function failWith(error: unknown, code = 2): never {
  const e = error as { code?: unknown; message?: unknown };
  const tag = typeof e?.code !== 'string' ? 'internal' : /^[a-z][a-z_]*$/.test(e.code) ? e.code : 'bad_input';
  fail(`[${tag}] ${typeof e?.message === 'string' ? e.message : String(error)}`, code);
}
