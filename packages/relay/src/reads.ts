/**
 * Reads the relay builds from stored lines (docs/spec/relay.md §5, "Reads"): transcripts, receipts and `sync`
 * answers. Each is read from the store a page at a time, a page bounded in lines and in bytes, with a turn of
 * the event loop between pages, and an HTTP answer is a stream the next page of which is read only when the
 * client has taken the last (back-pressure): what the relay holds for one read is a page, whatever the size
 * of the game. Heavy reads at once are counted per client address and in all, and one past either count is
 * refused `429 too_many_reads`; an answer over `readBytes` is refused `413 read_too_large`. A connection's
 * `sync` answers one page per message, one at a time, at a pace in bytes a second: a flood of `sync` costs
 * the relay that pace, not its event loop. Every page of every read, HTTP or `sync`, takes its turn in one
 * queue (`PageQueue`), one page per turn of the event loop, so that between two pages the relay goes on
 * with everything else (lines to admit, store, acknowledge): thirty-two readers cost the games one page's
 * time at a time, not thirty-two.
 */
import type { Store, StoredLine } from './store.js';

export interface ReadLimits {
  /** Bytes one HTTP answer built from stored lines (a transcript, receipts) carries at most. */
  readonly readBytes: number;
  /** Such answers being streamed at once to one client address, and in all. */
  readonly readsPerAddress: number;
  readonly reads: number;
  /** Bytes of lines read from the store at once for one answer (a page; at least one line). */
  readonly pageBytes: number;
  /** Bytes of lines one `sync` answer carries at most (at least one line). */
  readonly syncBytes: number;
  /** Bytes a second `sync` answers send one connection at most: a faster flood waits. */
  readonly syncBytesPerSecond: number;
  /** Bytes a second of pages read for all reads together (HTTP and `sync`): more wait their turn. */
  readonly readBytesPerSecond: number;
}

export const DEFAULT_READ_LIMITS: ReadLimits = {
  readBytes: 128 << 20,
  readsPerAddress: 4,
  reads: 32,
  pageBytes: 256 << 10,
  syncBytes: 1 << 20,
  syncBytesPerSecond: 4 << 20,
  readBytesPerSecond: 32 << 20,
};

/** Counts heavy reads at once, per client address and in all. */
export class ReadGate {
  private readonly byAddress = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: ReadLimits) {}

  get open(): number {
    return this.total;
  }

  /** A release function for a read let in, or why it is not. */
  enter(address: string): (() => void) | string {
    const mine = this.byAddress.get(address) ?? 0;
    if (mine >= this.limits.readsPerAddress) return `this address has ${mine} reads under way, the most the relay serves one address at once`;
    if (this.total >= this.limits.reads) return `the relay is serving ${this.total} reads, the most it serves at once`;
    this.byAddress.set(address, mine + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const n = (this.byAddress.get(address) ?? 1) - 1;
      if (n > 0) this.byAddress.set(address, n);
      else this.byAddress.delete(address);
    };
  }
}

/** Lines of `game` from `from` on, at most `maxLines`, and no more than `maxBytes` of text and receipts unless the first line alone is more. */
export function readPage(store: Store, game: string, from: number, maxLines: number, maxBytes: number): Promise<StoredLine[]> {
  if (store.readPage !== undefined) return store.readPage(game, from, maxLines, maxBytes);
  // A store that cannot bound a read by bytes is read a few lines at a time.
  return store.readLines(game, from, Math.min(maxLines, 16));
}

/** The bytes a stored line costs to hold: its text and its receipt, roughly as they are sent. */
export const lineCost = (l: StoredLine): number => l.text.length + 400 + 70 * (l.receipt.batch?.path.length ?? 0);

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Page reads, one at a time, each in a turn of the event loop of its own, in the order asked for, and no more
 * bytes a second than `bytesPerSecond` (each page waits for the bytes of the ones before it).
 */
export class PageQueue {
  private readonly waiting: (() => void)[] = [];
  private running = false;
  private readyAt = 0;

  constructor(
    private readonly bytesPerSecond = Number.POSITIVE_INFINITY,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `read` when its turn comes; resolves with the lines it read. */
  run(read: () => Promise<StoredLine[]>): Promise<StoredLine[]> {
    return new Promise<StoredLine[]>((resolve, reject) => {
      this.waiting.push(() => {
        read()
          .then((page) => {
            const bytes = page.reduce((n, l) => n + lineCost(l), 0);
            this.readyAt = Math.max(this.now(), this.readyAt) + (bytes * 1000) / this.bytesPerSecond;
            resolve(page);
          }, reject)
          .finally(() => this.next());
      });
      if (!this.running) {
        this.running = true;
        setImmediate(() => this.waiting.shift()!());
      }
    });
  }

  private next(): void {
    const go = this.waiting.shift();
    if (go === undefined) {
      this.running = false;
      return;
    }
    // The next page after a turn of the loop (what else waits, sockets and the store's answers, goes first),
    // and once the bytes read so far allow it.
    const wait = this.readyAt - this.now();
    if (wait > 0) setTimeout(go, wait);
    else setImmediate(go);
  }
}

/**
 * A stream of `render(line)` for lines `0..upTo-1` of `game`, read a page at a time when the reader asks for
 * more (none is read ahead); `done` runs once, when the stream ends, fails or is cancelled.
 */
export function linesStream(
  store: Store,
  game: string,
  upTo: number,
  pageBytes: number,
  render: (l: StoredLine) => string,
  done: () => void,
  queue: PageQueue = new PageQueue(),
): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const page = at < upTo ? await queue.run(() => readPage(store, game, at, Math.min(1024, upTo - at), pageBytes)) : [];
          if (page.length === 0) {
            controller.close();
            return done();
          }
          let text = '';
          for (const l of page) text += render(l) + '\n';
          at += page.length;
          controller.enqueue(Buffer.from(text, 'utf8'));
        } catch (e) {
          done();
          controller.error(e);
        }
      },
      cancel: () => done(),
    },
    { highWaterMark: 0 },
  );
}

/**
 * One connection's `sync` answers: one at a time (a `sync` that comes while one is answered replaces any other
 * waiting, so a flood collapses to the last asked), each a page bounded by `syncBytes`, and each starting no
 * sooner than the bytes already sent allow at `syncBytesPerSecond`.
 */
export class SyncPacer {
  private busy = false;
  private waiting: number | null = null;
  private readyAt = 0;

  constructor(
    private readonly limits: ReadLimits,
    /** Reads and sends the page from `from` on; resolves with the bytes sent. */
    private readonly answer: (from: number, maxBytes: number) => Promise<number>,
    private readonly now: () => number = Date.now,
  ) {}

  ask(from: number): void {
    if (this.busy) {
      this.waiting = from;
      return;
    }
    this.busy = true;
    void this.run(from);
  }

  private async run(from: number): Promise<void> {
    for (let next: number | null = from; next !== null;) {
      const wait = this.readyAt - this.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      else await turn();
      let sent = 0;
      try {
        sent = await this.answer(next, this.limits.syncBytes);
      } catch {
        // The connection's own answer failed (it is closed, or the store is); the next ask tries again.
      }
      this.readyAt = Math.max(this.now(), this.readyAt) + (sent * 1000) / this.limits.syncBytesPerSecond;
      next = this.waiting;
      this.waiting = null;
    }
    this.busy = false;
  }
}

/** What `serveLines` answers with: a game's stored lines `0..upTo-1`, one `render`ed line of JSON Lines each. */
export interface LinesAnswer {
  readonly store: Store;
  readonly game: string;
  readonly upTo: number;
  /** The answer's size, as far as the relay knows it before reading (text bytes for a transcript; an estimate for receipts). */
  readonly bytes: number;
  /** The client's address (rate-limit.ts's `clientKey`). */
  readonly address: string;
  readonly render: (l: StoredLine) => string;
  /** The relay's one queue of page reads. */
  readonly queue: PageQueue;
}

/** A coded refusal, or the streamed answer (reads.ts's header says how it is bounded). */
export function serveLines(gate: ReadGate, limits: ReadLimits, a: LinesAnswer, onRefused: (code: string) => void): Response {
  const refusal = (status: number, code: string, message: string, headers: Record<string, string> = {}): Response => {
    onRefused(code);
    return new Response(JSON.stringify({ error: { code, message } }), { status, headers: { 'content-type': 'application/json', ...headers } });
  };
  if (a.bytes > limits.readBytes)
    return refusal(413, 'read_too_large', `this answer is about ${a.bytes} bytes; the relay sends at most ${limits.readBytes} in one`);
  const release = gate.enter(a.address);
  if (typeof release === 'string') return refusal(429, 'too_many_reads', release, { 'retry-after': '1' });
  return new Response(linesStream(a.store, a.game, a.upTo, limits.pageBytes, a.render, release, a.queue), {
    status: 200,
    headers: { 'content-type': 'application/jsonl; charset=utf-8' },
  });
}
