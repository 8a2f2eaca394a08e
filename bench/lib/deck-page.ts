/**
 * The page bench:web-deck opens in headless Chromium: the deck module (noble on ristretto255, nothing native)
 * bundled from the sources, and `globalThis.deckRun(players, runs)`, which proves and verifies one shuffle of
 * 52 cards `runs` times under the joint key of `players` players and returns the median wall times in ms.
 */
import { combineKeyShares, makeKeyShare, newDeck, shuffle, verifyShuffle } from '@fairtable/core/deck/index.js';

const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function deckRun(players: number, runs: number): { prove: number; verify: number; proofBytes: number } {
  const table = { game: `web-bench-${players}`, players: Array.from({ length: players }, (_, i) => `p${i}`) };
  const key = combineKeyShares(
    table,
    table.players.map((p) => makeKeyShare(table, p, random).share),
  ).key!;
  // A deck already shuffled once, so that no ciphertext is the trivial encryption.
  const input = shuffle({ table, shuffler: 'p0', index: 0, key, input: newDeck(52) }, random).output;
  const prove: number[] = [];
  const verify: number[] = [];
  let proofBytes = 0;
  for (let r = 0; r < runs; r++) {
    const st = { table, shuffler: 'p1', index: 1, key, input };
    let t = performance.now();
    const made = shuffle(st, random);
    prove.push(performance.now() - t);
    t = performance.now();
    const ok = verifyShuffle({ ...st, output: made.output }, made.proof);
    verify.push(performance.now() - t);
    if (!ok) throw new Error('an honest shuffle did not verify');
    proofBytes = JSON.stringify(made.proof).length;
  }
  return { prove: median(prove), verify: median(verify), proofBytes };
}

(globalThis as unknown as { deckRun: typeof deckRun }).deckRun = deckRun;
document.getElementById('root')!.textContent = 'deck bench ready';
