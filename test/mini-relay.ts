/**
 * A small relay for the client's tests, written from docs/spec/relay.md §2–3 (the production relay is
 * packages/relay): HTTP for creating and reading games, one WebSocket per seat with the challenge-signed
 * hello, the core's door, a receipt per line. It keeps everything in memory. A test can make it lie to one
 * player (`lie`: the log and receipts that player is served instead of the true ones) and drop every
 * connection (`dropConnections`) to test reconnection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { fromHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { Door } from '@fairtable/core/door.js';
import { generateKeyPair, type KeyPair } from '@fairtable/core/identity.js';
import { verifyHello } from '@fairtable/core/order/hello.js';
import { firstLogHash, nextLogHash, signReceipt, type Receipt } from '@fairtable/core/order/receipt.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import { lineHash } from '@fairtable/client/receipts.js';

export interface View {
  readonly lines: readonly string[];
  readonly receipts: readonly unknown[];
}

interface Conn {
  readonly ws: WebSocket;
  readonly nonce: string;
  id: string | null;
}

export interface MiniGame {
  readonly door: Door;
  readonly lines: string[];
  readonly receipts: Receipt[];
  readonly conns: Set<Conn>;
  readonly keys: Map<string, Uint8Array>;
  readonly protocol: string;
}

export interface MiniRelay {
  readonly url: string;
  readonly port: number;
  readonly keys: KeyPair;
  readonly games: Map<string, MiniGame>;
  /** What `player` is served instead of the true log (null: the truth). */
  lie: ((player: string, truth: View) => View) | null;
  /** What `player` is told its submission's receipt is (null: the truth). */
  acceptedLie: ((player: string, receipt: Receipt) => unknown) | null;
  /** A censoring orderer: a submission for which this answers true is ignored, unreceipted (null: none is). */
  censor: ((player: string, text: string, game: MiniGame) => boolean) | null;
  /** Closes every WebSocket without a word, as a network fault would. */
  dropConnections(): void;
  close(): Promise<void>;
}

/** Receipts for `lines` as a relay would sign them, consistent with each other (for a relay's forged history). */
export function signChain(gameId: string, lines: readonly string[], keys: KeyPair, time: (line: number) => number): Receipt[] {
  let log = '';
  return lines.map((text, line) => {
    const hash = lineHash(text) ?? '00'.repeat(32);
    log = line === 0 ? firstLogHash(gameId, hash) : nextLogHash(log, hash);
    return signReceipt({ v: 1, game: gameId, line, hash, log, time: time(line) }, keys.secretKey);
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startMiniRelay(options: { keys?: KeyPair; port?: number; batch?: number } = {}): Promise<MiniRelay> {
  const batch = options.batch ?? 64;
  const keys = options.keys ?? generateKeyPair();
  const relayKey = toHex(keys.publicKey);
  const games = new Map<string, MiniGame>();

  const json = (res: ServerResponse, status: number, value: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  const refuse = (res: ServerResponse, status: number, code: string, message: string): void => json(res, status, { error: { code, message } });

  const record = (game: MiniGame, line: number, hash: string): Receipt => {
    const log = line === 0 ? firstLogHash(toHexId(game), hash) : nextLogHash(game.receipts[line - 1]!.log, hash);
    const r = signReceipt({ v: 1, game: toHexId(game), line, hash, log, time: Date.now() }, keys.secretKey);
    game.receipts.push(r);
    return r;
  };
  const ids = new WeakMap<MiniGame, string>();
  const toHexId = (g: MiniGame): string => ids.get(g)!;

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://relay');
      const parts = url.pathname.split('/').filter((p) => p !== '');
      if (req.method === 'POST' && url.pathname === '/games') {
        const text = (await readBody(req)).replace(/\r?\n$/, '');
        let gameId: string;
        let game: MiniGame;
        try {
          const setup = readSetupLine(text);
          gameId = setup.gameId;
          game = games.get(gameId) ?? {
            door: new Door(text),
            lines: [text],
            receipts: [],
            conns: new Set(),
            keys: new Map(setup.setup.players.map((p) => [p.id, fromHex(p.key)])),
            protocol: setup.setup.protocol,
          };
        } catch (e) {
          return refuse(res, 400, (e as { code?: string }).code ?? 'bad_setup', (e as Error).message);
        }
        if (!games.has(gameId)) {
          ids.set(game, gameId);
          games.set(gameId, game);
          record(game, 0, lineHash(text)!);
        }
        return json(res, 201, { game: gameId, relay: relayKey });
      }
      const game = parts[0] === 'games' && parts[1] !== undefined ? games.get(parts[1]) : undefined;
      if (req.method === 'GET' && game !== undefined && parts.length === 2)
        return json(res, 200, { game: parts[1], protocol: game.protocol, players: [...game.keys.keys()], lines: game.lines.length });
      if (req.method === 'GET' && game !== undefined && parts[2] === 'transcript') {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        return res.end(game.lines.join('\n') + '\n');
      }
      if (req.method === 'GET' && game !== undefined && parts[2] === 'receipts') {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        return res.end(game.receipts.map((r) => JSON.stringify(r)).join('\n') + '\n');
      }
      return refuse(res, 404, 'not_found', `no such resource: ${req.method} ${url.pathname}`);
    })();
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const parts = new URL(req.url ?? '/', 'http://relay').pathname.split('/').filter((p) => p !== '');
    const game = parts.length === 3 && parts[0] === 'games' && parts[2] === 'ws' ? games.get(parts[1]!) : undefined;
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (game === undefined) {
        ws.send(JSON.stringify({ kind: 'error', code: 'unknown_game', message: 'no such game' }));
        return ws.close();
      }
      serve(game, ids.get(game)!, ws);
    });
  });

  const view = (game: MiniGame, conn: Conn): View => {
    const truth = { lines: game.lines, receipts: game.receipts };
    return relay.lie === null || conn.id === null ? truth : relay.lie(conn.id, truth);
  };
  const sendEntry = (conn: Conn, v: View, line: number): void => {
    if (line < v.lines.length) conn.ws.send(JSON.stringify({ kind: 'entry', line, text: v.lines[line], receipt: v.receipts[line] }));
  };

  function serve(game: MiniGame, gameId: string, ws: WebSocket): void {
    const conn: Conn = { ws, nonce: toHex(randomBytes(32)), id: null };
    game.conns.add(conn);
    ws.on('close', () => game.conns.delete(conn));
    ws.on('error', () => game.conns.delete(conn));
    ws.send(JSON.stringify({ kind: 'challenge', nonce: conn.nonce, relay: relayKey }));
    ws.on('message', (data) => {
      let m: { kind?: unknown; id?: unknown; sig?: unknown; text?: unknown; from?: unknown };
      try {
        m = JSON.parse(String(data)) as typeof m;
      } catch {
        ws.send(JSON.stringify({ kind: 'error', code: 'bad_message', message: 'not JSON' }));
        return ws.close();
      }
      if (conn.id === null) {
        const key = typeof m.id === 'string' ? game.keys.get(m.id) : undefined;
        const ok =
          m.kind === 'hello' &&
          key !== undefined &&
          typeof m.sig === 'string' &&
          /^[0-9a-f]{128}$/.test(m.sig) &&
          verifyHello(gameId, conn.nonce, fromHex(m.sig), key);
        if (!ok) {
          ws.send(JSON.stringify({ kind: 'error', code: 'bad_hello', message: 'the hello does not verify' }));
          return ws.close();
        }
        conn.id = m.id as string;
        ws.send(JSON.stringify({ kind: 'welcome', lines: view(game, conn).lines.length }));
        return;
      }
      if (m.kind === 'sync' && typeof m.from === 'number') {
        const v = view(game, conn);
        for (let i = Math.max(0, m.from); i < Math.min(v.lines.length, m.from + batch); i++) sendEntry(conn, v, i);
        return;
      }
      if (m.kind === 'submit' && typeof m.text === 'string') {
        if (relay.censor?.(conn.id, m.text, game) === true) return;
        const a = game.door.admit(m.text, conn.id);
        if (!a.ok) return ws.send(JSON.stringify({ kind: 'refused', code: a.code, message: a.message }));
        const receipt = a.duplicate ? game.receipts[a.line]! : (game.lines.push(m.text), record(game, a.line, a.hash));
        const told = relay.acceptedLie === null ? receipt : relay.acceptedLie(conn.id, receipt);
        ws.send(JSON.stringify({ kind: 'accepted', line: a.line, receipt: told }));
        if (!a.duplicate) for (const c of game.conns) if (c.id !== null) sendEntry(c, view(game, c), a.line);
        return;
      }
      ws.send(JSON.stringify({ kind: 'error', code: 'bad_message', message: 'unknown message' }));
      ws.close();
    });
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const relay: MiniRelay = {
    url: `http://127.0.0.1:${port}`,
    port,
    keys,
    games,
    lie: null,
    acceptedLie: null,
    censor: null,
    dropConnections() {
      for (const g of games.values()) for (const c of g.conns) c.ws.terminate();
    },
    close() {
      for (const g of games.values()) for (const c of g.conns) c.ws.terminate();
      return new Promise((resolve) => {
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return relay;
}
