import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generateKeyPair } from '../identity.js';
import { toHex } from '../bytes.js';
import type { GameSetup } from '../setup.js';
import { firstLogHash, nextLogHash, signReceipt } from './receipt.js';
import { checkHoldingReceipt, holdingReceiptError, lostHeldProof, signHoldingReceipt } from './holding.js';
import { Sealer, sealedRule, setOf, type HeldEnvelope, type Release } from './sealer.js';

const players = ['ann', 'bob', 'cy', 'dee'];
const setupOf = (params: GameSetup['params']): GameSetup => ({
  protocol: 'beacon',
  game: null,
  params,
  players: players.map((id, i) => ({ id, key: toHex(generateKeyPair(new Uint8Array(32).fill(i + 1)).publicKey) })),
  nonce: '00'.repeat(32),
  created: 0,
});
const SETUP = setupOf({ timeoutMs: 1000, sealed: { types: ['commit'] } });
const h = (n: number): string => n.toString(16).padStart(2, '0').repeat(32);

/** Offers a commit of `from` for `round` at `now`; holds it when the sealer says so. */
function offer(s: Sealer, from: string, round: number, now: number, seq = round): Release | null | 'pass' {
  const hash = h(players.indexOf(from) * 16 + round);
  const a = s.arrive({ from, seq, hash, body: { type: 'commit', round } }, now);
  if (a.kind === 'pass') return 'pass';
  if (a.kind !== 'hold') throw new Error(`unexpected ${a.kind}`);
  const held: HeldEnvelope = { set: a.set, from, seq, hash, text: `${from}/${round}`, time: now, until: a.until };
  return s.hold(held);
}

/** Replays a release into the sealer, as an orderer that records its lines does. */
function record(s: Sealer, r: Release): void {
  for (const e of r.envelopes) s.observe(e.from, { type: 'commit', round: JSON.parse(e.set)[1] as number });
}

describe('sealed rule (docs/spec/sealed.md §1)', () => {
  it('reads params.sealed with its defaults, and refuses a malformed one as bad_setup', () => {
    expect(sealedRule(setupOf({}))).toBeNull();
    expect(sealedRule(SETUP)).toEqual({ types: ['commit'], key: 'round', timeoutMs: 1000 });
    expect(sealedRule(setupOf({ sealed: { types: ['orders'], key: 'phase', timeoutMs: 5 } }))).toEqual({ types: ['orders'], key: 'phase', timeoutMs: 5 });
    expect(sealedRule(setupOf({ sealed: { types: ['commit'] } }))!.timeoutMs).toBe(30_000);
    for (const bad of [
      [],
      'commit',
      { types: [] },
      { types: ['deadline'] },
      { types: ['setup'] },
      { types: ['a', 'a'] },
      { types: ['a'], key: 'type' },
      { types: ['a'], x: 1 },
      { types: ['a'], timeoutMs: 0 },
    ])
      expect(() => sealedRule(setupOf({ sealed: bad }))).toThrow(/params\.sealed/);
  });

  it('a set is a type and the value of the key member', () => {
    const rule = sealedRule(SETUP)!;
    expect(setOf(rule, { type: 'commit', round: 2 })).toBe('["commit",2]');
    expect(setOf(rule, { type: 'commit' })).toBe('["commit",null]');
    expect(setOf(rule, { type: 'reveal', round: 2 })).toBeNull();
  });
});

describe('the sealer (docs/spec/sealed.md §2)', () => {
  it('holds every commitment until the last expected one is in, then releases them all in seat order', () => {
    const s = Sealer.of(SETUP)!;
    expect(offer(s, 'dee', 1, 10)).toBeNull();
    expect(offer(s, 'bob', 1, 20)).toBeNull();
    expect(offer(s, 'ann', 1, 30)).toBeNull();
    expect(s.size).toBe(3);
    const r = offer(s, 'cy', 1, 40) as Release;
    expect(r.reason).toBe('complete');
    expect(r.time).toBe(40);
    expect(r.missing).toEqual([]);
    expect(r.envelopes.map((e) => e.from)).toEqual(players);
    expect(s.size).toBe(0);
    record(s, r);
    // A commitment for a released set goes straight to the log.
    expect(offer(s, 'ann', 1, 50, 2)).toBe('pass');
  });

  it('the order of a release does not depend on the order of arrival', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(players, { minLength: 4, maxLength: 4 }), (order) => {
        const s = Sealer.of(SETUP)!;
        let r: Release | null | 'pass' = null;
        order.forEach((p, i) => (r = offer(s, p, 1, i)));
        expect((r as unknown as Release).envelopes.map((e) => e.from)).toEqual(players);
      }),
      { numRuns: 200 },
    );
  });

  it('releases what it has at the deadline (first arrival + timeoutMs), stamped with the deadline, naming the missing', () => {
    const s = Sealer.of(SETUP)!;
    offer(s, 'cy', 1, 100);
    offer(s, 'ann', 1, 600);
    expect(s.nextDeadline()).toBe(1100);
    expect(s.due(1099)).toEqual([]);
    const [r] = s.due(5000);
    expect(r).toMatchObject({ reason: 'deadline', time: 1100, missing: ['bob', 'dee'] });
    expect(r!.envelopes.map((e) => e.from)).toEqual(['ann', 'cy']);
    expect(s.nextDeadline()).toBeNull();
    record(s, r!);
    // Round 2 expects only those in round 1's set: bob and dee were left out at its deadline.
    offer(s, 'cy', 2, 6000);
    const r2 = offer(s, 'ann', 2, 6001) as Release;
    expect(r2.reason).toBe('complete');
    record(s, r2);
    // A player who comes back is waited for again once its envelope joins a set.
    expect(offer(s, 'bob', 2, 6002, 1)).toBe('pass');
    s.observe('bob', { type: 'commit', round: 2 });
    expect(offer(s, 'ann', 3, 7000)).toBeNull();
    expect(offer(s, 'cy', 3, 7001)).toBeNull();
    expect((offer(s, 'bob', 3, 7002, 2) as Release).envelopes.map((e) => e.from)).toEqual(['ann', 'bob', 'cy']);
  });

  it("an author's next envelope waits for the release; the same one again is a resend; another at its position an equivocation", () => {
    const s = Sealer.of(SETUP)!;
    offer(s, 'ann', 1, 0, 1);
    const hash = h(1);
    expect(s.arrive({ from: 'ann', seq: 1, hash, body: { type: 'commit', round: 1 } }, 1).kind).toBe('again');
    expect(s.arrive({ from: 'ann', seq: 1, hash: h(99), body: { type: 'commit', round: 1 } }, 1).kind).toBe('equivocation');
    expect(s.arrive({ from: 'ann', seq: 2, hash: h(98), body: { type: 'deadline', phase: 'commit', round: 1, missing: [] } }, 1).kind).toBe('pending');
    expect(s.arrive({ from: 'ann', seq: 0, hash: h(97), body: { type: 'commit', round: 1 } }, 1).kind).toBe('pass');
    expect(s.arrive({ from: 'bob', seq: 0, hash: h(96), body: { type: 'hello' } }, 1).kind).toBe('pass');
  });

  it('a sealer rebuilt from the log and the held envelopes decides as the one that was lost', () => {
    const live = Sealer.of(SETUP)!;
    offer(live, 'ann', 1, 0);
    offer(live, 'bob', 1, 1);
    const r1 = live.due(2000)[0]!;
    record(live, r1);
    offer(live, 'ann', 2, 3000);
    const rebuilt = Sealer.of(SETUP)!;
    record(rebuilt, r1);
    for (const e of live.held()) expect(rebuilt.hold(e)).toBeNull();
    expect(rebuilt.nextDeadline()).toBe(live.nextDeadline());
    expect((offer(rebuilt, 'bob', 2, 3100) as Release).envelopes.map((e) => e.from)).toEqual(['ann', 'bob']);
  });
});

describe('newcomers in a sealed game (docs/SPEC.md §4.6)', () => {
  const nia = toHex(generateKeyPair(new Uint8Array(32).fill(9)).publicKey);
  /** Offers `from`'s commit for `round` with the hash `hash`; the release, if any. */
  const commit = (s: Sealer, from: string, round: number, hash: string): Release | null => {
    const a = s.arrive({ from, seq: round, hash, body: { type: 'commit', round } }, 0);
    if (a.kind !== 'hold') throw new Error(`unexpected ${a.kind}`);
    return s.hold({ set: a.set, from, seq: round, hash, text: `${from}/${round}`, time: 0, until: a.until });
  };
  const everyone = (s: Sealer, round: number, first: number): Release | null => {
    let r: Release | null = null;
    players.forEach((p, i) => (r = commit(s, p, round, h(first + i))));
    return r;
  };

  it('a newcomer a recorded line introduces is released after the setup players, whatever its arrival; it is waited for once it joined a set', () => {
    const s = Sealer.of(SETUP)!;
    record(s, everyone(s, 1, 1)!);
    // A malformed newcomer body introduces nobody; a well-formed one introduces nia.
    s.observe('ann', { type: 'newcomer', newcomer: { id: 'zed', key: 'ab' } });
    s.observe('ann', { type: 'newcomer', newcomer: { id: 'nia', key: nia } });
    // Round 2: nia's commit comes first; the set is complete when the four it expects are in, and nia is last.
    expect(commit(s, 'nia', 2, h(20))).toBeNull();
    const two = everyone(s, 2, 21)!;
    expect(two.reason).toBe('complete');
    expect(two.envelopes.map((e) => e.from)).toEqual([...players, 'nia']);
    record(s, two);
    // Round 3: nia is expected now.
    expect(everyone(s, 3, 31)).toBeNull();
    expect(commit(s, 'nia', 3, h(30))!.envelopes.map((e) => e.from)).toEqual([...players, 'nia']);
  });
});

describe('holding receipts (docs/spec/sealed.md §3)', () => {
  const relay = generateKeyPair(new Uint8Array(32).fill(8));
  const other = generateKeyPair(new Uint8Array(32).fill(9));
  const game = 'ab'.repeat(32);

  it('sign and check; another key or any changed member is refused', () => {
    const r = signHoldingReceipt({ v: 1, game, hash: h(5), time: 100, until: 1100 }, relay.secretKey);
    expect(checkHoldingReceipt(r, relay.publicKey)).toEqual(r);
    expect(holdingReceiptError(r, other.publicKey)).toMatch(/does not verify/);
    expect(holdingReceiptError({ ...r, until: 1101 }, relay.publicKey)).toMatch(/does not verify/);
    expect(holdingReceiptError({ ...r, hash: h(6) }, relay.publicKey)).toMatch(/does not verify/);
    expect(holdingReceiptError({ ...r, line: 1 }, relay.publicKey)).toMatch(/unknown member/);
    expect(() => checkHoldingReceipt({ ...r, until: 5 }, relay.publicKey)).toThrow(/until/);
  });

  it('a line receipted after `until` on a log without the held envelope convicts the orderer; with it, or before `until`, nothing', () => {
    const holding = signHoldingReceipt({ v: 1, game, hash: h(5), time: 100, until: 1100 }, relay.secretKey);
    const hashes = [h(1), h(2), h(3)];
    const log = hashes.slice(1).reduce((l, x) => nextLogHash(l, x), firstLogHash(game, hashes[0]!));
    const late = signReceipt({ v: 1, game, line: 2, hash: h(3), log, time: 1101 }, relay.secretKey);
    expect(lostHeldProof(holding, late, hashes)).toMatch(/promised/);
    expect(lostHeldProof(holding, { ...late, time: 1100 }, hashes)).toBeNull();
    expect(lostHeldProof(holding, late, [h(1), h(5), h(3)])).toBeNull();
    expect(lostHeldProof(holding, { ...late, game: 'cd'.repeat(32) }, hashes)).toBeNull();
  });
});
