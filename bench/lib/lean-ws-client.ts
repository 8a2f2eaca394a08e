/**
 * The load generator's WebSocket client for `bench/relay.bench.ts` (RFC 6455): just what a load needs, so
 * that the generator, which shares the machine's cores with the server it measures, spends as little of
 * them as it can. It opens the connection with the HTTP upgrade (§4.1), sends text frames built once before
 * the clock starts, and hands each message it receives to its callback as the bytes of the frame's
 * payload, undecoded and unchecked.
 *
 * Client frames must be masked (§5.3). The masking key here is four zero bytes, which leaves the payload as
 * it is: a frame can then be built once and sent as it is, any number of times. §5.3 asks a browser for an
 * unpredictable key, against proxies that a script could confuse; a load generator on 127.0.0.1 has no such
 * proxy, and the server unmasks any key alike. Not for anything but the benchmark.
 */
import { connect, type Socket } from 'node:net';
import { randomBytes, createHash } from 'node:crypto';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** `payload` as one final, masked (with a zero key) text frame. */
export function clientTextFrame(payload: Buffer): Buffer {
  const n = payload.length;
  const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const frame = Buffer.alloc(head + 4 + n);
  frame[0] = 0x81;
  if (head === 2) frame[1] = 0x80 | n;
  else if (head === 4) {
    frame[1] = 0x80 | 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 0x80 | 127;
    frame.writeBigUInt64BE(BigInt(n), 2);
  }
  // The masking key (frame[head..head+3]) stays zero.
  payload.copy(frame, head + 4);
  return frame;
}

export class LeanWebSocket {
  private buffered: Buffer = Buffer.alloc(0);
  private upgraded = false;

  private constructor(
    private readonly socket: Socket,
    private readonly onmessage: (payload: Buffer, ws: LeanWebSocket) => void,
  ) {}

  /**
   * Opens `ws://host:port/path`; resolves once the server has answered 101. `onmessage` gets every message
   * from the first on (one may come in the same packet as the answer).
   */
  static open(url: string, onmessage: (payload: Buffer, ws: LeanWebSocket) => void): Promise<LeanWebSocket> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: u.hostname, port: Number(u.port), noDelay: true });
      const ws = new LeanWebSocket(socket, onmessage);
      const key = randomBytes(16).toString('base64');
      const accept = createHash('sha1')
        .update(key + GUID)
        .digest('base64');
      socket.once('error', reject);
      socket.once('connect', () =>
        socket.write(
          `GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        ),
      );
      socket.on('data', (chunk: Buffer) => {
        ws.buffered = ws.buffered.length === 0 ? chunk : Buffer.concat([ws.buffered, chunk]);
        if (!ws.upgraded) {
          const end = ws.buffered.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = ws.buffered.subarray(0, end).toString('latin1');
          if (!/^HTTP\/1\.1 101/.test(head) || !head.toLowerCase().includes(`sec-websocket-accept: ${accept.toLowerCase()}`)) {
            socket.destroy();
            return reject(new Error(`no WebSocket upgrade: ${head.split('\r\n')[0]}`));
          }
          ws.upgraded = true;
          ws.buffered = ws.buffered.subarray(end + 4);
          resolve(ws);
        }
        ws.read();
      });
    });
  }

  /** Hands over every whole frame held. Server frames are not masked; only text and binary are passed on. */
  private read(): void {
    let b = this.buffered;
    for (;;) {
      if (b.length < 2) break;
      const len7 = b[1]! & 0x7f;
      const head = len7 < 126 ? 2 : len7 === 126 ? 4 : 10;
      if (b.length < head) break;
      const n = len7 < 126 ? len7 : len7 === 126 ? b.readUInt16BE(2) : Number(b.readBigUInt64BE(2));
      if (b.length < head + n) break;
      const opcode = b[0]! & 0x0f;
      // The servers measured send every message as one frame; anything else would be misread here.
      if ((b[0]! & 0x80) === 0 || opcode === 0) throw new Error('a fragmented message: not read by this client');
      if (opcode === 1 || opcode === 2) this.onmessage(b.subarray(head, head + n), this);
      b = b.subarray(head + n);
    }
    this.buffered = b;
  }

  /** Sends a frame made by `clientTextFrame`. */
  sendFrame(frame: Buffer): void {
    this.socket.write(frame);
  }

  send(text: string): void {
    this.socket.write(clientTextFrame(Buffer.from(text)));
  }

  terminate(): void {
    this.socket.destroy();
  }
}
