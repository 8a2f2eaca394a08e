/**
 * The beacon's escrows (docs/spec/escrow.md §2, §3): the computation per player of one 7-player round with
 * `escrow: {scheme: "vss", threshold: 4}` and with `escrow: {scheme: "layers"}` against the same round with
 * a plain commitment, on the in-memory network, and the same for a round whose withheld value the others
 * open (shares) or peel (layers). Each figure is the
 * median over the players of the process CPU time spent in their seats (referee, machine, signing), Node's
 * native signature paths as in the other benchmarks.
 */
import { simulate, type SimOptions } from '@fairtable/core/testing';
import { useNativeCrypto } from '@fairtable/node/native-crypto.js';
import { nativeVerify } from '@fairtable/node/native-verify.js';

useNativeCrypto();

const players = 7;
const k = 4;
const runs = 15;
// The process's own CPU time (user + system), so that other processes on a shared machine do not count.
const cpuClock = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function perPlayer(extra: Partial<SimOptions>): { median: number; max: number; lines: number } {
  const medians: number[] = [];
  const maxes: number[] = [];
  let lines = 0;
  for (let i = 0; i < runs; i++) {
    const r = simulate({
      protocol: 'beacon',
      players,
      seed: new Uint8Array(32).fill(i + 1),
      verify: nativeVerify,
      cpuClock,
      ...extra,
    });
    const honest = r.cpuMs.filter((_, j) => `p${j}` !== extra.cheater);
    const cpu = [...honest].sort((a, b) => a - b);
    medians.push(cpu[Math.floor(cpu.length / 2)]!);
    maxes.push(cpu[cpu.length - 1]!);
    lines = r.lines.length - 1;
  }
  medians.sort((a, b) => a - b);
  maxes.sort((a, b) => a - b);
  return { median: medians[Math.floor(runs / 2)]!, max: maxes[Math.floor(runs / 2)]!, lines };
}

// Warm-up: JIT and noble's precomputed tables.
perPlayer({ params: { escrow: { scheme: 'vss', threshold: k } } });

const plain = perPlayer({});
const escrow = perPlayer({ params: { escrow: { scheme: 'vss', threshold: k } } });
const opened = perPlayer({ params: { escrow: { scheme: 'vss', threshold: k } }, cheat: 'withhold', cheater: 'p3' });
const layers = perPlayer({ params: { escrow: { scheme: 'layers' } } });
const peeled = perPlayer({ params: { escrow: { scheme: 'layers' } }, cheat: 'withhold', cheater: 'p3' });

const row = (name: string, x: { median: number; max: number; lines: number }): string =>
  `  ${name.padEnd(34)} ${x.median.toFixed(2).padStart(7)} ms median, ${x.max.toFixed(2).padStart(7)} ms slowest player (${x.lines} envelopes)\n`;
process.stdout.write(`beacon round, ${players} players, per-player computation (median of ${runs} runs):\n`);
process.stdout.write(row('plain commitment', plain));
process.stdout.write(row(`threshold escrow (k = ${k})`, escrow));
process.stdout.write(row('escrow, one withholder opened', opened));
process.stdout.write(row("seed 003's layers (7 layers)", layers));
process.stdout.write(row('layers, one withholder peeled', peeled));
process.stdout.write(
  `  escrow's cost per player against a plain commitment: +${(escrow.median - plain.median).toFixed(2)} ms (x${(escrow.median / plain.median).toFixed(2)}); opening a withheld value: +${(opened.median - plain.median).toFixed(2)} ms\n`,
);
process.stdout.write(
  `  layers' cost per player against a plain commitment: +${(layers.median - plain.median).toFixed(2)} ms (x${(layers.median / plain.median).toFixed(2)}); peeling a withheld value: +${(peeled.median - plain.median).toFixed(2)} ms\n`,
);
