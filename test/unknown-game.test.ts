/**
 * A game the relay does not hold is said at once, in words, and never taken for a network failure
 * (docs/spec/relay.md §3): the relay closes the WebSocket with 4404 `unknown_game` and answers HTTP with
 * `404 unknown_game`; the client's `joinGame`, `relayKeyOf` and `fetchGame` fail with `unknown_game`
 * without a reconnection, and `fairtable play --join`, `fairtable signidice play` and `fairtable fetch`
 * print `[unknown_game] no game … on this relay` and exit non-zero. The bounds below are generous (the
 * default reconnection window is 30 s): a command that retried would run into them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { fetchGame, joinGame, relayKeyOf, UNKNOWN_GAME, type ClientStatus } from '@fairtable/client';
import { FairtableError } from '@fairtable/core/errors.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { startRelay, type Relay } from '@fairtable/relay';

const main = fileURLToPath(new URL('../packages/cli/bin/fairtable.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fairtable-unknown-game-'));
const NO_GAME = '0'.repeat(64);
/** Under the 30 s a retrying command took (its default reconnection window), far over what an answer takes on a loaded machine. */
const BOUND_MS = 20_000;
let relay: Relay;

beforeAll(async () => {
  relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: join(dir, 'data'), webDir: dir, logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await relay.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI without blocking this process's event loop (the relay answers from it). */
function cli(args: string[]): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [main, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, out, err, ms: Date.now() - started });
    }),
  );
}

async function expectUnknownGame(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FairtableError);
  expect((error as FairtableError).code).toBe(UNKNOWN_GAME);
  expect((error as Error).message).toBe(`no game ${NO_GAME} on this relay`);
}

describe('a game the relay does not hold', () => {
  it('joinGame fails with unknown_game at once, with no reconnection attempt', async () => {
    const statuses: ClientStatus[] = [];
    let sockets = 0;
    class Counted extends WebSocket {
      constructor(url: string) {
        super(url);
        sockets++;
      }
    }
    const started = Date.now();
    const game = joinGame({
      relayUrl: relay.url,
      gameId: NO_GAME,
      id: 'alice',
      keys: generateKeyPair(new Uint8Array(32).fill(7)),
      random: (n) => new Uint8Array(n).fill(1),
      WebSocket: Counted,
      // Reconnecting would be quick and endless here: only the coded close can end the seat.
      backoffMs: { min: 10, max: 10 },
    });
    game.on('status', (s) => statuses.push(s.status));
    await expectUnknownGame(game.finished);
    expect(Date.now() - started).toBeLessThan(BOUND_MS);
    expect(statuses).not.toContain('disconnected');
    expect(statuses).not.toContain('connecting');
    // Let a reconnection that was wrongly scheduled show itself.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sockets).toBe(1);
    expect(game.status).toBe('stopped');
  });

  it('relayKeyOf and fetchGame fail with unknown_game', async () => {
    const started = Date.now();
    await expectUnknownGame(relayKeyOf(relay.url, NO_GAME, WebSocket));
    await expectUnknownGame(fetchGame(relay.url, NO_GAME, relay.publicKey));
    expect(Date.now() - started).toBeLessThan(BOUND_MS);
  });

  it('fairtable play --join, signidice play and fetch say [unknown_game] and exit non-zero, without retrying', async () => {
    const key = await cli(['keygen', '--name', 'alice', '--out', 'alice.json']);
    expect(key.code, key.err).toBe(0);
    writeFileSync(join(dir, 'alice.pub.json'), key.out);
    const words = `[unknown_game] no game ${NO_GAME} on this relay`;
    const runs = await Promise.all([
      cli(['play', '--relay', relay.url, '--key', 'alice.json', '--join', NO_GAME]),
      cli(['signidice', 'play', '--relay', relay.url, '--key', 'alice.json', '--game', NO_GAME]),
      cli(['fetch', '--relay', relay.url, '--game', NO_GAME, '--out', 'fetched.jsonl']),
      cli(['fetch', '--relay', relay.url, '--game', NO_GAME, '--out', 'fetched.jsonl', '--relay-key', relay.publicKey]),
    ]);
    for (const r of runs) {
      expect(r.code, r.err).not.toBe(0);
      expect(r.code, r.err).not.toBeNull();
      expect(r.err).toContain(words);
      expect(r.err).not.toMatch(/disconnected|connection_closed|connection_failed/);
      expect(r.ms, r.err).toBeLessThan(BOUND_MS);
    }
  });
});
