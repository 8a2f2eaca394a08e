/**
 * The shuffle's output distribution (docs/spec/deck.md §2.5): where each card lands is uniform.
 *
 * Two χ² tests of card positions:
 * - the permutation a shuffler draws (`randomPermutation`, Fisher–Yates over rejection-sampled integers),
 *   20,000 draws of a 52-card deck, on the whole 52 × 52 table of (card, position) counts;
 * - the deck itself: 4-card decks shuffled and proved under a joint key of two players, then opened with both
 *   secrets, so that the permutation, the re-encryption and the opening are all in the loop (few decks, as
 *   each shuffle is proved: this one is a check of the pipeline, the first one of the statistics).
 * Each statistic is compared with its 0.1 % critical value, and the first test also shows that the bound
 * catches the classic biased shuffle (each card swapped with any position), so the test can fail.
 */
import { describe, expect, it } from 'vitest';
import { RandomStream } from '../stream.js';
import { cardOf, decodeDeck, newDeck } from './elgamal.js';
import { mul, mulBase, pointFromHex, randomScalar, type DeckTable } from './group.js';
import { randomPermutation, shuffle, verifyShuffle } from './shuffle-proof.js';

const rng = (label: string) => {
  const s = new RandomStream(new Uint8Array(32).fill(7), label);
  return (n: number) => s.bytes(n);
};

/** χ² of a table of counts against the same expected count in every cell. */
function chiSquare(counts: readonly (readonly number[])[], expected: number): number {
  let x = 0;
  for (const row of counts) for (const c of row) x += (c - expected) ** 2 / expected;
  return x;
}

/** The upper 0.1 % point of χ² with `df` degrees of freedom (Wilson–Hilferty; within 1 % for df ≥ 9). */
function critical(df: number): number {
  const z = 3.0902; // the standard normal's 0.999 quantile
  return df * (1 - 2 / (9 * df) + z * Math.sqrt(2 / (9 * df))) ** 3;
}

/** Where each card ends: counts[card][position] over `draws` permutations (output i takes input p[i]). */
function tally(n: number, draws: number, draw: () => readonly number[]): number[][] {
  const counts = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let k = 0; k < draws; k++) draw().forEach((card, position) => counts[card]![position]!++);
  return counts;
}

describe("the shuffle's distribution", () => {
  it('a drawn permutation puts every card at every position equally often (χ², 52 × 52, 20,000 draws)', () => {
    const n = 52;
    const draws = 20_000;
    const random = rng('distribution/permutation');
    const counts = tally(n, draws, () => randomPermutation(n, random));
    // The rows and the columns each sum to the number of draws: (n − 1)² degrees of freedom.
    const bound = critical((n - 1) ** 2);
    expect(chiSquare(counts, draws / n)).toBeLessThan(bound);

    // The same statistic for the naive shuffle (swap card i with any position) is far above the bound.
    const biased = rng('distribution/biased');
    const naive = tally(n, draws, () => {
      const p = Array.from({ length: n }, (_, i) => i);
      for (let i = 0; i < n; i++) {
        const b = biased(4);
        const j = (((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0) % n;
        [p[i], p[j]] = [p[j]!, p[i]!];
      }
      return p;
    });
    expect(chiSquare(naive, draws / n)).toBeGreaterThan(bound);
  });

  it('a deck shuffled and proved, then opened with both secrets, is uniform (χ², 4 × 4, 60 decks)', () => {
    const n = 4;
    const decks = 60;
    const table: DeckTable = { game: 'distribution', players: ['alice', 'bob'] };
    const random = rng('distribution/deck');
    const secrets = [randomScalar(random), randomScalar(random)];
    const key = mulBase(secrets[0]! + secrets[1]!).toHex();
    let k = 0;
    const counts = tally(n, decks, () => {
      const input = newDeck(n);
      const { output, proof } = shuffle({ table, shuffler: 'alice', index: 0, key, input }, random);
      if (k++ % 10 === 0) expect(verifyShuffle({ table, shuffler: 'alice', index: 0, key, input, output }, proof)).toBe(true);
      // Opened with both secrets: M = B − (x₁ + x₂)·A.
      return decodeDeck(output).map((c) => {
        const card = cardOf(c.b.subtract(mul(c.a, secrets[0]! + secrets[1]!)), n);
        expect(card).not.toBeNull();
        return card!;
      });
    });
    expect(pointFromHex(key, 'key').is0()).toBe(false);
    expect(chiSquare(counts, decks / n)).toBeLessThan(critical((n - 1) ** 2));
  });
});
