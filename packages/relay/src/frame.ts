/**
 * A whole WebSocket text frame (RFC 6455 §5.2), built once and written as it is to every connection that is
 * sent the same message (docs/spec/relay.md, "The pipeline": the fan-out). A server's frames are not masked,
 * so one frame's bytes serve every reader; writing them to each socket spares the WebSocket library building
 * a header, and a write of two buffers, for every reader of every line.
 */

/**
 * The concatenation of `parts` (JSON), encoded as UTF-8, as one final, unmasked text frame. The parts are
 * written into the frame one after another, so a message made of a line's text and its receipt is never
 * built as one string first.
 */
export function textFrame(...parts: string[]): Buffer {
  let n = 0;
  for (const part of parts) n += Buffer.byteLength(part, 'utf8');
  const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(head + n);
  // FIN, opcode 1 (text); no mask bit.
  frame[0] = 0x81;
  if (head === 2) frame[1] = n;
  else if (head === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(n), 2);
  }
  let at = head;
  for (const part of parts) at += frame.write(part, at, 'utf8');
  return frame;
}

/** The message inside a frame made by `textFrame`. */
export function framePayload(frame: Buffer): Buffer {
  return frame.subarray(frame[1]! < 126 ? 2 : frame[1] === 126 ? 4 : 10);
}
