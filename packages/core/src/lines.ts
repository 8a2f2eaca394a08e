/**
 * What a transcript line is (docs/SPEC.md §4.5): the one rule every reader of a
 * transcript follows, the core auditor on a string and the file auditor on a
 * stream of bytes alike, so that the two cannot number lines differently.
 *
 * - A line is the text between two LF bytes; one CR before the LF is dropped;
 *   the last line needs no LF.
 * - One byte order mark at the very start of the input is dropped.
 * - A line of nothing but spaces, tabs and CRs is not a line of the transcript:
 *   it is skipped and not counted, so line numbers count envelopes' lines only.
 * - A line longer than MAX_LINE_BYTES (counted in UTF-8 bytes, before its CR is
 *   dropped) or whose bytes are not UTF-8 is kept as a malformed line. The
 *   reader never holds more than MAX_LINE_BYTES of it: the rest is counted and
 *   dropped, so one endless line costs constant memory and linear time.
 */

/** The longest line a transcript may hold, in UTF-8 bytes (1 MiB). */
export const MAX_LINE_BYTES = 1 << 20;

/** How much of an unreadable line is kept to show as evidence. */
const NOTE_BYTES = 256;
const NOTE_CHARS = 200;

/** One line of a transcript: its text, or why it cannot be read (with its first characters to show). */
export type TranscriptLine = { readonly text: string; readonly problem: null } | { readonly text: string; readonly problem: string };

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const loose = new TextDecoder('utf-8', { ignoreBOM: true });
const encoder = new TextEncoder();

const LF = 0x0a;
const CR = 0x0d;

const isBlankByte = (b: number): boolean => b === 0x20 || b === 0x09 || b === CR;

function note(bytes: Uint8Array): string {
  return loose.decode(bytes.subarray(0, NOTE_BYTES)).slice(0, NOTE_CHARS);
}

function tooLong(length: number, head: Uint8Array): TranscriptLine {
  return { text: note(head), problem: `longer than ${MAX_LINE_BYTES} bytes (${length} bytes)` };
}

/** The line `bytes` (its LF removed, at most MAX_LINE_BYTES long), or null when it is blank. */
function finishBytes(bytes: Uint8Array): TranscriptLine | null {
  let i = 0;
  while (i < bytes.length && isBlankByte(bytes[i]!)) i++;
  if (i === bytes.length) return null;
  const body = bytes[bytes.length - 1] === CR ? bytes.subarray(0, bytes.length - 1) : bytes;
  try {
    return { text: strict.decode(body), problem: null };
  } catch {
    return { text: note(body), problem: 'not UTF-8' };
  }
}

/**
 * Splits a stream of bytes into transcript lines, chunk by chunk. Holds at most
 * MAX_LINE_BYTES of a pending line, however the chunks fall.
 */
export class LineSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  /** Bytes of the pending line beyond what is kept, when it is too long. */
  private excess = 0;
  /** Bytes seen before the first LF while a BOM is still possible (fewer than 3). */
  private start: Uint8Array | null = new Uint8Array(0);

  /** Feeds the next chunk; `emit` receives each complete line in order. */
  push(chunk: Uint8Array, emit: (line: TranscriptLine) => void): void {
    // A plain view: a subclass (Node's Buffer) may give `slice` the meaning of `subarray`, and pieces are copied with it.
    chunk = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.start !== null) {
      const joined = new Uint8Array(this.start.length + chunk.length);
      joined.set(this.start);
      joined.set(chunk, this.start.length);
      if (joined.length < 3) {
        this.start = joined;
        return;
      }
      this.start = null;
      chunk = joined[0] === 0xef && joined[1] === 0xbb && joined[2] === 0xbf ? joined.subarray(3) : joined;
    }
    this.split(chunk, emit);
  }

  private split(chunk: Uint8Array, emit: (line: TranscriptLine) => void): void {
    const first = chunk.indexOf(LF);
    if (first < 0) {
      this.append(chunk);
      return;
    }
    this.append(chunk.subarray(0, first));
    this.finish(emit);
    const last = chunk.lastIndexOf(LF);
    if (last > first) this.whole(chunk.subarray(first + 1, last), emit);
    this.append(chunk.subarray(last + 1));
  }

  /**
   * Complete lines, LFs between them: decoded in one call, then cut as text, which costs a fraction of
   * decoding line by line. Bytes that are not UTF-8 send the run back to the line-by-line path, which
   * finds the lines at fault.
   */
  private whole(run: Uint8Array, emit: (line: TranscriptLine) => void): void {
    let text: string;
    try {
      text = strict.decode(run);
    } catch {
      let from = 0;
      for (;;) {
        const lf = run.indexOf(LF, from);
        const end = lf < 0 ? run.length : lf;
        const line = end - from > MAX_LINE_BYTES ? tooLong(end - from, run.subarray(from, from + NOTE_BYTES)) : finishBytes(run.subarray(from, end));
        if (line !== null) emit(line);
        if (lf < 0) return;
        from = lf + 1;
      }
    }
    let from = 0;
    for (;;) {
      const lf = text.indexOf('\n', from);
      const line = lineOfText(text.slice(from, lf < 0 ? text.length : lf));
      if (line !== null) emit(line);
      if (lf < 0) return;
      from = lf + 1;
    }
  }

  /** Ends the input: the last line needs no LF. */
  end(emit: (line: TranscriptLine) => void): void {
    if (this.start !== null) {
      // Fewer than 3 bytes in all: too short to hold a BOM.
      const rest = this.start;
      this.start = null;
      this.split(rest, emit);
    }
    if (this.size > 0 || this.excess > 0) this.finish(emit);
  }

  private append(piece: Uint8Array): void {
    if (piece.length === 0) return;
    const room = MAX_LINE_BYTES - this.size;
    if (this.excess > 0 || piece.length > room) {
      // Keep only what the note needs; count the rest.
      const keep = Math.max(0, Math.min(piece.length, NOTE_BYTES - this.size));
      if (keep > 0) {
        this.parts.push(piece.slice(0, keep));
        this.size += keep;
      }
      this.excess += piece.length - keep;
      return;
    }
    // A copy: the caller may reuse its chunk once push returns.
    this.parts.push(piece.slice());
    this.size += piece.length;
  }

  private finish(emit: (line: TranscriptLine) => void): void {
    const bytes = this.parts.length === 1 ? this.parts[0]! : concat(this.parts, this.size);
    const total = this.size + this.excess;
    const wasLong = this.excess > 0;
    this.parts = [];
    this.size = 0;
    this.excess = 0;
    if (wasLong) {
      emit(tooLong(total, bytes));
      return;
    }
    const line = finishBytes(bytes);
    if (line !== null) emit(line);
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The UTF-8 length of `s` (a lone surrogate counts as the 3 bytes of the U+FFFD that encoding gives it). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

// A UTF-16 unit is one to three UTF-8 bytes, so the exact count is needed only near the limit.
/** Whether a line's text is longer than MAX_LINE_BYTES in UTF-8: for readers handed lines one by one (a seat). */
export const overLimit = (s: string): boolean => s.length > MAX_LINE_BYTES || (s.length * 3 > MAX_LINE_BYTES && utf8Length(s) > MAX_LINE_BYTES);

const BLANK = /^[ \t\r]*$/;

/** One line of text (its LF removed) by the rule: null when blank. */
function lineOfText(raw: string): TranscriptLine | null {
  if (overLimit(raw)) return tooLong(utf8Length(raw), encoder.encode(raw.slice(0, NOTE_BYTES)));
  // Most lines are envelopes: one look at the first character spares the pattern.
  if (raw.charCodeAt(0) !== 0x7b && BLANK.test(raw)) return null;
  return { text: raw.charCodeAt(raw.length - 1) === 0x0d ? raw.slice(0, -1) : raw, problem: null };
}

/**
 * The lines of a transcript held as a string, by the same rule as LineSplitter
 * on its UTF-8 bytes. `atStart` says whether `text` begins the transcript (only
 * there is a BOM dropped).
 */
export function* splitText(text: string, atStart = true): Generator<TranscriptLine> {
  let from = atStart && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (from < text.length) {
    let lf = text.indexOf('\n', from);
    if (lf < 0) lf = text.length;
    const line = lineOfText(text.slice(from, lf));
    from = lf + 1;
    if (line !== null) yield line;
  }
}

/** The lines of a whole transcript given as bytes. */
export function splitBytes(bytes: Uint8Array): TranscriptLine[] {
  const out: TranscriptLine[] = [];
  const splitter = new LineSplitter();
  splitter.push(bytes, (l) => out.push(l));
  splitter.end((l) => out.push(l));
  return out;
}
