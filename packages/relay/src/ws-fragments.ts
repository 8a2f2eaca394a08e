/**
 * Keeps each frame a connection reads from reaching the old generation (docs/spec/relay.md, "The pipeline":
 * "Nothing a line needs outlives it in the old generation", cause 2).
 *
 * `ws`'s receiver collects a message's frames in an array it makes when the message before ends, and a
 * player sends a frame every second or so. The array so lives long enough to be moved to the old
 * generation, and when the next message is pushed into it and then dropped, the dead old array keeps that
 * message (its buffer, and the chunk the socket read) through every young collection until the next major
 * one: about 450 bytes a frame (V8's sampling heap profiler). The fix gives the receiver a new empty array
 * just before each chunk the socket reads, so the array a message is pushed into is as young as the
 * message. The receiver is `ws`'s own and its members are not API: `receiverMembers` says whether they are
 * still what this relies on, and the relay's tests fail if not (ws-fragments.test.ts); where they are not,
 * nothing is changed.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

interface Receiver {
  _fragments: unknown[];
}

/** The receiver behind `ws`, when it has the members this module relies on; else null. */
export function receiverMembers(ws: WebSocket): Receiver | null {
  const receiver = (ws as unknown as { _receiver?: unknown })._receiver;
  if (typeof receiver !== 'object' || receiver === null) return null;
  return Array.isArray((receiver as { _fragments?: unknown })._fragments) ? (receiver as Receiver) : null;
}

/** Before each chunk `socket` delivers to `ws`, an empty fragment array as young as the chunk (none while a fragmented message is under way). */
export function freshFragmentsOnRead(ws: WebSocket, socket: Duplex): void {
  const receiver = receiverMembers(ws);
  if (receiver === null) return;
  socket.prependListener('data', () => {
    if (receiver._fragments.length === 0) receiver._fragments = [];
  });
}
