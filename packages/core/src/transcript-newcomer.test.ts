/** Newcomers at the envelope layer (docs/SPEC.md §4.6): a `newcomer` line makes its id an author, for the door and every reader alike. */
import { describe, expect, it } from 'vitest';
import { simKeys } from './sim/simulate.js';
import { toHex } from './bytes.js';
import { Door } from './door.js';
import { envelopeLine, signEnvelope, type Body } from './envelope.js';
import { createSetupEnvelope } from './setup.js';
import { MAX_NEWCOMERS, prepareLine, TranscriptChecker } from './transcript.js';
import { generateKeyPair, type KeyPair } from './identity.js';
import { envelopeHash, type Envelope } from './envelope.js';
import { auditLines } from './audit.js';
import { auditWithReceipts } from './order/censorship.js';
import { firstLogHash, nextLogHash, signReceipt } from './order/receipt.js';

const seed = new Uint8Array(32).fill(9);
const keys = [simKeys(seed, 0), simKeys(seed, 1)];
const newcomer = simKeys(seed, 2);
const setupLine = envelopeLine(
  createSetupEnvelope(
    {
      protocol: 'beacon',
      game: null,
      params: {},
      players: keys.map((k, i) => ({ id: `p${i}`, key: toHex(k.publicKey) })),
      nonce: '00'.repeat(32),
      created: 0,
    },
    'p0',
    keys[0]!,
  ),
);

/** A log written through a door, each line signed on the view of the whole log so far. */
function table() {
  const door = new Door(setupLine);
  const log = [setupLine];
  const line = (from: string, key: KeyPair, body: Body): string => {
    const pos = door.checker.authorPosition(from) ?? { count: 0, lastHash: door.checker.gameId };
    const at = log.length;
    return envelopeLine(
      signEnvelope(
        { v: 1, game: door.checker.gameId, from, seq: pos.count, prev: pos.lastHash, at, head: door.checker.hashOfLine(at - 1)!, time: at, body },
        key.secretKey,
      ),
    );
  };
  const admit = (from: string, key: KeyPair, body: Body) => {
    const text = line(from, key, body);
    const a = door.admit(text, from);
    if (a.ok) log.push(text);
    return a;
  };
  return { door, log, admit };
}

const introduce = { type: 'newcomer', power: 'x', newcomer: { id: 'n1', key: toHex(newcomer.publicKey), name: 'N' } };

describe('a newcomer line makes a new author', () => {
  it('the door refuses the newcomer before its line and admits it after; a reader and a restored checker agree', () => {
    const t = table();
    expect(t.admit('n1', newcomer, { type: 'hello' })).toMatchObject({ ok: false, code: 'unknown_player' });
    expect(t.admit('p0', keys[0]!, introduce)).toMatchObject({ ok: true });
    expect(t.admit('n1', newcomer, { type: 'hello' })).toMatchObject({ ok: true });
    // Another key for the same id, later: the first key stays the author's.
    const other = simKeys(seed, 3);
    expect(t.admit('p1', keys[1]!, { ...introduce, newcomer: { ...introduce.newcomer, key: toHex(other.publicKey) } })).toMatchObject({ ok: true });
    expect(t.admit('n1', other, { type: 'hello' })).toMatchObject({ ok: false, code: 'bad_signature' });
    expect(t.admit('n1', newcomer, { type: 'again' })).toMatchObject({ ok: true });

    const reader = new TranscriptChecker(setupLine);
    const results = t.log.map((text, i) => reader.check(prepareLine(i, text, reader.keys)));
    expect(results.every((r) => r.accepted !== null && !r.altered)).toBe(true);

    // Saved after three lines and restored, the checker knows the newcomer and its place in its chain.
    const partial = new TranscriptChecker(setupLine);
    t.log.slice(0, 3).forEach((text, i) => partial.check(prepareLine(i, text, partial.keys)));
    const restored = TranscriptChecker.restore(setupLine, JSON.parse(JSON.stringify(partial.save())) as ReturnType<TranscriptChecker['save']>);
    for (let i = 3; i < t.log.length; i++) expect(restored.check(prepareLine(i, t.log[i]!, restored.keys)).accepted).not.toBeNull();
  });

  it('a body that names a player of the setup, a key that is not one, or one past the limit introduces nobody', () => {
    const t = table();
    expect(t.admit('p0', keys[0]!, { ...introduce, newcomer: { id: 'p1', key: toHex(newcomer.publicKey) } })).toMatchObject({ ok: true });
    expect(t.admit('p1', keys[1]!, { type: 'x' })).toMatchObject({ ok: true }); // p1 keeps its own key
    expect(t.admit('p0', keys[0]!, { ...introduce, newcomer: { id: 'n1', key: '00'.repeat(32) } })).toMatchObject({ ok: true });
    expect(t.admit('n1', newcomer, { type: 'hello' })).toMatchObject({ ok: false, code: 'unknown_player' });
    for (let i = 0; i < MAX_NEWCOMERS; i++) t.admit('p0', keys[0]!, { ...introduce, newcomer: { id: `m${i}`, key: toHex(simKeys(seed, 10 + i).publicKey) } });
    expect(t.door.checker.keys.has(`m${MAX_NEWCOMERS - 1}`)).toBe(true);
    expect(t.admit('p0', keys[0]!, introduce)).toMatchObject({ ok: true });
    expect(t.door.checker.keys.has('n1')).toBe(false);
  });

  it("the audit with the relay's receipts reads a newcomer's lines under the key its line gave, as the plain audit does", () => {
    const t = table();
    expect(t.admit('p0', keys[0]!, introduce)).toMatchObject({ ok: true });
    expect(t.admit('n1', newcomer, { type: 'hello' })).toMatchObject({ ok: true });
    expect(t.admit('n1', newcomer, { type: 'again' })).toMatchObject({ ok: true });
    const relay = generateKeyPair(new Uint8Array(32).fill(21));
    const game = t.door.checker.gameId;
    let log = '';
    const receipts = t.log.map((text, line) => {
      const hash = envelopeHash(JSON.parse(text) as Envelope);
      log = line === 0 ? firstLogHash(game, hash) : nextLogHash(log, hash);
      return signReceipt({ v: 1, game, line, hash, log, time: line }, relay.secretKey);
    });
    const plain = auditLines(t.log);
    const receipted = auditWithReceipts(t.log, { orderer: toHex(relay.publicKey), receipts, records: [] });
    expect(receipted.relay.receipted).toBe(t.log.length);
    expect(receipted.violations.some((v) => v.code === 'bad_signature' || v.player === 'n1')).toBe(false);
    expect(receipted.violations.map((v) => [v.code, v.player, v.seq])).toEqual(plain.violations.map((v) => [v.code, v.player, v.seq]));
  });
});
