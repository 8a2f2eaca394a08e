/**
 * The relay's prebuilt frames (frame.ts): byte for byte what the WebSocket library itself sends for the same
 * text, at each length encoding (7-bit, 16-bit and 64-bit lengths, and the bounds between them).
 */
import { describe, expect, it } from 'vitest';
import * as ws from 'ws';
import { framePayload, textFrame } from './frame.js';

// ws's own framing (its typings leave the class out).
const { Sender } = ws as unknown as {
  Sender: { frame(data: Buffer, options: { fin: boolean; opcode: number; mask: boolean; readOnly: boolean; rsv1: boolean }): Buffer[] };
};

describe('textFrame', () => {
  it('is the frame ws sends for the same text, at every length encoding', () => {
    for (const n of [0, 1, 125, 126, 127, 65535, 65536, 70000, (1 << 20) + 3]) {
      const text = 'é'.repeat(Math.floor(n / 2)) + 'x'.repeat(n % 2);
      const payload = Buffer.from(text);
      expect(payload.length).toBe(n);
      const theirs = Buffer.concat(Sender.frame(payload, { fin: true, opcode: 1, mask: false, readOnly: true, rsv1: false }));
      const ours = textFrame(text);
      expect(ours.equals(theirs)).toBe(true);
      expect(framePayload(ours).equals(payload)).toBe(true);
    }
  });

  it('frames its parts as one text, whatever the parts and wherever multibyte characters fall', () => {
    const parts = ['{"kind":"entry","line":7,"text":', JSON.stringify('é€𝄞"\\'.repeat(40)), ',"receipt":', '{"v":1}', '}', ''];
    const whole = parts.join('');
    expect(textFrame(...parts).equals(textFrame(whole))).toBe(true);
    expect(framePayload(textFrame(...parts)).toString('utf8')).toBe(whole);
    // Across the 7-bit and 16-bit length bounds.
    for (const n of [120, 125, 126, 65535, 65536]) {
      const text = 'a'.repeat(n - 3);
      expect(textFrame('é', text).equals(textFrame('é' + text))).toBe(true);
    }
  });
});
