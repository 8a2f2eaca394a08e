import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generateKeyPair, verify } from '../identity.js';
import { readFileSync } from 'node:fs';
import { fromHex, toHex } from '../bytes.js';
import { canonicalize } from '../jcs.js';
import { taggedHash } from '../hash.js';
import {
  checkReceipt,
  firstLogHash,
  forkProof,
  MAX_RECEIPT_BATCH,
  nextLogHash,
  receiptError,
  signReceipt,
  signReceiptBatch,
  type Receipt,
  type UnsignedReceipt,
} from './receipt.js';

const relay = generateKeyPair(new Uint8Array(32).fill(8));
const other = generateKeyPair(new Uint8Array(32).fill(9));
const game = 'ab'.repeat(32);
const h = (n: number): string => n.toString(16).padStart(2, '0').repeat(32);

describe('receipts (docs/spec/relay.md §2)', () => {
  it('sign and check; any other key, or any changed member, is refused', () => {
    const l0 = firstLogHash(game, h(1));
    const r = { v: 1 as const, game, line: 1, hash: h(2), log: nextLogHash(l0, h(2)), time: 1234 };
    const signed = signReceipt(r, relay.secretKey);
    expect(checkReceipt(signed, relay.publicKey)).toEqual(signed);
    expect(receiptError(signed, other.publicKey)).toMatch(/does not verify/);
    for (const k of ['line', 'time'] as const) expect(receiptError({ ...signed, [k]: signed[k] + 1 }, relay.publicKey)).toMatch(/does not verify/);
    expect(receiptError({ ...signed, hash: h(3) }, relay.publicKey)).toMatch(/does not verify/);
    expect(() => checkReceipt({ ...signed, extra: 1 }, relay.publicKey)).toThrow(/bad_receipt|unknown member/);
  });

  it('the log hash commits to every line before: a different history gives a different log hash', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 20 }), fc.nat(), (lines, at) => {
        const fold = (ls: number[]): string => ls.reduce((acc, x) => nextLogHash(acc, h(x)), firstLogHash(game, h(0)));
        const i = at % lines.length;
        const changed = lines.map((x, j) => (j === i ? (x + 1) % 256 : x));
        expect(fold(changed)).not.toBe(fold(lines));
      }),
      { numRuns: 200 },
    );
  });

  it("two receipts for one line that disagree are the orderer's own proof of a fork", () => {
    const l0 = firstLogHash(game, h(1));
    const a = signReceipt({ v: 1, game, line: 1, hash: h(2), log: nextLogHash(l0, h(2)), time: 5 }, relay.secretKey);
    const b = signReceipt({ v: 1, game, line: 1, hash: h(3), log: nextLogHash(l0, h(3)), time: 6 }, relay.secretKey);
    expect(forkProof(a, a)).toBeNull();
    expect(forkProof(a, b)).toMatch(/two receipts for line 1/);
  });
});

describe('receipt vectors (packages/core/src/order/vectors/receipts.json)', () => {
  it('the file is what the spec gives for its inputs, byte for byte', () => {
    const file = readFileSync(new URL('./vectors/receipts.json', import.meta.url), 'utf8');
    const v = JSON.parse(file) as { ordererSecretSeed: string; ordererPublicKey: string; game: string; receipts: { receipt: Receipt; signedText: string }[] };
    const key = generateKeyPair(fromHex(v.ordererSecretSeed));
    expect(toHex(key.publicKey)).toBe(v.ordererPublicKey);
    let log = '';
    v.receipts.forEach(({ receipt, signedText }, line) => {
      const hash = toHex(taggedHash('envelope', new Uint8Array([line])));
      log = line === 0 ? firstLogHash(v.game, hash) : nextLogHash(log, hash);
      const again = signReceipt({ v: 1, game: v.game, line, hash, log, time: 1_700_000_000_000 + line * 1500 }, key.secretKey);
      expect(again).toEqual(receipt);
      const { sig: _sig, ...unsigned } = again;
      expect(canonicalize(unsigned)).toBe(signedText);
      expect(checkReceipt(receipt, key.publicKey)).toEqual(receipt);
    });
  });
});

describe('receipts signed by the batch (version 2)', () => {
  const unsigned = (n: number): UnsignedReceipt[] =>
    Array.from({ length: n }, (_, i) => ({ v: 2, game: i % 2 === 0 ? game : h(200), line: i, hash: h(i), log: h(100 + i), time: 1000 + i }));
  /** RFC 9162 §2.1.1's Merkle tree hash, by its recursive definition: the left subtree is the largest power of two below n. */
  const mth = (leaves: Uint8Array[]): Uint8Array => {
    if (leaves.length === 1) return leaves[0]!;
    let k = 1;
    while (k * 2 < leaves.length) k *= 2;
    return taggedHash('receipt-node', mth(leaves.slice(0, k)), mth(leaves.slice(k)));
  };
  const leaf = (r: UnsignedReceipt): Uint8Array =>
    taggedHash('receipt-leaf', new TextEncoder().encode(canonicalize({ v: 2, game: r.game, line: r.line, hash: r.hash, log: r.log, time: r.time })));

  it('every receipt of a batch checks alone, and the one signature covers the RFC 9162 root of the batch', () => {
    for (let n = 1; n <= 33; n++) {
      const lines = unsigned(n);
      const receipts = signReceiptBatch(lines, relay.secretKey);
      expect(new Set(receipts.map((r) => r.sig)).size).toBe(1);
      receipts.forEach((r, i) => {
        expect(checkReceipt(r, relay.publicKey)).toBe(r);
        expect(r.batch).toMatchObject({ index: i, size: n });
        expect(r.batch!.path.length).toBeLessThanOrEqual(Math.ceil(Math.log2(n)));
      });
      const root = toHex(mth(lines.map(leaf)));
      const signed = new TextEncoder().encode(`fairtable/receipt-batch/v1\0{"root":"${root}","size":${n},"v":2}`);
      expect(verify(fromHex(receipts[0]!.sig), signed, relay.publicKey)).toBe(true);
    }
  });

  it('refuses a changed member, another index, size or path, and another key', () => {
    const receipts = signReceiptBatch(unsigned(6), relay.secretKey);
    const r = receipts[4]!;
    const b = r.batch!;
    expect(receiptError(r, other.publicKey)).toMatch(/does not verify/);
    for (const k of ['line', 'time'] as const) expect(receiptError({ ...r, [k]: r[k] + 1 }, relay.publicKey)).toMatch(/does not verify/);
    expect(receiptError({ ...r, log: h(7) }, relay.publicKey)).toMatch(/does not verify/);
    expect(receiptError({ ...r, batch: { ...b, index: 5 } }, relay.publicKey)).toMatch(/does not verify|inclusion proof/);
    expect(receiptError({ ...r, batch: { ...b, size: 7 } }, relay.publicKey)).toMatch(/does not verify|inclusion proof/);
    expect(receiptError({ ...r, batch: { ...b, index: 6 } }, relay.publicKey)).toMatch(/below batch.size/);
    expect(receiptError({ ...r, batch: { ...b, path: [...b.path, h(1)] } }, relay.publicKey)).toMatch(/inclusion proof/);
    expect(receiptError({ ...r, batch: { ...b, path: b.path.slice(1) } }, relay.publicKey)).toMatch(/does not verify|inclusion proof/);
    expect(receiptError({ ...r, batch: { ...b, path: [h(9), ...b.path.slice(1)] } }, relay.publicKey)).toMatch(/does not verify/);
    expect(receiptError({ ...r, batch: receipts[3]!.batch }, relay.publicKey)).toMatch(/does not verify/);
    expect(receiptError({ ...r, batch: { ...b, extra: 1 } }, relay.publicKey)).toMatch(/unknown member "batch.extra"/);
    const { batch: _b, ...bare } = r;
    expect(receiptError(bare, relay.publicKey)).toMatch(/batch must be an object/);
    expect(receiptError({ ...r, v: 1 }, relay.publicKey)).toMatch(/unknown member "batch"/);
    expect(receiptError({ ...r, v: 3 }, relay.publicKey)).toMatch(/v must be 1 or 2/);
  });

  it('no receipt of one batch checks with the place of another (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), fc.nat(), fc.nat(), (n, a, b) => {
        const receipts = signReceiptBatch(unsigned(n), relay.secretKey);
        const i = a % n;
        const j = b % n;
        fc.pre(i !== j);
        expect(receiptError({ ...receipts[i]!, batch: receipts[j]!.batch }, relay.publicKey)).not.toBeNull();
      }),
      { numRuns: 100, seed: 3 },
    );
  });

  it('a batch holds 1 to MAX_RECEIPT_BATCH lines', () => {
    expect(() => signReceiptBatch([], relay.secretKey)).toThrow(/1 to 65536/);
    expect(MAX_RECEIPT_BATCH).toBe(2 ** 16);
  });

  it('a fork shows between receipts of either version', () => {
    const [a] = signReceiptBatch([{ v: 2, game, line: 3, hash: h(2), log: h(4), time: 1 }], relay.secretKey);
    const b = signReceipt({ v: 1, game, line: 3, hash: h(3), log: h(5), time: 1 }, relay.secretKey);
    expect(forkProof(a!, b)).toMatch(/two receipts for line 3/);
  });
});
