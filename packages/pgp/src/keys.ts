/**
 * OpenPGP keys as fairtable reads them (docs/spec/pgp.md §1): armored or
 * binary transferable keys, one or several in a file (a keyring of the other
 * players), and a secret key unlocked with its passphrase. Fingerprints are
 * written as gpg prints them: uppercase hex, no spaces.
 */
import * as openpgp from 'openpgp';
import { FairtableError } from '@fairtable/core/errors.js';

/** Armored text, or the bytes of a file that holds either armored or binary OpenPGP data. */
export type PgpInput = string | Uint8Array;

export type PublicKey = openpgp.PublicKey;
export type PrivateKey = openpgp.PrivateKey;
export type Key = openpgp.Key;

const decoder = new TextDecoder();

/** Armor is text that opens with `-----BEGIN PGP`; anything else read from a file is taken as binary packets. */
export function armoredText(input: PgpInput): string | null {
  if (typeof input === 'string') return input;
  let i = 0;
  while (i < input.length && (input[i] === 0x20 || input[i] === 0x09 || input[i] === 0x0a || input[i] === 0x0d)) i++;
  const head = decoder.decode(input.subarray(i, i + 14));
  return head === '-----BEGIN PGP' ? decoder.decode(input) : null;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A fingerprint in the one form fairtable writes and compares: uppercase hex, no spaces. */
export function normalFingerprint(value: string): string {
  return value.replace(/\s+/g, '').toUpperCase();
}

export function fingerprintOf(key: { getFingerprint(): string }): string {
  return normalFingerprint(key.getFingerprint());
}

/**
 * The armored key blocks in a text. A keyring is often several exported files
 * put one after the other (`cat alice.asc bob.asc`), and openpgp.js reads only
 * the first block of a text, so each block is read on its own.
 */
function keyBlocks(text: string): string[] {
  return [...text.matchAll(/-----BEGIN PGP (PUBLIC|PRIVATE) KEY BLOCK-----[\s\S]*?-----END PGP \1 KEY BLOCK-----/g)].map((m) => m[0]);
}

/** Every public key in the input (secret keys are read as their public part). Throws `bad_pgp_key`. */
export async function readPublicKeys(input: PgpInput, field = 'publicKey'): Promise<PublicKey[]> {
  const armored = armoredText(input);
  const keys: Key[] = [];
  try {
    if (armored === null) keys.push(...(await openpgp.readKeys({ binaryKeys: input as Uint8Array })));
    else for (const block of keyBlocks(armored)) keys.push(...(await openpgp.readKeys({ armoredKeys: block })));
  } catch (error) {
    throw new FairtableError('bad_pgp_key', `not an OpenPGP public key: ${reason(error)}`, { field, cause: error });
  }
  if (keys.length === 0) throw new FairtableError('bad_pgp_key', 'no OpenPGP key in the input', { field });
  return keys.map((key) => key.toPublic());
}

/** Exactly one public key (a binding or a setup entry names one identity). */
export async function readPublicKey(input: PgpInput, field = 'publicKey'): Promise<PublicKey> {
  const keys = await readPublicKeys(input, field);
  if (keys.length !== 1) throw new FairtableError('bad_pgp_key', `expected one OpenPGP key, found ${keys.length}`, { field });
  return keys[0]!;
}

/**
 * One secret key, unlocked: a locked key needs its passphrase, and a wrong or
 * missing passphrase is `pgp_locked_key`, told apart from an unreadable file.
 */
export async function readSecretKey(input: PgpInput, passphrase?: string, field = 'secretKey'): Promise<PrivateKey> {
  const armored = armoredText(input);
  let keys: PrivateKey[];
  try {
    if (armored === null) keys = await openpgp.readPrivateKeys({ binaryKeys: input as Uint8Array });
    else {
      keys = [];
      for (const block of keyBlocks(armored)) keys.push(...(await openpgp.readPrivateKeys({ armoredKeys: block })));
    }
  } catch (error) {
    throw new FairtableError('bad_pgp_key', `not an OpenPGP secret key: ${reason(error)}`, { field, cause: error });
  }
  if (keys.length !== 1) throw new FairtableError('bad_pgp_key', `expected one OpenPGP secret key, found ${keys.length}`, { field });
  const key = keys[0]!;
  if (key.isDecrypted()) return key;
  if (passphrase === undefined)
    throw new FairtableError('pgp_locked_key', 'the secret key is locked with a passphrase; none was given', { field: 'passphrase' });
  try {
    return await openpgp.decryptKey({ privateKey: key, passphrase });
  } catch (error) {
    throw new FairtableError('pgp_locked_key', `the passphrase does not unlock the secret key: ${reason(error)}`, { field: 'passphrase', cause: error });
  }
}

export interface KeySummary {
  readonly fingerprint: string;
  readonly userIds: readonly string[];
  readonly algorithm: string;
  readonly created: string;
}

export function describeKey(key: Key): KeySummary {
  const info = key.getAlgorithmInfo() as { algorithm: string; curve?: string; bits?: number };
  const algorithm = info.curve !== undefined ? `${info.algorithm}/${info.curve}` : info.bits !== undefined ? `${info.algorithm}/${info.bits}` : info.algorithm;
  return { fingerprint: fingerprintOf(key), userIds: key.getUserIDs(), algorithm, created: key.getCreationTime().toISOString() };
}
