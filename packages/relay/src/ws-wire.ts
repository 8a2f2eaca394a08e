/**
 * The WebSocket wire (docs/spec/relay.md §3): the upgrade to `/games/:game/ws` under the connection caps
 * (§5), the coded close of a game the relay does not hold, the challenge and its signed hello (SPEC §10.4),
 * then `submit` and `sync`, each message under the rate and frame limits; nothing a client sends can throw
 * out of the relay.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData } from 'ws';
import { fromHex, isHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { UNKNOWN_GAME_CLOSE, verifyHello } from '@fairtable/core/order/hello.js';
import { nativeVerify } from '@fairtable/node/native-verify.js';
import type { Connections } from './connections.js';
import type { Connection, Game } from './games.js';
import { clientKey, peerAddress } from './rate-limit.js';
import { lineCost, readPage, SyncPacer, type PageQueue } from './reads.js';
import { failure, type RelayCore } from './relay-options.js';
import { freshFragmentsOnRead } from './ws-fragments.js';

export interface WireDeps {
  readonly core: RelayCore;
  readonly wire: Connections;
  readonly pageQueue: PageQueue;
  readonly loadGame: (id: string) => Promise<Game | null>;
  /** A line a client submitted after its hello (pipeline.ts). */
  readonly submit: (c: Connection, text: string) => void;
}

export interface Wire {
  readonly wss: WebSocketServer;
  /** An HTTP upgrade to the server. */
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void>;
  /** Whether the relay is shutting down. */
  closing(): boolean;
  /** From now on: no new connections, games or submissions. */
  beginClosing(): void;
}

function plainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function webSocketWire(deps: WireDeps): Wire {
  const { limits, readLimits, log, store, publicKey, metrics } = deps.core;
  const { connections, perAddress, send, drop, end, refuse } = deps.wire;
  const { pageQueue, loadGame, submit } = deps;
  let closing = false;

  // ws closes with 1009 above its own cap; frames between the relay's limit and that cap are read and
  // answered with a coded error, so a client that is merely too big learns why.
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxFrameBytes * 2, perMessageDeflate: false });

  async function onMessage(c: Connection, data: RawData, isBinary: boolean): Promise<void> {
    if (c.closed) return;
    const now = Date.now();
    c.lastHeard = now;
    c.tokens = Math.min(limits.messageBurst, c.tokens + ((now - c.refilledAt) * limits.messagesPerSecond) / 1000);
    c.refilledAt = now;
    if (c.tokens < 1) return drop(c, 'rate_limited', `more than ${limits.messagesPerSecond} messages a second (burst ${limits.messageBurst})`);
    c.tokens -= 1;
    const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data instanceof ArrayBuffer ? data.byteLength : data.length;
    if (size > limits.maxFrameBytes) return drop(c, 'line_too_long', `a frame of ${size} bytes; the limit is ${limits.maxFrameBytes}`);
    if (isBinary) return drop(c, 'bad_message', 'frames are JSON text');
    let msg: unknown;
    try {
      msg = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8'));
    } catch {
      return drop(c, 'bad_message', 'a frame that is not JSON');
    }
    if (!plainObject(msg) || typeof msg.kind !== 'string') return drop(c, 'bad_message', 'every message is a JSON object with a string "kind"');
    if (c.who === null) return hello(c, msg);
    if (msg.kind === 'submit') {
      if (typeof msg.text !== 'string') return refuse(c, 'bad_message', 'submit: text must be a string');
      if (closing) return refuse(c, 'shutting_down', 'the relay is shutting down; submit again to the relay when it is back');
      return submit(c, msg.text);
    }
    if (msg.kind === 'sync') {
      if (typeof msg.from !== 'number' || !Number.isSafeInteger(msg.from) || msg.from < 0)
        return refuse(c, 'bad_message', 'sync: from must be a non-negative integer');
      return c.sync.ask(msg.from);
    }
    return drop(c, 'bad_message', 'after hello, a client sends {kind: "submit", text} or {kind: "sync", from}');
  }

  function hello(c: Connection, msg: Record<string, unknown>): void {
    if (msg.kind !== 'hello') return drop(c, 'bad_hello', 'the first message is {kind: "hello", id, sig}');
    const id = msg.id;
    // A Map lookup: an id such as "__proto__" finds nothing.
    const key = typeof id === 'string' ? c.game.door.checker.keys.get(id) : undefined;
    const ok = key !== undefined && isHex(msg.sig, 64) && verifyHello(c.game.id, c.nonce, fromHex(msg.sig), key, nativeVerify);
    if (!ok) return drop(c, 'bad_hello', 'hello: not signed by a player of this game over this challenge');
    if (c.helloTimer !== null) clearTimeout(c.helloTimer);
    c.helloTimer = null;
    c.who = id as string;
    send(c, { kind: 'welcome', lines: c.game.committed });
  }

  /** One `sync` answer: a page of stored lines from `from` on (reads.ts paces them); the bytes it sent. */
  async function syncPage(c: Connection, from: number, maxBytes: number): Promise<number> {
    const upTo = c.game.committed;
    if (from >= upTo || c.closed) return 0;
    const batch = await pageQueue.run(() => readPage(store, c.game.id, from, Math.min(limits.syncBatch, upTo - from), maxBytes));
    let bytes = 0;
    for (const l of batch) {
      bytes += lineCost(l);
      send(c, { kind: 'entry', line: l.line, text: l.text, receipt: l.receipt });
    }
    return bytes;
  }

  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const match = /^\/games\/([0-9a-f]{64})\/ws(?:\?.*)?$/.exec(req.url ?? '');
    /** A plain HTTP refusal; the connection caps say why in the relay's coded JSON body. */
    const reject = (status: number, text: string, code?: string, message?: string): void => {
      const body = code === undefined ? '' : JSON.stringify(failure(code, message ?? code));
      const type = body === '' ? '' : 'Content-Type: application/json\r\n';
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\n${type}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    };
    if (closing) return reject(503, 'Service Unavailable');
    if (match === null) return reject(404, 'Not Found');
    const address = clientKey(peerAddress(req));
    const fromAddress = `this address has ${limits.connectionsPerAddress} connections open, the most the relay serves to one address`;
    // Before the global cap: an address at its own cap makes no other connection give way.
    if ((perAddress.get(address) ?? 0) >= limits.connectionsPerAddress) {
      metrics.dropped('too_many_connections_from_address');
      return reject(429, 'Too Many Requests', 'too_many_connections_from_address', fromAddress);
    }
    if (connections.size >= limits.maxConnections) {
      // The oldest connection still without a hello makes room: idle connections cannot keep a player out.
      for (const other of connections) {
        if (other.who === null) {
          drop(other, 'too_many_connections', `the relay serves at most ${limits.maxConnections} connections; the oldest one without a hello gives way`);
          break;
        }
      }
    }
    if (connections.size >= limits.maxConnections) {
      metrics.dropped('too_many_connections');
      return reject(503, 'Service Unavailable', 'too_many_connections', `the relay serves at most ${limits.maxConnections} connections`);
    }
    let game: Game | null;
    try {
      game = await loadGame(match[1]!);
    } catch (e) {
      // Another process orders the game (leases.ts), or the database is out of reach: coded, and it may pass.
      const code = (e as { code?: unknown } | null)?.code;
      if (code === 'lease_lost' || code === 'store_failed') return reject(503, 'Service Unavailable', code, (e as Error).message);
      log.error({ err: e, game: match[1] }, 'cannot load game');
      return reject(500, 'Internal Server Error');
    }
    if (game === null) {
      // A coded close the client can tell from a network failure (relay.md §3): it does not reconnect.
      metrics.dropped('unknown_game');
      return wss.handleUpgrade(req, socket, head, (ws) => ws.close(UNKNOWN_GAME_CLOSE, 'unknown_game'));
    }
    const g = game;
    wss.handleUpgrade(req, socket, head, (ws) => {
      freshFragmentsOnRead(ws, socket);
      const now = Date.now();
      const c: Connection = {
        ws,
        game: g,
        address,
        nonce: toHex(randomBytes(32)),
        who: null,
        tokens: limits.messageBurst,
        refilledAt: now,
        lastHeard: now,
        helloTimer: null,
        closed: false,
        sync: new SyncPacer(readLimits, (from, max) => syncPage(c, from, max)),
      };
      if (closing) return void ws.close(1001, 'shutting down');
      // The game left memory while this upgrade was under way: one door per game, so the client comes again.
      if (g.unloaded) return void ws.close(1013, 'try again');
      // Upgrades from one address that passed the check above together, while their game was loading.
      if ((perAddress.get(address) ?? 0) >= limits.connectionsPerAddress) return drop(c, 'too_many_connections_from_address', fromAddress);
      connections.add(c);
      perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
      // Every connection of the game, with or without a hello, keeps the game in memory; entries go only to those with one.
      g.connections.add(c);
      c.helloTimer = setTimeout(() => drop(c, 'hello_timeout', `no valid hello within ${limits.helloTimeoutMs} ms`), limits.helloTimeoutMs);
      ws.on('message', (data, isBinary) => {
        onMessage(c, data, isBinary).catch((e: unknown) => {
          // Nothing a client sends may throw out of the relay; a fault here ends only this connection.
          log.error({ err: e, game: g.id }, 'message handling failed');
          drop(c, 'bad_message', `the relay could not process this message (${(e as Error).message})`);
        });
      });
      ws.on('pong', () => (c.lastHeard = Date.now()));
      ws.on('error', (e) => {
        const code = (e as { code?: string }).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 'line_too_long' : 'bad_message';
        metrics.dropped(code);
        end(c, code === 'line_too_long' ? 1009 : 1002);
      });
      ws.on('close', () => end(c, 1000));
      send(c, { kind: 'challenge', nonce: c.nonce, relay: publicKey });
    });
  }

  return {
    wss,
    onUpgrade,
    closing: () => closing,
    beginClosing: () => {
      closing = true;
    },
  };
}
