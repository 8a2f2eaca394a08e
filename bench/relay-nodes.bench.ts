/**
 * `npm run bench:relay-nodes -- [--nodes 1,2,3] [--games G] [--players P] [--envelopes E] [--load-procs K] [--lease-ms L]` (L default 5000: with 2,000 a process on a loaded 2-core machine once failed to renew its own leases in time and dropped its games mid-run):
 * a relay service of N `fairtable relay` processes on one Postgres database behind HAProxy (deploy/haproxy.cfg;
 * docs/spec/relay.md §4, "Many processes behind a balancer"), against the single SQLite process in the same
 * run. The database is FAIRTABLE_TEST_DATABASE_URL's (`eval "$(.ci/postgres.sh start)"`); HAProxy must be installed.
 *
 * The load: G games of P players (default 200 × 4), one WebSocket a player, every envelope signed before the
 * clock starts, spread over K load-generator processes (default 1) that start together. In each game player
 * n mod P submits line n when line n − 1 reaches it, so each game has one envelope in flight. Measured per
 * configuration: envelopes a second (first submission to last delivery) and the p99 of submit-to-delivery.
 * One JSON line per configuration on stdout. Then the failover: F games (default 30) under way on the largest
 * N, the process holding the most of them killed (SIGKILL), and the time until every one of its games has
 * accepted a line again (through the balancer), printed as one more JSON line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { WebSocket } from 'ws';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair, type KeyPair } from '@fairtable/core/identity.js';
import { signHello } from '@fairtable/core/order/hello.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { CLI_MAIN, exited, haproxyBinary, startBalancer, startRelayProcess, type Balancer, type RelayProcess } from '../test/relay-cluster.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
};
const PLAYERS = Number(flag('players', '4'));
const ENVELOPES = Number(flag('envelopes', '24'));
const keys: KeyPair[] = Array.from({ length: PLAYERS }, (_, i) => generateKeyPair(new Uint8Array(32).fill(i + 1)));
const ids = keys.map((_, i) => `p${i}`);

interface Game {
  readonly id: string;
  readonly lines: string[];
}

/** Game number `g` of run `run`: its setup line, then ENVELOPES notes, player n mod P signing line n. */
function makeGame(run: number, g: number, envelopes: number): Game {
  const nonce = new Uint8Array(32);
  new DataView(nonce.buffer).setUint32(0, g);
  new DataView(nonce.buffer).setUint32(4, run);
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params: { timeoutMs: 600_000 },
    players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
    nonce: toHex(nonce),
    created: Date.now(),
  };
  const id = gameIdOf(setup);
  const setupEnvelope = createSetupEnvelope(setup, ids[0]!, keys[0]!);
  const lines = [envelopeLine(setupEnvelope)];
  const last = ids.map(() => ({ seq: 0, prev: id }));
  last[0] = { seq: 1, prev: envelopeHash(setupEnvelope) };
  let head = envelopeHash(setupEnvelope);
  for (let n = 1; n <= envelopes; n++) {
    const p = n % PLAYERS;
    const e: Envelope = signEnvelope(
      { v: 1, game: id, from: ids[p]!, seq: last[p]!.seq, prev: last[p]!.prev, at: n, head, time: setup.created + n, body: { type: 'note', n } },
      keys[p]!.secretKey,
      nativeSign,
    );
    head = envelopeHash(e);
    last[p] = { seq: last[p]!.seq + 1, prev: head };
    lines.push(envelopeLine(e));
  }
  return { id, lines };
}

async function createGame(url: string, game: Game): Promise<void> {
  const res = await fetch(`${url}/games?game=${game.id}`, { method: 'POST', body: game.lines[0]! });
  if (res.status !== 201 && res.status !== 200) throw new Error(`creating a game: ${res.status} ${await res.text()}`);
}

type Message = { kind: string; nonce?: string; line?: number; code?: string };

/** A player's connection, welcomed; `onMessage` sees every message after the welcome. */
function join(url: string, game: Game, p: number, onMessage: (m: Message) => void): Promise<WebSocket> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/games/${game.id}/ws`);
  return new Promise((resolve, reject) => {
    let welcomed = false;
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as Message;
      if (welcomed) return onMessage(m);
      if (m.kind === 'challenge') ws.send(JSON.stringify({ kind: 'hello', id: ids[p], sig: signHello(game.id, m.nonce!, keys[p]!.secretKey, nativeSign) }));
      else if (m.kind === 'welcome') {
        welcomed = true;
        resolve(ws);
      } else reject(new Error(`before the welcome: ${JSON.stringify(m)}`));
    });
    ws.once('error', reject);
    ws.once('close', () => reject(new Error('closed before the welcome')));
  });
}

/**
 * `join`, again after a refusal while the clock is not running: a process the balancer took out a moment
 * (a late health check on a loaded machine) moves its games, and the one they hash to meanwhile refuses
 * them `lease_lost` until the route comes back. Counted, and said on stderr.
 */
async function joinRetrying(url: string, game: Game, p: number, onMessage: (m: Message) => void): Promise<WebSocket> {
  for (let tries = 1; ; tries++) {
    try {
      return await join(url, game, p, onMessage);
    } catch (e) {
      if (tries >= 100) throw e;
      process.stderr.write(`joining again after: ${(e as Error).message}\n`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * A load generator (`--worker URL RUN FIRST COUNT`): creates its games, connects every player, says `ready`,
 * waits for `go` on stdin, plays, and prints its latencies and times as one JSON line.
 */
async function worker(url: string, run: number, first: number, count: number): Promise<void> {
  const games = Array.from({ length: count }, (_, i) => makeGame(run, first + i, ENVELOPES));
  for (const g of games) await createGame(url, g);
  const sentAt = games.map(() => new Float64Array(ENVELOPES + 1));
  const latencies: number[] = [];
  let firstSubmit = Infinity;
  let lastDelivery = 0;
  let done = 0;
  let finish: () => void = () => {};
  const finished = new Promise<void>((r) => (finish = r));
  const sockets: WebSocket[][] = [];
  const submit = (g: number, n: number): void => {
    const now = performance.timeOrigin + performance.now();
    sentAt[g]![n] = now;
    firstSubmit = Math.min(firstSubmit, now);
    sockets[g]![n % PLAYERS]!.send(JSON.stringify({ kind: 'submit', text: games[g]!.lines[n] }));
  };
  for (let g = 0; g < games.length; g++) {
    sockets[g] = [];
    for (let p = 0; p < PLAYERS; p++)
      sockets[g]![p] = await joinRetrying(url, games[g]!, p, (m) => {
        if (m.kind === 'refused' || m.kind === 'error') throw new Error(`the relay ${m.kind} a line: ${JSON.stringify(m)}`);
        if (m.kind !== 'entry' || m.line === undefined) return;
        const n = m.line;
        // The entry reaches the player who submits the next line: that delivery is the one timed.
        if (n >= 1 && (n + 1) % PLAYERS === p) {
          const now = performance.timeOrigin + performance.now();
          latencies.push(now - sentAt[g]![n]!);
          lastDelivery = Math.max(lastDelivery, now);
          if (n < ENVELOPES) submit(g, n + 1);
          else if (++done === games.length) finish();
        }
      });
  }
  process.stdout.write('ready\n');
  await new Promise<void>((r) => createInterface({ input: process.stdin }).once('line', () => r()));
  for (let g = 0; g < games.length; g++) submit(g, 1);
  await finished;
  for (const row of sockets) for (const ws of row) ws.terminate();
  process.stdout.write(JSON.stringify({ latencies, firstSubmit, lastDelivery }) + '\n');
  process.exit(0);
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
const self = fileURLToPath(import.meta.url);

/** Runs G games against `url` from K load-generator processes started together; envelopes/s and p99. */
async function measure(url: string, run: number, games: number, procs: number): Promise<{ envelopesPerSecond: number; p50Ms: number; p99Ms: number }> {
  const per = Math.ceil(games / procs);
  const workers = Array.from({ length: procs }, (_, k) => {
    const count = Math.max(0, Math.min(per, games - k * per));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', self, '--worker', url, String(run), String(k * per), String(count), '--players', String(PLAYERS), '--envelopes', String(ENVELOPES)],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    children.add(child);
    const lines: string[] = [];
    let ready: () => void = () => {};
    const isReady = new Promise<void>((r) => (ready = r));
    createInterface({ input: child.stdout! }).on('line', (l) => (l === 'ready' ? ready() : lines.push(l)));
    const result = new Promise<{ latencies: number[]; firstSubmit: number; lastDelivery: number }>((resolve, reject) =>
      child.once('exit', (code) =>
        code === 0 && lines[0] !== undefined ? resolve(JSON.parse(lines[0]) as never) : reject(new Error(`a load generator exited ${code}`)),
      ),
    );
    return { child, isReady, result };
  });
  await Promise.all(workers.map((w) => w.isReady));
  for (const w of workers) w.child.stdin!.write('go\n');
  const results = await Promise.all(workers.map((w) => w.result));
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = (Math.max(...results.map((r) => r.lastDelivery)) - Math.min(...results.map((r) => r.firstSubmit))) / 1000;
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { envelopesPerSecond: Math.round(latencies.length / seconds), p50Ms: Number(at(0.5).toFixed(1)), p99Ms: Number(at(0.99).toFixed(1)) };
}

async function main(): Promise<void> {
  const databaseUrl = process.env.FAIRTABLE_TEST_DATABASE_URL;
  const haproxy = haproxyBinary();
  if (databaseUrl === undefined) throw new Error('FAIRTABLE_TEST_DATABASE_URL is not set: `eval "$(.ci/postgres.sh start)"` starts a server and sets it');
  if (haproxy === null) throw new Error('HAProxy is not installed (apt-get install haproxy)');
  const nodes = flag('nodes', '1,2,3').split(',').map(Number);
  const games = Number(flag('games', '200'));
  const procs = Number(flag('load-procs', '1'));
  const leaseMs = Number(flag('lease-ms', '5000'));
  const failoverGames = Number(flag('failover-games', '30'));
  const open = ['--games-per-minute', String(10 * (games + failoverGames)), '--connections-per-address', String(4 * games * PLAYERS + 100)];
  const schemas: string[] = [];
  let run = 0;

  // The single SQLite process, no balancer: the baseline, in the same run.
  {
    const dir = mkdtempSync(joinPath(tmpdir(), 'fairtable-bench-sqlite-'));
    const child = spawn(process.execPath, [CLI_MAIN, 'relay', '--port', '0', '--host', '127.0.0.1', '--data', dir, ...open], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.add(child);
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const log = JSON.parse(line) as { msg?: string; port?: number };
        if (log.msg === 'relay listening') resolve(`http://127.0.0.1:${log.port}`);
      });
      child.once('exit', (code) => reject(new Error(`the SQLite relay exited (${code})`)));
    });
    const r = await measure(url, run++, games, procs);
    console.log(JSON.stringify({ store: 'sqlite', nodes: 1, balancer: false, games, players: PLAYERS, envelopes: ENVELOPES, loadProcs: procs, ...r }));
    child.kill('SIGTERM');
    await exited(child);
    rmSync(dir, { recursive: true, force: true });
  }

  const start = async (n: number): Promise<{ relays: RelayProcess[]; balancer: Balancer }> => {
    const schema = `bench_nodes_${process.pid}_${run}`;
    schemas.push(schema);
    const relays: RelayProcess[] = [];
    for (let i = 1; i <= n; i++) relays.push(await startRelayProcess({ databaseUrl, schema, node: `relay${i}`, leaseMs, extra: open }));
    for (const r of relays) children.add(r.child);
    const balancer = await startBalancer(haproxy, relays);
    // HAProxy too is stopped when the bench exits, however it exits.
    children.add(balancer.child);
    return { relays, balancer };
  };
  const stop = async (s: { relays: RelayProcess[]; balancer: Balancer }): Promise<void> => {
    await s.balancer.close();
    for (const r of s.relays) {
      if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM');
      await exited(r.child);
    }
  };

  try {
    for (const n of nodes) {
      const service = await start(n);
      const r = await measure(service.balancer.url, run++, games, procs);
      console.log(JSON.stringify({ store: 'postgres', nodes: n, balancer: true, games, players: PLAYERS, envelopes: ENVELOPES, loadProcs: procs, ...r }));
      await stop(service);
    }

    // Failover on the largest N: every game a few lines in, the busiest process killed.
    const n = Math.max(...nodes);
    if (n >= 2) {
      const service = await start(n);
      const url = service.balancer.url;
      const played = Array.from({ length: failoverGames }, (_, g) => makeGame(run, g, 8));
      run++;
      /** Submits line `n` of `game` on a fresh connection of its player; resolves once accepted, rejects on any refusal. */
      const submitOne = async (game: Game, line: number): Promise<void> => {
        let accepted: () => void = () => {};
        let failed: (e: Error) => void = () => {};
        const done = new Promise<void>((resolve, reject) => ((accepted = resolve), (failed = reject)));
        const ws = await join(url, game, line % PLAYERS, (m) => {
          if (m.kind === 'accepted') accepted();
          else if (m.kind === 'refused' || m.kind === 'error') failed(new Error(`${m.kind} ${m.code}`));
        });
        ws.once('close', () => failed(new Error('closed')));
        ws.send(JSON.stringify({ kind: 'submit', text: game.lines[line] }));
        try {
          await done;
        } finally {
          ws.terminate();
        }
      };
      // Refusals before the kill are counted and printed: a game whose last connection closed leaves its
      // process's memory and gives its lease up, and a connection racing that may be refused `lease_lost`.
      let refusedBeforeKill = 0;
      await Promise.all(
        played.map(async (g) => {
          await createGame(url, g);
          for (let line = 1; line <= 4; line++)
            for (let tries = 1; ; tries++) {
              try {
                await submitOne(g, line);
                break;
              } catch (e) {
                refusedBeforeKill++;
                if (tries >= 50) throw e;
                await new Promise((r) => setTimeout(r, 50));
              }
            }
        }),
      );
      const holdings = await Promise.all(
        service.relays.map(async (r) => ((await (await fetch(`${r.url}/health`)).json()) as { leases: { game: string }[] }).leases.map((l) => l.game)),
      );
      const victim = holdings.reduce((best, h, i) => (h.length > holdings[best]!.length ? i : best), 0);
      const affected = new Set(holdings[victim]);
      service.relays[victim]!.child.kill('SIGKILL');
      await exited(service.relays[victim]!.child);
      const killedAt = performance.now();
      const times = await Promise.all(
        played
          .filter((g) => affected.has(g.id))
          .map(async (g) => {
            for (;;) {
              try {
                await submitOne(g, 5);
                return performance.now() - killedAt;
              } catch {
                await new Promise((r) => setTimeout(r, 50));
              }
            }
          }),
      );
      console.log(
        JSON.stringify({
          failover: true,
          store: 'postgres',
          nodes: n,
          leaseMs,
          games: failoverGames,
          affected: times.length,
          refusedBeforeKill,
          allAcceptingAfterMs: Math.round(Math.max(0, ...times)),
        }),
      );
      await stop(service);
    }
  } finally {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await client.end();
  }
}

if (args[0] === '--worker') await worker(args[1]!, Number(args[2]), Number(args[3]), Number(args[4]));
else {
  await main();
  process.exit(0);
}
