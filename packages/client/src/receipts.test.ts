import { describe, expect, it } from 'vitest';
import { randomBytes, toHex } from '@fairtable/core/bytes.js';
import { envelopeHash, envelopeLine, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair, verify } from '@fairtable/core/identity.js';
import { firstLogHash, nextLogHash, signReceiptBatch, type Receipt, type UnsignedReceipt } from '@fairtable/core/order/receipt.js';
import { createSetupEnvelope } from '@fairtable/core/setup.js';
import type { VerifyFn } from '@fairtable/core/transcript.js';
import { ReceiptChain } from './receipts.js';

/** Four setup envelopes as the lines of a log (the chain looks at their hashes only), receipted in one batch of four. */
function batch(): { game: string; relay: string; lines: string[]; receipts: Receipt[] } {
  const player = generateKeyPair();
  const relayKeys = generateKeyPair();
  const envelopes = Array.from({ length: 4 }, () =>
    createSetupEnvelope(
      { protocol: 'chain', game: 'dice', params: {}, players: [{ id: 'p0', key: toHex(player.publicKey) }], nonce: toHex(randomBytes(32)), created: 0 },
      'p0',
      player,
    ),
  );
  const game = envelopes[0]!.game;
  let log: string | null = null;
  const unsigned: UnsignedReceipt[] = envelopes.map((e, line) => {
    const hash = envelopeHash(e as unknown as Envelope);
    log = log === null ? firstLogHash(game, hash) : nextLogHash(log, hash);
    return { v: 2, game, line, hash, log, time: 1000 + line };
  });
  return { game, relay: toHex(relayKeys.publicKey), lines: envelopes.map((e) => envelopeLine(e)), receipts: signReceiptBatch(unsigned, relayKeys.secretKey) };
}

describe('ReceiptChain', () => {
  it('checks the one signature of a batch once, through the verification it is given, and still catches a changed receipt', () => {
    const b = batch();
    let calls = 0;
    const counting: VerifyFn = (sig, msg, key) => {
      calls++;
      return verify(sig, msg, key);
    };
    const chain = new ReceiptChain(b.game, b.relay, counting);
    // The `accepted` answer for line 2 first, then every line with its receipt: five receipts, one signature.
    expect(chain.promise(2, b.receipts[2])).toBeNull();
    for (let i = 0; i < 4; i++) expect(chain.next(b.lines[i]!, b.receipts[i])).toBeNull();
    expect(chain.length).toBe(4);
    expect(calls).toBe(1);

    // A receipt whose signed root changed (another time) is checked, and refused, not taken from the memo.
    const other = batch();
    const chain2 = new ReceiptChain(other.game, other.relay, counting);
    expect(chain2.next(other.lines[0]!, other.receipts[0])).toBeNull();
    const forged = { ...other.receipts[1]!, time: other.receipts[1]!.time + 1 };
    const lie = chain2.next(other.lines[1]!, forged);
    expect(lie?.kind).toBe('bad_receipt');
    // A signature that does not verify is never remembered as good.
    const refusing = new ReceiptChain(other.game, other.relay, () => false);
    expect(refusing.next(other.lines[0]!, other.receipts[0])?.kind).toBe('bad_receipt');
    expect(refusing.next(other.lines[0]!, other.receipts[0])?.kind).toBe('bad_receipt');
  });
});
