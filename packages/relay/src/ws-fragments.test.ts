import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { freshFragmentsOnRead, receiverMembers } from './ws-fragments.js';

/**
 * A ws server on 127.0.0.1 that applies `freshFragmentsOnRead` the way the relay does. For each message, `seen` gets its
 * text, the fragment array its chunk was read into, and the array ws had left for it when the message before was handled.
 */
interface Seen {
  text: string;
  readInto: unknown[] | null;
  leftBefore: unknown[] | null;
}

async function serve(seen: Seen[], members: boolean[]): Promise<{ server: Server; url: string }> {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const server = createServer();
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => {
      const receiver = receiverMembers(ws);
      members.push(receiver !== null);
      let readInto: unknown[] | null = null;
      let left: unknown[] | null = receiver?._fragments ?? null;
      // Runs after freshFragmentsOnRead's listener (prepended later, so placed before it) and before ws reads the chunk.
      socket.prependListener('data', () => (readInto = receiver?._fragments ?? null));
      freshFragmentsOnRead(ws, socket);
      ws.on('message', (data) => {
        seen.push({ text: String(data), readInto, leftBefore: left });
        left = receiver?._fragments ?? null;
        ws.send('ok');
      });
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

async function client(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  open.push(ws);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return ws;
}

const answered = (ws: WebSocket): Promise<void> => new Promise((resolve) => ws.once('message', () => resolve()));

describe('freshFragmentsOnRead: each message read into a fragment array as young as itself', () => {
  it("finds the members of ws's receiver it relies on (a ws upgrade that changes them fails here)", async () => {
    const seen: Seen[] = [];
    const members: boolean[] = [];
    const { server, url } = await serve(seen, members);
    open.push(server);
    const ws = await client(url);
    ws.send('hello');
    await answered(ws);
    expect(members).toEqual([true]);
  });

  it('reads every message into a new array, made when its chunk arrived, and the messages are unchanged', async () => {
    const seen: Seen[] = [];
    const { server, url } = await serve(seen, []);
    open.push(server);
    const ws = await client(url);
    for (const text of ['first', 'second ✓', 'x'.repeat(70_000)]) {
      ws.send(text);
      await answered(ws);
    }
    expect(seen.map((s) => s.text)).toEqual(['first', 'second ✓', 'x'.repeat(70_000)]);
    // Not the array ws made when the message before ended (which would be old by the time a player's next frame comes).
    for (const s of seen) {
      expect(s.readInto).not.toBeNull();
      expect(s.readInto).not.toBe(s.leftBefore);
    }
  });

  it('leaves a message sent in several frames whole', async () => {
    const seen: Seen[] = [];
    const { server, url } = await serve(seen, []);
    open.push(server);
    const ws = await client(url);
    // Each frame its own write, so the frames arrive in separate chunks.
    ws.send('part one, ', { fin: false });
    await new Promise((r) => setTimeout(r, 20));
    ws.send('part two, ', { fin: false });
    await new Promise((r) => setTimeout(r, 20));
    ws.send('end');
    await answered(ws);
    ws.send('next');
    await answered(ws);
    expect(seen.map((s) => s.text)).toEqual(['part one, part two, end', 'next']);
  });
});
