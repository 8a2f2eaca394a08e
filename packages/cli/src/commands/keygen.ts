/** `fairtable keygen`: an Ed25519 identity, written as a key file, its public part and fingerprint printed. */
import { existsSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { fingerprint, generateKeyPair, toKeyFile, toPublicKeyFile } from '@fairtable/core/identity.js';
import { isPlayerId } from '@fairtable/core/envelope.js';
import { fail } from '../io.js';

export function register(program: Command): void {
  program
    .command('keygen')
    .description('make an Ed25519 identity key pair and write it as a key file')
    .option('--name <name>', 'your name as other players will see it: your player id, 1 to 64 of A-Z a-z 0-9 _ . : @ -', 'player')
    .option('--out <file>', 'where to write the secret key file (mode 0600)', 'fairtable-key.json')
    .option('--force', 'overwrite an existing key file')
    .action((opts: { name: string; out: string; force?: boolean }) => {
      // The name becomes the player id in every game the key plays (docs/SPEC.md §4): one that can never be an id is refused now.
      if (!isPlayerId(opts.name)) fail(`[bad_input] --name ${JSON.stringify(opts.name)}: a name is 1 to 64 characters of A-Z a-z 0-9 _ . : @ -`);
      if (existsSync(opts.out) && opts.force !== true) fail(`[bad_input] ${opts.out} exists; pass --force to overwrite it (its key would be lost)`);
      const keys = generateKeyPair();
      writeFileSync(opts.out, JSON.stringify(toKeyFile(opts.name, keys), null, 2) + '\n', { mode: 0o600 });
      process.stdout.write(JSON.stringify(toPublicKeyFile(opts.name, keys.publicKey)) + '\n');
      process.stderr.write(`wrote ${opts.out}; fingerprint ${fingerprint(keys.publicKey)}\n`);
    });
}
