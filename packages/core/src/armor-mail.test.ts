/** Armor (docs/SPEC.md §11) in-process: round trips, what mail does to text, and the coded refusals. */
import { describe, expect, it } from 'vitest';
import { armor, dearmor } from './armor.js';
import { FairtableError } from './errors.js';
import { utf8, fromUtf8 } from './bytes.js';

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof FairtableError) return e.code;
    throw e;
  }
  throw new Error('no error thrown');
}

const payload = utf8('{"v":1,"body":{"type":"turn"}}\n'.repeat(5));

describe('armor', () => {
  it('round-trips payloads of every length near the 3-byte and 48-byte boundaries', () => {
    for (const n of [0, 1, 2, 3, 47, 48, 49, 95, 96, 97, 1000]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff);
      const [back] = dearmor(armor(bytes));
      expect(back).toEqual(bytes);
    }
  });

  it('writes the block as the spec says: markers, 64-character base64 lines, a 16-hex-digit checksum', () => {
    const lines = armor(payload).split('\n');
    expect(lines[0]).toBe('-----BEGIN FAIRTABLE MESSAGE-----');
    expect(lines.at(-2)).toBe('-----END FAIRTABLE MESSAGE-----');
    expect(lines.at(-1)).toBe('');
    expect(lines.at(-3)).toMatch(/^Checksum: [0-9a-f]{16}$/);
    const body = lines.slice(1, -3);
    expect(body.slice(0, -1).every((l) => l.length === 64)).toBe(true);
    expect(body.at(-1)!.length).toBeLessThanOrEqual(64);
    expect(atob(body.join(''))).toBe(fromUtf8(payload));
  });

  it('reads through mail quoting, CRLF, trailing white space and surrounding text', () => {
    const text = armor(payload)
      .split('\n')
      .map((l) => `> > ${l}   `)
      .join('\r\n');
    const mail = `Hi,\r\nhere is my move:\r\n\r\n${text}\r\nCheers\r\n`;
    expect(dearmor(mail)).toEqual([payload]);
  });

  it('finds every block in a message, in order', () => {
    const second = utf8('second');
    expect(dearmor(`first:\n${armor(payload)}\nand then:\n${armor(second)}`)).toEqual([payload, second]);
  });

  it('a changed character fails the checksum: bad_checksum', () => {
    const lines = armor(payload).split('\n');
    const row = lines[1]!;
    lines[1] = (row[0] === 'A' ? 'B' : 'A') + row.slice(1);
    expect(code(() => dearmor(lines.join('\n')))).toBe('bad_checksum');
  });

  it('a changed checksum is bad_checksum', () => {
    const text = armor(payload).replace(/Checksum: ([0-9a-f])/, (_, c: string) => `Checksum: ${c === '0' ? '1' : '0'}`);
    expect(code(() => dearmor(text))).toBe('bad_checksum');
  });

  it('no block, a block that never ends, no checksum line, or a body that is not base64: bad_armor', () => {
    expect(code(() => dearmor('just a letter'))).toBe('bad_armor');
    expect(code(() => dearmor(armor(payload).replace('-----END FAIRTABLE MESSAGE-----', '')))).toBe('bad_armor');
    expect(code(() => dearmor(armor(payload).replace(/Checksum: .*\n/, '')))).toBe('bad_armor');
    const lines = armor(payload).split('\n');
    lines[1] = `*${lines[1]!.slice(1)}`;
    expect(code(() => dearmor(lines.join('\n')))).toBe('bad_armor');
  });

  it('a block with a line missing is refused, never read short', () => {
    const lines = armor(payload).split('\n');
    lines.splice(2, 1);
    expect(['bad_armor', 'bad_checksum']).toContain(code(() => dearmor(lines.join('\n'))));
  });
});
