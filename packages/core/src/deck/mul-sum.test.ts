/** Σ k_i·P_i for the prover's secret scalars (group.ts `mulSum`): the same point as one multiplication at a time. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RandomStream } from '../stream.js';
import { Fn, ZERO, labelPoint, mul, mulBase, mulSum, randomScalar } from './group.js';

const rng = (seed: number) => {
  const s = new RandomStream(new Uint8Array(32).fill(seed), 'mul-sum-test');
  return (n: number) => s.bytes(n);
};
const oneByOne = (points: ReturnType<typeof mulBase>[], ks: bigint[]) => points.reduce((acc, p, i) => acc.add(mul(p, ks[i]!)), ZERO);

describe('a sum of multiplications by secret scalars', () => {
  it('equals the multiplications one at a time, for random points and scalars (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 255 }), (n, seed) => {
        const random = rng(seed);
        const points = Array.from({ length: n }, () => mulBase(randomScalar(random)));
        const ks = points.map(() => randomScalar(random));
        expect(mulSum(points, ks).equals(oneByOne(points, ks))).toBe(true);
      }),
      { numRuns: 20 },
    );
  });

  it('edge scalars: 0, 1, ℓ − 1, ℓ, 2^252, 15, 16, every digit 15; and the identity among the points', () => {
    const random = rng(7);
    const ks = [0n, 1n, Fn.ORDER - 1n, Fn.ORDER, 1n << 252n, 15n, 16n, (1n << 252n) - 1n];
    const points = ks.map((_, i) => (i === 3 ? ZERO : labelPoint(`mul-sum-test/${i}`)));
    expect(mulSum(points, ks).equals(oneByOne(points, ks))).toBe(true);
    for (let i = 0; i < ks.length; i++) expect(mulSum([points[i]!], [ks[i]!]).equals(mul(points[i]!, ks[i]!))).toBe(true);
    expect(mulSum([], []).is0()).toBe(true);
    expect(() => mulSum([mulBase(randomScalar(random))], [])).toThrow(/as many scalars as points/);
  });
});
