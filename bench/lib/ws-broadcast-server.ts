/**
 * The ceiling for `bench/relay.bench.ts`: a bare `ws` server that fans every submitted line out to the
 * connections of its game, numbered in arrival order, with no hello, no verification, no receipt and no
 * storage. Prints its port on stdout; exits when stdin closes.
 */
import { createServer } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

const rooms = new Map<string, { n: number; members: Set<WebSocket> }>();
const server = createServer();
const wss = new WebSocketServer({ server, perMessageDeflate: false });
wss.on('connection', (ws, req) => {
  const game = req.url ?? '';
  let room = rooms.get(game);
  if (room === undefined) rooms.set(game, (room = { n: 1, members: new Set() }));
  const r = room;
  r.members.add(ws);
  ws.on('close', () => r.members.delete(ws));
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString()) as { kind: string; text?: string };
    if (msg.kind !== 'submit') return;
    const out = JSON.stringify({ kind: 'entry', line: r.n++, text: msg.text });
    for (const m of r.members) m.send(out);
  });
  ws.send(JSON.stringify({ kind: 'welcome', lines: 1 }));
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  process.stdout.write(`${typeof a === 'object' && a !== null ? a.port : 0}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
