/**
 * Honest players are never named (docs/spec/deck.md §8): in a hand one player cheats in one way; the
 * findings name that player and nobody else, and a hand with no cheater names nobody.
 */
import { describe, expect, it } from 'vitest';
import { RandomStream } from '../stream.js';
import type { Violation } from '../errors.js';
import { combineKeyShares, makeKeyShare, type KeyShare } from './joint-key.js';
import { newDeck, type Ciphertext } from './elgamal.js';
import { mulBase, randomScalar, type DeckTable } from './group.js';
import { checkShuffle, shuffle } from './shuffle-proof.js';
import { checkPlay, decryptionShare, openFaceUp, openOwnCard } from './decrypt.js';

const CHEATS = ['none', 'key', 'shuffle', 'share', 'steal', 'substitute'] as const;
const SIZE = 5;

function hand(seed: number, cheater: number, cheat: (typeof CHEATS)[number]): Violation[] {
  const stream = new RandomStream(new Uint8Array(32).fill(seed), 'honest-hands');
  const random = (n: number): Uint8Array => stream.bytes(n);
  const players = ['ann', 'bob', 'cat'];
  const table: DeckTable = { game: `hand-${seed}`, players };
  const found: Violation[] = [];
  const made = players.map((p) => makeKeyShare(table, p, random));
  const shares: KeyShare[] = made.map((m, seat) =>
    cheat === 'key' && seat === cheater ? { ...m.share, key: mulBase(randomScalar(random)).toHex() } : m.share,
  );
  const joint = combineKeyShares(table, shares);
  found.push(...joint.violations);
  if (joint.key === null) return found;
  let deck: Ciphertext[] = newDeck(SIZE);
  for (const [index, p] of players.entries()) {
    const st = { table, shuffler: p, index, key: joint.key, input: deck };
    const { output, proof } = shuffle(st, random);
    // The cheat: the output with its first two positions made the same card.
    const sent = cheat === 'shuffle' && index === cheater ? [output[1]!, ...output.slice(1)] : output;
    const v = checkShuffle({ ...st, output: sent }, proof);
    found.push(...v);
    if (v.length > 0) return found;
    deck = sent;
  }
  const keys = made.map((m) => m.share.key);
  const share = (seat: number, position: number) => {
    const s = decryptionShare(table, players[seat]!, made[seat]!.secret, position, deck[position]!, random);
    return cheat === 'share' && seat === cheater ? { ...s, share: mulBase(randomScalar(random)).toHex() } : s;
  };
  // Position s dealt to seat s; position 3 face up.
  const dealt = players.map((_, owner) =>
    players
      .map((__, seat) => seat)
      .filter((seat) => seat !== owner)
      .map((seat) => share(seat, owner)),
  );
  const up = openFaceUp(
    table,
    keys,
    deck[3]!,
    3,
    [0, 1, 2].map((seat) => share(seat, 3)),
    SIZE,
  );
  found.push(...up.violations);
  const dealtTo = (position: number): string | null => players[position] ?? null;
  for (let owner = 0; owner < 3; owner++) {
    const honestShares = dealt[owner]!;
    const card = openOwnCard(deck[owner]!, made[owner]!.secret, honestShares, SIZE);
    const position = cheat === 'steal' && owner === cheater ? (owner + 1) % 3 : owner;
    const named = cheat === 'substitute' && owner === cheater ? ((card ?? 0) + 1) % SIZE : (card ?? 0);
    const own = decryptionShare(table, players[owner]!, made[owner]!.secret, position, deck[position]!, random);
    const others = position === owner ? honestShares : dealt[position]!;
    found.push(...checkPlay(table, keys, deck, dealtTo, others, { player: players[owner]!, position, card: named, share: own }).violations);
  }
  return found;
}

describe('honest players are never named', () => {
  // Every cheat once, each by a different seat (a property over random hands would spend most of its time
  // limit on shuffles; the seeds still vary the deck and the keys).
  it.each(CHEATS.map((cheat, i) => [cheat, i % 3, 17 + i] as const))(
    'cheat %s by seat %i: only the cheater is named; no cheat names nobody',
    (cheat, cheater, seed) => {
      const players = ['ann', 'bob', 'cat'];
      const named = new Set(hand(seed, cheater, cheat).map((v) => v.player));
      if (cheat === 'none') expect([...named]).toEqual([]);
      else expect([...named]).toEqual([players[cheater]]);
    },
  );
});
