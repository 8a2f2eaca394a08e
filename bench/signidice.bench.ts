/**
 * Signidice benchmarks (issue: player-vs-house randomness).
 * - A full round, one player, RSA-2048 house: all computation of all parties (bet, the house's
 *   RSA-FDH-VRF proof, every referee's checks including the proof's verification, the HR opening,
 *   the lucky number and the payout), key generation excluded. Target < 10 ms.
 * - The same with an ECVRF-ELL2 house, for comparison.
 * - Uniformity of the lucky numbers: chi-square over 37,000 spins (36 degrees of freedom).
 */
import { generateRsaVrfKeyPair, createRsaVrfProver } from '@fairtable/node/rsa-vrf.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { simulate } from '@fairtable/core/testing';
import { useNativeCrypto } from '@fairtable/node/native-crypto.js';

// Node seats use Node's fast paths (native Ed25519 and SHA-256, same bytes as noble's).
useNativeCrypto();
import { ecvrfHouse } from '@fairtable/core/signidice/house-key.js';
import { luckyNumber } from '@fairtable/core/signidice/arbiter.js';
import { RandomStream } from '@fairtable/core/stream.js';
import { toHex } from '@fairtable/core/bytes.js';

const pair = generateRsaVrfKeyPair(2048);
const prover = createRsaVrfProver(pair.privateKey);
const rsaHouse = { key: { scheme: 'rsa-fdh-vrf' as const, publicKey: pair.publicKey }, prove: (a: Uint8Array) => prover.prove(a) };
const ecHouse = ecvrfHouse('ecvrf-ell2', new Uint8Array(32).fill(9));

function perRound(name: string, house: typeof rsaHouse | typeof ecHouse): void {
  const rounds = 50;
  simulate({ protocol: 'signidice', players: 1, seed: new Uint8Array(32).fill(1), turns: 5, house, verify: nativeVerify, sign: nativeSign }); // warm-up
  const r = simulate({
    protocol: 'signidice',
    players: 1,
    seed: new Uint8Array(32).fill(2),
    turns: rounds,
    house,
    verify: nativeVerify,
    sign: nativeSign,
    cpuClock: () => performance.now(),
  });
  const total = r.cpuMs.reduce((a, b) => a + b, 0);
  process.stdout.write(
    `${name}: ${(total / rounds).toFixed(2)} ms of computation per round (house + player, ${rounds} rounds, finished=${r.outcome !== null})\n`,
  );
}

perRound('full round, one player, RSA-2048 house (target < 10 ms)', rsaHouse);
perRound('full round, one player, ECVRF-ELL2 house', ecHouse);

const t0 = performance.now();
for (let i = 0; i < 100; i++) prover.prove(new Uint8Array([i]));
process.stdout.write(`RSA-2048 FDH-VRF prove alone: ${((performance.now() - t0) / 100).toFixed(2)} ms\n`);

const rng = new RandomStream(new Uint8Array(32).fill(3), 'bench');
const counts = new Array<number>(37).fill(0);
const spins = 37_000;
for (let i = 0; i < spins; i++) counts[luckyNumber('00'.repeat(32), 1 + (i % 100), `p${i}`, toHex(rng.bytes(64)), [toHex(rng.bytes(20))], 'roulette')]!++;
const e = spins / 37;
const chi2 = counts.reduce((a, c) => a + (c - e) ** 2 / e, 0);
process.stdout.write(
  `lucky numbers: chi-square ${chi2.toFixed(1)} over ${spins} spins, 36 degrees of freedom (p = 0.05 critical value 51.0; p = 0.001: 67.99)\n`,
);
