/**
 * Rochambeau on the wire: the size of the game N and the state encoding
 * M = I2OSP(q, m) (draft-harkins-rochambeau-02 §3, §4.4), the Commit payload
 * (§4.4, §4.5) and the Reveal payload (§4.6, §4.7), byte for byte.
 * docs/spec/rochambeau.md §2 fixes what the draft leaves open (resolutions
 * 1–3, 5, 6): 16-bit payload types Commit = 1 and Reveal = 2, a Commit that
 * is `type ‖ C` and nothing else, a Reveal whose length is exactly
 * 4 + nonce length + m, and a 16-octet minimum nonce.
 *
 * Parsing is strict: a payload that is too short, too long, or of the other
 * type is refused with a stable code. Decoders come in two forms: the
 * `check*` functions return a `PayloadFault` as data and read a payload in
 * place (the judge calls them a million times), the `decode*` functions throw
 * a `RochambeauError` with the same code.
 */
import { FairtableError } from '../errors.js';

export const COMMIT_TYPE = 1;
export const REVEAL_TYPE = 2;
/** Resolution 6: §4.4 says the nonce SHOULD be at least 16 octets; we refuse shorter ones. */
export const MIN_NONCE_OCTETS = 16;
/** The nonce fairtable's own players generate. */
export const NONCE_OCTETS = 32;
/** The Reveal's nonce length field is 16 bits wide. */
export const MAX_NONCE_OCTETS = 0xffff;

/** What can be wrong with a payload on its own, before it is compared with anything. */
export type PayloadFaultCode = 'bad_payload_type' | 'bad_length' | 'trailing_bytes' | 'short_nonce';

/** Why a player is out of the game; the same strings in the API, the judge's JSON and the CLI. */
export type DisqualificationCode = 'no_commit' | PayloadFaultCode | 'copied_commit' | 'no_reveal' | 'commit_mismatch' | 'foreign_nonce' | 'state_out_of_range';

export interface PayloadFault {
  readonly code: PayloadFaultCode;
  readonly detail: string;
}

/** A payload that could not be read, or a move a player cannot make. */
export class RochambeauError extends Error {
  readonly code: DisqualificationCode;
  constructor(code: DisqualificationCode, message: string) {
    super(message);
    this.name = 'RochambeauError';
    this.code = code;
  }
}

// ---------------------------------------------------------------- the size of the game

const TWO_32 = 2n ** 32n;

/** N, and what follows from it: the octet length m of every M, and whether Number arithmetic is exact. */
export interface GameSize {
  readonly N: bigint;
  /** §4.4: the smallest m with 2^(8m) > N. */
  readonly m: number;
  /** N < 2^32: every residue fits a Uint32Array and every sum a double. */
  readonly small: boolean;
  /** N as a Number when `small`, else NaN. */
  readonly n: number;
}

/**
 * Checks N (§3: known to all, odd) and our floor of 3: with N = 1 every game is
 * a tie, and an even N breaks the antisymmetry §4.1 requires.
 */
export function gameSize(N: bigint | number | string): GameSize {
  let value: bigint;
  if (typeof N === 'bigint') value = N;
  else if (typeof N === 'number' && Number.isSafeInteger(N)) value = BigInt(N);
  else if (typeof N === 'string' && /^[1-9][0-9]*$/.test(N)) value = BigInt(N);
  else throw new FairtableError('bad_input', `N: expected a positive integer (number, bigint or decimal string), got ${String(N)}`, { field: 'N' });
  if (value < 3n) throw new FairtableError('out_of_range', `N: must be at least 3, got ${value}`, { field: 'N' });
  if ((value & 1n) === 0n) throw new FairtableError('out_of_range', `N: must be odd (draft §3, §4.2), got ${value}`, { field: 'N' });
  let m = 1;
  while (1n << BigInt(8 * m) <= value) m++;
  const small = value < TWO_32;
  return { N: value, m, small, n: small ? Number(value) : Number.NaN };
}

/** M = I2OSP(q, m) (§4.4, RFC 6090 §2.3.7). */
export function encodeState(q: bigint | number, size: GameSize): Uint8Array {
  let x = BigInt(q);
  if (x < 1n || x >= size.N) throw new RochambeauError('state_out_of_range', `state ${x} is outside 1..${size.N - 1n}`);
  const out = new Uint8Array(size.m);
  for (let i = size.m - 1; i >= 0; i--) {
    out[i] = Number(x & 255n);
    x >>= 8n;
  }
  return out;
}

/** x = OS2IP(M) (§4.7, RFC 6090 §2.3.8); the range check is the caller's, as §4.7 orders it. */
export function decodeState(M: Uint8Array): bigint {
  let x = 0n;
  for (const octet of M) x = (x << 8n) | BigInt(octet);
  return x;
}

// ---------------------------------------------------------------- Commit

/**
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |    Payload type = 1 (Commit)  |  C (digest length of H) ...   ~
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 */
export function encodeCommit(C: Uint8Array): Uint8Array {
  const out = new Uint8Array(2 + C.length);
  out[1] = COMMIT_TYPE;
  out.set(C, 2);
  return out;
}

/** A 16-bit big-endian field: the payload type, or the Reveal's nonce length. */
const u16At = (bytes: Uint8Array, at: number): number => (bytes[at]! << 8) | bytes[at + 1]!;

/** The fault of the Commit in bytes[start, end), or null when it is well-formed. */
export function checkCommit(bytes: Uint8Array, start: number, end: number, digestOctets: number): PayloadFault | null {
  const length = end - start;
  const expected = 2 + digestOctets;
  if (length < 2) return { code: 'bad_length', detail: `Commit is ${length} octets; expected ${expected}` };
  const type = u16At(bytes, start);
  if (type !== COMMIT_TYPE) return { code: 'bad_payload_type', detail: `Commit has payload type ${type}; expected ${COMMIT_TYPE}` };
  if (length < expected) return { code: 'bad_length', detail: `Commit is ${length} octets; expected ${expected}` };
  if (length > expected) return { code: 'trailing_bytes', detail: `Commit is ${length} octets; expected ${expected}` };
  return null;
}

/** The C-value of a Commit payload (a view into `payload`). */
export function decodeCommit(payload: Uint8Array, digestOctets: number): Uint8Array {
  const fault = checkCommit(payload, 0, payload.length, digestOctets);
  if (fault !== null) throw new RochambeauError(fault.code, fault.detail);
  return payload.subarray(2);
}

// ---------------------------------------------------------------- Reveal

/**
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |    Payload type = 2 (Reveal)  |       length of nonce         |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |           nonce (length of nonce octets) ...                  ~
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |           M (m octets) ...                                    ~
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * nonce ‖ M is the suffix starting at octet 4: exactly what C = H(nonce ‖ M) hashes.
 */
export function encodeReveal(nonce: Uint8Array, M: Uint8Array): Uint8Array {
  if (nonce.length < MIN_NONCE_OCTETS) {
    throw new RochambeauError('short_nonce', `nonce is ${nonce.length} octets; at least ${MIN_NONCE_OCTETS} required`);
  }
  if (nonce.length > MAX_NONCE_OCTETS) throw new RochambeauError('bad_length', `nonce is ${nonce.length} octets; at most ${MAX_NONCE_OCTETS} fit`);
  const out = new Uint8Array(4 + nonce.length + M.length);
  out[1] = REVEAL_TYPE;
  out[2] = nonce.length >>> 8;
  out[3] = nonce.length & 255;
  out.set(nonce, 4);
  out.set(M, 4 + nonce.length);
  return out;
}

/** The fault of the Reveal in bytes[start, end), or null when it is well-formed. */
export function checkReveal(bytes: Uint8Array, start: number, end: number, m: number): PayloadFault | null {
  const length = end - start;
  if (length < 2) return { code: 'bad_length', detail: `Reveal is ${length} octets; expected at least 4` };
  const type = u16At(bytes, start);
  if (type !== REVEAL_TYPE) return { code: 'bad_payload_type', detail: `Reveal has payload type ${type}; expected ${REVEAL_TYPE}` };
  if (length < 4) return { code: 'bad_length', detail: `Reveal is ${length} octets; expected at least 4` };
  const nonceOctets = u16At(bytes, start + 2);
  const expected = 4 + nonceOctets + m;
  if (length !== expected) {
    return {
      code: length < expected ? 'bad_length' : 'trailing_bytes',
      detail: `Reveal is ${length} octets; nonce length ${nonceOctets} and m = ${m} need ${expected}`,
    };
  }
  if (nonceOctets < MIN_NONCE_OCTETS) {
    return { code: 'short_nonce', detail: `nonce is ${nonceOctets} octets; at least ${MIN_NONCE_OCTETS} required` };
  }
  return null;
}

export interface RevealContents {
  readonly nonce: Uint8Array;
  readonly M: Uint8Array;
}

/** The nonce and M of a Reveal payload (views into `payload`). */
export function decodeReveal(payload: Uint8Array, m: number): RevealContents {
  const fault = checkReveal(payload, 0, payload.length, m);
  if (fault !== null) throw new RochambeauError(fault.code, fault.detail);
  const nonceOctets = u16At(payload, 2);
  return { nonce: payload.subarray(4, 4 + nonceOctets), M: payload.subarray(4 + nonceOctets) };
}
