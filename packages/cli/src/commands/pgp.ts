/**
 * `fairtable pgp`: OpenPGP for players who already use it (docs/spec/pgp.md §5).
 * Signatures gpg makes and checks, bindings from a fairtable key to an OpenPGP
 * identity, and encryption to the other players' keys. Keys are the files gpg
 * exports (`gpg --export --armor`, `gpg --export-secret-keys --armor`), armored
 * or binary.
 *
 * Exit codes, for every subcommand that checks something: 0 valid, 1 not
 * valid (its reason code first on stderr, or in --json), 2 unreadable input
 * (a file that is missing or is not OpenPGP, a locked key without its
 * passphrase, a missing option).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { FairtableError } from '@fairtable/core/errors.js';
import { isHex } from '@fairtable/core/bytes.js';
import type { SignatureVerdict } from '@fairtable/pgp';
import { failWith } from '../io.js';

/** openpgp.js takes ~60 ms to load: only `fairtable pgp` pays for it, not every command. */
const lib = () => import('@fairtable/pgp');

function readBytes(path: string): Uint8Array {
  return path === '-' ? new Uint8Array(readFileSync(0)) : new Uint8Array(readFileSync(path));
}

/** The passphrase is the file's first line, so a passphrase never shows in the process list. */
function passphraseFrom(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  return readFileSync(file, 'utf8').split(/\r?\n/)[0] ?? '';
}

/** A fairtable key file, public (`keygen`'s output) or secret; only its name and public key are read. */
function readFairtableKey(path: string): { name: string; publicKey: string } {
  let value: { type?: unknown; name?: unknown; publicKey?: unknown };
  try {
    value = JSON.parse(readFileSync(path, 'utf8')) as typeof value;
  } catch (error) {
    if ((error as { code?: string }).code !== undefined) throw error;
    throw new FairtableError('bad_key_file', `${path} is not JSON`, { field: 'fairtableKey' });
  }
  if (value === null || (value.type !== 'fairtable-public-key' && value.type !== 'fairtable-key')) {
    throw new FairtableError('bad_key_file', `${path} is not a fairtable key file`, { field: 'fairtableKey' });
  }
  if (typeof value.name !== 'string' || !isHex(value.publicKey, 32)) {
    throw new FairtableError('bad_key_file', `${path}: name and a 64-hex-digit publicKey are required`, { field: 'fairtableKey' });
  }
  return { name: value.name, publicKey: value.publicKey };
}

/** Runs one subcommand: a thrown error is unreadable input (exit 2), as one coded line. */
function guarded<A extends unknown[]>(action: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (error) {
      failWith(error);
    }
  };
}

function report(verdict: SignatureVerdict | { valid: boolean; code?: string; message?: string }, json: boolean, good: string): void {
  if (json) process.stdout.write(`${JSON.stringify(verdict)}\n`);
  if (verdict.valid) {
    if (!json) process.stdout.write(`${good}\n`);
  } else {
    process.stderr.write(`${verdict.code}: ${verdict.message}\n`);
    process.exitCode = 1;
  }
}

export function register(program: Command): void {
  const pgp = program
    .command('pgp')
    .description('OpenPGP: detached signatures gpg makes and checks, bindings of your fairtable key to your OpenPGP key, encryption to players')
    // Usage errors are unusable input: exit 2, as for an unreadable file; help still exits 0.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));

  pgp
    .command('sign')
    .description('sign FILE with an OpenPGP secret key; prints an armored detached signature (as gpg --detach-sign --armor)')
    .requiredOption('--key <secret.asc>', 'OpenPGP secret key file (gpg --export-secret-keys --armor)')
    .option('--passphrase-file <file>', "file whose first line is the key's passphrase")
    .argument('<file>', 'the file to sign, or - for stdin')
    .action(
      guarded(async (file: string, options: { key: string; passphraseFile?: string }) => {
        const pgpLib = await lib();
        process.stdout.write(await pgpLib.signDetached(readBytes(options.key), readBytes(file), passphraseFrom(options.passphraseFile)));
      }),
    );

  pgp
    .command('verify')
    .description('check a detached signature on FILE; exit 0 valid, 1 not valid, 2 unreadable input')
    .requiredOption('--key <public.asc>', "the signer's OpenPGP public key, or a keyring of several (gpg --export --armor)")
    .option('--json', 'print the verdict as JSON: {valid, fingerprint, signingKey, userIds, created} or {valid, code, message, issuer}')
    .argument('<file>', 'the signed file, or - for stdin')
    .argument('<signature>', 'the detached signature (.asc or .sig)')
    .action(
      guarded(async (file: string, signature: string, options: { key: string; json?: boolean }) => {
        const pgpLib = await lib();
        const verdict = await pgpLib.verifyDetached(readBytes(options.key), readBytes(file), readBytes(signature));
        const good = verdict.valid ? `good signature from ${verdict.fingerprint} ${verdict.userIds.join(', ')}, made ${verdict.created}` : '';
        report(verdict, options.json === true, good);
      }),
    );

  pgp
    .command('statement')
    .description('print the binding statement for a fairtable key and an OpenPGP key, to sign with gpg --detach-sign --armor')
    .requiredOption('--fairtable-key <file>', 'your fairtable key file (public, from keygen, or secret)')
    .requiredOption('--pgp-key <public.asc>', 'your OpenPGP public key')
    .option('--player <id>', 'your player id (default: the name in the fairtable key file)')
    .option('--nonce <hex>', "bind for one game only: that game's setup nonce")
    .action(
      guarded(async (options: { fairtableKey: string; pgpKey: string; player?: string; nonce?: string }) => {
        const pgpLib = await lib();
        const ft = readFairtableKey(options.fairtableKey);
        const key = await pgpLib.readPublicKey(readBytes(options.pgpKey), 'pgpKey');
        const fields = { player: options.player ?? ft.name, key: ft.publicKey, pgp: pgpLib.describeKey(key).fingerprint };
        process.stdout.write(pgpLib.formatBinding(options.nonce === undefined ? fields : { ...fields, nonce: options.nonce }));
      }),
    );

  pgp
    .command('bind')
    .description('bind your fairtable key to your OpenPGP key: writes the statement and its signature, prints the setup entry (JSON)')
    .requiredOption('--key <secret.asc>', 'your OpenPGP secret key')
    .requiredOption('--fairtable-key <file>', 'your fairtable key file (public, from keygen, or secret)')
    .option('--player <id>', 'your player id (default: the name in the fairtable key file)')
    .option('--nonce <hex>', "bind for one game only: that game's setup nonce")
    .option('--out <file>', 'where to write the statement; its signature goes to FILE.asc (default: PLAYER.binding.txt)')
    .option('--passphrase-file <file>', "file whose first line is the key's passphrase")
    .action(
      guarded(async (options: { key: string; fairtableKey: string; player?: string; nonce?: string; out?: string; passphraseFile?: string }) => {
        const pgpLib = await lib();
        const ft = readFairtableKey(options.fairtableKey);
        const player = options.player ?? ft.name;
        const secret = readBytes(options.key);
        const passphrase = passphraseFrom(options.passphraseFile);
        const fields = { player, key: ft.publicKey };
        const binding = await pgpLib.makeBinding(secret, options.nonce === undefined ? fields : { ...fields, nonce: options.nonce }, passphrase);
        const out = options.out ?? `${player}.binding.txt`;
        writeFileSync(out, binding.statement);
        writeFileSync(`${out}.asc`, binding.signature);
        const publicKey = (await pgpLib.readSecretKey(secret, passphrase)).toPublic().armor();
        // The entry a game's creator puts in setup.params.pgp (docs/spec/pgp.md §3.2).
        process.stdout.write(`${JSON.stringify({ player, publicKey, binding: binding.statement, signature: binding.signature })}\n`);
        process.stderr.write(`wrote ${out} and ${out}.asc\n`);
      }),
    );

  pgp
    .command('check-binding')
    .description('check a binding statement and its signature; exit 0 valid, 1 not valid, 2 unreadable input')
    .requiredOption('--key <public.asc>', 'the OpenPGP public key the statement names, or a keyring holding it')
    .option('--json', 'print the verdict as JSON: {valid, statement: {player, key, pgp, nonce?}, fingerprint, userIds} or {valid, code, message}')
    .option('--entry', 'once it holds, print the setup entry for mail new --binding (JSON), as pgp bind does: for a statement signed with gpg')
    .argument('<statement>', 'the statement file, or one cleartext-signed file (gpg --clearsign) holding it')
    .argument('[signature]', 'its detached signature (omit for a cleartext-signed statement)')
    .action(
      guarded(async (statement: string, signature: string | undefined, options: { key: string; json?: boolean; entry?: boolean }) => {
        const pgpLib = await lib();
        if (options.entry === true && signature === undefined)
          throw new FairtableError('bad_input', '--entry needs the statement and its detached signature (gpg --detach-sign --armor)', { field: 'entry' });
        const verdict =
          signature === undefined
            ? await pgpLib.checkClearsignedBinding(readBytes(statement), readBytes(options.key))
            : await pgpLib.checkBinding(readBytes(statement), readBytes(signature), readBytes(options.key));
        if (options.entry === true && verdict.valid) {
          // The one key that signed, out of a keyring if need be: the entry names one identity (docs/spec/pgp.md §3.2).
          const keys = await pgpLib.readPublicKeys(readBytes(options.key), 'key');
          const key = keys.find((k) => pgpLib.describeKey(k).fingerprint === verdict.fingerprint)!;
          const entry = {
            player: verdict.statement.player,
            publicKey: key.armor(),
            binding: readFileSync(statement, 'utf8'),
            signature: readFileSync(signature!, 'utf8'),
          };
          process.stdout.write(`${JSON.stringify(entry)}\n`);
          return;
        }
        const good = verdict.valid
          ? `binding holds: player ${verdict.statement.player}, fairtable key ${verdict.statement.key}, OpenPGP ${verdict.fingerprint} ${verdict.userIds.join(', ')}`
          : '';
        report(verdict, options.json === true, good);
      }),
    );

  pgp
    .command('encrypt')
    .description("encrypt FILE to the other players' OpenPGP keys; prints an armored message")
    .requiredOption('--to <public.asc>', 'a recipient key or keyring (repeat for each)', (value: string, all: string[]) => [...all, value], [] as string[])
    .option('--sign <secret.asc>', 'also sign inside the message with your OpenPGP secret key')
    .option('--passphrase-file <file>', "file whose first line is the signing key's passphrase")
    .argument('<file>', 'the file to encrypt, or - for stdin')
    .action(
      guarded(async (file: string, options: { to: string[]; sign?: string; passphraseFile?: string }) => {
        const pgpLib = await lib();
        const passphrase = passphraseFrom(options.passphraseFile);
        const signing = options.sign === undefined ? {} : { signWith: readBytes(options.sign), ...(passphrase === undefined ? {} : { passphrase }) };
        process.stdout.write(await pgpLib.encryptTo(options.to.map(readBytes), readBytes(file), signing));
      }),
    );

  pgp
    .command('decrypt')
    .description('decrypt a message with your OpenPGP secret key; exit 1 when it was altered, is not for you, or (with --verify) is not signed by that key')
    .requiredOption('--key <secret.asc>', 'your OpenPGP secret key')
    .option('--verify <public.asc>', "require a valid signature inside by this key (the sender's)")
    .option('--passphrase-file <file>', "file whose first line is the key's passphrase")
    .option('--out <file>', 'write the plaintext here instead of stdout')
    .argument('<file>', 'the encrypted message, or - for stdin')
    .action(
      guarded(async (file: string, options: { key: string; verify?: string; passphraseFile?: string; out?: string }) => {
        const pgpLib = await lib();
        const passphrase = passphraseFrom(options.passphraseFile);
        let opened;
        try {
          opened = await pgpLib.decryptWith(readBytes(options.key), readBytes(file), {
            ...(passphrase === undefined ? {} : { passphrase }),
            ...(options.verify === undefined ? {} : { verifyWith: readBytes(options.verify) }),
          });
        } catch (error) {
          // A message that is readable but not for this key, or altered, is a "not valid", not unreadable input.
          if (error instanceof FairtableError && error.code === 'pgp_cannot_decrypt') {
            process.stderr.write(`${error.code}: ${error.message}\n`);
            process.exitCode = 1;
            return;
          }
          throw error;
        }
        // Plaintext whose required signature does not hold is withheld, so no one acts on it by mistake.
        if (opened.signature !== null && !opened.signature.valid) {
          process.stderr.write(`${opened.signature.code}: ${opened.signature.message}\n`);
          process.exitCode = 1;
          return;
        }
        if (options.out !== undefined) writeFileSync(options.out, opened.data);
        else process.stdout.write(opened.data);
        if (opened.signature?.valid === true)
          process.stderr.write(`good signature from ${opened.signature.fingerprint} ${opened.signature.userIds.join(', ')}\n`);
      }),
    );
}
