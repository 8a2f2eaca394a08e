/**
 * Vitest global setup: brings packages/*\/dist up to date once, before any worker
 * starts, for the tests that run the built `fairtable` command. `tsc -b` rebuilds
 * only what changed, so after `.ci/run`'s build (or `npm run build`) it only
 * checks timestamps. Then the command's bundle (packages/cli/scripts/bundle.js,
 * used by bin/fairtable.js) is made again if the build is newer, so that the tests
 * run the command as a player does.
 *
 * The run's temporary files go to a folder of its own (TMPDIR, which the workers and every process they start
 * inherit, and os.tmpdir() reads), removed when the run ends: the tests' folders, the commands' and browsers'.
 * FAIRTABLE_KEEP_TMP=1 keeps it, for looking at what a failed test left.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): () => void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const build = spawnSync(process.execPath, [tsc, '-b', 'packages/cli'], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`the build before the tests failed:\n${build.stdout}${build.stderr}`);
  const bundle = spawnSync(process.execPath, ['packages/cli/scripts/bundle.js', '--if-stale'], { cwd: root, encoding: 'utf8' });
  if (bundle.status !== 0) throw new Error(`the command's bundle before the tests failed:\n${bundle.stdout}${bundle.stderr}`);
  const runTmp = mkdtempSync(join(tmpdir(), 'fairtable-test-run-'));
  process.env.TMPDIR = runTmp;
  return () => {
    if (process.env.FAIRTABLE_KEEP_TMP) process.stdout.write(`the run's temporary files are kept in ${runTmp}\n`);
    else {
      // Best effort: a process a test started may still be writing there; the run's verdict does not hinge on it.
      try {
        rmSync(runTmp, { recursive: true, force: true, maxRetries: 3 });
      } catch (e) {
        process.stdout.write(`the run's temporary files could not all be removed from ${runTmp}: ${String(e)}\n`);
      }
    }
  };
}
