/**
 * A game's creator names the witness URLs every seat posts to (docs/spec/relay.md §8, "Which URLs"): a setup
 * naming one no client may post to (an internal admin address with a query, credentials, a fragment, plain
 * http to another machine) is refused by every client before its seat plays, and not one request reaches the
 * address. The relay here is the tests' small relay, which hosts any setup (a relay is not trusted to refuse
 * it). Requests are counted on a local HTTP server and on the client's fetch.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createGame, joinGame, type FetchLike } from '@fairtable/client';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { generateKeyPair, toKeyFile, type KeyPair } from '@fairtable/core/identity.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { startMiniRelay, type MiniRelay } from './mini-relay.js';

const main = fileURLToPath(new URL('../packages/cli/bin/fairtable.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fairtable-witness-url-'));
const players = ['alice', 'bob'].map((id, i) => ({ id, keys: generateKeyPair(new Uint8Array(32).fill(60 + i)) }));
const WITNESS_KEY = 'cd'.repeat(32);

let relay: MiniRelay;
let target: Server;
let port = 0;
/** Every request the target server was sent, as "METHOD path". */
const requests: string[] = [];
/** Every URL the clients' fetch was asked for. */
const fetched: string[] = [];

beforeAll(async () => {
  relay = await startMiniRelay();
  target = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'not_a_witness', message: 'this server counts requests' } }));
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  port = (target.address() as AddressInfo).port;
  for (const p of players) writeFileSync(join(dir, `${p.id}.json`), JSON.stringify(toKeyFile(p.id, p.keys)));
});
afterAll(async () => {
  await relay.close();
  await new Promise((resolve) => target.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  requests.length = 0;
  fetched.length = 0;
});

/** A game on the relay whose setup names `url` as its witness. */
async function gameNaming(url: string, nonce: number): Promise<string> {
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params: { timeoutMs: 60_000, rounds: 1, witnesses: [{ key: WITNESS_KEY, url }] },
    players: players.map((p) => ({ id: p.id, key: toHex(p.keys.publicKey) })),
    nonce: toHex(new Uint8Array(32).fill(nonce)),
    created: Date.now(),
  };
  return (await createGame(relay.url, envelopeLine(createSetupEnvelope(setup, 'alice', players[0]!.keys)))).game;
}

/** The platform's fetch, counted; `lan.test` is this machine (an address only an allow-list lets through). */
const countingFetch: FetchLike = (url, init) => {
  fetched.push(url);
  return fetch(url.replace('//lan.test:', '//127.0.0.1:'), init);
};

function join1(gameId: string, player: { id: string; keys: KeyPair }, extra: { httpWitnessHosts?: string[] } = {}) {
  return joinGame({
    relayUrl: relay.url,
    gameId,
    id: player.id,
    keys: player.keys,
    random: (n) => new Uint8Array(n).fill(3),
    WebSocket,
    fetch: countingFetch,
    strategy: () => 0,
    ...extra,
  });
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [main, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, err });
    }),
  );
}

describe('witness URLs a setup names', () => {
  it('a hostile setup is refused by every seat with bad_witness_url, and its address gets no request', async () => {
    const hostile: [string, RegExp][] = [
      [`http://127.0.0.1:${port}/admin/users?delete=all`, /query/],
      [`http://admin:hunter2@127.0.0.1:${port}/admin`, /credentials/],
      [`http://127.0.0.1:${port}/admin#x`, /fragment/],
      [`http://lan.test:${port}/admin`, /plain http: is only for this machine/],
      [`ftp://127.0.0.1:${port}/`, /scheme ftp:/],
    ];
    let nonce = 1;
    for (const [url, why] of hostile) {
      const gameId = await gameNaming(url, nonce++);
      const seats = players.map((p) => join1(gameId, p));
      for (const seat of seats) {
        const error = await seat.finished.then(
          () => null,
          (e: unknown) => e,
        );
        expect(error, url).toBeInstanceOf(FairtableError);
        expect((error as FairtableError).code).toBe('bad_witness_url');
        expect((error as Error).message).toContain(JSON.stringify(url));
        expect((error as Error).message).toMatch(why);
        // The seat never started: nothing was signed or sent.
        expect(seat.seat).toBeNull();
      }
    }
    await settle(300);
    expect(requests).toEqual([]);
    expect(fetched).toEqual([]);
    // Nor did any seat send the relay a line: each game holds its setup alone.
    for (const g of relay.games.values()) expect(g.lines.length).toBe(1);
  });

  it('a good witness URL is posted to; plain http to another host only where whoever runs the client allows it', async () => {
    const good = await gameNaming(`http://127.0.0.1:${port}`, 20);
    const seat = join1(good, players[0]!);
    for (let i = 0; i < 100 && requests.length === 0; i++) await settle(50);
    seat.close();
    expect(requests[0]).toBe('POST /witness/games');

    requests.length = 0;
    const lan = await gameNaming(`http://lan.test:${port}/`, 21);
    const refused = join1(lan, players[0]!);
    await expect(refused.finished).rejects.toMatchObject({ code: 'bad_witness_url' });
    expect(requests).toEqual([]);
    const allowed = join1(lan, players[0]!, { httpWitnessHosts: ['lan.test'] });
    for (let i = 0; i < 100 && requests.length === 0; i++) await settle(50);
    allowed.close();
    expect(requests[0]).toBe('POST /witness/games');
    expect(fetched).toContain(`http://lan.test:${port}/witness/games`);
  });

  it('a seat resumed from a copy of a hostile game is refused before it starts', async () => {
    const gameId = await gameNaming(`http://127.0.0.1:${port}/x?y`, 30);
    const g = relay.games.get(gameId)!;
    expect(() =>
      joinGame({
        relayUrl: relay.url,
        gameId,
        id: 'alice',
        keys: players[0]!.keys,
        random: (n) => new Uint8Array(n).fill(3),
        WebSocket,
        fetch: countingFetch,
        relayKey: toHex(relay.keys.publicKey),
        resume: { lines: g.lines, receipts: g.receipts },
      }),
    ).toThrow(expect.objectContaining({ code: 'bad_witness_url' }));
    expect(fetched).toEqual([]);
  });

  it('fairtable play --join, signidice play and play --witness refuse it too, with no request to the address', async () => {
    const gameId = await gameNaming(`http://127.0.0.1:${port}/admin?op=wipe`, 40);
    const runs = await Promise.all([
      cli(['play', '--relay', relay.url, '--key', 'bob.json', '--join', gameId]),
      cli(['signidice', 'play', '--relay', relay.url, '--key', 'bob.json', '--game', gameId]),
      cli(['play', '--relay', relay.url, '--key', 'bob.json', '--join', gameId, '--allow-http-witness', '127.0.0.1'], {
        FAIRTABLE_HTTP_WITNESSES: '127.0.0.1',
      }),
    ]);
    writeFileSync(join(dir, 'alice.pub.json'), JSON.stringify({ name: 'alice', publicKey: toHex(players[0]!.keys.publicKey) }));
    writeFileSync(join(dir, 'bob.pub.json'), JSON.stringify({ name: 'bob', publicKey: toHex(players[1]!.keys.publicKey) }));
    runs.push(
      await cli([
        'play',
        'dice',
        '--relay',
        relay.url,
        '--key',
        'alice.json',
        '--players',
        'alice.pub.json,bob.pub.json',
        '--witness',
        `http://127.0.0.1:${port}/admin?op=wipe`,
      ]),
    );
    for (const r of runs) {
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(/\[bad_witness_url\] witness URL "http:\/\/127\.0\.0\.1:\d+\/admin\?op=wipe": it has a query/);
    }
    await settle(300);
    expect(requests).toEqual([]);
  });
});
