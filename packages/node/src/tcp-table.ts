/**
 * The table over TCP on one machine or a LAN (docs/SPEC.md §10.4): the same
 * untrusted orderer as the in-memory table, behind newline-delimited JSON on a
 * socket, and a client link for the same player code. A connection proves
 * which player it speaks for by signing the server's challenge:
 *
 *   sig = Ed25519(secret, utf8("fairtable/table-hello/v1") ‖ 0x00 ‖ game id ‖ challenge)
 *
 * so the table can hold each player to its own `from`, as the relay will.
 * Messages: server → client `{kind: "challenge", nonce, setup}` then `entry`
 * lines; client → server `{kind: "hello", id, sig}`, then `submit` and `sync`.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { concatBytes, fromHex, randomBytes, toHex, utf8 } from '@fairtable/core/bytes.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import { Table, type TableMessage } from '@fairtable/core/sim/table.js';
import type { Link, NetNode } from '@fairtable/core/sim/network.js';
import { nativeSign, nativeVerify } from './native-verify.js';

const helloBytes = (gameId: string, nonce: string): Uint8Array =>
  concatBytes(utf8('fairtable/table-hello/v1'), new Uint8Array([0]), fromHex(gameId), fromHex(nonce));

function writeLine(socket: Socket, value: unknown): void {
  if (!socket.destroyed) socket.write(JSON.stringify(value) + '\n');
}

export interface TableServer {
  readonly port: number;
  readonly table: Table;
  close(): Promise<void>;
}

/** Serves a table for the game whose setup line is given, on host:port (port 0: any free port). */
export function serveTable(setupLine: string, host = '127.0.0.1', port = 0): Promise<TableServer> {
  const { setup, gameId } = readSetupLine(setupLine);
  const keys = new Map(setup.players.map((p) => [p.id, fromHex(p.key)]));
  const table = new Table(setupLine, setup.players.map((p) => p.id));
  const sockets = new Map<string, Socket>();
  const link: Link = {
    get now() {
      return Date.now();
    },
    send(_from, to, payload) {
      const socket = sockets.get(to);
      if (socket !== undefined) writeLine(socket, payload);
    },
  };
  const server: Server = createServer((socket) => {
    const nonce = toHex(randomBytes(32));
    let who: string | null = null;
    writeLine(socket, { kind: 'challenge', nonce, setup: setupLine });
    const lines = createInterface({ input: socket, crlfDelay: Infinity });
    lines.on('line', (text) => {
      let msg: { kind?: string; id?: string; sig?: string };
      try {
        msg = JSON.parse(text) as typeof msg;
      } catch {
        socket.destroy();
        return;
      }
      if (who === null) {
        const key = typeof msg.id === 'string' ? keys.get(msg.id) : undefined;
        const ok = msg.kind === 'hello' && key !== undefined && typeof msg.sig === 'string' && /^[0-9a-f]{128}$/.test(msg.sig) && nativeVerify(fromHex(msg.sig), helloBytes(gameId, nonce), key);
        if (!ok) {
          writeLine(socket, { kind: 'error', code: 'bad_signature', message: 'hello: not signed by a player of this game' });
          socket.destroy();
          return;
        }
        who = msg.id!;
        sockets.get(who)?.destroy();
        sockets.set(who, socket);
        return;
      }
      table.receive(who, msg as TableMessage, link);
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      if (who !== null && sockets.get(who) === socket) sockets.delete(who);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      const actual = typeof address === 'object' && address !== null ? address.port : port;
      resolve({
        port: actual,
        table,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets.values()) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

export interface TableConnection {
  readonly setupLine: string;
  readonly link: Link;
  /** Starts delivering table lines to `node` and ticking it every `tickMs`. */
  attach(node: NetNode, tickMs?: number): void;
  close(): void;
}

/** Connects to a table as `id`, proving it with `secretKey`; resolves once the table has sent the setup. */
export function connectTable(host: string, port: number, id: string, secretKey: Uint8Array): Promise<TableConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    const lines = createInterface({ input: socket, crlfDelay: Infinity });
    let node: NetNode | null = null;
    let timer: NodeJS.Timeout | null = null;
    const link: Link = {
      get now() {
        return Date.now();
      },
      send(_from, _to, payload) {
        writeLine(socket, payload);
      },
    };
    socket.once('error', reject);
    lines.on('line', (text) => {
      const msg = JSON.parse(text) as { kind: string; nonce?: string; setup?: string; message?: string };
      if (msg.kind === 'challenge') {
        const { gameId } = readSetupLine(msg.setup!);
        writeLine(socket, { kind: 'hello', id, sig: toHex(nativeSign(helloBytes(gameId, msg.nonce!), secretKey)) });
        resolve({
          setupLine: msg.setup!,
          link,
          attach(n, tickMs = 50) {
            node = n;
            timer = setInterval(() => n.tick?.(link), tickMs);
          },
          close() {
            if (timer !== null) clearInterval(timer);
            socket.destroy();
          },
        });
      } else if (msg.kind === 'error') {
        reject(new Error(msg.message ?? 'the table refused the connection'));
      } else {
        node?.receive('table', msg, link);
      }
    });
  });
}
