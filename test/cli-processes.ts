/**
 * For tests that run the built `fairtable` command as separate processes in one scratch folder: `start` runs it
 * without blocking the test's process (a relay may run there), telling its first line of stdout as soon as it is
 * written (a creator prints the game id first); `keys` writes a player's key file and public key file.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPair, toKeyFile, toPublicKeyFile } from '@fairtable/core/identity.js';

export const main = fileURLToPath(new URL('../packages/cli/bin/fairtable.js', import.meta.url));

export interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliProcesses {
  /** The scratch folder the processes run in. */
  readonly dir: string;
  start(args: string[], onFirstLine?: (line: string) => void): Promise<Run>;
  keys(name: string): { key: string; pub: string };
}

export function cliProcesses(prefix: string): CliProcesses {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    start: (args, onFirstLine) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [main, ...args], { cwd: dir });
        let stdout = '';
        let stderr = '';
        let told = false;
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          if (!told && stdout.includes('\n')) {
            told = true;
            onFirstLine?.(stdout.slice(0, stdout.indexOf('\n')));
          }
        });
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      }),
    keys: (name) => {
      const k = generateKeyPair();
      const key = join(dir, `${name}.json`);
      const pub = join(dir, `${name}.pub.json`);
      writeFileSync(key, JSON.stringify(toKeyFile(name, k)));
      writeFileSync(pub, JSON.stringify(toPublicKeyFile(name, k.publicKey)));
      return { key, pub };
    },
  };
}
