/**
 * Receipts: an orderer's signed word on each line it records (docs/spec/relay.md §2). For line n of a game
 * the orderer signs
 *
 *   receipt = {v: 1, game, line: n, hash: H(line n), log: L_n, time}
 *   L_0 = H("log", game ‖ H(line 0)),  L_n = H("log", L_(n−1) ‖ H(line n))
 *   sig = Ed25519(orderer key, utf8("fairtable/receipt/v1") ‖ 0x00 ‖ JCS(receipt))
 *
 * `log` commits to the whole log up to line n, so two receipts of one game whose `log` differ at a line
 * both hold prove the orderer showed two histories (a fork), and a receipted line missing from the log it
 * serves convicts it of dropping one. `time` is the orderer's clock when it recorded the line: games
 * played through a relay are judged on these times, not on the players' own claims.
 */
import { concatBytes, fromHex, isHex, toHex } from '../bytes.js';
import { canonicalBytes } from '../jcs.js';
import { domainPrefix, taggedHash } from '../hash.js';
import { sign, verify } from '../identity.js';
import { FairtableError } from '../errors.js';

export interface UnsignedReceipt {
  readonly v: 1;
  readonly game: string;
  readonly line: number;
  /** The hash of the line (the envelope hash, §4). */
  readonly hash: string;
  /** L_line: the running hash of the log up to and including this line. */
  readonly log: string;
  /** The orderer's clock, ms. */
  readonly time: number;
}

export interface Receipt extends UnsignedReceipt {
  readonly sig: string;
}

/** L_0 for a game whose line 0 hashes to `setupHash`. */
export function firstLogHash(gameId: string, setupHash: string): string {
  return toHex(taggedHash('log', fromHex(gameId, 'game', 32), fromHex(setupHash, 'hash', 32)));
}

/** L_n from L_(n−1) and H(line n). */
export function nextLogHash(previous: string, lineHash: string): string {
  return toHex(taggedHash('log', fromHex(previous, 'log', 32), fromHex(lineHash, 'hash', 32)));
}

function receiptBytes(r: UnsignedReceipt): Uint8Array {
  return concatBytes(domainPrefix('receipt'), canonicalBytes({ v: r.v, game: r.game, line: r.line, hash: r.hash, log: r.log, time: r.time }));
}

export function signReceipt(r: UnsignedReceipt, secretKey: Uint8Array, signFn: (m: Uint8Array, k: Uint8Array) => Uint8Array = sign): Receipt {
  // Object.assign, not `{ ...r, sig }`: the same object, without a new hidden class for every signature (door.ts).
  return Object.assign({}, r, { sig: toHex(signFn(receiptBytes(r), secretKey)) });
}

/** Why `value` is not a receipt signed by `ordererKey`, or null when it is one. */
export function receiptError(
  value: unknown,
  ordererKey: Uint8Array,
  verifyFn: (sig: Uint8Array, msg: Uint8Array, key: Uint8Array) => boolean = verify,
): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not an object';
  const r = value as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!['v', 'game', 'line', 'hash', 'log', 'time', 'sig'].includes(k)) return `unknown member "${k}"`;
  if (r.v !== 1) return 'v must be 1';
  if (!isHex(r.game, 32) || !isHex(r.hash, 32) || !isHex(r.log, 32)) return 'game, hash and log must be 64 hex digits';
  for (const k of ['line', 'time'] as const)
    if (typeof r[k] !== 'number' || !Number.isSafeInteger(r[k]) || (r[k] as number) < 0) return `${k} must be a non-negative integer`;
  if (!isHex(r.sig, 64)) return 'sig must be 128 hex digits';
  const ok = verifyFn(fromHex(r.sig as string), receiptBytes(r as unknown as UnsignedReceipt), ordererKey);
  return ok ? null : "the signature does not verify under the orderer's key";
}

/** Throws FairtableError('bad_receipt') unless `value` is a receipt signed by `ordererKey`. */
export function checkReceipt(value: unknown, ordererKey: Uint8Array, verifyFn?: (sig: Uint8Array, msg: Uint8Array, key: Uint8Array) => boolean): Receipt {
  const why = receiptError(value, ordererKey, verifyFn);
  if (why !== null) throw new FairtableError('bad_receipt', `receipt: ${why}`, { field: 'receipt' });
  return value as Receipt;
}

/**
 * Two receipts of one game and one line that disagree about the line or the log before it: the orderer's
 * own signatures proving it showed two histories. Null when they agree (or are not about the same line).
 */
export function forkProof(a: Receipt, b: Receipt): string | null {
  if (a.game !== b.game || a.line !== b.line) return null;
  if (a.hash === b.hash && a.log === b.log) return null;
  return `the orderer signed two receipts for line ${a.line} of game ${a.game}: line hash ${a.hash} with log ${a.log}, and line hash ${b.hash} with log ${b.log}`;
}
