/** Armor (docs/SPEC.md §11): streaming writer and reader, the same bytes as the whole-input forms. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { armor, ArmorReader, ArmorWriter, dearmor } from './armor.js';
import { FairtableError } from './errors.js';
import { taggedHash } from './hash.js';
import { toHex } from './bytes.js';

/** The block written out by hand from the spec's text, as an independent reference for the writer. */
function specBlock(payload: Uint8Array): string {
  const b64 = Buffer.from(payload).toString('base64');
  const rows: string[] = [];
  for (let i = 0; i < b64.length; i += 64) rows.push(b64.slice(i, i + 64));
  return [
    '-----BEGIN FAIRTABLE MESSAGE-----',
    ...rows,
    `Checksum: ${toHex(taggedHash('armor', payload)).slice(0, 16)}`,
    '-----END FAIRTABLE MESSAGE-----',
    '',
  ].join('\n');
}

/** Cuts `whole` (bytes or text) at the given points. */
function pieces<T extends Uint8Array | string>(whole: T, cuts: number[]): T[] {
  const at = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
  const out: T[] = [];
  let from = 0;
  for (const c of [...at, whole.length]) {
    out.push(whole.slice(from, c) as T);
    from = c;
  }
  return out;
}

function streamArmor(payload: Uint8Array, cuts: number[]): string {
  const w = new ArmorWriter();
  let out = '';
  for (const p of pieces(payload, cuts)) out += w.push(p);
  return out + w.end();
}

function streamDearmor(text: string, cuts: number[]): Uint8Array[] {
  const blocks: Uint8Array[] = [];
  let cur: number[] = [];
  const r = new ArmorReader((b) => cur.push(...b), {
    onBlock: () => {
      blocks.push(Uint8Array.from(cur));
      cur = [];
    },
  });
  for (const p of pieces(text, cuts)) r.push(p);
  r.end();
  return blocks;
}

const errorCode = (f: () => unknown): string | null => {
  try {
    f();
    return null;
  } catch (e) {
    return e instanceof FairtableError ? e.code : `plain ${String(e)}`;
  }
};

/** What mail does to a block: quoting, CRLF, trailing spaces, blank lines, text around it. */
const mail = (block: string, quote: boolean, crlf: boolean): string =>
  `Hello,\n\n${block
    .split('\n')
    .map((l) => `${quote ? '> ' : ''}${l}  `)
    .join(crlf ? '\r\n' : '\n')}\nregards\n`;

describe('armor', () => {
  it('writes the block of the spec, whole or in chunks of any size', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.array(fc.nat(), { maxLength: 10 }), (payload, cuts) => {
        const expected = specBlock(payload);
        expect(armor(payload)).toBe(expected);
        expect(streamArmor(payload, cuts)).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips through mail, whole or in chunks of any size', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 600 }), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 10 }),
        (payloads, quote, crlf, cuts) => {
          const text = payloads.map((p) => mail(armor(p), quote, crlf)).join('between\n');
          expect(dearmor(text)).toEqual(payloads);
          expect(streamDearmor(text, cuts)).toEqual(payloads);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a mangled block (bad_checksum or bad_armor), whole or in chunks, and never throws anything else', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
        fc.nat(),
        fc.string({ maxLength: 3 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (payload, at, insert, cuts) => {
          const block = armor(payload);
          const pos = at % block.length;
          const mangled = block.slice(0, pos) + insert + block.slice(pos + 1);
          const whole = errorCode(() => dearmor(mangled));
          expect(errorCode(() => streamDearmor(mangled, cuts))).toBe(whole);
          if (whole === null) {
            // Mangled yet accepted: only white space, quoting or the text around the block changed.
            expect(dearmor(mangled)).toEqual([payload]);
          } else expect(['bad_armor', 'bad_checksum']).toContain(whole);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('names what is wrong', () => {
    const block = armor(new TextEncoder().encode('{"a":1}\n'));
    expect(errorCode(() => dearmor('nothing here'))).toBe('bad_armor');
    expect(errorCode(() => dearmor(block.replace('-----END FAIRTABLE MESSAGE-----', '')))).toBe('bad_armor');
    expect(errorCode(() => dearmor(block.replace(/Checksum: .*\n/, '')))).toBe('bad_armor');
    expect(errorCode(() => dearmor(block.replace(/Checksum: (.)/, (_, c: string) => `Checksum: ${c === '0' ? '1' : '0'}`)))).toBe('bad_checksum');
  });

  it('reads a block whose base64 was joined into one very long line, in pieces', () => {
    const payload = new Uint8Array(300_000).map((_, i) => (i * 7) & 255);
    const joined = armor(payload).replace(/\n(?=[A-Za-z0-9+/=]+\n)/g, (m, off: number, s: string) => (s.slice(0, off).endsWith('-----') ? m : ''));
    expect(joined.split('\n').some((l) => l.length > 100_000)).toBe(true);
    expect(streamDearmor(joined, [1000, 70_000, 200_000, 350_000])).toEqual([payload]);
    expect(dearmor(joined)).toEqual([payload]);
    // White space inside that line is refused, as in a short one.
    const spaced = joined.replace(/([A-Za-z0-9+/]{150000})/, '$1 ');
    expect(errorCode(() => streamDearmor(spaced, [100_000, 200_000]))).toBe('bad_armor');
  });
});
