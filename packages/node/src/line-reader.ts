/**
 * A newline-delimited reader with a cap on the line length (docs/SPEC.md §10.4).
 *
 * readline keeps an unterminated line in memory however long it grows, so a
 * peer that sends 600 MB without a newline holds 600 MB of the reader's
 * memory. This reader keeps at most `maxLineBytes` of a pending line: once a
 * line passes the cap it reports `too long` once and reads nothing more, and
 * the caller closes the connection. Lines are split on the byte 0x0A, which
 * never occurs inside a multi-byte UTF-8 sequence; a trailing CR is dropped.
 */

export interface LineReaderEvents {
  line(text: string): void;
  /** The pending line passed the cap; no more lines are delivered. */
  tooLong(bytes: number): void;
}

export class BoundedLineReader {
  private parts: Buffer[] = [];
  private pending = 0;
  private stopped = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly events: LineReaderEvents,
  ) {}

  /** Bytes held for the line not yet ended (never more than the cap). */
  get buffered(): number {
    return this.pending;
  }

  /** Stops delivering lines, for a connection that is being closed. */
  stop(): void {
    this.stopped = true;
    this.parts = [];
    this.pending = 0;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (!this.stopped) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) {
        const rest = chunk.length - start;
        if (this.pending + rest > this.maxLineBytes) {
          const bytes = this.pending + rest;
          this.stop();
          this.events.tooLong(bytes);
          return;
        }
        if (rest > 0) {
          // A copy, so a small tail does not pin the whole chunk it came in.
          this.parts.push(Buffer.from(chunk.subarray(start)));
          this.pending += rest;
        }
        return;
      }
      const piece = chunk.subarray(start, nl);
      if (this.pending + piece.length > this.maxLineBytes) {
        const bytes = this.pending + piece.length;
        this.stop();
        this.events.tooLong(bytes);
        return;
      }
      const whole = this.pending === 0 ? piece : Buffer.concat([...this.parts, piece]);
      this.parts = [];
      this.pending = 0;
      let end = whole.length;
      if (end > 0 && whole[end - 1] === 0x0d) end--;
      this.events.line(whole.toString('utf8', 0, end));
      start = nl + 1;
    }
  }
}
