/**
 * The relay's intake (docs/spec/relay.md, "The pipeline"): what happens to a submitted line between its frame and its
 * game's door. Lines of one game reach the door strictly in the order they arrived, as if each were
 * admitted the moment it came; only the reading of the line moves, to the verifying threads, and runs for
 * many lines (of many games) at once. The event loop does not parse the line: a thread parses it once
 * (`readSubmitted`), and spares the signature check for what no door would take:
 * - a line that is not an envelope is refused `malformed` (a line over the door's length goes to the
 *   door as it is, unread, and is refused `too_long`);
 * - an envelope from another player than the connection's is refused `not_your_seat` by the door's own
 *   rule, unverified;
 * - an envelope whose `seq` is beyond its author's next, counting the author's lines still waiting in
 *   the intake, is refused `bad_position` unverified (the door could only refuse it later).
 * Everything else is hashed and verified there, then judged by the door's full rule (`Door.admitPrepared`)
 * on the header the thread read. A line the pool cannot answer for is read here, the same way.
 */
import { MAX_LINE_LENGTH, type Admission, type Door } from '@fairtable/core/door.js';
import type { Envelope } from '@fairtable/core/envelope.js';
import { nativeVerify } from '@fairtable/node/native-verify.js';
import { readSubmitted, type Read } from './read-submitted.js';
import type { VerifyPool } from './verify-pool.js';

interface Item<C> {
  readonly conn: C;
  readonly who: string;
  readonly text: string;
  /** The largest `seq` its envelope can have (`readSubmitted`); -1 for a line the door reads itself. */
  readonly next: number;
  ready: boolean;
  /** The reading; null when the door reads the line itself. */
  read: Read | null;
}

/**
 * A game's lines in the intake. It stays with its door while the door lives (a WeakMap), and its author
 * counts stay at zero rather than being deleted: with a line a game at a time, the queue and its map were
 * otherwise made and dropped for every line.
 */
interface Queue<C> {
  readonly items: Item<C>[];
  /** Lines of each author waiting in this queue. */
  readonly waitingBy: Map<string, number>;
}

export class Intake<C> {
  private readonly queues = new WeakMap<Door, Queue<C>>();
  private waitingLines = 0;
  private idle: (() => void)[] = [];
  private readonly keyHex = new WeakMap<Uint8Array, string>();

  constructor(
    private readonly pool: VerifyPool | null,
    /** The door's answer for each line, in arrival order per game. */
    private readonly onAdmission: (conn: C, text: string, admission: Admission) => void,
  ) {}

  /** Lines taken and not yet through their door. */
  get waiting(): number {
    return this.waitingLines;
  }

  /** Resolves once every line taken so far has been through its door. */
  drained(): Promise<void> {
    return this.waitingLines === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }

  /** Takes `text`, submitted over `who`'s connection `conn` to the game behind `door`. */
  submit(door: Door, conn: C, who: string, text: string): void {
    let q = this.queues.get(door);
    if (q === undefined) {
      q = { items: [], waitingBy: new Map() };
      this.queues.set(door, q);
    }
    this.waitingLines++;
    const key = door.checker.keys.get(who);
    if (text.length > MAX_LINE_LENGTH || key === undefined) {
      q.items.push({ conn, who, text, next: -1, ready: true, read: null });
      return this.drain(door, q);
    }
    const waiting = q.waitingBy.get(who) ?? 0;
    q.waitingBy.set(who, waiting + 1);
    const item: Item<C> = { conn, who, text, next: door.checker.authorPosition(who)!.count + waiting, ready: false, read: null };
    q.items.push(item);
    const done = (read: Read | null): void => {
      item.read = read ?? readSubmitted(text, who, key, item.next, nativeVerify);
      item.ready = true;
      this.drain(door, q);
    };
    if (this.pool === null) done(null);
    else this.pool.request(text, who, this.hexOf(key), item.next, done);
  }

  private hexOf(key: Uint8Array): string {
    let hex = this.keyHex.get(key);
    if (hex === undefined) {
      hex = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('hex');
      this.keyHex.set(key, hex);
    }
    return hex;
  }

  /** Takes lines through the door from the head of the game's queue for as long as they are ready. */
  private drain(door: Door, q: Queue<C>): void {
    // A line answered while an earlier one of its game still waits is taken when that one is.
    let n = 0;
    while (n < q.items.length && q.items[n]!.ready) n++;
    if (n === 0) return;
    // Taken off the queue before any is admitted, so a line the admissions add waits its turn behind them.
    // (One line, the usual case, without an array for it.)
    const items = q.items;
    if (n === 1) {
      const item = items.shift()!;
      this.take(door, q, item);
    } else {
      const taken = items.splice(0, n);
      for (const item of taken) this.take(door, q, item);
    }
    if (this.waitingLines === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** Takes `item` through its door, and tells of the door's answer. */
  private take(door: Door, q: Queue<C>, item: Item<C>): void {
    if (item.next >= 0) q.waitingBy.set(item.who, q.waitingBy.get(item.who)! - 1);
    this.waitingLines--;
    this.onAdmission(item.conn, item.text, item.read === null ? door.admit(item.text, item.who) : judge(door, item, item.read));
  }
}

/** The door's answer to a line read by `readSubmitted`. */
function judge<C>(door: Door, { text, who, next }: Item<C>, read: Read): Admission {
  switch (read.kind) {
    case 'malformed':
      return door.admitPrepared({ text, envelope: null, shapeError: read.shapeError, hash: null, sigOk: false }, who);
    case 'other':
      // The door's own rule, which reads only the author.
      return door.admitPrepared({ text, envelope: { from: read.from } as Envelope, shapeError: null, hash: null, sigOk: false }, who);
    case 'ahead':
      return {
        ok: false,
        code: 'bad_position',
        player: who,
        message: `${who}'s envelope #${read.seq} comes before its envelope #${next}`,
        evidence: [{ note: text.slice(0, 200) }],
      };
    case 'read': {
      // The envelope as the door's rule reads it: every member but the body's content and the signature,
      // whose verdict is `sigOk`.
      const h = read.header;
      const envelope: Envelope = {
        v: 1,
        game: h.game,
        from: h.from,
        seq: h.seq,
        prev: h.prev,
        at: h.at,
        head: h.head,
        time: h.time,
        // A newcomer line makes an author (docs/SPEC.md §4.6), which the door reads from the body's `newcomer`
        // member: the reading kept that body whole (read-submitted.ts).
        body: h.body ?? { type: h.type },
        sig: '',
      };
      return door.admitPrepared({ text, envelope, shapeError: null, hash: read.hash, sigOk: read.sigOk }, who);
    }
  }
}
