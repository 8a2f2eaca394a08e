/**
 * The page's audit with the relay's receipts (docs/spec/relay.md §9, web.md §5): the same verdict as core's
 * `auditWithReceipts` (the CLI's `audit --relay-key`), every signature checked through the page's verifier
 * first; deadlines judged on the relay's receipt times, not the players' own; a relay whose receipts convict it
 * named as the relay.
 */
import { describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair, verify, type KeyPair } from '@fairtable/core/identity.js';
import { auditWithReceipts } from '@fairtable/core/order/censorship.js';
import { firstLogHash, nextLogHash, signReceipt, type Receipt } from '@fairtable/core/order/receipt.js';
import { simKeys, simulate } from '@fairtable/core/testing';
import { auditWithRelay, type RelayAuditVerdict } from './relay-audit.js';
import type { Verifier } from './audit.js';

const relay = generateKeyPair(new Uint8Array(32).fill(41));
const orderer = toHex(relay.publicKey);
const seed = new Uint8Array(32).fill(6);
const parse = (line: string): Envelope => JSON.parse(line) as Envelope;

/** An honest relay's receipts for `lines`; each line's time `timeOf(line)` (its envelope's own by default). */
function receiptsFor(lines: readonly string[], timeOf: (line: number) => number = (i) => parse(lines[i]!).time): Receipt[] {
  let log = '';
  const game = parse(lines[0]!).game;
  return lines.map((text, line) => {
    const hash = envelopeHash(parse(text));
    log = line === 0 ? firstLogHash(game, hash) : nextLogHash(log, hash);
    return signReceipt({ v: 1, game, line, hash, log, time: timeOf(line) }, relay.secretKey);
  });
}

/** A verifier that answers later, as WebCrypto does, and counts what it was asked. */
function countingVerifier(): Verifier & { calls: number } {
  const v = {
    name: 'counting',
    calls: 0,
    verify: (s: Uint8Array, m: Uint8Array, k: Uint8Array) => {
      v.calls++;
      return Promise.resolve(verify(s, m, k));
    },
  };
  return v;
}

const verdict = (r: Awaited<ReturnType<typeof auditWithRelay>>): RelayAuditVerdict => {
  if ('error' in r) throw new Error(`unreadable: ${r.error.message}`);
  return r;
};

describe("the audit with the relay's receipts in a page", () => {
  const honest = simulate({ protocol: 'chain', players: 3, seed, turns: 2 });

  it("gives core's verdict, deadlines on receipt times, every signature through the page's verifier", async () => {
    const receipts = receiptsFor(honest.lines);
    const verifier = countingVerifier();
    let progress = 0;
    const v = verdict(await auditWithRelay(honest.lines, { relayKey: orderer, receipts, verifier, onProgress: (done, total) => (progress = done / total) }));
    expect(v.valid).toBe(true);
    expect(v.outcome).toEqual(honest.outcome);
    expect(v.relay).toMatchObject({ orderer, timed: true, receipted: honest.lines.length, faultAt: null });
    // One signature a line and one a receipt (the setup's is read twice, once for its keys).
    expect(verifier.calls).toBeGreaterThanOrEqual(2 * honest.lines.length);
    expect(progress).toBe(1);
    const core = auditWithReceipts(honest.lines, { orderer, receipts, records: [] });
    expect([v.valid, v.outcome, v.violations.length]).toEqual([core.valid, core.outcome, core.violations.length]);
  });

  it("judges a deadline claim on the relay's times: a claim the players' clocks call late, the receipts call early", async () => {
    // p1 never moves; an honest player claims it withheld once the deadline passed by the claimant's clock.
    const withheld = simulate({ protocol: 'chain', players: 3, seed, turns: 2, cheat: 'withhold', cheater: 'p1' });
    const claimLine = withheld.lines.findIndex((l) => parse(l).body.type === 'deadline');
    expect(claimLine).toBeGreaterThan(0);
    const byPlayers = verdict(await auditWithRelay(withheld.lines, { relayKey: orderer, receipts: receiptsFor(withheld.lines), trustTime: false }));
    expect(byPlayers.relay.timed).toBe(false);
    expect(byPlayers.violations.some((x) => x.code === 'withheld' && x.player === 'p1')).toBe(true);
    // The relay received every line at once, at the time of the line before the claim: by its clock the deadline
    // had not passed when the claim came, so p1 is not named.
    const at = parse(withheld.lines[claimLine - 1]!).time;
    const early = receiptsFor(withheld.lines, (i) => (i < claimLine ? parse(withheld.lines[i]!).time : at));
    const byRelay = verdict(await auditWithRelay(withheld.lines, { relayKey: orderer, receipts: early }));
    expect(byRelay.relay.timed).toBe(true);
    expect(byRelay.violations.some((x) => x.code === 'withheld' && x.player === 'p1')).toBe(false);
    // The claims were false by the relay's clock: the claimants are named for them instead.
    expect(byRelay.violations.some((x) => x.code === 'false_deadline_claim')).toBe(true);
    expect(byRelay.valid).toBe(false);
    const core = auditWithReceipts(withheld.lines, { orderer, receipts: early, records: [] });
    expect(byRelay.violations.map((x) => [x.code, x.player])).toEqual(core.violations.map((x) => [x.code, x.player]));
  });

  it("names the relay, not a player, when the seat's own receipt shows a fork", async () => {
    const receipts = receiptsFor(honest.lines);
    const at = 3;
    const author = parse(honest.lines[at]!).from;
    const keys: KeyPair = simKeys(seed, Number(author.slice(1)));
    const e = parse(honest.lines[at]!);
    const other = envelopeLine(signEnvelope({ ...e, body: { type: 'note', text: 'another' } as never }, keys.secretKey));
    const hash = envelopeHash(parse(other));
    const forked = signReceipt({ v: 1, game: e.game, line: at, hash, log: nextLogHash(receipts[at - 1]!.log, hash), time: 1 }, relay.secretKey);
    const v = verdict(await auditWithRelay(honest.lines, { relayKey: orderer, receipts, records: [{ relay: orderer, text: other, receipt: forked }] }));
    expect(v.valid).toBe(false);
    expect(v.outcome).toBeNull();
    expect(v.violations.map((x) => [x.code, x.player, x.relay])).toEqual([['relay_forked', null, orderer]]);
    expect(v.relay.faultAt).toBe(at);
  });

  it('says why a transcript cannot be audited', async () => {
    expect(await auditWithRelay([], { relayKey: orderer, receipts: [] })).toMatchObject({ valid: false, error: { code: 'bad_input' } });
    expect(await auditWithRelay(['{"not":"a setup"}'], { relayKey: orderer, receipts: [] })).toMatchObject({ valid: false, error: {} });
    expect(await auditWithRelay(honest.lines, { relayKey: 'zz', receipts: [] })).toMatchObject({ valid: false, error: { code: 'bad_hex' } });
  });
});
