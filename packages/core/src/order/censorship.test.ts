import { describe, expect, it } from 'vitest';
import { toHex } from '../bytes.js';
import { generateKeyPair, type KeyPair } from '../identity.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '../envelope.js';
import { simulate, simKeys } from '../testing.js';
import { firstLogHash, nextLogHash, signReceipt, type Receipt } from './receipt.js';
import { signWitnessReceipt, WitnessBook } from './witness.js';
import { auditWithReceipts, type EvidenceRecord } from './censorship.js';

const relay = generateKeyPair(new Uint8Array(32).fill(21));
const witness = generateKeyPair(new Uint8Array(32).fill(22));
const stranger = generateKeyPair(new Uint8Array(32).fill(23));
const seed = new Uint8Array(32).fill(5);
const params = { witnesses: [{ key: toHex(witness.publicKey), url: 'http://witness.example' }] };

const parse = (line: string): Envelope => JSON.parse(line) as Envelope;

/** Receipts an honest relay signs for `lines`, each line's time its envelope's, never going backwards (docs/spec/time.md §3). */
function receiptsFor(lines: readonly string[], keys: KeyPair = relay): Receipt[] {
  let log = '';
  let time = 0;
  const game = parse(lines[0]!).game;
  return lines.map((text, line) => {
    const hash = envelopeHash(parse(text));
    log = line === 0 ? firstLogHash(game, hash) : nextLogHash(log, hash);
    time = Math.max(time, parse(text).time);
    return signReceipt({ v: 1, game, line, hash, log, time }, keys.secretKey);
  });
}

/** The envelope `player` would have signed next after the log's first `upTo` lines. */
function nextEnvelope(lines: readonly string[], upTo: number, player: string, keys: KeyPair, body: Envelope['body'], time: number): string {
  const own = lines
    .slice(0, upTo)
    .map(parse)
    .filter((e) => e.from === player);
  const last = own[own.length - 1];
  const game = parse(lines[0]!).game;
  return envelopeLine(
    signEnvelope(
      {
        v: 1,
        game,
        from: player,
        seq: own.length,
        prev: last === undefined ? game : envelopeHash(last),
        at: upTo,
        head: envelopeHash(parse(lines[upTo - 1]!)),
        time,
        body,
      },
      keys.secretKey,
    ),
  );
}

const orderer = toHex(relay.publicKey);

describe('the audit with receipts (docs/spec/relay.md §9)', () => {
  const honest = simulate({ protocol: 'chain', players: 3, seed, turns: 2, params });

  it('an honest log with its receipts is valid, every line timed by its receipt; reordered receipts read the same', () => {
    const receipts = receiptsFor(honest.lines);
    const v = auditWithReceipts(honest.lines, { orderer, receipts, records: [] });
    expect(v.violations).toEqual([]);
    expect(v.valid).toBe(true);
    expect(v.outcome).toEqual(honest.outcome);
    expect(v.relay.receipted).toBe(honest.lines.length);
    const shuffled = [...receipts].reverse();
    expect(auditWithReceipts(honest.lines, { orderer, receipts: shuffled, records: [] }).relay.receipted).toBe(honest.lines.length);
  });

  it('receipts under another key are not evidence: no line is timed and nobody is named', () => {
    const v = auditWithReceipts(honest.lines, { orderer, receipts: receiptsFor(honest.lines, stranger), records: [] });
    expect(v.relay.receipted).toBe(0);
    expect(v.violations).toEqual([]);
  });

  it("a receipt the author kept for a line the log holds otherwise is the relay's fork: the relay is named, no player, no outcome", () => {
    const receipts = receiptsFor(honest.lines);
    const at = 3;
    const author = parse(honest.lines[at]!).from;
    const index = Number(author.slice(1));
    const other = nextEnvelope(honest.lines, at, author, simKeys(seed, index), { type: 'note', text: 'another' } as never, parse(honest.lines[at]!).time);
    const hash = envelopeHash(parse(other));
    const forked = signReceipt({ v: 1, game: receipts[at]!.game, line: at, hash, log: nextLogHash(receipts[at - 1]!.log, hash), time: 1 }, relay.secretKey);
    const records: EvidenceRecord[] = [{ relay: orderer, text: other, receipt: forked }];
    const v = auditWithReceipts(honest.lines, { orderer, receipts, records });
    expect(v.violations.map((x) => [x.code, x.player, x.relay])).toEqual([['relay_forked', null, orderer]]);
    expect(v.outcome).toBeNull();
    expect(v.valid).toBe(false);
    expect(v.relay.faultAt).toBe(at);
  });

  it('a receipted line beyond the end of the log names the relay (relay_censored)', () => {
    const cut = honest.lines.slice(0, 6);
    const receipts = receiptsFor(cut);
    const author = parse(honest.lines[6]!).from;
    const full = receiptsFor(honest.lines);
    const v = auditWithReceipts(cut, { orderer, receipts, records: [{ relay: orderer, text: honest.lines[6]!, receipt: full[6]! }] });
    expect(v.violations.map((x) => [x.code, x.player])).toEqual([['relay_censored', null]]);
    expect(v.violations[0]!.message).toContain(author);
  });

  it("receipts that do not chain are the relay's own contradiction (relay_forked)", () => {
    const receipts = receiptsFor(honest.lines);
    const r = receipts[4]!;
    receipts[4] = signReceipt({ v: 1, game: r.game, line: 4, hash: r.hash, log: r.hash, time: r.time }, relay.secretKey);
    const v = auditWithReceipts(honest.lines, { orderer, receipts, records: [] });
    expect(v.violations.map((x) => x.code)).toContain('relay_forked');
    expect(v.violations.every((x) => x.player === null)).toBe(true);
  });

  it('a line that is not the one its receipt names names nobody (the copy may have been altered) and loses its time', () => {
    const receipts = receiptsFor(honest.lines);
    const lines = [...honest.lines];
    lines[5] = nextEnvelope(honest.lines, 5, parse(lines[5]!).from, simKeys(seed, Number(parse(lines[5]!).from.slice(1))), { type: 'x' } as never, 0);
    const v = auditWithReceipts(lines, { orderer, receipts, records: [] });
    const mismatch = v.violations.filter((x) => x.code === 'receipt_mismatch');
    expect(mismatch).toHaveLength(1);
    expect(mismatch[0]!.player).toBeNull();
    expect(mismatch[0]!.relay).toBeUndefined();
  });

  describe('a deadline claim against a player a witness shows was present', () => {
    // p1 never moves; after the deadline an honest player claims it `withheld`.
    const withheld = simulate({ protocol: 'chain', players: 3, seed, turns: 2, cheat: 'withhold', cheater: 'p1', params });
    const claimLine = withheld.lines.findIndex((l) => parse(l).body.type === 'deadline');
    const receipts = receiptsFor(withheld.lines);
    const claimTime = receipts[claimLine]!.time;
    const p1 = simKeys(seed, 1);
    const missing = nextEnvelope(withheld.lines, claimLine, 'p1', p1, { type: 'commit', commitment: '00'.repeat(32) } as never, claimTime - 10);
    const book = new WitnessBook(withheld.lines[0]!);
    for (const l of withheld.lines.slice(1, claimLine)) if (parse(l).from === 'p1') expect(book.admit(l).ok).toBe(true);
    const admitted = book.admit(missing);
    expect(admitted.ok).toBe(true);
    const e = parse(missing);
    const record = (time: number, key: KeyPair = witness): EvidenceRecord => ({
      relay: toHex(key.publicKey),
      text: missing,
      receipt: signWitnessReceipt({ v: 1, game: e.game, from: 'p1', seq: e.seq, hash: envelopeHash(e), time }, key.secretKey),
    });

    it('without the witness, p1 is named withheld', () => {
      expect(claimLine).toBeGreaterThan(0);
      const v = auditWithReceipts(withheld.lines, { orderer, receipts, records: [] });
      expect(v.violations.some((x) => x.code === 'withheld' && x.player === 'p1')).toBe(true);
    });

    it('with a witness receipt before the claim was receipted, the claim is false: the relay is named, p1 is not', () => {
      const v = auditWithReceipts(withheld.lines, { orderer, receipts, records: [record(claimTime - 5)] });
      expect(v.violations.some((x) => x.player === 'p1')).toBe(false);
      expect(v.violations.filter((x) => x.code === 'relay_censored').map((x) => x.relay)).toEqual([orderer]);
      expect(v.outcome).toBeNull();
      expect(v.relay.recordsUsed).toBe(1);
    });

    it('a witness receipt after the claim, a witness the setup does not name, or an auditor who does not trust the clocks: p1 stays named', () => {
      for (const v of [
        auditWithReceipts(withheld.lines, { orderer, receipts, records: [record(claimTime + 1)] }),
        auditWithReceipts(withheld.lines, { orderer, receipts, records: [record(claimTime - 5, stranger)] }),
        auditWithReceipts(withheld.lines, { orderer, receipts, records: [record(claimTime - 5)], trustTime: false }),
      ]) {
        expect(v.violations.some((x) => x.code === 'withheld' && x.player === 'p1')).toBe(true);
        expect(v.violations.some((x) => x.code === 'relay_censored')).toBe(false);
      }
    });
  });
});

describe('the witness door (docs/spec/relay.md §8)', () => {
  const game = simulate({ protocol: 'chain', players: 2, seed, turns: 1, params });
  it("takes each author's envelopes in its own order, a resend as a duplicate, and refuses gaps, forks and forgeries", () => {
    const book = new WitnessBook(game.lines[0]!);
    const p1Lines = game.lines.filter((l) => parse(l).from === 'p1');
    expect(book.admit(p1Lines[1]!)).toMatchObject({ ok: false, code: 'bad_position' });
    expect(book.admit(p1Lines[0]!)).toMatchObject({ ok: true, duplicate: false });
    expect(book.admit(p1Lines[0]!)).toMatchObject({ ok: true, duplicate: true });
    const forged = { ...parse(p1Lines[1]!), sig: '00'.repeat(64) };
    expect(book.admit(envelopeLine(forged))).toMatchObject({ ok: false, code: 'bad_signature' });
    expect(book.admit(game.lines[0]!)).toMatchObject({ ok: true, duplicate: true });
    expect(book.admit('{"not":"an envelope"}')).toMatchObject({ ok: false, code: 'malformed' });
    expect(book.count('p1')).toBe(1);
  });
});
