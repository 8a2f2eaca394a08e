/**
 * The relay's open WebSocket connections (docs/spec/relay.md §3, §5): what is written to each (whole frames,
 * corked for an acknowledgement and its entry, the slow-reader bound), coded refusals and drops, their count
 * in all and per client address, and the idle check.
 */
import type { Duplex } from 'node:stream';
import { framePayload } from './frame.js';
import type { Connection, Game } from './games.js';
import type { RelayCore } from './relay-options.js';

export interface ConnectionsDeps {
  readonly core: RelayCore;
  /** A game's last connection ended (games.ts keeps it in memory a while). */
  readonly unloadLater: (g: Game) => void;
}

/** The open connections, and what the relay does to one. */
export interface Connections {
  readonly connections: Set<Connection>;
  /** Open connections by client key; an address leaves the map with its last connection. */
  readonly perAddress: Map<string, number>;
  send(c: Connection, value: unknown, last?: boolean): void;
  drop(c: Connection, code: string, message: string): void;
  end(c: Connection, status: number, reason?: string): void;
  refuse(c: Connection, code: string, message: string): void;
  cork(c: Connection): Duplex | null;
  sendFrame(c: Connection, frame: Buffer): void;
  /** Stops the idle check. */
  stopIdleCheck(): void;
}

export function openConnections(deps: ConnectionsDeps): Connections {
  const { limits, metrics, log } = deps.core;
  const { unloadLater } = deps;
  const connections = new Set<Connection>();
  /** Open connections by client key; an address leaves the map with its last connection. */
  const perAddress = new Map<string, number>();

  /** The socket under `c`'s WebSocket (ws keeps it as `_socket`), for frames written whole and for corking. */
  const socketOf = (c: Connection): Duplex | undefined => (c.ws as unknown as { _socket?: Duplex })._socket;

  /** `c`'s socket, corked, when it is open and not corked already. */
  function cork(c: Connection): Duplex | null {
    const socket = socketOf(c);
    if (socket === undefined || socket.writableCorked > 0 || c.ws.readyState !== c.ws.OPEN) return null;
    socket.cork();
    return socket;
  }

  /**
   * Sends a frame made by `textFrame`, written whole to the socket. ws writes each of its own frames
   * whole and at once (no compression, no fragments), so a frame written here never lands inside one of
   * its; `bufferedAmount` counts what waits in the socket, so the slow-reader bound holds.
   */
  function sendFrame(c: Connection, frame: Buffer): void {
    if (c.closed || c.ws.readyState !== c.ws.OPEN) return;
    const socket = socketOf(c);
    if (socket === undefined) return send(c, framePayload(frame));
    socket.write(frame);
    if (c.ws.bufferedAmount > limits.maxOutputBytes) {
      drop(c, 'slow_reader', `${c.ws.bufferedAmount} bytes wait to be written to this connection; it does not read what it is sent`);
    }
  }

  /** Sends a message (a string or a buffer is sent as it is: an encoded message, perhaps shared by several connections). */
  function send(c: Connection, value: unknown, last = false): void {
    if (c.closed && !last) return;
    if (c.ws.readyState !== c.ws.OPEN) return;
    if (Buffer.isBuffer(value)) c.ws.send(value, { binary: false });
    else c.ws.send(typeof value === 'string' ? value : JSON.stringify(value));
    if (!last && c.ws.bufferedAmount > limits.maxOutputBytes) {
      drop(c, 'slow_reader', `${c.ws.bufferedAmount} bytes wait to be written to this connection; it does not read what it is sent`);
    }
  }

  function drop(c: Connection, code: string, message: string): void {
    if (c.closed) return;
    metrics.dropped(code);
    log.info({ game: c.game.id, player: c.who, code }, message);
    send(c, { kind: 'error', code, message }, true);
    end(c, 1008);
  }

  function end(c: Connection, status: number, reason = ''): void {
    if (c.closed) return;
    c.closed = true;
    if (c.helloTimer !== null) clearTimeout(c.helloTimer);
    // A connection refused before it was counted is not uncounted.
    if (connections.delete(c)) {
      const n = (perAddress.get(c.address) ?? 1) - 1;
      if (n > 0) perAddress.set(c.address, n);
      else perAddress.delete(c.address);
    }
    c.game.connections.delete(c);
    if (c.game.connections.size === 0) unloadLater(c.game);
    c.ws.close(status, reason);
    // A peer that never answers the close handshake is cut off.
    setTimeout(() => c.ws.terminate(), 2000).unref();
  }

  function refuse(c: Connection, code: string, message: string): void {
    metrics.refused(code);
    log.debug({ game: c.game.id, player: c.who, code }, message);
    send(c, { kind: 'refused', code, message });
  }

  // Idle connections: pinged at half the idle time; one that answers nothing for idleMs is closed.
  const idleCheck = setInterval(
    () => {
      const now = Date.now();
      for (const c of connections) {
        if (now - c.lastHeard > limits.idleMs) drop(c, 'idle', `nothing from this connection for ${limits.idleMs} ms`);
        else if (c.ws.readyState === c.ws.OPEN) c.ws.ping();
      }
    },
    Math.max(50, Math.floor(limits.idleMs / 2)),
  );
  idleCheck.unref();

  return { connections, perAddress, send, drop, end, refuse, cork, sendFrame, stopIdleCheck: () => clearInterval(idleCheck) };
}
