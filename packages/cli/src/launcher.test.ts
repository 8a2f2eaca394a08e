/**
 * The launcher (bin/fairtable.js) runs the command's bundle only while it is as new as the build
 * (bin/bundle-fresh.js): a bundle older than any package's build record, or none, is not used.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a checked-in JavaScript module of the launcher, with no types
import { PACKAGES, bundleFresh } from '../bin/bundle-fresh.js';

const fresh = bundleFresh as (dir?: URL) => boolean;
const packages = PACKAGES as string[];

/** A packages/ folder with every build record at `recordAt` and, unless null, a bundle made at `bundleAt` (seconds). */
function tree(recordAt: number, bundleAt: number | null): URL {
  const dir = mkdtempSync(join(tmpdir(), 'fairtable-launcher-'));
  for (const p of packages) {
    mkdirSync(join(dir, p), { recursive: true });
    writeFileSync(join(dir, p, 'tsconfig.tsbuildinfo'), '{}');
    utimesSync(join(dir, p, 'tsconfig.tsbuildinfo'), recordAt, recordAt);
  }
  if (bundleAt !== null) {
    mkdirSync(join(dir, 'cli', 'bundle'), { recursive: true });
    writeFileSync(join(dir, 'cli', 'bundle', 'main.js'), '');
    utimesSync(join(dir, 'cli', 'bundle', 'main.js'), bundleAt, bundleAt);
  }
  return pathToFileURL(dir + '/');
}

describe('the launcher and its bundle', () => {
  it('uses a bundle made after every build record, and none that is older than one of them or missing', () => {
    expect(fresh(tree(1_000, 2_000))).toBe(true);
    expect(fresh(tree(2_000, 1_000))).toBe(false);
    expect(fresh(tree(1_000, null))).toBe(false);
    // One package rebuilt after the bundle was made is enough to leave the bundle out.
    const dir = tree(1_000, 2_000);
    utimesSync(new URL('core/tsconfig.tsbuildinfo', dir), 3_000, 3_000);
    expect(fresh(dir)).toBe(false);
  });

  it('a bundled command and the same command from dist/ say the same', () => {
    // The tests' global setup made the bundle after the build: this compares the bundle with dist/.
    expect(fresh()).toBe(true);
    const bin = fileURLToPath(new URL('../bin/fairtable.js', import.meta.url));
    const args = ['random', '--seed', 'ab'.repeat(32), '--label', 'launcher', '--dice', '6', '--count', '5'];
    const bundled = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
    const built = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, FAIRTABLE_NO_BUNDLE: '1' } });
    expect(bundled.status, bundled.stderr).toBe(built.status);
    expect(bundled.stdout).toBe(built.stdout);
    expect(bundled.stderr).toBe(built.stderr);
  });

  it('the audit from the bundle starts its threads from the bundle, and says what the audit from dist/ says', () => {
    const bin = fileURLToPath(new URL('../bin/fairtable.js', import.meta.url));
    // The threads' modules are entry points of the bundle, beside its chunks (scripts/bundle.js).
    for (const name of ['audit-coordinator.js', 'verify-worker.js']) expect(existsSync(new URL(`../bundle/${name}`, import.meta.url)), name).toBe(true);
    const file = join(mkdtempSync(join(tmpdir(), 'fairtable-launcher-')), 'dice.jsonl');
    const made = spawnSync(process.execPath, [bin, 'simulate', 'dice', '--players', '3', '--turns', '4', '--cheat', 'wrong-opening', '--out', file], {
      encoding: 'utf8',
    });
    expect(made.status, made.stderr).toBe(0);
    // --workers: the coordinating thread and two verifying threads, even for a small file.
    const args = ['audit', '--workers', '2', file];
    const bundled = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
    const built = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, FAIRTABLE_NO_BUNDLE: '1' } });
    expect(bundled.status, bundled.stderr).toBe(1);
    expect(bundled.stdout).toMatch(/INVALID/);
    expect(bundled.stdout).toBe(built.stdout);
    expect(bundled.status).toBe(built.status);
  });
});
