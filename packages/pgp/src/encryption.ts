/**
 * Mail to the other players, encrypted to their OpenPGP keys (docs/spec/pgp.md
 * §4): one armored message every recipient can open with their own secret key,
 * optionally signed inside by the sender. What fairtable puts in the message is
 * already signed by its fairtable key; encryption only keeps it private
 * between the players, it adds nothing to what the auditor checks.
 */
import * as openpgp from 'openpgp';
import { FairtableError } from '@fairtable/core/errors.js';
import { armoredText, readPublicKeys, readSecretKey, type PgpInput, type PublicKey } from './keys.js';
import { verifyDetached, type SignatureVerdict } from './signature.js';

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Encrypts `data` to every key given (each input may be one key or a keyring);
 * with `signWith`, the sender's secret key signs inside the encryption.
 */
export async function encryptTo(
  recipients: readonly PgpInput[],
  data: Uint8Array,
  options: { readonly signWith?: PgpInput; readonly passphrase?: string } = {},
): Promise<string> {
  if (recipients.length === 0) throw new FairtableError('bad_input', 'no recipient to encrypt to', { field: 'recipients' });
  const keys: PublicKey[] = [];
  for (const [i, recipient] of recipients.entries()) keys.push(...(await readPublicKeys(recipient, `recipients[${i}]`)));
  const signingKey = options.signWith === undefined ? undefined : await readSecretKey(options.signWith, options.passphrase);
  try {
    const message = await openpgp.createMessage({ binary: data });
    return await openpgp.encrypt({ message, encryptionKeys: keys, ...(signingKey ? { signingKeys: signingKey } : {}), format: 'armored' });
  } catch (error) {
    // openpgp.js refuses a key with no usable encryption subkey here (e.g. a sign-only key).
    throw new FairtableError('bad_pgp_key', `cannot encrypt to these keys: ${reason(error)}`, { field: 'recipients', cause: error });
  }
}

export interface Decrypted {
  readonly data: Uint8Array;
  /** The verdict on the signature inside when `verifyWith` was given (an unsigned message is not valid); otherwise null. */
  readonly signature: SignatureVerdict | null;
}

/**
 * Opens a message with the reader's secret key. A message that is not for this
 * key, or that was altered, is `pgp_cannot_decrypt` (openpgp.js checks the
 * integrity tag before it returns any plaintext).
 */
export async function decryptWith(
  secretKey: PgpInput,
  encrypted: PgpInput,
  options: { readonly passphrase?: string; readonly verifyWith?: PgpInput } = {},
): Promise<Decrypted> {
  const key = await readSecretKey(secretKey, options.passphrase);
  const armored = armoredText(encrypted);
  let message: openpgp.Message<Uint8Array> | openpgp.Message<string>;
  try {
    message = armored !== null ? await openpgp.readMessage({ armoredMessage: armored }) : await openpgp.readMessage({ binaryMessage: encrypted as Uint8Array });
  } catch (error) {
    throw new FairtableError('bad_pgp_data', `not an OpenPGP message: ${reason(error)}`, { field: 'message', cause: error });
  }
  let data: Uint8Array;
  let signatures: openpgp.DecryptMessageResult['signatures'];
  try {
    const result = await openpgp.decrypt({ message, decryptionKeys: key, format: 'binary' });
    data = result.data as Uint8Array;
    signatures = result.signatures;
  } catch (error) {
    throw new FairtableError('pgp_cannot_decrypt', `cannot decrypt the message with this key: ${reason(error)}`, { field: 'message', cause: error });
  }
  if (options.verifyWith === undefined) return { data, signature: null };
  if (signatures.length === 0) return { data, signature: { valid: false, code: 'bad_pgp_signature', message: 'the message is not signed', issuer: null } };
  // The signature inside is checked the same way as a detached one, against the same bytes.
  const inner = (await signatures[0]!.signature).armor();
  return { data, signature: await verifyDetached(options.verifyWith, data, inner) };
}
