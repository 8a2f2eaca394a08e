/** The bounded line reader (docs/SPEC.md §10.4): lines split anywhere, CRLF, UTF-8 across chunks, the cap. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BoundedLineReader } from './line-reader.js';

function read(chunks: Buffer[], cap: number): { lines: string[]; tooLong: number[]; buffered: number } {
  const lines: string[] = [];
  const tooLong: number[] = [];
  const r = new BoundedLineReader(cap, { line: (t) => lines.push(t), tooLong: (n) => tooLong.push(n) });
  for (const c of chunks) r.push(c);
  return { lines, tooLong, buffered: r.buffered };
}

describe('BoundedLineReader', () => {
  it('gives the same lines however the bytes are split', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, '')),
          { maxLength: 8 },
        ),
        fc.array(fc.nat(), { maxLength: 6 }),
        (texts, cuts) => {
          const bytes = Buffer.from(texts.map((t) => t + '\n').join(''));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Buffer[] = [];
          let at = 0;
          for (const p of [...points, bytes.length]) {
            chunks.push(bytes.subarray(at, p));
            at = p;
          }
          const r = read(chunks, 1 << 20);
          expect(r.lines).toEqual(texts);
          expect(r.buffered).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('drops a CR before the newline, keeps an unterminated tail pending', () => {
    const r = read([Buffer.from('a\r\nb\nc')], 100);
    expect(r.lines).toEqual(['a', 'b']);
    expect(r.buffered).toBe(1);
  });

  it('reports a line longer than the cap once and delivers nothing after it, holding no more than the cap', () => {
    const exact = read([Buffer.from('x'.repeat(8) + '\n')], 8);
    expect(exact.lines).toEqual(['x'.repeat(8)]);
    const over = read([Buffer.from('x'.repeat(5)), Buffer.from('x'.repeat(5)), Buffer.from('\nnext\n')], 8);
    expect(over.lines).toEqual([]);
    expect(over.tooLong).toEqual([10]);
    expect(over.buffered).toBe(0);
    const noNewline = read(
      Array.from({ length: 100 }, () => Buffer.alloc(1000, 0x61)),
      4096,
    );
    expect(noNewline.tooLong).toHaveLength(1);
    expect(noNewline.buffered).toBe(0);
  });
});
