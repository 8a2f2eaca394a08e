/**
 * The last `window` line hashes of a log, as bytes (docs/SPEC.md §4.2, the checked window): what a checker
 * holds to test each envelope's `head` against the log. Slot `line % window`; a line that is not an
 * envelope has no hash (null).
 *
 * Bytes, not strings: an orderer holds one checker per game, and a ring of hex strings was one string
 * object of 80 bytes (and an 8-byte slot) per line that lived as long as the game did, all of it for V8 to
 * mark at every major collection and each line of it added to the old generation. Here a line costs 32
 * bytes and one flag in two arrays that grow by doubling (a short game costs a few slots, not the whole
 * window), and nothing for the collector to trace. A hash is written out as hex again only when it is
 * read.
 */
import { FairtableError } from './errors.js';
import { hexInto, isHex, toHex } from './bytes.js';

const HASH_BYTES = 32;

export class HashRing {
  /** Slots in use: the ring grows as lines come (a line's slot is written before it is read) and wraps once full. */
  private used = 0;
  private bytes: Uint8Array;
  /** 1 where the slot holds a hash, 0 where its line had none. */
  private known: Uint8Array;

  constructor(readonly window: number) {
    if (!Number.isSafeInteger(window) || window < 1) throw new FairtableError('bad_input', `a checked window of ${window} lines`, { field: 'window' });
    const first = Math.min(window, 16);
    this.bytes = new Uint8Array(first * HASH_BYTES);
    this.known = new Uint8Array(first);
  }

  /** Slots written so far (at most `window`). */
  get size(): number {
    return this.used;
  }

  /** Records `hash` (64 lowercase hex digits, or null) as the hash of `line`. Lines come in order: `line % window` is at most the slots in use. */
  set(line: number, hash: string | null): void {
    const slot = line % this.window;
    if (slot > this.used) throw new FairtableError('bad_input', `line ${line} skips slots of the ring (${this.used} in use)`);
    if (slot >= this.known.length) this.grow();
    if (hash === null) this.known[slot] = 0;
    else {
      if (!isHex(hash, HASH_BYTES)) throw new FairtableError('bad_hex', 'a line hash that is not 64 lowercase hex digits', { field: 'hash' });
      hexInto(hash, this.bytes, slot * HASH_BYTES, 'hash');
      this.known[slot] = 1;
    }
    if (slot === this.used) this.used++;
  }

  /** The hash recorded in `line`'s slot (the caller knows the line is still in the window), or null. */
  get(line: number): string | null {
    const slot = line % this.window;
    if (slot >= this.used || this.known[slot] === 0) return null;
    return toHex(this.bytes.subarray(slot * HASH_BYTES, (slot + 1) * HASH_BYTES));
  }

  /** Every slot in use, in slot order (a checker snapshot's `ring`). */
  toArray(): (string | null)[] {
    const out: (string | null)[] = [];
    for (let slot = 0; slot < this.used; slot++)
      out.push(this.known[slot] === 0 ? null : toHex(this.bytes.subarray(slot * HASH_BYTES, (slot + 1) * HASH_BYTES)));
    return out;
  }

  private grow(): void {
    const slots = Math.min(this.window, this.known.length * 2);
    const bytes = new Uint8Array(slots * HASH_BYTES);
    bytes.set(this.bytes);
    const known = new Uint8Array(slots);
    known.set(this.known);
    this.bytes = bytes;
    this.known = known;
  }
}
