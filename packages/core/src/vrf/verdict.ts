/**
 * The outcome of verifying a VRF proof (RFC 9381 §4.3, §5.3), shared by
 * ECVRF and RSA-FDH-VRF.
 *
 * A proof that does not verify is a finding, not a programming error, so
 * verification returns it as data with a stable code (the same strings as
 * `ErrorCode` in ../errors.ts, used unchanged by the CLI and on the wire).
 * Only inputs of the wrong type are thrown.
 */
import type { ErrorCode } from '../errors.js';
import { FairtableError } from '../errors.js';

/** Why a proof was rejected; a subset of `ErrorCode`. */
export type VrfFailureCode = Extract<ErrorCode, 'bad_length' | 'not_canonical' | 'bad_public_key' | 'bad_proof' | 'weak_key'>;

export type VrfVerdict =
  | { readonly valid: true; readonly beta: Uint8Array }
  | { readonly valid: false; readonly code: VrfFailureCode; readonly field: 'publicKey' | 'pi'; readonly message: string };

export function rejected(code: VrfFailureCode, field: 'publicKey' | 'pi', message: string): VrfVerdict {
  return { valid: false, code, field, message: `${field}: ${message}` };
}

export function assertBytes(value: unknown, field: string): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) throw new FairtableError('bad_input', `${field}: expected a Uint8Array`, { field });
}
