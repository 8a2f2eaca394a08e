/**
 * A deck nobody controls (docs/spec/deck.md §10): one shuffle of 52 cards with its proof, proving and
 * verifying, under the joint key of 2, 6 and 9 players. Each figure is the median over RUNS runs of the
 * process CPU time (user + system), so other processes on a shared machine do not count; the baseline is one
 * ristretto255 scalar multiplication (noble's constant-time ladder) measured in the same process, and each
 * figure is also given as a multiple of it. The last line is the figures as JSON.
 */
import { combineKeyShares, makeKeyShare, newDeck, shuffle, verifyShuffle, type Ciphertext } from '@fairtable/core/deck/index.js';
import { ristretto255 } from '@noble/curves/ed25519.js';
import { loadavg } from 'node:os';

const RUNS = Number(process.env.DECK_BENCH_RUNS ?? 7);
const CARDS = 52;
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));

function scalarMulMs(): number {
  const P = ristretto255.Point.BASE.multiply(12345n);
  const k = ristretto255.Point.Fn.create(2n ** 250n + 987654321n);
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = cpu();
    for (let i = 0; i < 50; i++) P.multiply(k + BigInt(i));
    times.push((cpu() - t) / 50);
  }
  return median(times);
}

function run(players: number): { prove: number; verify: number; proofBytes: number } {
  const table = { game: `bench-${players}`, players: Array.from({ length: players }, (_, i) => `p${i}`) };
  const joint = combineKeyShares(
    table,
    table.players.map((p) => makeKeyShare(table, p, random).share),
  );
  const key = joint.key!;
  // A deck already shuffled once, so that no ciphertext is the trivial encryption.
  const input: Ciphertext[] = shuffle({ table, shuffler: 'p0', index: 0, key, input: newDeck(CARDS) }, random).output;
  const proveTimes: number[] = [];
  const verifyTimes: number[] = [];
  let proofBytes = 0;
  for (let r = 0; r < RUNS; r++) {
    const st = { table, shuffler: 'p1', index: 1, key, input };
    let t = cpu();
    const { output, proof } = shuffle(st, random);
    proveTimes.push(cpu() - t);
    t = cpu();
    const ok = verifyShuffle({ ...st, output }, proof);
    verifyTimes.push(cpu() - t);
    if (!ok) throw new Error('an honest shuffle did not verify');
    proofBytes = JSON.stringify(proof).length;
  }
  return { prove: median(proveTimes), verify: median(verifyTimes), proofBytes };
}

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
process.stdout.write(`load average (1, 5, 15 min) at the start: ${load()}\n`);
// Warm-up: JIT, noble's base-point table, the card and Pedersen generators.
run(2);
const base = scalarMulMs();
const results: Record<string, { proveMs: number; verifyMs: number; proveRatio: number; verifyRatio: number; proofJsonBytes: number }> = {};
process.stdout.write(
  `one shuffle of ${CARDS} cards with its proof, CPU time, median of ${RUNS} runs (baseline: one scalar multiplication, ${base.toFixed(3)} ms):\n`,
);
for (const players of [2, 6, 9]) {
  const r = run(players);
  results[`${players}`] = { proveMs: r.prove, verifyMs: r.verify, proveRatio: r.prove / base, verifyRatio: r.verify / base, proofJsonBytes: r.proofBytes };
  process.stdout.write(
    `  ${players} players: prove ${r.prove.toFixed(1).padStart(7)} ms (${(r.prove / base).toFixed(0)}× a scalar mult), verify ${r.verify.toFixed(1).padStart(7)} ms (${(r.verify / base).toFixed(0)}×), proof ${r.proofBytes} bytes of JSON\n`,
  );
}
process.stdout.write(`load average at the end: ${load()}\n`);
process.stdout.write(`${JSON.stringify({ bench: 'deck', cards: CARDS, runs: RUNS, scalarMulMs: base, results })}\n`);
