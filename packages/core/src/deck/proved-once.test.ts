/**
 * A simulation's keeper of deck proofs (proved-once.ts): a proof made with a keeper is the very proof made without
 * one, from the same random source left at the same place; the same inputs and draws are proved once; other
 * draws or another statement are proved afresh; what a caller changes in its copy changes nothing kept.
 */
import { describe, expect, it } from 'vitest';
import { RandomStream } from '../stream.js';
import { decryptionShare } from './decrypt.js';
import { newDeck } from './elgamal.js';
import { mulBase, randomScalar, scalarHex, type DeckTable } from './group.js';
import { provedOnce, replayOnce } from './proved-once.js';
import { shuffle, verifyShuffle } from './shuffle-proof.js';
import { backUpKey, standInShare } from './threshold.js';
import { generateKeyPair } from '../identity.js';

const rng = (seed: number) => {
  const s = new RandomStream(new Uint8Array(32).fill(seed), 'proved-once-test');
  return (n: number) => s.bytes(n);
};
const table: DeckTable = { game: 'g1', players: ['alice', 'bob', 'carol'] };

/** A keeper that counts the proofs it had to make. */
function counted(limit = 16): { kept: ReturnType<typeof provedOnce>; made: () => number } {
  const inner = provedOnce(limit);
  let made = 0;
  return {
    kept: (inputs, prove) =>
      inner(inputs, () => {
        made++;
        return prove();
      }),
    made: () => made,
  };
}

describe('a keeper of deck proofs', () => {
  const secret = randomScalar(rng(1));
  const key = mulBase(secret).toHex();
  const st = { table, shuffler: 'bob', index: 0, key, input: newDeck(6) };

  it('a shuffle made with a keeper is the one made without, and leaves the random source where it would stand', () => {
    const plain = rng(2);
    const withKeeper = rng(2);
    const { kept, made } = counted();
    const a = shuffle(st, plain);
    const b = shuffle(st, withKeeper, kept);
    expect(b).toEqual(a);
    expect(withKeeper(16)).toEqual(plain(16));
    expect(verifyShuffle({ ...st, output: b.output }, b.proof)).toBe(true);
    expect(made()).toBe(1);
  });

  it('the same statement and draws are proved once; other draws, or another statement, afresh', () => {
    const { kept, made } = counted();
    const first = shuffle(st, rng(3), kept);
    const again = shuffle(st, rng(3), kept);
    expect(made()).toBe(1);
    expect(again).toEqual(first);
    const otherDraws = shuffle(st, rng(4), kept);
    expect(made()).toBe(2);
    expect(otherDraws.proof).not.toEqual(first.proof);
    // The same permutation and re-encryption (the first 11 draws: 5 for the permutation, 6 for ρ), other nonces.
    const spliced = (() => {
      const a = rng(3);
      const b = rng(4);
      let calls = 0;
      return (n: number) => (calls++ < 11 ? a(n) : b(n));
    })();
    const otherNonces = shuffle(st, spliced, kept);
    expect(made()).toBe(3);
    expect(otherNonces.proof.s1).not.toEqual(first.proof.s1);
    expect(verifyShuffle({ ...st, output: otherNonces.output }, otherNonces.proof)).toBe(true);
    const otherSeat = shuffle({ ...st, shuffler: 'carol' }, rng(3), kept);
    expect(made()).toBe(4);
    expect(verifyShuffle({ ...st, shuffler: 'carol', output: otherSeat.output }, otherSeat.proof)).toBe(true);
    expect(verifyShuffle({ ...st, shuffler: 'carol', output: first.output }, first.proof)).toBe(false);
  });

  it('a caller that changes its copy changes nothing kept', () => {
    const { kept } = counted();
    const first = shuffle(st, rng(5), kept);
    const original = structuredClone(first);
    (first.output[0] as { a: string }).a = 'changed';
    (first.proof.chain as string[]).length = 0;
    expect(shuffle(st, rng(5), kept)).toEqual(original);
  });

  it('decryption and stand-in shares: the same bytes as without a keeper, made once per draws', () => {
    const card = shuffle(st, rng(6)).output[2]!;
    const { kept, made } = counted();
    const plain = decryptionShare(table, 'alice', secret, 2, card, rng(7));
    const r = rng(7);
    expect(decryptionShare(table, 'alice', secret, 2, card, r, kept)).toEqual(plain);
    const after = rng(7);
    after(32);
    expect(r(8)).toEqual(after(8));
    expect(decryptionShare(table, 'alice', secret, 2, card, rng(7), kept)).toEqual(plain);
    expect(made()).toBe(1);
    expect(decryptionShare(table, 'alice', secret, 3, card, rng(7), kept).position).toBe(3);
    expect(made()).toBe(2);

    const keys = table.players.map((_p) => generateKeyPair(rng(20 + table.players.indexOf(_p))(32)).publicKey);
    const backup = backUpKey(table, 'alice', secret, 2, keys, rng(9));
    const held = scalarHex(randomScalar(rng(11)));
    const stand = standInShare(table, backup, 'bob', held, 2, card, rng(10));
    expect(standInShare(table, backup, 'bob', held, 2, card, rng(10), kept)).toEqual(stand);
    expect(standInShare(table, backup, 'bob', held, 2, card, rng(10), kept)).toEqual(stand);
    expect(made()).toBe(3);
  });

  it('the bytes drawn before asking are given once, to a call for their length', () => {
    const replay = replayOnce(new Uint8Array(32).fill(1));
    expect(() => replay(16)).toThrow(/32 bytes were drawn, 16 asked/);
    expect(replay(32)).toEqual(new Uint8Array(32).fill(1));
    expect(() => replay(32)).toThrow();
  });
});
