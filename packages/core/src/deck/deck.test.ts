/**
 * A hand with a deck nobody controls (docs/spec/deck.md): key shares, shuffles by every player in turn,
 * cards dealt privately and face up, cards played from a hand, and a cheater at each step caught and named.
 * Honest players are never named.
 */
import { describe, expect, it } from 'vitest';
import { RandomStream } from '../stream.js';
import type { Violation } from '../errors.js';
import { combineKeyShares, keyShareValid, makeKeyShare, type KeyShare } from './joint-key.js';
import { cardOf, newDeck, type Ciphertext } from './elgamal.js';
import { BASE, ZERO, mulBase, randomScalar, type DeckTable } from './group.js';
import { checkShuffle, shuffle, verifyShuffle } from './shuffle-proof.js';
import { checkPlay, checkShares, decryptionShare, openFaceUp, openOwnCard, type DecryptionShare } from './decrypt.js';

const rng = (label: string) => {
  const s = new RandomStream(new Uint8Array(32).fill(7), label);
  return (n: number) => s.bytes(n);
};
const players = ['p0', 'p1', 'p2', 'p3'];
const table: DeckTable = { game: 'hand-1', players };
const SIZE = 12;
const named = (vs: readonly Violation[]): string[] => vs.map((v) => `${v.code}:${v.player}`);

/** The honest setup: key shares, joint key, and every player's shuffle in seat order. */
function honestDeck() {
  const random = rng('setup');
  const made = players.map((p) => makeKeyShare(table, p, random));
  const joint = combineKeyShares(
    table,
    made.map((m) => m.share),
  );
  expect(joint.violations).toEqual([]);
  const key = joint.key!;
  let deck: Ciphertext[] = newDeck(SIZE);
  players.forEach((p, index) => {
    const { output, proof } = shuffle({ table, shuffler: p, index, key, input: deck }, random);
    expect(verifyShuffle({ table, shuffler: p, index, key, input: deck, output }, proof)).toBe(true);
    deck = output;
  });
  const keys = made.map((m) => m.share.key);
  const share = (seat: number, position: number): DecryptionShare =>
    decryptionShare(table, players[seat]!, made[seat]!.secret, position, deck[position]!, random);
  return { random, made, key, keys, deck, share };
}

describe('the joint key', () => {
  it('sums valid shares; every share proves knowledge of its secret for its game and seat', () => {
    const random = rng('keys');
    const made = players.map((p) => makeKeyShare(table, p, random));
    const joint = combineKeyShares(
      table,
      made.map((m) => m.share),
    );
    expect(joint.violations).toEqual([]);
    const sum = made.reduce((acc, m) => acc + m.secret, 0n);
    expect(joint.key).toBe(mulBase(sum).toHex());
  });

  it('names an unvalidated key: the identity, a non-canonical encoding, a missing or replayed proof', () => {
    const random = rng('bad-keys');
    const made = players.map((p) => makeKeyShare(table, p, random));
    const fromOtherGame = makeKeyShare({ game: 'hand-0', players }, 'p2', random).share;
    const fromOtherSeat = makeKeyShare(table, 'p1', random).share;
    const cases: KeyShare[] = [
      { player: 'p2', key: ZERO.toHex(), proof: made[2]!.share.proof },
      { player: 'p2', key: 'ff'.repeat(32), proof: made[2]!.share.proof },
      { player: 'p2', key: made[2]!.share.key, proof: '00'.repeat(64) },
      { ...fromOtherGame },
      { ...fromOtherSeat, player: 'p2' },
    ];
    for (const bad of cases) {
      const shares = made.map((m, i) => (i === 2 ? bad : m.share));
      const joint = combineKeyShares(table, shares, 5);
      expect(named(joint.violations)).toEqual(['bad_key_share:p2']);
      expect(joint.violations[0]!.seq).toBe(5);
      expect(joint.key).toBeNull();
    }
  });

  it('a rogue key (chosen to cancel the others) or a copied key cannot come with a proof', () => {
    const random = rng('rogue');
    const made = players.map((p) => makeKeyShare(table, p, random));
    // p3 wants the joint key to be t·G, a key it knows: it publishes t·G − Σ others, whose secret it does not know.
    const others = made.slice(0, 3).reduce((acc, m) => acc.add(mulBase(m.secret)), ZERO);
    const rogue = mulBase(12345n).subtract(others);
    const rogueShare: KeyShare = { player: 'p3', key: rogue.toHex(), proof: made[3]!.share.proof };
    expect(keyShareValid(table, rogueShare)).toBe(false);
    const copied: KeyShare = { player: 'p3', key: made[0]!.share.key, proof: made[0]!.share.proof };
    const joint = combineKeyShares(table, [...made.slice(0, 3).map((m) => m.share), copied]);
    expect(named(joint.violations)).toEqual(['bad_key_share:p3']);
  });

  it('two different key shares from one player (equivocation on keys) name it, and no joint key is made', () => {
    const random = rng('equivocate');
    const made = players.map((p) => makeKeyShare(table, p, random));
    const second = makeKeyShare(table, 'p0', random).share;
    const joint = combineKeyShares(table, [...made.map((m) => m.share), second, made[1]!.share]);
    expect(named(joint.violations)).toEqual(['equivocation:p0']);
    expect(joint.key).toBeNull();
  });

  it('the same key at two seats (colluders sharing a secret) is reused_key for both', () => {
    const random = rng('reuse');
    const made = players.map((p) => makeKeyShare(table, p, random));
    // p1 and p3 share one secret; each proves it for its own seat (makeKeyShare draws its secret from the source's first 64 bytes).
    const secret = made[1]!.secret;
    const sameAs = (seat: string): KeyShare => {
      const bytes = new Uint8Array(64);
      let x = secret;
      for (let i = 0; i < 32; i++) {
        bytes[i] = Number(x & 0xffn);
        x >>= 8n;
      }
      let first = true;
      return makeKeyShare(table, seat, (n) => {
        if (first && n === 64) {
          first = false;
          return bytes;
        }
        return random(n);
      }).share;
    };
    const shares = [made[0]!.share, sameAs('p1'), made[2]!.share, sameAs('p3')];
    expect(shares[1]!.key).toBe(shares[3]!.key);
    const joint = combineKeyShares(table, shares);
    expect(named(joint.violations).sort()).toEqual(['reused_key:p1', 'reused_key:p3']);
    expect(joint.key).toBeNull();
  });
});

describe('a hand', () => {
  it('deals privately (only the owner learns its cards), face up, and plays from a hand, with nobody named', () => {
    const { made, keys, deck, share } = honestDeck();
    // Position 0 to p1: the others publish their shares, p1 opens it alone.
    const others = [0, 2, 3].map((seat) => share(seat, 0));
    const checked = checkShares(table, keys, deck[0]!, 0, others);
    expect(checked.violations).toEqual([]);
    const card = openOwnCard(deck[0]!, made[1]!.secret, checked.valid, SIZE);
    expect(card).not.toBeNull();
    // Without p1's share nobody else can say which card it is: the others' shares alone open to no card.
    expect(openOwnCard(deck[0]!, 0n, checked.valid, SIZE)).toBeNull();
    // Position 5 face up.
    const up = openFaceUp(
      table,
      keys,
      deck[5]!,
      5,
      [0, 1, 2, 3].map((seat) => share(seat, 5)),
      SIZE,
    );
    expect(up.violations).toEqual([]);
    expect(up.card).not.toBeNull();
    expect(up.card).not.toBe(card);
    // p1 plays position 0.
    const dealtTo = (position: number): string | null => (position === 0 ? 'p1' : null);
    const play = checkPlay(table, keys, deck, dealtTo, others, { player: 'p1', position: 0, card: card!, share: share(1, 0) });
    expect(play).toEqual({ card, violations: [] });
  });

  it('every card of the shuffled deck is a different card of the deck (a permutation)', () => {
    const { deck, keys, share } = honestDeck();
    const opened = deck.map(
      (c, position) =>
        openFaceUp(
          table,
          keys,
          c,
          position,
          [0, 1, 2, 3].map((seat) => share(seat, position)),
          SIZE,
        ).card,
    );
    expect(new Set(opened).size).toBe(SIZE);
    expect(opened.every((c) => c !== null && c >= 0 && c < SIZE)).toBe(true);
  });

  it('a wrong decryption share (to show another card) is caught and its player named', () => {
    const { random, keys, deck, share } = honestDeck();
    const honest = [0, 1, 3].map((seat) => share(seat, 2));
    const real = share(2, 2);
    const forged: DecryptionShare = { ...real, share: mulBase(randomScalar(random)).toHex() };
    const wrongPosition: DecryptionShare = share(2, 3);
    for (const bad of [forged, { ...wrongPosition, position: 2 }, { ...real, proof: share(2, 3).proof }]) {
      const r = openFaceUp(table, keys, deck[2]!, 2, [...honest, bad], SIZE);
      expect(named(r.violations)).toEqual(['bad_decryption_share:p2']);
      expect(r.card).toBeNull();
    }
  });

  it('a card played that was not dealt to that hand, or another card named, is card_not_dealt', () => {
    const { made, keys, deck, share } = honestDeck();
    const dealtTo = (position: number): string | null => (position === 0 ? 'p1' : position === 1 ? 'p2' : null);
    const others0 = [0, 2, 3].map((seat) => share(seat, 0));
    const card0 = openOwnCard(deck[0]!, made[1]!.secret, others0, SIZE)!;
    // p1 plays p2's card (position 1) with a valid share of its own key.
    const others1 = [0, 1, 3].map((seat) => share(seat, 1));
    const stolen = checkPlay(table, keys, deck, dealtTo, others1, { player: 'p1', position: 1, card: 3, share: share(1, 1) });
    expect(named(stolen.violations)).toEqual(['card_not_dealt:p1']);
    // p1 plays its own position but names a better card.
    const substituted = checkPlay(table, keys, deck, dealtTo, others0, { player: 'p1', position: 0, card: (card0 + 1) % SIZE, share: share(1, 0) });
    expect(named(substituted.violations)).toEqual(['card_not_dealt:p1']);
    // p1 forges its share so the position opens to another card: the proof gives it away.
    const forged = checkPlay(table, keys, deck, dealtTo, others0, { player: 'p1', position: 0, card: card0, share: { ...share(1, 0), share: BASE.toHex() } });
    expect(named(forged.violations)).toEqual(['bad_decryption_share:p1']);
    // A position off the deck.
    expect(named(checkPlay(table, keys, deck, dealtTo, others0, { player: 'p1', position: 99, card: 0, share: share(1, 0) }).violations)).toEqual([
      'card_not_dealt:p1',
    ]);
  });

  it('a shuffle that replaces a card, or is proved for other inputs, is bad_shuffle naming the shuffler', () => {
    const { random, key, deck } = honestDeck();
    const { output, proof } = shuffle({ table, shuffler: 'p2', index: 4, key, input: deck }, random);
    const st = { table, shuffler: 'p2', index: 4, key, input: deck, output };
    expect(verifyShuffle(st, proof)).toBe(true);
    // The unproved shuffle other toolkits accepted: a deck with one card replaced by a copy of another, no valid proof.
    const replaced = output.map((c, i) => (i === 3 ? output[4]! : c));
    expect(verifyShuffle({ ...st, output: replaced }, proof)).toBe(false);
    expect(named(checkShuffle({ ...st, output: replaced }, proof, 12))).toEqual(['bad_shuffle:p2']);
    expect(checkShuffle(st, proof)).toEqual([]);
    // Ciphertexts from a deck encrypted to another key (the shuffler's own), "re-encrypting" nothing.
    const foreign = newDeck(SIZE).map((c) => ({ a: mulBase(3n).toHex(), b: c.b }));
    expect(verifyShuffle({ ...st, output: foreign }, proof)).toBe(false);
    expect(cardOf(ZERO, SIZE)).toBeNull();
  });
});
