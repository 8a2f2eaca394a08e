/**
 * `fairtable random`: values of the random stream (docs/SPEC.md §6), one per
 * line, for checking the spec from outside.
 *
 * Limits (so that no command line grows the process without bound): `--below`
 * and `--dice` take 1..2^53 as the stream does; `--shuffle n` takes n up to
 * 1,000,000; `--count` up to 10,000,000, and a run prints at most 10,000,000
 * numbers in all (count × n for shuffles). Output is written as it is made, so
 * memory stays that of one shuffle.
 */
import { once } from 'node:events';
import type { Command } from 'commander';
import { fromHex } from '@fairtable/core/bytes.js';
import { RandomStream } from '@fairtable/core/stream.js';
import { fail, failWith } from '../io.js';

export const MAX_SHUFFLE = 1_000_000;
export const MAX_COUNT = 10_000_000;
/** Numbers one run may print: count × n for shuffles, count otherwise. */
export const MAX_NUMBERS = 10_000_000;

/** An integer from 1 to max, written in decimal digits only; max may be 2^53, the stream's own limit. */
function positiveInt(value: string, name: string, max: number): number {
  // Compared as a BigInt: 2^53 + 1 would round to 2^53 as a Number.
  if (!/^\d{1,16}$/.test(value) || BigInt(value) < 1n || BigInt(value) > BigInt(max))
    fail(`[out_of_range] ${name} must be an integer from 1 to ${max === 2 ** 53 ? '2^53 (9007199254740992)' : max}`);
  return Number(value);
}

async function write(text: string): Promise<void> {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

export function register(program: Command): void {
  program
    .command('random')
    .description('print values of the random stream for a seed and label, one per line')
    .requiredOption('--seed <hex>', '32-byte seed, 64 hex digits')
    .requiredOption('--label <text>', 'the stream label')
    .option('--below <n>', 'integers in [0, n), 1 ≤ n ≤ 2^53')
    .option('--dice <sides>', 'dice with this many sides (1..sides), 1 ≤ sides ≤ 2^53')
    .option('--shuffle <n>', `a Fisher–Yates shuffle of 0..n-1, space separated; n ≤ ${MAX_SHUFFLE}`)
    .option('--count <k>', `how many values (or shuffles); at most ${MAX_NUMBERS} numbers in all`, '1')
    .action(async (opts: { seed: string; label: string; below?: string; dice?: string; shuffle?: string; count: string }) => {
      let seed: Uint8Array;
      try {
        seed = fromHex(opts.seed, '--seed', 32);
      } catch (e) {
        failWith(e);
      }
      const kinds = [opts.below, opts.dice, opts.shuffle].filter((x) => x !== undefined).length;
      if (kinds !== 1) fail('[bad_input] give exactly one of --below, --dice, --shuffle');
      const count = positiveInt(opts.count, '--count', MAX_COUNT);
      const below = opts.below === undefined ? 0 : positiveInt(opts.below, '--below', 2 ** 53);
      const sides = opts.dice === undefined ? 0 : positiveInt(opts.dice, '--dice', 2 ** 53);
      const n = opts.shuffle === undefined ? 0 : positiveInt(opts.shuffle, '--shuffle', MAX_SHUFFLE);
      if (n * count > MAX_NUMBERS) fail(`[out_of_range] --shuffle ${n} --count ${count} is ${n * count} numbers; one run prints at most ${MAX_NUMBERS}`);
      const stream = new RandomStream(seed, opts.label);
      let batch: string[] = [];
      for (let i = 0; i < count; i++) {
        if (below > 0) batch.push(String(stream.below(below)));
        else if (sides > 0) batch.push(String(stream.die(sides)));
        else batch.push(stream.shuffle(Array.from({ length: n }, (_, j) => j)).join(' '));
        if (batch.length >= 4096 || n > 1000) {
          await write(batch.join('\n') + '\n');
          batch = [];
        }
      }
      if (batch.length > 0) await write(batch.join('\n') + '\n');
    });
}
