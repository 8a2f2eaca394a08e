/**
 * The relay's per-address limits (docs/spec/relay.md §5): games created by one address are rate-limited
 * (`429 rate_limited`) while another address still creates, and the limit refills over time; WebSocket
 * connections beyond the per-address cap are refused (`429 too_many_connections_from_address`, also when
 * they arrive together while their game loads) and the address's open connections go on. 127.0.0.1 and
 * 127.0.0.2 are two clients to a relay on 127.0.0.1.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { signHello } from '@fairtable/core/order/hello.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';
import { diceGame, testRelays, until, type Message, type TestGame } from './test-helpers.js';

const { relay, directory, closeAll } = testRelays();
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.terminate();
  await closeAll();
});

interface Answer {
  readonly status: number;
  readonly code: string | undefined;
  readonly retryAfter: string | undefined;
}

/** POST /games from a given local address. */
function createFrom(localAddress: string, url: string, setupLine: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/games`, { method: 'POST', localAddress, agent: false, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { error?: { code: string } };
        resolve({ status: res.statusCode ?? 0, code: body.error?.code, retryAfter: res.headers['retry-after'] });
      });
    });
    req.on('error', reject);
    req.end(setupLine);
  });
}

/** A connection that was let in: what it has been sent, and its close once closed. */
interface Open {
  readonly ws: WebSocket;
  readonly messages: Message[];
  closed: number | null;
}

/** Opens a connection to `game` from `localAddress`: the open connection, or the HTTP refusal with its code. */
function connectFrom(localAddress: string, url: string, game: string): Promise<Open | Answer> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/games/${game}/ws`, { localAddress });
  sockets.push(ws);
  return new Promise((resolve, reject) => {
    const open: Open = { ws, messages: [], closed: null };
    ws.on('message', (data) => open.messages.push(JSON.parse(data.toString()) as Message));
    ws.on('close', (code) => (open.closed = code));
    ws.once('open', () => resolve(open));
    ws.once('unexpected-response', (_req, res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        const body = (text === '' ? {} : JSON.parse(text)) as { error?: { code: string } };
        resolve({ status: res.statusCode ?? 0, code: body.error?.code, retryAfter: res.headers['retry-after'] });
      });
    });
    ws.once('error', reject);
  });
}

const isOpen = (x: Open | Answer): x is Open => 'ws' in x;

async function next(c: Open, kind: string): Promise<Message> {
  await until(() => c.messages.some((m) => m.kind === kind), 5000, `a ${kind} message`);
  const i = c.messages.findIndex((m) => m.kind === kind);
  return c.messages.splice(i, 1)[0]!;
}

/** Says hello on an open connection as player `index` of `game`. */
async function hello(c: Open, game: TestGame, index: number): Promise<void> {
  const challenge = await next(c, 'challenge');
  c.ws.send(JSON.stringify({ kind: 'hello', id: game.ids[index], sig: signHello(game.id, challenge.nonce as string, game.keys[index]!.secretKey) }));
  await next(c, 'welcome');
}

describe('per-address limits', () => {
  it('answers a flood of POST /games from one address 429 rate_limited, while another address creates; the bucket refills', async () => {
    const r = await relay({ limits: { gamesPerMinute: 60, gameBurst: 3 } });
    const games = Array.from({ length: 6 }, (_, i) => diceGame(2, 60 + i));
    for (const g of games.slice(0, 3)) expect((await createFrom('127.0.0.1', r.url, g.setupLine)).status).toBe(201);
    const over = await createFrom('127.0.0.1', r.url, games[3]!.setupLine);
    expect(over).toEqual({ status: 429, code: 'rate_limited', retryAfter: '1' });
    // Nothing of the refused game was stored.
    expect((await fetch(`${r.url}/games/${games[3]!.id}`)).status).toBe(404);
    expect((await createFrom('127.0.0.2', r.url, games[4]!.setupLine)).status).toBe(201);
    expect(r.metrics.refusalCount('rate_limited')).toBe(1);
    // One game a second: after a little more than a second the flooder may create one more, and only one.
    await new Promise((res) => setTimeout(res, 1100));
    expect((await createFrom('127.0.0.1', r.url, games[3]!.setupLine)).status).toBe(201);
    expect((await createFrom('127.0.0.1', r.url, games[5]!.setupLine)).status).toBe(429);
  });

  it('behind a trusted reverse proxy, limits each client its X-Forwarded-For names; from any other peer the header is ignored', async () => {
    // The proxy is 127.0.0.1; 127.0.0.2 is a client reaching the relay directly.
    const r = await relay({ limits: { gamesPerMinute: 60, gameBurst: 1 }, trustProxy: ['127.0.0.1'] });
    const games = Array.from({ length: 6 }, (_, i) => diceGame(2, 80 + i));
    const via = (client: string): Record<string, string> => ({ 'X-Forwarded-For': client });
    expect((await createFrom('127.0.0.1', r.url, games[0]!.setupLine, via('203.0.113.7'))).status).toBe(201);
    expect((await createFrom('127.0.0.1', r.url, games[1]!.setupLine, via('203.0.113.7'))).status).toBe(429);
    // Another client through the same proxy has its own bucket.
    expect((await createFrom('127.0.0.1', r.url, games[1]!.setupLine, via('198.51.100.4'))).status).toBe(201);
    // A client that writes its own X-Forwarded-For: the proxy appends what it saw, and that is what counts.
    expect((await createFrom('127.0.0.1', r.url, games[2]!.setupLine, via('198.51.100.99, 203.0.113.7'))).status).toBe(429);
    // A peer that is not the proxy cannot choose its address with the header: it is limited as itself.
    expect((await createFrom('127.0.0.2', r.url, games[2]!.setupLine, via('192.0.2.1'))).status).toBe(201);
    expect((await createFrom('127.0.0.2', r.url, games[3]!.setupLine, via('192.0.2.2'))).status).toBe(429);
    expect(r.metrics.refusalCount('rate_limited')).toBe(3);
  });

  it('refuses a trusted proxy that is not an IP address', async () => {
    await expect(relay({ trustProxy: ['proxy.example'] })).rejects.toMatchObject({ code: 'bad_input' });
  });

  it('refuses connections beyond the per-address cap with a code; the address keeps its open ones, others connect', async () => {
    const r = await relay({ limits: { connectionsPerAddress: 2, helloTimeoutMs: 60_000 } });
    const g = diceGame(3, 70);
    expect((await createFrom('127.0.0.2', r.url, g.setupLine)).status).toBe(201);
    const player = await connectFrom('127.0.0.1', r.url, g.id);
    const silent = await connectFrom('127.0.0.1', r.url, g.id);
    if (!isOpen(player) || !isOpen(silent)) throw new Error('the first two connections were refused');
    await hello(player, g, 1);
    const third = await connectFrom('127.0.0.1', r.url, g.id);
    expect(third).toMatchObject({ status: 429, code: 'too_many_connections_from_address' });
    expect(r.metrics.dropCount('too_many_connections_from_address')).toBe(1);
    // Unlike the relay-wide cap, no connection of the address gives way, not even the one without a hello.
    const other = await connectFrom('127.0.0.2', r.url, g.id);
    if (!isOpen(other)) throw new Error('another address was refused');
    await hello(other, g, 0);
    const text = envelopeLine(
      signEnvelope(
        {
          v: 1,
          game: g.id,
          from: 'p1',
          seq: 0,
          prev: g.id,
          at: 1,
          head: envelopeHash(JSON.parse(g.setupLine) as Envelope),
          time: 1001,
          body: { type: 'note' },
        },
        g.keys[1]!.secretKey,
      ),
    );
    player.ws.send(JSON.stringify({ kind: 'submit', text }));
    expect((await next(player, 'accepted')).line).toBe(1);
    expect((await next(other, 'entry')).line).toBe(1);
    expect([player.closed, silent.closed]).toEqual([null, null]);
    expect(r.metrics.dropCount('too_many_connections')).toBe(0);
    // A closed connection gives its place back (once the relay has seen it close).
    silent.ws.close();
    let again: Open | Answer | null = null;
    for (let i = 0; i < 50 && (again === null || !isOpen(again)); i++) {
      if (again !== null) await new Promise((res) => setTimeout(res, 50));
      again = await connectFrom('127.0.0.1', r.url, g.id);
    }
    expect(again !== null && isOpen(again)).toBe(true);
  });

  it('lets no more than the cap in when an address opens many connections at once while their game loads', async () => {
    const dataDir = directory();
    const inner = new SqliteStore(dataDir);
    let slow = false;
    // A store slow to read: the game takes long to load, and every upgrade waits for it.
    const store: Store = {
      createGame: (...a) => inner.createGame(...a),
      readLines: async (...a) => {
        if (slow) await new Promise((res) => setTimeout(res, 300));
        return inner.readLines(...a);
      },
      lineCount: (...a) => inner.lineCount(...a),
      listGames: () => inner.listGames(),
      relayKey: () => inner.relayKey(),
      close: () => inner.close(),
      append: (lines) => inner.append(lines),
    };
    const r = await relay({ store, limits: { connectionsPerAddress: 2, helloTimeoutMs: 60_000 } });
    const g = diceGame(3, 71);
    expect((await createFrom('127.0.0.2', r.url, g.setupLine)).status).toBe(201);
    slow = true;
    // The game is not in memory yet: all the upgrades pass the first check before any is let in.
    const tries = await Promise.all(Array.from({ length: 8 }, () => connectFrom('127.0.0.1', r.url, g.id)));
    const opened = tries.filter(isOpen);
    // One let in after the first check is told why and closed before it is counted.
    await new Promise((res) => setTimeout(res, 300));
    const kept = opened.filter((c) => c.closed === null);
    expect(kept).toHaveLength(2);
    for (const c of kept) expect(c.messages.map((m) => m.kind)).toEqual(['challenge']);
    for (const c of opened.filter((o) => o.closed !== null)) expect(c.messages.find((m) => m.kind === 'error')?.code).toBe('too_many_connections_from_address');
    for (const t of tries.filter((x) => !isOpen(x))) expect(t).toMatchObject({ status: 429, code: 'too_many_connections_from_address' });
    expect(r.metrics.dropCount('too_many_connections_from_address')).toBe(6);
  });

  it('answers the relay-wide connection cap with its code in the body', async () => {
    const r = await relay({ limits: { maxConnections: 1 } });
    const g = diceGame(3, 72);
    expect((await createFrom('127.0.0.1', r.url, g.setupLine)).status).toBe(201);
    const first = await connectFrom('127.0.0.1', r.url, g.id);
    if (!isOpen(first)) throw new Error('the first connection was refused');
    await hello(first, g, 0);
    expect(await connectFrom('127.0.0.2', r.url, g.id)).toMatchObject({ status: 503, code: 'too_many_connections' });
  });
});
