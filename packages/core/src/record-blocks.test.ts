import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECORDS_PER_BLOCK, RecordBlocks } from './record-blocks.js';

describe('RecordBlocks: fixed-width records in blocks that are never copied', () => {
  it('keeps every record as written, for any width and any number of records', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(fc.uint8Array({ minLength: 40, maxLength: 40 }), { maxLength: 200 }), (width, records) => {
        const blocks = new RecordBlocks(width);
        records.forEach((r, i) => {
          const block = blocks.block(i);
          block.set(r.subarray(0, width), blocks.offset(i));
        });
        records.forEach((r, i) => {
          const at = blocks.offset(i);
          expect(Array.from(blocks.block(i).subarray(at, at + width))).toEqual(Array.from(r.subarray(0, width)));
        });
        expect(blocks.capacity).toBe(Math.ceil(records.length / RECORDS_PER_BLOCK) * RECORDS_PER_BLOCK);
      }),
    );
  });

  it('grows by adding a block: a block once handed out is the same array ever after', () => {
    const blocks = new RecordBlocks(33);
    expect(blocks.capacity).toBe(0);
    const first = blocks.block(0);
    first[0] = 7;
    const later = blocks.block(5 * RECORDS_PER_BLOCK);
    expect(blocks.capacity).toBe(6 * RECORDS_PER_BLOCK);
    expect(blocks.block(RECORDS_PER_BLOCK - 1)).toBe(first);
    expect(first[0]).toBe(7);
    expect(later).not.toBe(first);
    expect(later.length).toBe(33 * RECORDS_PER_BLOCK);
    expect(blocks.offset(RECORDS_PER_BLOCK + 2)).toBe(2 * 33);
  });
});
