import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generateKeyPair } from '../identity.js';
import { readFileSync } from 'node:fs';
import { fromHex, toHex } from '../bytes.js';
import { canonicalize } from '../jcs.js';
import { taggedHash } from '../hash.js';
import { checkReceipt, firstLogHash, forkProof, nextLogHash, receiptError, signReceipt, type Receipt, type UnsignedReceipt } from './receipt.js';

const relay = generateKeyPair(new Uint8Array(32).fill(8));
const other = generateKeyPair(new Uint8Array(32).fill(9));
const game = 'ab'.repeat(32);
const h = (n: number): string => n.toString(16).padStart(2, '0').repeat(32);

describe('receipts (docs/spec/relay.md §2)', () => {
  it('sign and check; any other key, or any changed member, is refused', () => {
    const l0 = firstLogHash(game, h(1));
    const r: UnsignedReceipt = { v: 1, game, line: 1, hash: h(2), log: nextLogHash(l0, h(2)), time: 1234 };
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
