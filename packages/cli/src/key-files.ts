/** Reading the key files `fairtable keygen` writes: a player's own key, and the public key files of the others. */
import { readFileSync } from 'node:fs';
import { isHex } from '@fairtable/core/bytes.js';
import { isPlayerId } from '@fairtable/core/envelope.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { fromKeyFile, type KeyPair } from '@fairtable/core/identity.js';

function readJson(path: string, field: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new FairtableError('bad_key_file', `${path}: ${(e as Error).message}`, { field });
  }
}

/** A player's key file; throws `bad_key_file`. */
export function readKeyFile(path: string, field = 'key'): { name: string; keys: KeyPair } {
  const v = readJson(path, field);
  // The usual mistake: the public part (keygen's stdout) where the key file (its --out) is wanted.
  if (v !== null && typeof v === 'object' && (v as { type?: unknown }).type === 'fairtable-public-key') {
    const name = (v as { name?: unknown }).name;
    throw new FairtableError(
      'bad_key_file',
      `${path} is the public part of ${typeof name === 'string' ? `${name}'s` : 'a'} key, which others use to check your moves; ` +
        `this needs your key file itself, the one keygen wrote with --out (it holds the secret half)`,
      { field },
    );
  }
  try {
    return fromKeyFile(v);
  } catch (e) {
    if (e instanceof FairtableError && e.code === 'bad_key_file' && e.message.startsWith(path)) throw e;
    throw new FairtableError('bad_key_file', `${path}: ${(e as Error).message}`, { field, cause: e });
  }
}

/** A public key file (keygen's output: `{name, publicKey}`); throws `bad_key_file`. */
export function readPublicKeyFile(path: string, field = 'players'): { id: string; key: string } {
  const v = readJson(path, field) as { name?: unknown; publicKey?: unknown } | null;
  if (v === null || typeof v !== 'object' || !isPlayerId(v.name) || !isHex(v.publicKey, 32)) {
    throw new FairtableError('bad_key_file', `${path}: not a public key file (expected {"name", "publicKey"}, the output of fairtable keygen)`, { field });
  }
  return { id: v.name, key: v.publicKey };
}
