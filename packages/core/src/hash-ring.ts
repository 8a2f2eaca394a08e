/**
 * The last `window` line hashes of a log, as bytes (docs/SPEC.md §4.2, the checked window): what a checker
 * holds to test each envelope's `head` against the log. Slot `line % window`; a line that is not an
 * envelope has no hash (null).
 *
 * Bytes, not strings: an orderer holds one checker per game, and a ring of hex strings was one string
 * object of 80 bytes (and an 8-byte slot) per line that lived as long as the game did, all of it for V8 to
 * mark at every major collection and each line of it added to the old generation. Here a line costs 33
 * bytes (its hash and a flag) in blocks added as lines come (record-blocks.ts: a short game costs one
 * block, not the whole window, and growing copies nothing), and nothing for the collector to trace. A hash
 * is written out as hex again only when it is read.
 */
import { FairtableError } from './errors.js';
import { hexInto, isHex, toHex } from './bytes.js';
import { RecordBlocks } from './record-blocks.js';

const HASH_BYTES = 32;

export class HashRing {
  /** Slots in use: the ring grows as lines come (a line's slot is written before it is read) and wraps once full. */
  private used = 0;
  /** A slot's record: its hash, then 1 where the slot holds a hash, 0 where its line had none. */
  private readonly slots = new RecordBlocks(HASH_BYTES + 1);

  constructor(readonly window: number) {
    if (!Number.isSafeInteger(window) || window < 1) throw new FairtableError('bad_input', `a checked window of ${window} lines`, { field: 'window' });
  }

  /** Slots written so far (at most `window`). */
  get size(): number {
    return this.used;
  }

  /** Records `hash` (64 lowercase hex digits, or null) as the hash of `line`. Lines come in order: `line % window` is at most the slots in use. */
  set(line: number, hash: string | null): void {
    const slot = line % this.window;
    if (slot > this.used) throw new FairtableError('bad_input', `line ${line} skips slots of the ring (${this.used} in use)`);
    if (hash !== null && !isHex(hash, HASH_BYTES)) throw new FairtableError('bad_hex', 'a line hash that is not 64 lowercase hex digits', { field: 'hash' });
    const block = this.slots.block(slot);
    const at = this.slots.offset(slot);
    if (hash === null) block[at + HASH_BYTES] = 0;
    else {
      hexInto(hash, block, at, 'hash');
      block[at + HASH_BYTES] = 1;
    }
    if (slot === this.used) this.used++;
  }

  /** The hash recorded in `line`'s slot (the caller knows the line is still in the window), or null. */
  get(line: number): string | null {
    const slot = line % this.window;
    return slot >= this.used ? null : this.read(slot);
  }

  /** Every slot in use, in slot order (a checker snapshot's `ring`). */
  toArray(): (string | null)[] {
    const out: (string | null)[] = [];
    for (let slot = 0; slot < this.used; slot++) out.push(this.read(slot));
    return out;
  }

  private read(slot: number): string | null {
    const block = this.slots.block(slot);
    const at = this.slots.offset(slot);
    return block[at + HASH_BYTES] === 0 ? null : toHex(block.subarray(at, at + HASH_BYTES));
  }
}
