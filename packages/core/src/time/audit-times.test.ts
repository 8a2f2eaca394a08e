/**
 * What each audit mode believes about time (docs/spec/time.md §3–§5), on logs a lying clock shaped: a relay
 * whose clock steps back before an honest claim, receipts under a key the setup does not bind, a backdated
 * setup. In each, no honest player is named by any mode, and the relay is named where its own receipts show it.
 */
import { describe, expect, it } from 'vitest';
import { toHex } from '../bytes.js';
import { generateKeyPair, type KeyPair } from '../identity.js';
import { envelopeHash, envelopeLine, signEnvelope, type Body, type Envelope } from '../envelope.js';
import { createSetupEnvelope, type GameSetup } from '../setup.js';
import { Auditor } from '../audit.js';
import { Referee } from '../referee.js';
import { simulate } from '../testing.js';
import { firstLogHash, nextLogHash, signReceipt, type Receipt } from '../order/receipt.js';
import { auditWithReceipts } from '../order/censorship.js';
import type { Violation } from '../errors.js';

const relay = generateKeyPair(new Uint8Array(32).fill(31));
const stranger = generateKeyPair(new Uint8Array(32).fill(32));
const orderer = toHex(relay.publicKey);
const seed = new Uint8Array(32).fill(7);
const parse = (line: string): Envelope => JSON.parse(line) as Envelope;

/** Receipts for `lines` under `keys`, line i at `time(i)`. */
function receipts(lines: readonly string[], time: (line: number) => number, keys: KeyPair = relay): Receipt[] {
  let log = '';
  const game = parse(lines[0]!).game;
  return lines.map((text, line) => {
    const hash = envelopeHash(parse(text));
    log = line === 0 ? firstLogHash(game, hash) : nextLogHash(log, hash);
    return signReceipt({ v: 1, game, line, hash, log, time: time(line) }, keys.secretKey);
  });
}

/** Every player a verdict names, with the code. */
const named = (violations: readonly Violation[]): string[] => violations.filter((v) => v.player !== null).map((v) => `${v.code} ${v.player}`);

describe('receipt-timed audits: a relay clock that steps back (docs/spec/time.md §3)', () => {
  // p1 withholds; an honest player claims after the deadline. Honest receipt times are the envelopes' own, never backwards.
  const game = simulate({ protocol: 'chain', players: 3, seed, turns: 2, cheat: 'withhold', cheater: 'p1', params: { relay: orderer } });
  const claimLine = game.lines.findIndex((l) => parse(l).body.type === 'deadline');
  const claimant = parse(game.lines[claimLine]!).from;
  let t = 0;
  // Receipt times are on the relay's own clock: here 10^10 ms after the simulator's zero, so an hour back is still a time.
  const honestTimes = game.lines.map((l) => (t = Math.max(t, 10_000_000_000 + parse(l).time)));

  it('an honest relay: the withholder is named, the claimant is not', () => {
    expect(claimLine).toBeGreaterThan(0);
    const v = auditWithReceipts(game.lines, { orderer, receipts: receipts(game.lines, (i) => honestTimes[i]!), records: [] });
    expect(named(v.violations)).toEqual(['withheld p1']);
    expect(v.relay.boundTo).toBe(orderer);
    expect(v.relay.witnessed).toBe(false);
  });

  it("the claim receipted an hour back: the relay's clock is named with its two receipts, no player is", () => {
    const back = receipts(game.lines, (i) => (i >= claimLine ? honestTimes[i]! - 3_600_000 : honestTimes[i]!));
    // Believed blindly (as before), the claim would look early and name its honest author.
    const blind = new Auditor(game.lines[0]!, { timeOf: (line) => back[line]?.time });
    for (const l of game.lines.slice(1)) blind.add(l);
    expect(named(blind.verdict().violations)).toContain(`false_deadline_claim ${claimant}`);
    for (const trustTime of [true, false]) {
      const v = auditWithReceipts(game.lines, { orderer, receipts: back, records: [], trustTime });
      expect(named(v.violations), `trustTime ${trustTime}`).not.toContain(`false_deadline_claim ${claimant}`);
      if (trustTime) {
        const fault = v.violations.filter((x) => x.code === 'relay_clock');
        expect(fault.map((x) => [x.relay, x.seq, x.player])).toEqual([[orderer, claimLine, null]]);
        expect(fault[0]!.evidence[0]!.note).toContain(`"line":${claimLine - 1}`);
        expect(v.relay.faultAt).toBe(claimLine);
        expect(v.outcome).toBeNull();
        expect(named(v.violations)).toEqual([]);
      } else {
        // Untrusted: the players' times name p1, the receipts name the claimant; the clocks disagree, nobody is named.
        expect(v.violations.map((x) => x.code)).toContain('clock_disagreement');
        expect(named(v.violations)).toEqual([]);
        expect(v.outcome).toBeNull();
      }
    }
  });

  it('receipts under a key the setup does not bind are refused, naming the key; no time is judged on them', () => {
    const foreign = receipts(game.lines, (i) => (i >= claimLine ? honestTimes[i]! - 3_600_000 : honestTimes[i]!), stranger);
    const v = auditWithReceipts(game.lines, { orderer: toHex(stranger.publicKey), receipts: foreign, records: [] });
    expect(v.relay.refused).toMatchObject({ code: 'foreign_relay', key: toHex(stranger.publicKey) });
    expect(v.relay.refused!.message).toContain(orderer);
    expect(v.relay.receipted).toBe(0);
    expect(v.relay.timed).toBe(false);
    expect(named(v.violations)).toEqual(['withheld p1']);
  });

  it('an unbound setup (no params.relay) still audits, marked unbound', () => {
    const old = simulate({ protocol: 'chain', players: 3, seed, turns: 2 });
    let u = 0;
    const v = auditWithReceipts(old.lines, { orderer, receipts: receipts(old.lines, (i) => (u = Math.max(u, parse(old.lines[i]!).time))), records: [] });
    expect(v.valid).toBe(true);
    expect(v.relay.boundTo).toBeNull();
    expect(v.relay.refused).toBeNull();
  });
});

describe('a backdated setup (docs/spec/time.md §4)', () => {
  const keys = [0, 1, 2].map((i) => generateKeyPair(new Uint8Array(32).fill(40 + i)));
  const T = 1_800_000_000_000;
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params: { timeoutMs: 30_000, rounds: 1, relay: orderer },
    players: keys.map((k, i) => ({ id: `p${i}`, key: toHex(k.publicKey) })),
    nonce: '00'.repeat(32),
    // Written an hour before the game reached its relay.
    created: T - 3_600_000,
  };
  const setupLine = envelopeLine(createSetupEnvelope(setup, 'p0', keys[0]!));
  const game = parse(setupLine).game;
  // The creator joins, and a second later claims the others missed the first phase.
  const ref = new Referee(setupLine, 'p0', { now: T, random: (n) => new Uint8Array(n).fill(9) });
  const join = ref.takeInitialOut()[0]!;
  const sign = (seq: number, at: number, prev: string, head: string, time: number, body: Body): string =>
    envelopeLine(signEnvelope({ v: 1, game, from: 'p0', seq, prev, at, head, time, body }, keys[0]!.secretKey));
  const line1 = sign(1, 1, envelopeHash(parse(setupLine)), envelopeHash(parse(setupLine)), T + 200, join);
  const line2 = sign(2, 2, envelopeHash(parse(line1)), envelopeHash(parse(line1)), T + 1000, {
    type: 'deadline',
    phase: 'join',
    round: 0,
    missing: ['p1', 'p2'],
  } as Body);
  const lines = [setupLine, line1, line2];
  const rs = receipts(lines, (i) => T + [0, 250, 1050][i]!);

  it('on receipt times, with or without trust in them, the first phase starts at line 0: nobody else is named', () => {
    for (const trustTime of [true, false]) {
      const v = auditWithReceipts(lines, { orderer, receipts: rs, records: [] }, {});
      const u = auditWithReceipts(lines, { orderer, receipts: rs, records: [], trustTime });
      for (const verdict of [v, u]) {
        expect(named(verdict.violations).filter((n) => n.endsWith('p1') || n.endsWith('p2'))).toEqual([]);
        expect(named(verdict.violations)).toEqual(['false_deadline_claim p0']);
      }
    }
  });
});
