/**
 * The page bench:web-deck opens in headless Chromium: the deck module (noble on ristretto255, nothing native)
 * bundled from the sources. `globalThis.deckSetup(players)` makes a joint key of `players` players and a deck
 * shuffled once; `deckProve()` shuffles it again with a proof and `deckVerify()` checks that proof, each
 * returning its wall time in ms (the bench reads the renderer's CPU time around each call).
 */
import { combineKeyShares, makeKeyShare, newDeck, shuffle, verifyShuffle, type Ciphertext, type ShuffleProof } from '@fairtable/core/deck/index.js';

const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));
type Statement = { table: { game: string; players: string[] }; shuffler: string; index: number; key: string; input: Ciphertext[] };
let statement: Statement | null = null;
let made: { output: Ciphertext[]; proof: ShuffleProof } | null = null;

function deckSetup(players: number): void {
  const table = { game: `web-bench-${players}`, players: Array.from({ length: players }, (_, i) => `p${i}`) };
  const key = combineKeyShares(
    table,
    table.players.map((p) => makeKeyShare(table, p, random).share),
  ).key!;
  // A deck already shuffled once, so that no ciphertext is the trivial encryption.
  const input = shuffle({ table, shuffler: 'p0', index: 0, key, input: newDeck(52) }, random).output;
  statement = { table, shuffler: 'p1', index: 1, key, input };
}

function deckProve(): number {
  const t = performance.now();
  made = shuffle(statement!, random);
  return performance.now() - t;
}

function deckVerify(): { ms: number; proofBytes: number } {
  const t = performance.now();
  const ok = verifyShuffle({ ...statement!, output: made!.output }, made!.proof);
  const ms = performance.now() - t;
  if (!ok) throw new Error('an honest shuffle did not verify');
  return { ms, proofBytes: JSON.stringify(made!.proof).length };
}

Object.assign(globalThis, { deckSetup, deckProve, deckVerify });
document.getElementById('root')!.textContent = 'deck bench ready';
