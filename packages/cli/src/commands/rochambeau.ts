/**
 * `fairtable rochambeau judge FILE`: the verdict of an M-party, N-state game
 * of Rochambeau (draft-harkins-rochambeau-02 §4.3, §4.7) from the Commits and
 * Reveals of its players, for any third party to check. Input and output are
 * the judge JSON of docs/spec/rochambeau.md §5; FILE `-` reads stdin. Exit 0
 * when judged (whatever the verdict), 2 when the input cannot be read or is
 * beyond the limits (N of more than MAX_N_DIGITS digits).
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { hash as nodeHash } from 'node:crypto';
import type { Command } from 'commander';
import { judge } from '@fairtable/core/rochambeau/judge.js';
import { judgeOutputChunks, readJudgeInput, MAX_N_DIGITS } from '@fairtable/core/rochambeau/judge-json.js';
import type { Digest, HashName } from '@fairtable/core/rochambeau/hashes.js';

const OPENSSL_NAME: Readonly<Record<HashName, string>> = {
  'sha-256': 'sha256',
  'sha-384': 'sha384',
  'sha-512': 'sha512',
  'sha3-256': 'sha3-256',
};

/** The game's hash from node:crypto (OpenSSL): the same bytes as the core's noble default. */
export function nativeDigest(name: HashName): Digest {
  const algorithm = OPENSSL_NAME[name];
  return (message) => nodeHash(algorithm, message, 'buffer');
}

/**
 * Where the judge takes node:crypto: for SHA-384, SHA-512 and SHA3-256 it is
 * 2 to 4 times faster than noble on 33- to 36-octet messages. For SHA-256 the
 * core's default (one-block messages hashed by sha256-one-block.ts) measured
 * 0.7 µs a message against 1.8 µs for a node:crypto call, so it stays.
 */
const PREFER_NATIVE: ReadonlySet<HashName> = new Set<HashName>(['sha-384', 'sha-512', 'sha3-256']);

async function readInput(file: string): Promise<Uint8Array> {
  if (file !== '-') return readFile(file);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function write(chunk: Uint8Array): Promise<void> {
  if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
}

/** Judges the game in `file` and prints the verdict; exit code 2 and a message when the input is unreadable. */
export async function judgeFile(file: string): Promise<void> {
  let ids: readonly string[];
  let verdict: ReturnType<typeof judge>;
  try {
    const input = readJudgeInput(await readInput(file));
    verdict = judge(input, PREFER_NATIVE.has(input.hash) ? { digest: nativeDigest(input.hash) } : {});
    ids = input.players.ids;
  } catch (error) {
    const e = error as { code?: string; message?: string };
    process.stderr.write(`fairtable rochambeau judge: ${e.code ? `[${e.code}] ` : ''}${e.message ?? String(error)}\n`);
    process.exitCode = 2;
    return;
  }
  // The chunks are about a megabyte each: few write calls, and the output never exists as one string.
  for (const chunk of judgeOutputChunks(ids, verdict)) await write(chunk);
}

export function register(program: Command): void {
  const rochambeau = program
    .command('rochambeau')
    .description('M-party, N-state Rochambeau (draft-harkins-rochambeau-02): pick one winner among players who trust nobody');
  rochambeau
    .command('judge')
    .description(
      'judge a game from its Commits and Reveals and print the verdict as JSON\n' +
        'input: {"N": 101, "hash": "sha-256", "game": "<id, fairtable games only>", "players": [{"id", "commit": hex|null, "reveal": hex|null}]}\n' +
        `limits: N has at most ${MAX_N_DIGITS} decimal digits (exit 2 beyond)`,
    )
    .argument('<file>', 'the judge input as JSON; - reads stdin')
    .action(async (file: string) => {
      await judgeFile(file);
    });
}
