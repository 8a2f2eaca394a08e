/**
 * VRF speed (docs/spec/vrf.md §Speed): ECVRF ELL2 and TAI prove and verify
 * against noble's Ed25519 sign and verify measured in the same process, plus
 * one RSA-FDH-VRF-SHA256 prove and verify at 2048 bits.
 *
 * Each operation runs for ROUND_MS in every one of ROUNDS rounds, the
 * operations interleaved so that a noisy neighbour slows all of them alike;
 * ops/s is the median round, and each ratio the median of per-round ratios. "one-shot" takes the key as bytes
 * on every call, as ed25519.sign/verify do; "cached" reuses a prover or
 * verifier made once for the key (a house proving, or players checking a
 * house, many times).
 */
import { cpus } from 'node:os';
import { ed25519 } from '@noble/curves/ed25519.js';
import { createProver, createVerifier, keygen, prove, verify, SUITES } from '@fairtable/core/vrf/ecvrf.js';
import { rsaFdhVrfVerify } from '@fairtable/core/vrf/rsa-fdh-vrf.js';
import { createRsaVrfProver, generateRsaVrfKeyPair } from '@fairtable/node/rsa-vrf.js';

const ROUNDS = Number(process.env.VRF_BENCH_ROUNDS ?? 15);
const ROUND_MS = Number(process.env.VRF_BENCH_ROUND_MS ?? 200);

type Op = { name: string; run: (i: number) => unknown };

function opsPerSecond(op: Op, ms: number): number {
  let n = 0;
  const start = performance.now();
  let now = start;
  while ((now = performance.now()) - start < ms) op.run(n++);
  return (n * 1000) / (now - start);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Per operation, its ops/s in every round. */
function measure(ops: Op[]): Map<string, number[]> {
  for (const op of ops) opsPerSecond(op, 100); // warm-up
  const samples = new Map<string, number[]>(ops.map((op) => [op.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    (globalThis as { gc?: () => void }).gc?.();
    for (const op of ops) samples.get(op.name)!.push(opsPerSecond(op, ROUND_MS));
  }
  return samples;
}

const { secretKey, publicKey } = keygen(new Uint8Array(32).fill(42));
const inputs = Array.from({ length: 64 }, (_, i) => new TextEncoder().encode(`round ${i} of the roulette table`));
const signatures = inputs.map((m) => ed25519.sign(m, secretKey));

const ops: Op[] = [
  { name: 'ed25519 sign', run: (i) => ed25519.sign(inputs[i % 64]!, secretKey) },
  { name: 'ed25519 verify', run: (i) => ed25519.verify(signatures[i % 64]!, inputs[i % 64]!, publicKey, { zip215: false }) },
];
for (const suite of SUITES) {
  const proofs = inputs.map((a) => prove(secretKey, a, { suite }));
  const prover = createProver(secretKey, { suite });
  const verifier = createVerifier(publicKey, { suite });
  verifier.verify(inputs[0]!, proofs[0]!); // builds the key table outside the timing
  ops.push(
    { name: `ECVRF ${suite} prove`, run: (i) => prove(secretKey, inputs[i % 64]!, { suite }) },
    { name: `ECVRF ${suite} verify`, run: (i) => verify(publicKey, inputs[i % 64]!, proofs[i % 64]!, { suite }) },
    { name: `ECVRF ${suite} prove (cached)`, run: (i) => prover.prove(inputs[i % 64]!) },
    { name: `ECVRF ${suite} verify (cached)`, run: (i) => verifier.verify(inputs[i % 64]!, proofs[i % 64]!) },
  );
}

const cpu = cpus();
console.log(
  `machine: ${cpu.length} cores, ${cpu[0]?.model ?? 'unknown CPU'}; node ${process.version}; ${ROUNDS} rounds x ${ROUND_MS} ms per operation, medians`,
);
const samples = measure(ops);
for (const [name, xs] of samples) console.log(`${name.padEnd(30)} ${median(xs).toFixed(0).padStart(7)} ops/s`);

// Ratios pair each round's figure with the baseline measured in the same round, then take the median.
const TARGET = 0.6;
const ratio = (name: string, base: string) => median(samples.get(name)!.map((x, i) => x / samples.get(base)![i]!));
console.log('');
for (const suite of SUITES) {
  for (const [what, base] of [
    ['verify', 'ed25519 verify'],
    ['prove', 'ed25519 sign'],
  ] as const) {
    for (const variant of ['', ' (cached)']) {
      const r = ratio(`ECVRF ${suite} ${what}${variant}`, base);
      console.log(`ratio ECVRF ${suite} ${what}${variant} / ${base}: ${r.toFixed(2)} (${r >= TARGET ? 'meets' : 'below'} the ${TARGET} target)`);
    }
  }
}

// RSA-FDH-VRF: one key, then single prove and verify calls, median of a few.
const keyStart = performance.now();
const house = generateRsaVrfKeyPair(2048);
const keyMs = performance.now() - keyStart;
const rsaProver = createRsaVrfProver(house.privateKey);
const times = { prove: [] as number[], verify: [] as number[] };
for (let i = 0; i < 21; i++) {
  const alpha = inputs[i % 64]!;
  let t = performance.now();
  const pi = rsaProver.prove(alpha);
  times.prove.push(performance.now() - t);
  t = performance.now();
  const verdict = rsaFdhVrfVerify(house.publicKey, alpha, pi);
  times.verify.push(performance.now() - t);
  if (!verdict.valid) throw new Error('RSA-FDH-VRF proof did not verify');
}
console.log('');
console.log(`RSA-FDH-VRF-SHA256 2048-bit: key generation ${keyMs.toFixed(0)} ms (once)`);
console.log(
  `RSA-FDH-VRF-SHA256 2048-bit: prove ${median(times.prove).toFixed(2)} ms (node:crypto), verify ${median(times.verify).toFixed(2)} ms (BigInt); median of 21`,
);
