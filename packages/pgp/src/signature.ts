/**
 * Detached OpenPGP signatures over bytes (docs/spec/pgp.md §2), the kind
 * `gpg --detach-sign --armor FILE` makes: a binary-document signature
 * (type 0x00) over the file's exact bytes, in a file of its own.
 *
 * Unreadable input (a key or a signature that is not OpenPGP) is thrown as a
 * coded FairtableError; a readable signature that does not hold is returned as
 * a verdict with its reason code, so a caller can tell "refuse this message"
 * from "I could not read what I was given".
 */
import * as openpgp from 'openpgp';
import { FairtableError } from '@fairtable/core/errors.js';
import { armoredText, fingerprintOf, readPublicKeys, readSecretKey, type PgpInput, type PublicKey } from './keys.js';

export type SignatureFailure = 'bad_pgp_signature' | 'pgp_wrong_signer' | 'pgp_key_unusable';

export type SignatureVerdict =
  | {
      readonly valid: true;
      /** The primary key's fingerprint: the identity that signed. */
      readonly fingerprint: string;
      /** The (sub)key that made the signature. */
      readonly signingKey: string;
      readonly userIds: readonly string[];
      /** When the signer's clock says it signed (ISO 8601); a claim, not a proof. */
      readonly created: string;
    }
  | {
      readonly valid: false;
      readonly code: SignatureFailure;
      readonly message: string;
      /** The issuer key id the signature names (16 hex digits), when it names one. */
      readonly issuer: string | null;
    };

function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? new TextEncoder().encode(data) : data;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Makes an armored detached signature over `data` (binary document signature). */
export async function signDetached(secretKey: PgpInput, data: Uint8Array | string, passphrase?: string): Promise<string> {
  const signingKey = await readSecretKey(secretKey, passphrase);
  try {
    const message = await openpgp.createMessage({ binary: toBytes(data) });
    return await openpgp.sign({ message, signingKeys: signingKey, detached: true, format: 'armored' });
  } catch (error) {
    // A key that reads but cannot sign (no signing-capable, unexpired key) is unusable input.
    throw new FairtableError('bad_pgp_key', `the secret key cannot sign: ${reason(error)}`, { field: 'secretKey', cause: error });
  }
}

/** Reads a detached signature file holding exactly one signature. Throws `bad_pgp_data`. */
export async function readDetachedSignature(input: PgpInput, field = 'signature'): Promise<openpgp.Signature> {
  const armored = armoredText(input);
  let signature: openpgp.Signature;
  try {
    signature =
      armored !== null ? await openpgp.readSignature({ armoredSignature: armored }) : await openpgp.readSignature({ binarySignature: input as Uint8Array });
  } catch (error) {
    throw new FairtableError('bad_pgp_data', `not an OpenPGP signature: ${reason(error)}`, { field, cause: error });
  }
  // One message, one signer: a file with several signatures would leave "valid" ambiguous (any? all?), so it is refused as input.
  const count = signature.packets.length;
  if (count !== 1) throw new FairtableError('bad_pgp_data', `a detached signature file must hold exactly one signature; this one holds ${count}`, { field });
  // Only a signature over a document signs a file; a key certification or revocation packet is not one.
  const type = signature.packets[0]!.signatureType;
  if (type !== openpgp.enums.signature.binary && type !== openpgp.enums.signature.text) {
    throw new FairtableError('bad_pgp_data', `not a signature over a document (signature type ${type ?? 'unknown'})`, { field });
  }
  return signature;
}

/** openpgp.js reports reasons as messages; fairtable reports them as codes. */
export function failureCode(message: string): SignatureFailure {
  if (/^Could not find signing key/.test(message)) return 'pgp_wrong_signer';
  if (/^(Signed digest did not match|Signature verification failed)/.test(message)) return 'bad_pgp_signature';
  // The checks of the key at signing time (getSigningKey and the creation-time check) report with these openings.
  if (
    /^(Primary key is|Subkey is|User certificate is|Self-certification is|Could not verify primary key|Could not find valid signing key|Key is newer than the signature)/.test(
      message,
    )
  ) {
    return 'pgp_key_unusable';
  }
  return 'bad_pgp_signature';
}

/**
 * Checks a detached signature over `data` against the given public keys (one
 * key, or a keyring of several). Valid means: made by one of those keys,
 * over exactly these bytes, by a key that was valid (not expired or revoked)
 * when it signed, with a hash openpgp.js accepts.
 */
export async function verifyDetached(
  publicKeys: PgpInput | readonly PublicKey[],
  data: Uint8Array | string,
  signature: PgpInput,
  options: { readonly date?: Date } = {},
): Promise<SignatureVerdict> {
  const keys = Array.isArray(publicKeys) ? (publicKeys as readonly PublicKey[]) : await readPublicKeys(publicKeys as PgpInput);
  const sig = await readDetachedSignature(signature);
  const message = await openpgp.createMessage({ binary: toBytes(data) });
  let result: Awaited<ReturnType<typeof openpgp.verify>>;
  try {
    result = await openpgp.verify({ message, signature: sig, verificationKeys: [...keys], format: 'binary', ...(options.date ? { date: options.date } : {}) });
  } catch (error) {
    // openpgp.js parses some of a signature's fields only here: a malformed one is unreadable input, as at readSignature.
    throw new FairtableError('bad_pgp_data', `not a readable OpenPGP signature: ${reason(error)}`, { field: 'signature', cause: error });
  }
  const only = result.signatures[0];
  if (only === undefined) throw new FairtableError('bad_pgp_data', 'the signature file holds no signature', { field: 'signature' });
  const hex = only.keyID.toHex().toUpperCase();
  const issuer = /^0+$/.test(hex) ? null : hex;
  try {
    await only.verified;
  } catch (error) {
    const message = reason(error);
    return { valid: false, code: failureCode(message), message, issuer };
  }
  const signer = keys.find((key) => key.getKeys(only.keyID).length > 0)!;
  const packet = (await only.signature).packets[0]!;
  return {
    valid: true,
    fingerprint: fingerprintOf(signer),
    signingKey: fingerprintOf(signer.getKeys(only.keyID)[0]!),
    userIds: signer.getUserIDs(),
    created: (packet.created ?? new Date(0)).toISOString(),
  };
}
