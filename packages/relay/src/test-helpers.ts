/**
 * Test helpers for the relay (not exported): games to host, a raw WebSocket client that speaks the wire
 * of docs/spec/relay.md §3, and a seat of @fairtable/core playing over it that checks every receipt.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import WebSocket from 'ws';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { generateKeyPair, type KeyPair } from '@fairtable/core/identity.js';
import { signHello } from '@fairtable/core/order/hello.js';
import { checkReceipt, firstLogHash, nextLogHash, type Receipt } from '@fairtable/core/order/receipt.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { Seat, seatRandom } from '@fairtable/core/seat/seat.js';
import { simStrategy } from '@fairtable/core/testing';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { talkText, writeTalk } from '@fairtable/core/press/index.js';
import { startRelay, type Relay, type RelayOptions } from './relay.js';

export interface TestGame {
  readonly id: string;
  readonly setupLine: string;
  readonly ids: readonly string[];
  readonly keys: readonly KeyPair[];
}

/** Dice on the chain protocol for `n` players, keys from `seed`. */
export function diceGame(n: number, seed = 1, rounds = 2, press = false): TestGame {
  const ids = Array.from({ length: n }, (_, i) => `p${i}`);
  const keys = ids.map((_, i) => generateKeyPair(new Uint8Array(32).fill(seed * 16 + i + 1)));
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params: press ? { timeoutMs: 60_000, rounds, press: { rule: 'full', mode: 'signed' } } : { timeoutMs: 60_000, rounds },
    players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
    nonce: toHex(new Uint8Array(32).fill(seed)),
    // Deadlines run from the setup's time, and the seats play on the real clock.
    created: Date.now(),
  };
  return { id: gameIdOf(setup), setupLine: envelopeLine(createSetupEnvelope(setup, ids[0]!, keys[0]!)), ids, keys };
}

/** Posts one signed table-talk message of seat `from` to the table of `g` on the relay at `url` (`g` made with `press`). */
export async function postTalk(url: string, g: TestGame, from: number, seq: number, body: string): Promise<{ status: number; index: unknown; text: string }> {
  const players = g.ids.map((id, i) => ({ id, key: toHex(g.keys[i]!.publicKey) }));
  let n = seq;
  const random = (k: number): Uint8Array => new Uint8Array(k).map((_, i) => (++n * 7 + i + from) & 255);
  const text = talkText(
    writeTalk(
      { game: g.id, from: g.ids[from]!, to: 'table', seq, at: Date.now(), body },
      { mode: 'signed', secretKey: g.keys[from]!.secretKey, players, random },
    ),
  );
  const res = await fetch(`${url}/games/${g.id}/talk`, { method: 'POST', body: text });
  return { status: res.status, index: ((await res.json()) as { index?: unknown }).index, text };
}

export async function createGame(url: string, setupLine: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/games`, { method: 'POST', body: setupLine });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export type Message = Record<string, unknown> & { kind: string };

/** A WebSocket client that keeps every message and waits for the ones asked for. */
export class WireClient {
  readonly messages: Message[] = [];
  closed: { code: number; reason: string } | null = null;
  private waiters: (() => void)[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()) as Message);
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
    ws.on('error', () => {});
  }

  static open(url: string, game: string): Promise<WireClient> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/games/${game}/ws`);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new WireClient(ws)));
      ws.once('error', reject);
    });
  }

  /** Opens a connection and says hello as `id`; resolves once welcomed. */
  static async join(url: string, game: TestGame, index: number): Promise<WireClient> {
    const c = await WireClient.open(url, game.id);
    const challenge = await c.next('challenge');
    c.send({ kind: 'hello', id: game.ids[index], sig: signHello(game.id, challenge.nonce as string, game.keys[index]!.secretKey) });
    await c.next('welcome');
    return c;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  send(value: unknown): void {
    this.ws.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  /** The first message of `kind` not yet taken (messages before it of other kinds stay). */
  async next(kind: string, timeoutMs = 5000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.messages.findIndex((m) => m.kind === kind);
      if (i >= 0) return this.messages.splice(i, 1)[0]!;
      if (this.closed !== null) throw new Error(`closed (${this.closed.code}) while waiting for ${kind}; got ${JSON.stringify(this.messages)}`);
      if (Date.now() > deadline) throw new Error(`no ${kind} within ${timeoutMs} ms; got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  async waitClosed(timeoutMs = 5000): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + timeoutMs;
    while (this.closed === null) {
      if (Date.now() > deadline) throw new Error('not closed');
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.closed;
  }

  close(): void {
    this.ws.close();
  }
}

/**
 * A seat of @fairtable/core playing over the relay: every entry's receipt must verify under the relay's
 * key and chain (`log` recomputed from the lines received), or `problems` records why not. It signs and
 * checks with OpenSSL's Ed25519 (packages/node's fast path: the same signatures and verdicts as noble's, its
 * differential test), as the relay does: what these tests play is the relay, not the signature path.
 */
export class RelaySeat {
  readonly seat: Seat;
  readonly receipts: Receipt[] = [];
  readonly problems: string[] = [];
  private client: WireClient | null = null;
  private logHash = '';
  private ticker: NodeJS.Timeout | null = null;

  constructor(
    readonly game: TestGame,
    readonly index: number,
    private readonly relayKey: Uint8Array,
  ) {
    const strategy = simStrategy(new Uint8Array(32).fill(index + 7));
    this.seat = new Seat({
      id: game.ids[index]!,
      keys: game.keys[index]!,
      setupLine: game.setupLine,
      clock: Date.now,
      random: seatRandom(new Uint8Array(32).fill(100 + index), game.id),
      transport: {
        submit: (text) => this.client?.ws.readyState === WebSocket.OPEN && this.client.send({ kind: 'submit', text }),
        sync: (from) => this.client?.ws.readyState === WebSocket.OPEN && this.client.send({ kind: 'sync', from }),
      },
      resendMs: 300,
      syncMs: 300,
      sign: nativeSign,
      verify: nativeVerify,
    });
    this.play = () => {
      for (let d = this.seat.decision(); d !== null; d = this.seat.decision()) this.seat.decide(strategy(d) as JsonValue);
    };
  }

  private readonly play: () => void;

  /** Connects (again) and starts playing; the seat syncs from what it holds. */
  async connect(url: string): Promise<void> {
    const c = await WireClient.join(url, this.game, this.index);
    this.client = c;
    c.ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as Message;
      if (m.kind !== 'entry') return;
      this.onEntry(m.line as number, m.text as string, m.receipt);
    });
    c.messages.length = 0;
    c.send({ kind: 'sync', from: 0 });
    this.ticker ??= setInterval(() => {
      this.seat.tick();
      this.play();
    }, 20);
    this.play();
  }

  private onEntry(line: number, text: string, value: unknown): void {
    if (line < this.receipts.length) return;
    if (line > this.receipts.length) return; // a gap: the seat's sync fills it
    let r: Receipt;
    try {
      r = checkReceipt(value, this.relayKey, nativeVerify);
    } catch (e) {
      this.problems.push(`line ${line}: ${(e as Error).message}`);
      return;
    }
    const hash = envelopeHash(JSON.parse(text) as Envelope);
    const expected = line === 0 ? firstLogHash(this.game.id, hash) : nextLogHash(this.logHash, hash);
    if (r.line !== line || r.hash !== hash || r.log !== expected || r.game !== this.game.id)
      this.problems.push(`line ${line}: the receipt does not match the line or the log`);
    this.logHash = expected;
    this.receipts.push(r);
    this.seat.receive(line, text);
    this.play();
  }

  disconnect(): void {
    this.client?.ws.terminate();
    this.client = null;
  }

  stop(): void {
    if (this.ticker !== null) clearInterval(this.ticker);
    this.ticker = null;
    this.disconnect();
  }
}

export async function until(what: () => boolean, timeoutMs: number, label: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!what()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `count` note envelopes of player `player` of `g` (an index), each its author's next, signed natively. */
export function noteEnvelopes(g: TestGame, player: number, count: number, noteBytes = 16): string[] {
  const setup = JSON.parse(g.setupLine) as Envelope;
  const out: string[] = [];
  // The setup is its creator's envelope 0.
  let prev = player === 0 ? envelopeHash(setup) : g.id;
  let seq = player === 0 ? 1 : 0;
  for (let i = 0; i < count; i++, seq++) {
    const e = signEnvelope(
      {
        v: 1,
        game: g.id,
        from: g.ids[player]!,
        seq,
        prev,
        at: 1,
        head: envelopeHash(setup),
        time: 5,
        body: { type: 'note', note: `${i}`.padEnd(noteBytes, '.') },
      },
      g.keys[player]!.secretKey,
      nativeSign,
    );
    out.push(envelopeLine(e));
    prev = envelopeHash(e);
  }
  return out;
}

/**
 * Relays for a test file, each on a fresh data directory (also its `webDir`: an empty directory, so `/` is
 * the command-line page whether or not the web app was built), silent; `closeAll` (for `afterEach`)
 * closes them and removes their directories.
 */
export function testRelays(): {
  relay: (options?: Partial<RelayOptions>) => Promise<Relay>;
  /** A fresh directory, removed by `closeAll` (for a test that makes its own store). */
  directory: () => string;
  closeAll: () => Promise<void>;
} {
  const dirs: string[] = [];
  const relays: Relay[] = [];
  const directory = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'fairtable-relay-'));
    dirs.push(dir);
    return dir;
  };
  return {
    directory,
    async relay(options = {}) {
      const dataDir = directory();
      const r = await startRelay({ host: '127.0.0.1', port: 0, dataDir, webDir: dataDir, logger: pino({ level: 'silent' }), ...options });
      relays.push(r);
      return r;
    },
    async closeAll() {
      for (const r of relays.splice(0)) await r.close();
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** A TCP proxy to the database that can be cut (every connection reset, new ones refused) and restored: a restart as the relay sees it. */
export class CuttableProxy {
  private readonly sockets = new Set<Socket>();
  private down = false;
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static start(host: string, port: number): Promise<CuttableProxy> {
    const server = createServer();
    return new Promise((resolve) => {
      server.listen(0, '127.0.0.1', () => {
        const proxy = new CuttableProxy(server, (server.address() as { port: number }).port);
        server.on('connection', (client) => proxy.accept(client, host, port));
        resolve(proxy);
      });
    });
  }

  private accept(client: Socket, host: string, port: number): void {
    if (this.down) return void client.destroy();
    const upstream = connect(port, host);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        this.sockets.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  }

  cut(): void {
    this.down = true;
    for (const s of this.sockets) s.resetAndDestroy();
  }

  restore(): void {
    this.down = false;
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((r) => this.server.close(() => r()));
  }
}
