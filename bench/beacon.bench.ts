/**
 * Joint random number among 100 players on the in-memory network: two
 * broadcast rounds (commit, reveal). Prints the computation each player spent
 * (its referee: checking 201 lines, including 200 Ed25519 verifications on the native fast path,
 * and signing its two envelopes) and the whole simulation's wall time, with
 * the baseline of one noble Ed25519 verification measured in the same run.
 */
import { simulate } from '@fairtable/core/testing';
import { useNativeCrypto } from '@fairtable/node/native-crypto.js';

// Node seats use Node's fast paths (native Ed25519 and SHA-256, same bytes as noble's).
useNativeCrypto();
import { generateKeyPair, sign, verify } from '@fairtable/core/identity.js';
import { nativeVerify } from '@fairtable/node/native-verify.js';

const k = generateKeyPair(new Uint8Array(32).fill(1));
const msg = new Uint8Array(300);
const sig = sign(msg, k.secretKey);
for (let i = 0; i < 200; i++) verify(sig, msg, k.publicKey);
const tv = performance.now();
for (let i = 0; i < 1000; i++) verify(sig, msg, k.publicKey);
const verifyMs = (performance.now() - tv) / 1000;

const tn = performance.now();
for (let i = 0; i < 1000; i++) nativeVerify(sig, msg, k.publicKey);
const nativeMs = (performance.now() - tn) / 1000;

const t0 = performance.now();
const r = simulate({ protocol: 'beacon', players: 100, seed: new Uint8Array(32).fill(42), verify: nativeVerify, cpuClock: () => performance.now() });
const wall = performance.now() - t0;
const cpu = [...r.cpuMs].sort((a, b) => a - b);
const median = cpu[Math.floor(cpu.length / 2)]!;
process.stdout.write(
  `beacon, 100 players: ${r.lines.length - 1} envelopes (2 broadcast rounds), ${r.messages.sent} network messages, finished=${r.outcome !== null}\n`,
);
process.stdout.write(`  per-player computation: median ${median.toFixed(1)} ms, max ${cpu[cpu.length - 1]!.toFixed(1)} ms (target < 100 ms)\n`);
process.stdout.write(
  `  of which signature checks: ~${(200 * nativeMs).toFixed(1)} ms (200 x native verify at ${nativeMs.toFixed(3)} ms; with noble alone, the browser path, they would take ~${(200 * verifyMs).toFixed(0)} ms at ${verifyMs.toFixed(3)} ms each, measured now)\n`,
);
process.stdout.write(`  whole simulation, all 100 players on one thread: ${wall.toFixed(0)} ms\n`);
