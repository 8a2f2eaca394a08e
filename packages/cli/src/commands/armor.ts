/**
 * `fairtable armor` / `fairtable dearmor`: envelopes as a text block that
 * survives e-mail (docs/SPEC.md §11). Both stream, so memory does not grow
 * with the input. `dearmor` prints nothing until every block's checksum has
 * been checked: the payload is spooled to a private temporary file meanwhile,
 * because a checksum is only known at the end of its block.
 */
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import { ArmorReader, ArmorWriter, type IncrementalSha256 } from '@fairtable/core/armor.js';
import { fail } from '../io.js';

/** Node's SHA-256: the same digest as noble's, several times faster on large payloads. */
function nativeSha256(): IncrementalSha256 {
  const h = createHash('sha256');
  return {
    update: (data) => h.update(data),
    digest: () => new Uint8Array(h.digest()),
  };
}

const input = (file: string, encoding?: 'utf8'): Readable =>
  file === '-'
    ? encoding === undefined
      ? process.stdin
      : process.stdin.setEncoding(encoding)
    : createReadStream(file, encoding === undefined ? {} : { encoding });

/** Writes to stdout, waiting when its buffer is full, so that a slow reader does not make us hold the output. */
async function out(data: string | Uint8Array): Promise<void> {
  if (data.length === 0) return;
  if (!process.stdout.write(data)) await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
}

const failWith = (e: unknown, fallback: string): never => {
  const err = e as { code?: string; message?: string };
  // Node's own file errors carry codes such as ENOENT; those are bad input for us.
  const code = err.code !== undefined && /^[a-z_]+$/.test(err.code) ? err.code : fallback;
  return fail(`[${code}] ${err.message ?? String(e)}`);
};

export function register(program: Command): void {
  program
    .command('armor')
    .description('wrap a file of envelopes (JSON Lines) as an armored text block for e-mail')
    .argument('[file]', 'input file, or - for stdin', '-')
    .action(async (file: string) => {
      const writer = new ArmorWriter({ sha256: nativeSha256 });
      try {
        for await (const chunk of input(file) as AsyncIterable<Uint8Array>) await out(writer.push(chunk));
      } catch (e) {
        failWith(e, 'bad_input');
      }
      if (writer.size === 0) fail('[bad_input] nothing to armor: the input is empty');
      await out(writer.end());
    });
  program
    .command('dearmor')
    .description('find armored blocks in a text (an e-mail, say), check them and print their envelopes')
    .argument('[file]', 'input file, or - for stdin', '-')
    .action(async (file: string) => {
      const dir = mkdtempSync(join(tmpdir(), 'fairtable-dearmor-'));
      const spool = join(dir, 'payload');
      const fd = openSync(spool, 'w', 0o600);
      let error: unknown = null;
      try {
        const reader = new ArmorReader((bytes) => writeSync(fd, bytes), { sha256: nativeSha256 });
        for await (const chunk of input(file, 'utf8') as AsyncIterable<string>) reader.push(chunk);
        reader.end();
      } catch (e) {
        error = e;
      } finally {
        closeSync(fd);
      }
      try {
        if (error === null) for await (const chunk of createReadStream(spool) as AsyncIterable<Uint8Array>) await out(chunk);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      // After the clean-up: fail() exits at once.
      if (error !== null) failWith(error, 'bad_armor');
    });
}
