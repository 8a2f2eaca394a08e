import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LineSplitter, MAX_LINE_BYTES, splitBytes, splitText, type TranscriptLine } from './lines.js';

const enc = new TextEncoder();
const texts = (lines: Iterable<TranscriptLine>): (string | [string])[] => [...lines].map((l) => (l.problem === null ? l.text : [l.problem]));

/** Feeds `bytes` to a splitter in pieces cut at `cuts`. */
function chunked(bytes: Uint8Array, cuts: number[]): TranscriptLine[] {
  const out: TranscriptLine[] = [];
  const s = new LineSplitter();
  let from = 0;
  for (const c of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    s.push(bytes.subarray(from, c), (l) => out.push(l));
    from = c;
  }
  s.push(bytes.subarray(from), (l) => out.push(l));
  s.end((l) => out.push(l));
  return out;
}

describe('what a transcript line is (docs/SPEC.md §4.5)', () => {
  it('cuts at LF, drops one CR before it, one BOM at the start, and needs no final LF', () => {
    expect(texts(splitText('a\nb\r\nc'))).toEqual(['a', 'b', 'c']);
    expect(texts(splitText('a\nb\n'))).toEqual(['a', 'b']);
    expect(texts(splitText('\uFEFFa\n\uFEFFb'))).toEqual(['a', '\uFEFFb']);
    expect(texts(splitText('\uFEFFa', false))).toEqual(['\uFEFFa']);
    expect(texts(splitText('a\r\r\nb'))).toEqual(['a\r', 'b']);
  });

  it('skips blank and whitespace-only lines, which are not counted', () => {
    expect(texts(splitText('\n\na\n \t\n\r\n\r\r\nb\n\n'))).toEqual(['a', 'b']);
    expect(texts(splitText(' a '))).toEqual([' a ']);
    expect(texts(splitText(''))).toEqual([]);
    expect(texts(splitBytes(enc.encode('\uFEFF\n  \n')))).toEqual([]);
  });

  it('keeps a line longer than MAX_LINE_BYTES as one unreadable line, with a short note', () => {
    const long = 'x'.repeat(MAX_LINE_BYTES + 1);
    const [a, b, c] = [...splitText(`a\n${long}\nb`)];
    expect(a).toEqual({ text: 'a', problem: null });
    expect(b!.problem).toMatch(/longer than 1048576 bytes \(1048577 bytes\)/);
    expect(b!.text).toBe('x'.repeat(200));
    expect(c).toEqual({ text: 'b', problem: null });
    // Exactly the limit is a line; the limit counts UTF-8 bytes, not characters.
    expect(splitBytes(enc.encode('y'.repeat(MAX_LINE_BYTES)))[0]!.problem).toBeNull();
    const wide = 'é'.repeat(MAX_LINE_BYTES / 2 + 1);
    expect([...splitText(wide)][0]!.problem).toMatch(/longer/);
    expect(splitBytes(enc.encode(wide))[0]!.problem).toMatch(/longer/);
  });

  it('keeps a line whose bytes are not UTF-8 as one unreadable line', () => {
    const bytes = Uint8Array.from([0x61, 0x0a, 0xff, 0xfe, 0x62, 0x0a, 0x63]);
    expect(texts(splitBytes(bytes))).toEqual(['a', ['not UTF-8'], 'c']);
  });

  it('gives the same lines on a string and on its UTF-8 bytes, however the bytes are chunked', () => {
    const piece = fc.oneof(
      fc.constantFrom('\n', '\r\n', '\r', ' ', '\t', '\uFEFF', '{"a":1}', 'é', '\u{1F600}', 'x'.repeat(1000)),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.boolean(), fc.array(fc.nat(), { maxLength: 8 }), (pieces, bom, cuts) => {
        const text = (bom ? '\uFEFF' : '') + pieces.join('');
        const bytes = enc.encode(text);
        const expected = texts(splitText(text));
        expect(texts(splitBytes(bytes))).toEqual(expected);
        expect(texts(chunked(bytes, cuts))).toEqual(expected);
        // Line by line: the lines of a text are those of its pieces joined by LF (blank ones skipped either way).
        const parts = text.split('\n');
        expect(parts.flatMap((p, i) => texts(splitText(p, i === 0)))).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('cuts any bytes, UTF-8 or not, the same way however they are chunked', () => {
    const byte = fc.oneof(fc.constantFrom(0x0a, 0x0d, 0x20, 0x7b, 0xef, 0xbb, 0xbf, 0xc3, 0xa9, 0xff), fc.integer({ min: 0, max: 255 }));
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 300 }), fc.array(fc.nat(), { maxLength: 8 }), (arr, cuts) => {
        const bytes = Uint8Array.from(arr);
        const whole = splitBytes(bytes);
        expect(chunked(bytes, cuts)).toEqual(whole);
        // Line by line, each line decoded alone (after a blank line, so no BOM is dropped), gives the same lines.
        let from = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
        const one: TranscriptLine[] = [];
        while (from <= bytes.length) {
          let lf = bytes.indexOf(0x0a, from);
          if (lf < 0) lf = bytes.length;
          const piece = bytes.subarray(from, lf);
          const got = splitBytes(Uint8Array.from([0x20, 0x0a, ...piece]));
          one.push(...got);
          from = lf + 1;
        }
        expect(one).toEqual(whole);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads past an endless line in constant memory and linear time, chunk by chunk', () => {
    const s = new LineSplitter();
    const out: TranscriptLine[] = [];
    const chunk = new Uint8Array(1 << 20).fill(0x61);
    for (let i = 0; i < 64; i++) s.push(chunk, (l) => out.push(l));
    s.push(enc.encode('\n{}\n'), (l) => out.push(l));
    s.end((l) => out.push(l));
    expect(out.length).toBe(2);
    expect(out[0]!.problem).toBe(`longer than ${MAX_LINE_BYTES} bytes (${64 << 20} bytes)`);
    expect(out[1]).toEqual({ text: '{}', problem: null });
  });
});
