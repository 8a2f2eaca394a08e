/**
 * Holding receipts: an orderer's signed word that it holds a sealed envelope (docs/spec/sealed.md §3). When
 * an orderer keeps a sealed envelope out of the log until its set is complete, it answers the author at once
 * with
 *
 *   holding = {v: 1, game, hash: H(envelope), time, until}
 *   sig = Ed25519(orderer key, utf8("fairtable/holding-receipt/v1") ‖ 0x00 ‖ JCS(holding))
 *
 * `time` is when it took the envelope, `until` the latest time it will release it. The promise is checkable:
 * a line receipt of the same game (relay.md §2) whose `time` is after `until`, on a log that does not hold
 * the envelope, is the orderer's own pair of signatures showing that it lost (or suppressed) it.
 */
import { concatBytes, fromHex, isHex, toHex } from '../bytes.js';
import { canonicalBytes } from '../jcs.js';
import { domainPrefix } from '../hash.js';
import { sign, verify } from '../identity.js';
import { FairtableError } from '../errors.js';
import type { Receipt } from './receipt.js';

export interface UnsignedHoldingReceipt {
  readonly v: 1;
  readonly game: string;
  /** The envelope hash (SPEC §4) of the held envelope. */
  readonly hash: string;
  /** The orderer's clock when it took the envelope, ms. */
  readonly time: number;
  /** The orderer's clock by which the envelope stands in the log, ms. */
  readonly until: number;
}

export interface HoldingReceipt extends UnsignedHoldingReceipt {
  readonly sig: string;
}

const MEMBERS = ['v', 'game', 'hash', 'time', 'until', 'sig'];

function holdingBytes(r: UnsignedHoldingReceipt): Uint8Array {
  return concatBytes(domainPrefix('holding-receipt'), canonicalBytes({ v: r.v, game: r.game, hash: r.hash, time: r.time, until: r.until }));
}

export function signHoldingReceipt(
  r: UnsignedHoldingReceipt,
  secretKey: Uint8Array,
  signFn: (m: Uint8Array, k: Uint8Array) => Uint8Array = sign,
): HoldingReceipt {
  // Object.assign, not `{ ...r, sig }`: the same object, without a new hidden class for every signature (door.ts).
  return Object.assign({}, r, { sig: toHex(signFn(holdingBytes(r), secretKey)) });
}

/** Why `value` is not a holding receipt signed by `ordererKey`, or null when it is one. */
export function holdingReceiptError(
  value: unknown,
  ordererKey: Uint8Array,
  verifyFn: (sig: Uint8Array, msg: Uint8Array, key: Uint8Array) => boolean = verify,
): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not an object';
  const r = value as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!MEMBERS.includes(k)) return `unknown member "${k}"`;
  if (r.v !== 1) return 'v must be 1';
  if (!isHex(r.game, 32) || !isHex(r.hash, 32)) return 'game and hash must be 64 hex digits';
  for (const k of ['time', 'until'] as const)
    if (typeof r[k] !== 'number' || !Number.isSafeInteger(r[k]) || (r[k] as number) < 0) return `${k} must be a non-negative integer`;
  if ((r.until as number) < (r.time as number)) return 'until must not be before time';
  if (!isHex(r.sig, 64)) return 'sig must be 128 hex digits';
  const ok = verifyFn(fromHex(r.sig as string), holdingBytes(r as unknown as UnsignedHoldingReceipt), ordererKey);
  return ok ? null : "the signature does not verify under the orderer's key";
}

/** Throws FairtableError('bad_receipt') unless `value` is a holding receipt signed by `ordererKey`. */
export function checkHoldingReceipt(
  value: unknown,
  ordererKey: Uint8Array,
  verifyFn?: (sig: Uint8Array, msg: Uint8Array, key: Uint8Array) => boolean,
): HoldingReceipt {
  const why = holdingReceiptError(value, ordererKey, verifyFn);
  if (why !== null) throw new FairtableError('bad_receipt', `holding receipt: ${why}`, { field: 'holding' });
  return value as HoldingReceipt;
}

/**
 * The proof that an orderer lost a held envelope: `holding` promised it by `until`, and `receipt` (a line
 * receipt of the same game, signed after `until`) closes a log whose line hashes `lineHashes` (lines 0 to
 * `receipt.line`, already checked against the receipt's running log hash) do not include it. Returns the
 * finding's message, or null when the pair proves nothing. Both signatures must have been checked.
 */
export function lostHeldProof(holding: HoldingReceipt, receipt: Receipt, lineHashes: readonly string[]): string | null {
  if (holding.game !== receipt.game || receipt.time <= holding.until) return null;
  if (lineHashes.length !== receipt.line + 1) return null;
  if (lineHashes.includes(holding.hash)) return null;
  return (
    `the orderer promised (holding receipt of ${holding.time}) that envelope ${holding.hash} would stand in the log of game ${holding.game} ` +
    `by ${holding.until}, and signed line ${receipt.line} at ${receipt.time} on a log without it`
  );
}
