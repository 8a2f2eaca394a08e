/**
 * One candidate router in the designated-router election of
 * draft-harkins-rochambeau-02 §1: it chooses a state, sends its Commit to
 * every other router (§4.4), waits for theirs, sends its Reveal (§4.6), waits
 * for theirs, and computes the chosen router with `pickOne` (§4.3, §4.7).
 * Started by main.ts; talks to the other routers over TCP on 127.0.0.1.
 *
 * Every sender opens its own connection to every receiver, and a connection
 * carries frames  u16be(id length) ‖ id ‖ u32be(payload length) ‖ payload:
 * first the sender's id and Commit, then its Reveal. Each phase has a
 * deadline, both or neither (§4.2); a router that misses one is judged
 * without the missing payload and disqualified for it.
 */
import { createConnection, createServer, type Socket } from 'node:net';
import { toHex } from '@fairtable/core/bytes.js';
import { pickOne, prepareMove } from '@fairtable/core/rochambeau/player.js';

interface Peer {
  readonly id: string;
  readonly port: number;
}
type Start = { readonly type: 'start'; readonly peers: readonly Peer[] };

const [id, gameId, N, phaseMs] = process.argv.slice(2) as [string, string, string, string];
const deadline = Number(phaseMs);
const send = (message: unknown): void => {
  process.send?.(message);
};

const move = prepareMove({ N, binding: { gameId, playerId: id } });
/** What arrived from each router, in arrival order: [Commit, Reveal]. */
const received = new Map<string, Uint8Array[]>([[id, [move.commit, move.reveal]]]);
let expected = 0;
let wake: (() => void) | null = null;

function frame(payload: Uint8Array): Buffer {
  const name = Buffer.from(id, 'utf8');
  const out = Buffer.alloc(2 + name.length + 4 + payload.length);
  out.writeUInt16BE(name.length, 0);
  name.copy(out, 2);
  out.writeUInt32BE(payload.length, 2 + name.length);
  out.set(payload, 6 + name.length);
  return out;
}

/** Reads frames off one incoming connection. */
function listen(socket: Socket): void {
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (pending.length < 2) return;
      const nameLength = pending.readUInt16BE(0);
      if (pending.length < 6 + nameLength) return;
      const length = pending.readUInt32BE(2 + nameLength);
      if (pending.length < 6 + nameLength + length) return;
      const sender = pending.subarray(2, 2 + nameLength).toString('utf8');
      const payload = new Uint8Array(pending.subarray(6 + nameLength, 6 + nameLength + length));
      pending = pending.subarray(6 + nameLength + length);
      // A router only speaks for itself, and only its first two payloads count.
      const list = received.get(sender) ?? [];
      if (sender !== id && list.length < 2) list.push(payload);
      received.set(sender, list);
      wake?.();
    }
  });
  socket.on('error', () => socket.destroy());
}

/** Resolves once every router has sent `count` payloads, or at the deadline. */
function allHave(count: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(finish, deadline);
    function finish(): void {
      clearTimeout(timer);
      wake = null;
      resolve();
    }
    wake = () => {
      if (received.size === expected && [...received.values()].every((list) => list.length >= count)) finish();
    };
    wake();
  });
}

const server = createServer(listen);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  send({ type: 'listening', port: typeof address === 'object' && address !== null ? address.port : 0 });
});

process.on('message', async (message: Start) => {
  if (message.type !== 'start') return;
  const others = message.peers.filter((peer) => peer.id !== id);
  expected = message.peers.length;
  const links = await Promise.all(
    others.map(
      (peer) =>
        new Promise<Socket>((resolve) => {
          const socket = createConnection({ host: '127.0.0.1', port: peer.port }, () => resolve(socket));
          socket.on('error', () => resolve(socket));
        }),
    ),
  );
  for (const link of links) link.write(frame(move.commit));
  await allHave(1);
  for (const link of links) link.write(frame(move.reveal));
  await allHave(2);
  // Without a relay there is no common arrival order, so every router lists the
  // candidates by id; only copied Commits depend on the order, and honest routers send none.
  const candidates = message.peers
    .map((peer) => peer.id)
    .sort()
    .map((peerId) => {
      const [commit = null, reveal = null] = received.get(peerId) ?? [];
      return { id: peerId, commit, reveal };
    });
  const chosen = pickOne(candidates, { N, gameId });
  const report = {
    node: id,
    winner: chosen?.id ?? null,
    players: candidates.map((c) => ({ id: c.id, commit: c.commit && toHex(c.commit), reveal: c.reveal && toHex(c.reveal) })),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  for (const link of links) link.end();
  server.close();
  process.disconnect?.();
});
