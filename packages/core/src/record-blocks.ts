/**
 * Fixed-width byte records kept in blocks of 32 that are added as records come and never copied: the
 * storage under a checker's ring of line hashes (hash-ring.ts) and its per-author records (transcript.ts).
 *
 * Why blocks and not one array grown by doubling (docs/spec/relay.md, "Nothing a line needs outlives it in
 * the old generation", cause 5): a typed array's bytes live outside V8's heap, and V8 counts the outside
 * bytes allocated since its last major collection against the old generation's headroom. A doubling array
 * allocates twice what it keeps, and the copy it leaves behind is garbage that only a major collection
 * frees; an orderer holds such arrays for every game, and games that move together double together. Blocks
 * allocate only what is kept, a little at a time, and leave nothing behind.
 */

const SHIFT = 5;
/** Records in a block. */
export const RECORDS_PER_BLOCK = 1 << SHIFT;
const MASK = RECORDS_PER_BLOCK - 1;

export class RecordBlocks {
  private readonly blocks: Uint8Array[] = [];

  /** `width`: the bytes of one record. */
  constructor(readonly width: number) {}

  /** Records that fit in the blocks allocated so far. */
  get capacity(): number {
    return this.blocks.length << SHIFT;
  }

  /**
   * The block that holds record `index`, allocating blocks up to it if need be (zero-filled): read and
   * write the record at `offset(index)` in it.
   */
  block(index: number): Uint8Array {
    while (index >= this.capacity) this.blocks.push(new Uint8Array(RECORDS_PER_BLOCK * this.width));
    return this.blocks[index >>> SHIFT]!;
  }

  /** Where record `index` starts in its block. */
  offset(index: number): number {
    return (index & MASK) * this.width;
  }
}
