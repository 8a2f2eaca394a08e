/** `fairtable armor` / `fairtable dearmor`: envelopes as a text block that survives e-mail. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { armor, dearmor } from '@fairtable/core/armor.js';
import { fail, readInput } from '../io.js';

export function register(program: Command): void {
  program
    .command('armor')
    .description('wrap a file of envelopes (JSON Lines) as an armored text block for e-mail')
    .argument('[file]', 'input file, or - for stdin', '-')
    .action((file: string) => {
      const bytes = file === '-' ? readFileSync(0) : readFileSync(file);
      if (bytes.length === 0) fail('[bad_input] nothing to armor: the input is empty');
      process.stdout.write(armor(new Uint8Array(bytes)));
    });
  program
    .command('dearmor')
    .description('find armored blocks in a text (an e-mail, say), check them and print their envelopes')
    .argument('[file]', 'input file, or - for stdin', '-')
    .action((file: string) => {
      try {
        for (const payload of dearmor(readInput(file))) process.stdout.write(Buffer.from(payload));
      } catch (e) {
        const err = e as { code?: string; message: string };
        fail(`[${err.code ?? 'bad_armor'}] ${err.message}`);
      }
    });
}
