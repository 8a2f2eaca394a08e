/**
 * `fairtable relay`'s per-address options (docs/spec/relay.md §5): `--games-per-minute` and
 * `--connections-per-address` reach the relay it runs, as do the quotas (`--games-per-key`) and the storage
 * threshold (`RELAY_MIN_FREE_BYTES`) and the number of verifying threads (`--verify-threads`), and a value that is not a
 * count is refused with a code.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';

const main = fileURLToPath(new URL('../bin/fairtable.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fairtable-relay-command-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** The names of the threads of process `pid`, as /proc has them (Linux): the relay names its own (thread-name.ts). */
function threadNames(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    } catch {
      return '';
    }
  });
}

function relay(args: string[], env: Record<string, string> = {}, data = 'data', logs: Record<string, unknown>[] = []): Promise<string> {
  const child = spawn(process.execPath, [main, 'relay', '--port', '0', '--host', '127.0.0.1', '--data', join(dir, data), ...args], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (text) => {
      if (!text.startsWith('{')) return;
      const log = JSON.parse(text) as { msg?: string; port?: number };
      logs.push(log);
      if (log.msg === 'relay listening') resolve(`http://127.0.0.1:${log.port}`);
    });
    child.once('exit', (code) => reject(new Error(`the relay exited with ${code}`)));
  });
}

/** A two-player dice setup line, distinct for each `n`. */
function setupLine(n: number): { id: string; line: string } {
  const keys = [1, 2].map((i) => generateKeyPair(new Uint8Array(32).fill(n * 4 + i)));
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params: { timeoutMs: 60_000, rounds: 2 },
    players: keys.map((k, i) => ({ id: `p${i}`, key: toHex(k.publicKey) })),
    nonce: toHex(new Uint8Array(32).fill(n)),
    created: Date.now(),
  };
  return { id: gameIdOf(setup), line: envelopeLine(createSetupEnvelope(setup, 'p0', keys[0]!)) };
}

/** The status and error code of a request, or 101 when a WebSocket upgrade was let through (its socket kept open). */
function ask(url: string, method: string, body: string | null): Promise<{ status: number; code: string | undefined }> {
  const upgrade = body === null;
  const headers = upgrade
    ? { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' }
    : {};
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false });
    req.on('upgrade', () => resolve({ status: 101, code: undefined }));
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode ?? 0, code: text === '' ? undefined : (JSON.parse(text) as { error?: { code: string } }).error?.code });
      });
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

describe('fairtable relay', () => {
  it('takes --games-per-minute and --connections-per-address as the per-address limits', async () => {
    const url = await relay(['--games-per-minute', '2', '--connections-per-address', '1']);
    const games = [1, 2, 3].map(setupLine);
    expect((await ask(`${url}/games`, 'POST', games[0]!.line)).status).toBe(201);
    expect((await ask(`${url}/games`, 'POST', games[1]!.line)).status).toBe(201);
    expect(await ask(`${url}/games`, 'POST', games[2]!.line)).toEqual({ status: 429, code: 'rate_limited' });
    expect((await ask(`${url}/games/${games[0]!.id}/ws`, 'GET', null)).status).toBe(101);
    expect(await ask(`${url}/games/${games[0]!.id}/ws`, 'GET', null)).toEqual({ status: 429, code: 'too_many_connections_from_address' });
  });

  it('takes the quotas from flags and the storage threshold from the environment', async () => {
    const url = await relay(['--games-per-key', '1'], { RELAY_MIN_FREE_BYTES: String(Number.MAX_SAFE_INTEGER) }, 'quotas');
    const health = (await (await fetch(`${url}/health`)).json()) as { writable?: boolean; storage?: { code: string } };
    expect(health).toMatchObject({ writable: false, storage: { code: 'storage_full' } });
    expect(await ask(`${url}/games`, 'POST', setupLine(4).line)).toEqual({ status: 503, code: 'storage_full' });
    const other = await relay(['--games-per-key', '1'], {}, 'quotas2');
    const first = setupLine(5);
    await new Promise((res) => setTimeout(res, 5));
    // The same creator key, another game (a later setup time): past its one game.
    const second = setupLine(5);
    expect(second.id).not.toBe(first.id);
    expect((await ask(`${other}/games`, 'POST', first.line)).status).toBe(201);
    expect(await ask(`${other}/games`, 'POST', second.line)).toEqual({ status: 429, code: 'too_many_games' });
  });

  it('refuses a quota that is not a whole number of at least 1, naming its flag', () => {
    const r = spawnSync(process.execPath, [main, 'relay', '--port', '0', '--data', join(dir, 'bad'), '--game-lines', 'many'], { encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/out_of_range.*--game-lines/);
  });

  it('starts as many verifying threads as --verify-threads or RELAY_VERIFY_THREADS asks, none with 0', async () => {
    for (const [args, env, threads] of [
      [['--verify-threads', '2'], {}, 2],
      [[], { RELAY_VERIFY_THREADS: '0' }, 0],
    ] as const) {
      const logs: Record<string, unknown>[] = [];
      const url = await relay([...args], env, `threads${threads}`, logs);
      expect(logs.find((l) => l.msg === 'verifying threads started')).toMatchObject({ threads });
      // The relay with that many threads takes a game.
      const game = setupLine(10 + threads);
      expect((await ask(`${url}/games`, 'POST', game.line)).status).toBe(201);
      // Each thread is named for what it does, so that `top -H` tells them apart: the verifying ones and the store's.
      // A thread names itself once its module has loaded, which may be after the relay listens.
      const pid = children.at(-1)!.pid!;
      if (process.platform === 'linux')
        await vi.waitFor(
          () => {
            const names = threadNames(pid);
            expect(names.filter((n) => n === 'ft-verify')).toHaveLength(threads);
            expect(names.filter((n) => n === 'ft-store')).toHaveLength(1);
          },
          { timeout: 10_000, interval: 50 },
        );
    }
  });

  it('refuses a count of verifying threads that is not a whole number from 0 to 64, naming its flag', () => {
    for (const bad of ['65', 'two']) {
      const r = spawnSync(process.execPath, [main, 'relay', '--port', '0', '--data', join(dir, 'bad'), '--verify-threads', bad], { encoding: 'utf8' });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/out_of_range.*--verify-threads/);
    }
  });

  it('refuses a limit that is not a whole number of at least 1', () => {
    const r = spawnSync(process.execPath, [main, 'relay', '--port', '0', '--data', join(dir, 'bad'), '--games-per-minute', '0'], { encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/out_of_range.*--games-per-minute/);
  });
});
