/**
 * Group commit (batch-writer.ts): one append at a time, the lines that arrive meanwhile in the next, in order,
 * and never more than `maxBatch` lines in one append.
 */
import { describe, expect, it } from 'vitest';
import { BatchWriter } from './batch-writer.js';

function writer(maxBatch?: number) {
  const appends: number[][] = [];
  const committed: number[] = [];
  let release: (() => void) | null = null;
  const w = new BatchWriter<number>(
    (batch) => {
      appends.push([...batch]);
      return new Promise<void>((resolve) => (release = resolve));
    },
    (batch) => committed.push(...batch),
    (e) => {
      throw e;
    },
    maxBatch,
  );
  const step = async (): Promise<void> => {
    await new Promise((r) => setImmediate(r));
    const r = release as (() => void) | null;
    release = null;
    r?.();
    await new Promise((r) => setImmediate(r));
  };
  return { w, appends, committed, step };
}

describe('BatchWriter', () => {
  it('gives the lines added while an append runs to the next append, in order', async () => {
    const { w, appends, committed, step } = writer();
    w.add(1);
    await step();
    for (const n of [2, 3, 4]) w.add(n);
    await step();
    await step();
    await w.flush();
    expect(appends).toEqual([[1], [2, 3, 4]]);
    expect(committed).toEqual([1, 2, 3, 4]);
  });

  it('gives one append at most maxBatch lines, and the rest to the next ones, in order', async () => {
    const { w, appends, committed, step } = writer(3);
    for (let n = 1; n <= 8; n++) w.add(n);
    for (let i = 0; i < 5; i++) await step();
    await w.flush();
    expect(appends).toEqual([
      [1, 2, 3],
      [4, 5, 6],
      [7, 8],
    ]);
    expect(committed).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
