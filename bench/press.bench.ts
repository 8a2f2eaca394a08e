/**
 * Press in a 7-power game (docs/spec/press.md): one phase of 50 messages, 20 to the table and 30 private (to one
 * or two powers), written by the powers in turn and read by every power and one observer, in signed and deniable
 * games. Figures: the process CPU time to write a message, to read the phase's 50 messages as one reader (the
 * slowest of the eight), and the bytes the relay stores for the phase. Node's native SHA-256 as in the other
 * benchmarks; signatures by noble (the reader's rule).
 */
import { toHex } from '@fairtable/core/bytes.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { TalkReader, talkText, writeTalk, type PressMode, type TalkTo } from '@fairtable/core/press/index.js';
import { useNativeCrypto } from '@fairtable/node/native-crypto.js';

useNativeCrypto();

const powers = ['austria', 'england', 'france', 'germany', 'italy', 'russia', 'turkey'];
const keys = powers.map((_, i) => generateKeyPair(new Uint8Array(32).fill(i + 1)));
const players = powers.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) }));
const game = 'ab'.repeat(32);
const perPhase = 50;
const runs = 9;
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
let r = 0;
const random = (n: number): Uint8Array => new Uint8Array(n).map((_, i) => (++r * 29 + i) & 255);
const body = 'Support me into Burgundy this spring and I will keep my fleets out of the Channel until autumn.';

function phase(mode: PressMode): { writeMs: number; readMs: number; bytes: number } {
  const texts: string[] = [];
  const seq = new Map<string, number>();
  const t0 = cpu();
  for (let i = 0; i < perPhase; i++) {
    const a = i % 7;
    const from = powers[a]!;
    const to: TalkTo = i % 5 < 2 ? 'table' : i % 2 === 0 ? [powers[(a + 1) % 7]!] : [powers[(a + 1) % 7]!, powers[(a + 3) % 7]!].sort();
    const n = (seq.get(from) ?? 0) + 1;
    seq.set(from, n);
    texts.push(talkText(writeTalk({ game, from, to, seq: n, at: 1_000 + i, body }, { mode, secretKey: keys[a]!.secretKey, players, random })));
  }
  const writeMs = (cpu() - t0) / perPhase;
  let readMs = 0;
  for (const me of [...powers.map((id, i) => ({ id, secretKey: keys[i]!.secretKey })), undefined]) {
    const reader = new TalkReader({ game, players, rules: { rule: 'full', mode }, ...(me === undefined ? {} : { me }) });
    const s = cpu();
    for (const t of texts) if (reader.read(t).kind !== 'shown') throw new Error('an honest message was refused');
    readMs = Math.max(readMs, cpu() - s);
  }
  return { writeMs, readMs, bytes: texts.reduce((n, t) => n + Buffer.byteLength(t), 0) };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
phase('signed');
process.stdout.write(`press, 7 powers, ${perPhase} messages a phase (20 to the table, 30 private), median of ${runs} phases:\n`);
for (const mode of ['signed', 'deniable'] as const) {
  const xs = Array.from({ length: runs }, () => phase(mode));
  process.stdout.write(
    `  ${mode.padEnd(9)} write ${median(xs.map((x) => x.writeMs)).toFixed(2)} ms a message; the slowest reader reads the phase in ${median(xs.map((x) => x.readMs)).toFixed(1)} ms; ${(median(xs.map((x) => x.bytes)) / 1024).toFixed(1)} KiB stored\n`,
  );
}
