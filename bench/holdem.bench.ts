/**
 * Texas Hold'em rules benchmark (docs/spec/holdem.md §9).
 *
 *   npm run bench holdem
 *
 * How fast the pure rules run on one core: the best five of seven cards
 * (`bestHand`, all 21 subsets) on random hands, and whole hands of a 6-player
 * table among random legal players (dealing, betting, pots, showdown).
 * Baseline in the same run: SHA-256 of 64 bytes, a yardstick of the machine.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bestHand, createTable, playHand, randomAction, shuffledDeck, tableOver, type Pick } from '@fairtable/core/games/holdem/index.js';

const line = (label: string, value: string): void => {
  process.stdout.write(`${label.padEnd(52)} ${value}\n`);
};

function seeded(seed: number): Pick {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Runs `f` repeatedly for about `ms` milliseconds; returns calls per second. */
function rate(ms: number, f: () => void): number {
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 100; i++) f();
    n += 100;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

const block = new Uint8Array(64);
const hashes = rate(1000, () => sha256(block));
line('baseline: SHA-256 of 64 bytes', `${Math.round(hashes).toLocaleString('en')} /s`);

const pick = seeded(1);
const hands = Array.from({ length: 10_000 }, () => shuffledDeck(pick).slice(0, 7));
let k = 0;
const evals = rate(2000, () => {
  bestHand(hands[k++ % hands.length]!);
});
line('bestHand, 7 cards', `${Math.round(evals).toLocaleString('en')} /s (${(hashes / evals).toFixed(1)} hashes each)`);

let table = createTable({ players: ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'], startingStack: 10_000, smallBlind: 50, bigBlind: 100 });
let played = 0;
const start = performance.now();
while (performance.now() - start < 2000) {
  if (tableOver(table)) table = createTable({ players: ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'], startingStack: 10_000, smallBlind: 50, bigBlind: 100 });
  table = playHand(table, shuffledDeck(pick), (h, p) => randomAction(h, p, pick));
  played++;
}
const perSecond = (played * 1000) / (performance.now() - start);
line('6-player hands, random legal players', `${Math.round(perSecond).toLocaleString('en')} /s (${(1000 / perSecond).toFixed(3)} ms each)`);
