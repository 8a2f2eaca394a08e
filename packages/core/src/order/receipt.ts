/**
 * Receipts: an orderer's signed word on each line it records (docs/spec/relay.md §2). For line n of a game
 * the orderer signs
 *
 *   receipt = {v: 1, game, line: n, hash: H(line n), log: L_n, time}
 *   L_0 = H("log", game ‖ H(line 0)),  L_n = H("log", L_(n−1) ‖ H(line n))
 *   sig = Ed25519(orderer key, utf8("fairtable/receipt/v1") ‖ 0x00 ‖ JCS(receipt))
 *
 * or, with one signature for a batch of lines stored together (version 2, what the relay gives):
 *
 *   leaf_i = H("receipt-leaf", JCS({v: 2, game, line, hash, log, time}))   for the batch's i-th line
 *   root   = the Merkle tree hash of RFC 9162 §2.1.1 over leaf_0 … leaf_(size−1),
 *            with node(a, b) = H("receipt-node", a ‖ b)
 *   receipt = {v: 2, game, line, hash, log, time, batch: {index: i, size, path}, sig}
 *   path   = RFC 9162 §2.1.3.1's inclusion proof of leaf i (hex, from the leaf's level up)
 *   sig    = Ed25519(orderer key, utf8("fairtable/receipt-batch/v1") ‖ 0x00 ‖ JCS({v: 2, size, root}))
 *
 * Each version-2 receipt checks on its own: the leaf, folded with its path, gives the root its signature covers.
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
  /** 1: signed alone; 2: signed with the other lines of its batch (`batch`). */
  readonly v: 1 | 2;
  readonly game: string;
  readonly line: number;
  /** The hash of the line (the envelope hash, §4). */
  readonly hash: string;
  /** L_line: the running hash of the log up to and including this line. */
  readonly log: string;
  /** The orderer's clock, ms. */
  readonly time: number;
}

/** Where a version-2 receipt sits in the batch its signature covers. */
export interface ReceiptBatch {
  /** Its leaf's position in the batch, from 0. */
  readonly index: number;
  /** How many lines the batch holds. */
  readonly size: number;
  /** The inclusion proof of its leaf (RFC 9162 §2.1.3.1): node hashes, hex, from the leaf's level up. */
  readonly path: readonly string[];
}

export interface Receipt extends UnsignedReceipt {
  /** Present exactly when `v` is 2. */
  readonly batch?: ReceiptBatch;
  readonly sig: string;
}

/** The most lines one batch signature covers: an inclusion proof then holds at most 16 hashes. */
export const MAX_RECEIPT_BATCH = 65_536;

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

export function signReceipt(
  r: UnsignedReceipt & { readonly v: 1 },
  secretKey: Uint8Array,
  signFn: (m: Uint8Array, k: Uint8Array) => Uint8Array = sign,
): Receipt {
  // Object.assign, not `{ ...r, sig }`: the same object, without a new hidden class for every signature (door.ts).
  return Object.assign({}, r, { sig: toHex(signFn(receiptBytes(r), secretKey)) });
}

function leafHash(r: UnsignedReceipt): Uint8Array {
  return taggedHash('receipt-leaf', canonicalBytes({ v: 2, game: r.game, line: r.line, hash: r.hash, log: r.log, time: r.time }));
}

const nodeHash = (left: Uint8Array, right: Uint8Array): Uint8Array => taggedHash('receipt-node', left, right);

function batchBytes(size: number, root: Uint8Array): Uint8Array {
  return concatBytes(domainPrefix('receipt-batch'), canonicalBytes({ v: 2, size, root: toHex(root) }));
}

/**
 * The tree's levels, leaves first, root last. Pairing neighbours level by level and carrying a last node
 * without a neighbour up unchanged gives RFC 9162's tree: its left subtree is always the largest power of two.
 */
function treeLevels(leaves: Uint8Array[]): Uint8Array[][] {
  const levels = [leaves];
  let level = leaves;
  while (level.length > 1) {
    const up: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) up.push(i + 1 < level.length ? nodeHash(level[i]!, level[i + 1]!) : level[i]!);
    levels.push(up);
    level = up;
  }
  return levels;
}

/** The batch's root from one leaf and its inclusion proof (RFC 9162 §2.1.3.2), or null when the proof does not fit `index` and `size`. */
function rootFromPath(leaf: Uint8Array, index: number, size: number, path: readonly Uint8Array[]): Uint8Array | null {
  if (index >= size) return null;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else r = nodeHash(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : null;
}

/**
 * Version-2 receipts for a batch of lines, one signature for all (relay.md §2): the i-th receipt is for
 * `lines[i]` (whose `v` is ignored), and carries its leaf's inclusion proof.
 */
export function signReceiptBatch(
  lines: readonly UnsignedReceipt[],
  secretKey: Uint8Array,
  signFn: (m: Uint8Array, k: Uint8Array) => Uint8Array = sign,
): Receipt[] {
  const size = lines.length;
  if (size === 0 || size > MAX_RECEIPT_BATCH)
    throw new FairtableError('bad_input', `a receipt batch holds 1 to ${MAX_RECEIPT_BATCH} lines, not ${size}`, { field: 'lines' });
  const levels = treeLevels(lines.map(leafHash));
  const sig = toHex(signFn(batchBytes(size, levels[levels.length - 1]![0]!), secretKey));
  return lines.map((r, index) => {
    const path: string[] = [];
    let at = index;
    for (let d = 0; d < levels.length - 1; d++) {
      const sibling = levels[d]![at ^ 1];
      if (sibling !== undefined) path.push(toHex(sibling));
      at = Math.floor(at / 2);
    }
    return { v: 2, game: r.game, line: r.line, hash: r.hash, log: r.log, time: r.time, batch: { index, size, path }, sig };
  });
}

function batchError(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'batch must be an object';
  const b = value as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!['index', 'size', 'path'].includes(k)) return `unknown member "batch.${k}"`;
  if (typeof b.size !== 'number' || !Number.isSafeInteger(b.size) || b.size < 1 || b.size > MAX_RECEIPT_BATCH)
    return `batch.size must be an integer from 1 to ${MAX_RECEIPT_BATCH}`;
  if (typeof b.index !== 'number' || !Number.isSafeInteger(b.index) || b.index < 0 || b.index >= b.size)
    return 'batch.index must be an integer below batch.size';
  if (!Array.isArray(b.path) || b.path.length > 16 || !b.path.every((p) => isHex(p, 32))) return 'batch.path must be at most 16 hashes of 64 hex digits';
  return null;
}

/** Why `value` is not a receipt signed by `ordererKey`, or null when it is one. */
export function receiptError(
  value: unknown,
  ordererKey: Uint8Array,
  verifyFn: (sig: Uint8Array, msg: Uint8Array, key: Uint8Array) => boolean = verify,
): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not an object';
  const r = value as Record<string, unknown>;
  if (r.v !== 1 && r.v !== 2) return 'v must be 1 or 2';
  for (const k of Object.keys(r))
    if (!['v', 'game', 'line', 'hash', 'log', 'time', 'sig'].includes(k) && !(k === 'batch' && r.v === 2)) return `unknown member "${k}"`;
  if (!isHex(r.game, 32) || !isHex(r.hash, 32) || !isHex(r.log, 32)) return 'game, hash and log must be 64 hex digits';
  for (const k of ['line', 'time'] as const)
    if (typeof r[k] !== 'number' || !Number.isSafeInteger(r[k]) || (r[k] as number) < 0) return `${k} must be a non-negative integer`;
  if (!isHex(r.sig, 64)) return 'sig must be 128 hex digits';
  if (r.v === 2) {
    const why = batchError(r.batch);
    if (why !== null) return why;
    const b = r.batch as ReceiptBatch;
    const root = rootFromPath(
      leafHash(r as unknown as UnsignedReceipt),
      b.index,
      b.size,
      b.path.map((p) => fromHex(p)),
    );
    if (root === null) return 'batch.path is not an inclusion proof for batch.index in a batch of batch.size';
    return verifyFn(fromHex(r.sig as string), batchBytes(b.size, root), ordererKey) ? null : "the signature does not verify under the orderer's key";
  }
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
