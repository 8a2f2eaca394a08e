/**
 * Diplomacy adjudication speed (docs/spec/diplomacy.md §7).
 *
 *   npm run bench diplomacy
 *
 * A 100-phase game of random legal orders for all seven powers is generated
 * first (not timed): each phase's position and orders. Then the whole game is
 * adjudicated again from the start, phase by phase (parsing every order,
 * adjudicating, hashing each resulting position), ROUNDS times; the figure is
 * the median round. The package is pure JavaScript, so the browser build runs
 * this same code with noble's SHA-256; it is measured here with noble's
 * SHA-256 ("browser path") and with Node's native one, not in a browser.
 */
import { configure } from '@fairtable/core/platform.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { nativeSha256 } from '@fairtable/node/native-hash.js';
import {
  adjudicate,
  positionHash,
  randomOrders,
  seededBelow,
  standardMap as map,
  startingPosition,
  type OrderInput,
  type Position,
} from '@fairtable/diplomacy';

const PHASES = 100;
const ROUNDS = Number(process.env.DIPLOMACY_BENCH_ROUNDS ?? 15);
const line = (label: string, value: string): void => {
  process.stdout.write(`${label.padEnd(58)} ${value}\n`);
};

// The game, generated once.
const below = seededBelow(1901);
const phases: OrderInput[][] = [];
let position: Position = startingPosition(map);
let orderCount = 0;
const kinds = { movement: 0, retreat: 0, adjustment: 0 };
for (let k = 0; k < PHASES; k++) {
  const orders = map.powers.flatMap((power) => randomOrders(map, position, power, below).map((text) => ({ power, text })));
  phases.push(orders);
  orderCount += orders.length;
  kinds[position.phase.type]++;
  position = adjudicate(map, position, orders).position;
}
const finalHash = positionHash(map, position);

function playGame(): string {
  let p = startingPosition(map);
  let hash = '';
  for (const orders of phases) {
    p = adjudicate(map, p, orders).position;
    hash = positionHash(map, p);
  }
  return hash;
}

function measure(label: string): number {
  for (let i = 0; i < 3; i++) playGame(); // warm-up
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    (globalThis as { gc?: () => void }).gc?.();
    const t = performance.now();
    const hash = playGame();
    times.push(performance.now() - t);
    if (hash !== finalHash) throw new Error('the replayed game ended in another position');
  }
  const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
  line(label, `${median.toFixed(1)} ms per game (${(median / PHASES).toFixed(2)} ms per phase; min ${Math.min(...times).toFixed(1)} ms)`);
  return median;
}

line(
  'game',
  `${PHASES} phases (${kinds.movement} movement, ${kinds.retreat} retreat, ${kinds.adjustment} adjustment), ${orderCount} orders, ends ${position.phase.season} ${position.phase.year} ${position.phase.type}`,
);
configure({ sha256: (data) => nobleSha256(data) });
const browser = measure("100 phases, noble SHA-256 (the browser build's path)");
configure({ sha256: nativeSha256 });
const node = measure('100 phases, Node native SHA-256');
line('target: under 1 s per 100-phase game in Node', node < 1000 && browser < 1000 ? 'met' : 'NOT met');
