import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { RandomStream, streamBytes } from './stream.js';
import { fromHex, toHex } from './bytes.js';

const vectorsPath = fileURLToPath(new URL('./vectors/stream.json', import.meta.url));
const vectors = JSON.parse(readFileSync(vectorsPath, 'utf8')) as { cases: Record<string, unknown>[] };
const checker = fileURLToPath(new URL('../../../test/python/stream_check.py', import.meta.url));

describe('random stream', () => {
  it('matches its vectors', () => {
    for (const c of vectors.cases) {
      const seed = fromHex(c.seed as string);
      const label = c.label as string;
      expect(toHex(streamBytes(seed, label, 64))).toBe(c.bytes64);
      const r = new RandomStream(seed, label);
      expect(Array.from({ length: 20 }, () => r.below(6))).toEqual(c.below6);
      const s = new RandomStream(seed, label);
      expect(s.shuffle(Array.from({ length: 10 }, (_, i) => i))).toEqual(c.shuffle10);
    }
  });

  it('is reproduced by the independent Python verifier, from the spec alone', () => {
    const run = spawnSync('python3', [checker, vectorsPath], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n').filter((l) => l.includes('ok')).length).toBe(vectors.cases.length);
    // And on inputs the vectors file does not hold:
    const seed = 'ab'.repeat(32);
    const py = spawnSync('python3', [checker, '--below', '1000003', '--seed', seed, '--label', 'fresh', '--count', '50'], { encoding: 'utf8' });
    const r = new RandomStream(fromHex(seed), 'fresh');
    expect(py.stdout.trim().split('\n').map(Number)).toEqual(Array.from({ length: 50 }, () => r.below(1000003)));
  });

  it('keeps below(n) in range and refuses bad n', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.integer({ min: 1, max: 2 ** 53 }), (seed, n) => {
        const v = new RandomStream(seed, 't').below(n);
        return Number.isInteger(v) && v >= 0 && v < n;
      }),
      { numRuns: 1000 },
    );
    const r = new RandomStream(new Uint8Array(32), 'x');
    for (const bad of [0, -1, 1.5, 2 ** 53 + 2, NaN]) expect(() => r.below(bad)).toThrow(/below/);
    expect(() => new RandomStream(new Uint8Array(31), 'x')).toThrow(/32 bytes/);
  });

  it('gives fair dice: chi-square of 60,000 d6 rolls under the 0.1% critical value', () => {
    const r = new RandomStream(fromHex('5a'.repeat(32)), 'chi-square');
    const counts = new Array<number>(6).fill(0);
    const n = 60_000;
    for (let i = 0; i < n; i++) counts[r.die(6) - 1]!++;
    const expected = n / 6;
    const chi2 = counts.reduce((a, c) => a + (c - expected) ** 2 / expected, 0);
    // 5 degrees of freedom: P(chi2 > 20.52) = 0.001. A modulo-biased or stuck die fails this by far.
    expect(chi2).toBeLessThan(20.52);
    // Also uniform over a non-power-of-two range where modulo bias would show: below(3·2^30).
    const big = 3 * 2 ** 30;
    const thirds = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) thirds[Math.floor(r.below(big) / 2 ** 30)]!++;
    const e3 = 10_000;
    expect(thirds.reduce((a, c) => a + (c - e3) ** 2 / e3, 0)).toBeLessThan(13.82);
  });
});
