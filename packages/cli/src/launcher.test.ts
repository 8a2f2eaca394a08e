/**
 * The launcher (bin/fairtable.js) runs the command's bundle only while it is as new as the build
 * (bin/bundle-fresh.js): a bundle older than any package's build record, or none, is not used.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { randomBytes, toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { auditWithReceipts } from '@fairtable/core/order/censorship.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { randomStrategy } from '@fairtable/core/testing';
import { createGame, fetchGame, joinGame } from '@fairtable/client';
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

  it('the relay from the bundle starts its threads from the bundle and receipts a game the audit finds valid, as the relay from dist/ does', async () => {
    expect(fresh()).toBe(true);
    for (const name of ['relay-verify-worker.js', 'sqlite-append-thread.js'])
      expect(existsSync(new URL(`../bundle/${name}`, import.meta.url)), name).toBe(true);
    const bin = fileURLToPath(new URL('../bin/fairtable.js', import.meta.url));
    for (const env of [process.env, { ...process.env, FAIRTABLE_NO_BUNDLE: '1' }]) {
      const data = mkdtempSync(join(tmpdir(), 'fairtable-launcher-relay-'));
      const child = spawn(process.execPath, [bin, 'relay', '--port', '0', '--host', '127.0.0.1', '--data', data], {
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        let out = '';
        const port = await new Promise<number>((resolve, reject) => {
          child.stdout.on('data', (d: Buffer) => {
            out += d.toString();
            const m = /"port":(\d+)[^\n]*"relay listening"/.exec(out);
            if (m !== null) resolve(Number(m[1]));
          });
          child.on('exit', (code) => reject(new Error(`the relay exited (${code}):\n${out}`)));
        });
        // Its verifying threads started: none would mean their module was not found beside the relay's.
        const threads = /"threads":(\d+)[^\n]*"verifying threads started"/.exec(out);
        expect(Number(threads?.[1] ?? 0), out).toBeGreaterThanOrEqual(1);
        const url = `http://127.0.0.1:${port}`;
        const relayKey = /"relay":"([0-9a-f]{64})"/.exec(out)![1]!;
        const ids = ['ann', 'bob'];
        const keys = ids.map(() => generateKeyPair());
        const setup: GameSetup = {
          protocol: 'chain',
          game: 'dice',
          params: { timeoutMs: 60_000, rounds: 2 },
          players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
          nonce: toHex(randomBytes(32)),
          created: Date.now(),
        };
        const game = gameIdOf(setup);
        await createGame(url, envelopeLine(createSetupEnvelope(setup, 'ann', keys[0]!)));
        const seats = ids.map((id, i) =>
          joinGame({ relayUrl: url, gameId: game, id, keys: keys[i]!, WebSocket, relayKey, strategy: randomStrategy(randomBytes(32)) }),
        );
        const outcomes = await Promise.all(seats.map((s) => s.finished));
        for (const s of seats) s.close();
        for (const o of outcomes) expect(o.forfeits).toEqual([]);
        // Stored by the writing thread and receipted: what the relay serves audits valid, every line receipted.
        const fetched = await fetchGame(url, game, relayKey);
        expect(fetched.lie).toBeNull();
        const verdict = auditWithReceipts(fetched.lines, { orderer: relayKey, receipts: fetched.receipts, records: [] });
        expect(verdict.violations).toEqual([]);
        expect(verdict.valid).toBe(true);
        expect(verdict.relay.receipted).toBe(fetched.lines.length);
      } finally {
        child.kill('SIGTERM');
        if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
      }
    }
  });
});
