/**
 * The relay's intake (docs/spec/relay.md, "The pipeline"): what happens to a submitted line between its frame and its
 * game's door. Lines of one game reach the door strictly in the order they arrived, as if each were
 * admitted the moment it came; only the signature check moves, to the verifying threads, and runs for
 * many lines (of many games) at once. The cheap checks come first, on the event loop, and spare the
 * threads what no door would take:
 * - a line over the door's length, or one that is not an envelope at all, goes to the door as it is
 *   (the door refuses it unread, with no signature check);
 * - an envelope from another player than the connection's is refused `not_your_seat` by the door's own
 *   rule, unverified;
 * - an envelope whose `seq` is beyond its author's next, counting the author's lines still waiting in
 *   the intake, is refused `bad_position` unverified (the door could only refuse it later).
 * Everything else is read, hashed and verified by the pool, then judged by the door's full rule
 * (`Door.admitPrepared`). A line the pool cannot answer for is verified here (`Door.admit`).
 */
import { MAX_LINE_LENGTH, type Admission, type Door } from '@fairtable/core/door.js';
import { envelopeShapeError, type Envelope } from '@fairtable/core/envelope.js';
import type { Read, VerifyPool } from './verify-pool.js';

interface Item<C> {
  readonly conn: C;
  readonly who: string;
  readonly text: string;
  readonly envelope: Envelope | null;
  /** Counted among its author's waiting lines (it went to the pool). */
  readonly counted: boolean;
  ready: boolean;
  /** The pool's reading; null when the door reads the line itself. */
  read: Read | null;
  /** A refusal decided by the cheap checks. */
  refusal: Admission | null;
}

interface Queue<C> {
  readonly items: Item<C>[];
  /** Lines of each author waiting in this queue that went to the pool. */
  readonly waitingBy: Map<string, number>;
}

export class Intake<C> {
  private readonly queues = new Map<Door, Queue<C>>();
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
    const item: Item<C> = { conn, who, text, envelope: null, counted: false, ready: true, read: null, refusal: null };
    this.waitingLines++;
    q.items.push(item);
    const envelope = text.length > MAX_LINE_LENGTH ? null : parse(text);
    const key = envelope === null ? undefined : door.checker.keys.get(envelope.from);
    if (envelope === null || key === undefined) return this.drain(door, q);
    (item as { envelope: Envelope }).envelope = envelope;
    if (envelope.from !== who) {
      // The door's own rule, which needs neither the signature nor the hash.
      item.read = { hash: null, sigOk: false, shapeError: null };
      return this.drain(door, q);
    }
    const waiting = q.waitingBy.get(who) ?? 0;
    const next = door.checker.authorPosition(who)!.count + waiting;
    if (envelope.seq > next) {
      item.refusal = {
        ok: false,
        code: 'bad_position',
        player: who,
        message: `${who}'s envelope #${envelope.seq} comes before its envelope #${next}`,
        evidence: [{ note: text.slice(0, 200) }],
      };
      return this.drain(door, q);
    }
    if (this.pool === null || this.pool.size === 0) return this.drain(door, q);
    (item as { counted: boolean }).counted = true;
    q.waitingBy.set(who, waiting + 1);
    item.ready = false;
    this.pool.request(text, who, this.hexOf(key), (read) => {
      item.read = read;
      item.ready = true;
      this.drain(door, q);
    });
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
    const taken = q.items.splice(0, n);
    if (q.items.length === 0) this.queues.delete(door);
    for (const item of taken) {
      if (item.counted) {
        const left = q.waitingBy.get(item.who)! - 1;
        if (left === 0) q.waitingBy.delete(item.who);
        else q.waitingBy.set(item.who, left);
      }
      let admission: Admission;
      if (item.refusal !== null) admission = item.refusal;
      else if (item.read !== null) {
        const { read, envelope, text, who } = item;
        admission = door.admitPrepared(
          { text, envelope: read.shapeError === null ? envelope : null, shapeError: read.shapeError, hash: read.hash, sigOk: read.sigOk },
          who,
        );
      } else admission = door.admit(item.text, item.who);
      this.waitingLines--;
      this.onAdmission(item.conn, item.text, admission);
    }
    if (this.waitingLines === 0) for (const resolve of this.idle.splice(0)) resolve();
  }
}

/** The envelope in `text`, or null when it is not one (the door then says why). */
function parse(text: string): Envelope | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return envelopeShapeError(value) === null ? (value as Envelope) : null;
}
