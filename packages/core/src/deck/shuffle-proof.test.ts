/** The proof of a shuffle (docs/spec/deck.md §5): honest shuffles verify; a wrong shuffle, or a proof for other inputs, does not. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RandomStream } from '../stream.js';
import { newDeck, type Ciphertext } from './elgamal.js';
import { mulBase, randomScalar, type DeckTable } from './group.js';
import { proveShuffle, shuffle, verifyShuffle, type ShuffleProof, type ShuffleStatement } from './shuffle-proof.js';

const rng = (seed: number) => {
  const s = new RandomStream(new Uint8Array(32).fill(seed), 'deck-test');
  return (n: number) => s.bytes(n);
};
const table: DeckTable = { game: 'g1', players: ['alice', 'bob', 'carol'] };

function setup(size: number, seed: number) {
  const random = rng(seed);
  const key = mulBase(randomScalar(random)).toHex();
  const base = { table, shuffler: 'bob', index: 0, key, input: newDeck(size) };
  const { output, proof } = shuffle(base, random);
  return { random, base, output, proof, st: { ...base, output } as ShuffleStatement };
}

describe('proof of a shuffle', () => {
  it('an honest shuffle verifies, and its output is not its input', () => {
    const { st, proof, output } = setup(8, 1);
    expect(verifyShuffle(st, proof)).toBe(true);
    expect(output.map((c) => c.b)).not.toEqual(st.input.map((c) => c.b));
  });

  it('honest shuffles always verify; any single tampered ciphertext fails (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 7 }), fc.integer({ min: 1, max: 255 }), fc.nat(), fc.boolean(), (size, seed, pick, half) => {
        const { st, proof, output, random } = setup(size, seed);
        expect(verifyShuffle(st, proof)).toBe(true);
        const i = pick % size;
        const other = mulBase(randomScalar(random));
        const tampered: Ciphertext[] = output.map((c, k) => (k !== i ? c : half ? { a: c.a, b: other.toHex() } : { a: other.toHex(), b: c.b }));
        expect(verifyShuffle({ ...st, output: tampered }, proof)).toBe(false);
      }),
      { numRuns: 8 },
    );
  });

  it('a card substituted or duplicated, even re-encrypted honestly, fails', () => {
    const random = rng(5);
    const key = mulBase(randomScalar(random)).toHex();
    const input = newDeck(6);
    // The cheat: card 0 twice and card 1 gone; the "permutation" is not one, so the prover refuses it…
    expect(() => proveShuffle({ table, shuffler: 'bob', index: 0, key, input }, [0, 0, 2, 3, 4, 5], [1n, 2n, 3n, 4n, 5n, 6n], random)).toThrow();
    // …and a proof of an honest shuffle does not cover a deck where one card was swapped for a copy of another.
    const base = { table, shuffler: 'bob', index: 0, key, input };
    const { output, proof } = proveShuffle(base, [5, 4, 3, 2, 1, 0], [1n, 2n, 3n, 4n, 5n, 6n], random);
    const duplicated = output.map((c, i) => (i === 1 ? output[0]! : c));
    expect(verifyShuffle({ ...base, output: duplicated }, proof)).toBe(false);
    // Two positions swapped after proving (a different permutation than the one proved).
    const swapped = output.map((c, i) => (i === 0 ? output[1]! : i === 1 ? output[0]! : c));
    expect(verifyShuffle({ ...base, output: swapped }, proof)).toBe(false);
  });

  it('strong Fiat–Shamir: a proof replayed for another deck, seat, shuffle index, key or game fails', () => {
    const { st, proof, random } = setup(6, 7);
    expect(verifyShuffle(st, proof)).toBe(true);
    expect(verifyShuffle({ ...st, shuffler: 'carol' }, proof)).toBe(false);
    expect(verifyShuffle({ ...st, index: 1 }, proof)).toBe(false);
    expect(verifyShuffle({ ...st, table: { ...table, game: 'g2' } }, proof)).toBe(false);
    expect(verifyShuffle({ ...st, key: mulBase(randomScalar(random)).toHex() }, proof)).toBe(false);
    const otherInput = shuffle({ ...st, input: st.input }, random).output;
    expect(verifyShuffle({ ...st, input: otherInput }, proof)).toBe(false);
  });

  it('unvalidated parameters: a ciphertext or key that is not a canonical group element fails', () => {
    const { st, proof } = setup(4, 13);
    const bad = 'ff'.repeat(32);
    expect(verifyShuffle({ ...st, output: [{ a: bad, b: st.output[0]!.b }, ...st.output.slice(1)] }, proof)).toBe(false);
    expect(verifyShuffle({ ...st, key: bad }, proof)).toBe(false);
    // A small-order Edwards point's encoding is not a ristretto255 element either.
    const torsion = '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05';
    expect(verifyShuffle({ ...st, output: [{ a: st.output[0]!.a, b: torsion }, ...st.output.slice(1)] }, proof)).toBe(false);
  });

  it('every field of the proof matters: changing any one fails', () => {
    const { st, proof, random } = setup(4, 9);
    const p = mulBase(randomScalar(random)).toHex();
    const s = 'ab'.repeat(16) + '00'.repeat(16);
    const fields: ShuffleProof[] = [
      { ...proof, commitments: [p, ...proof.commitments.slice(1)] },
      { ...proof, chain: [...proof.chain.slice(0, 3), p] },
      { ...proof, t1: p },
      { ...proof, t2: p },
      { ...proof, t3: p },
      { ...proof, t4a: p },
      { ...proof, t4b: p },
      { ...proof, tHat: [proof.tHat[0]!, p, ...proof.tHat.slice(2)] },
      { ...proof, s1: s },
      { ...proof, s2: s },
      { ...proof, s3: s },
      { ...proof, s4: s },
      { ...proof, sHat: [s, ...proof.sHat.slice(1)] },
      { ...proof, sPrime: [...proof.sPrime.slice(0, 3), s] },
      { ...proof, sPrime: proof.sPrime.slice(1) },
      { ...proof, t1: 'zz' },
      { ...proof, s1: 'ff'.repeat(32) },
    ];
    for (const f of fields) expect(verifyShuffle(st, f)).toBe(false);
  });
});
