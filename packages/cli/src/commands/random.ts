/** `fairtable random`: values of the random stream (docs/SPEC.md §6), one per line, for checking the spec from outside. */
import type { Command } from 'commander';
import { fromHex } from '@fairtable/core/bytes.js';
import { RandomStream } from '@fairtable/core/stream.js';
import { fail } from '../io.js';

function positiveInt(value: string, name: string, max = 2 ** 53): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > max) fail(`[out_of_range] ${name} must be an integer from 1 to ${max}`);
  return n;
}

export function register(program: Command): void {
  program
    .command('random')
    .description('print values of the random stream for a seed and label, one per line')
    .requiredOption('--seed <hex>', '32-byte seed, 64 hex digits')
    .requiredOption('--label <text>', 'the stream label')
    .option('--below <n>', 'integers in [0, n)')
    .option('--dice <sides>', 'dice with this many sides (1..sides)')
    .option('--shuffle <n>', 'a Fisher–Yates shuffle of 0..n-1, space separated')
    .option('--count <k>', 'how many values', '1')
    .action((opts: { seed: string; label: string; below?: string; dice?: string; shuffle?: string; count: string }) => {
      let seed: Uint8Array;
      try {
        seed = fromHex(opts.seed, '--seed', 32);
      } catch (e) {
        fail(`[bad_hex] ${(e as Error).message}`);
      }
      const kinds = [opts.below, opts.dice, opts.shuffle].filter((x) => x !== undefined).length;
      if (kinds !== 1) fail('[bad_input] give exactly one of --below, --dice, --shuffle');
      const count = positiveInt(opts.count, '--count', 10_000_000);
      const stream = new RandomStream(seed, opts.label);
      const out: string[] = [];
      for (let i = 0; i < count; i++) {
        if (opts.below !== undefined) out.push(String(stream.below(positiveInt(opts.below, '--below'))));
        else if (opts.dice !== undefined) out.push(String(stream.die(positiveInt(opts.dice, '--dice'))));
        else {
          const n = positiveInt(opts.shuffle!, '--shuffle', 10_000_000);
          out.push(stream.shuffle(Array.from({ length: n }, (_, j) => j)).join(' '));
        }
      }
      process.stdout.write(out.join('\n') + '\n');
    });
}
