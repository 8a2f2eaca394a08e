/**
 * Commit and leave (docs/spec/diplomacy.md §10.6.1): with escrow on, a player who has committed may close the page.
 * The others open her orders from escrow, they are adjudicated, and nobody is named for it.
 */
import { describe, expect, it } from 'vitest';
import { randomChoice } from '@fairtable/core/testing';
import { Auditor } from '@fairtable/core/audit.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { OutgoingHook } from '@fairtable/core/seat/seat.js';
import { RandomStream } from '@fairtable/core/stream.js';
import type { GameEvent } from '@fairtable/core/protocols/machine.js';
import { diplomacyRegistry as registry } from './index.js';
import { diplomacyTable } from './test-table.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';

/**
 * The seats and the audits sign and check with OpenSSL's Ed25519 (the same signatures and verdicts as noble's,
 * which packages/node's differential test proves): noble's checks were most of this file's time, and the
 * Diplomacy machine's own tests keep a game on noble.
 */
const ed25519 = { sign: nativeSign, verify: nativeVerify } as const;

const seed = (n: number): Uint8Array => new Uint8Array(32).fill(n);

/** Seven seats; `p1` sends nothing after its first commitment (`leaveAfter` 'commit') or after its first claim. */
function leave(escrow: JsonValue, leaveAfter: 'commit' | 'claim') {
  let gone = false;
  let committed: JsonValue = null;
  // p1 sends nothing after its first `leaveAfter` body.
  const leaving: OutgoingHook = {
    body: (b) => {
      if (gone) return null;
      if (b.type === leaveAfter) gone = true;
      return b;
    },
  };
  const { clock, log, seats, flush } = diplomacyTable({ params: { escrow }, hooks: { p1: leaving }, keySeed: 41, randomSeed: 50, ed25519 });
  flush();
  const random = new RandomStream(seed(60), 'strategy');
  // Every seat answers its first orders; p1's answer is what it commits to before it leaves.
  for (const st of seats) {
    const d = st.decision();
    if (d === null) continue;
    const choice = randomChoice(d.choices, random);
    if (st.id === 'p1') committed = choice;
    st.decide(choice);
    flush();
  }
  // Time passes in steps, as the honest seats' clocks run: claims at each deadline, shares, signatures.
  const adjudicated = (): GameEvent | undefined => {
    const a = new Auditor(log[0]!, { registry, keepEvents: true, verify: nativeVerify });
    for (const l of log.slice(1)) a.add(l);
    return a.referee.events.find((e) => e.type === 'adjudicated');
  };
  for (let step = 0; step < 40 && adjudicated() === undefined; step++) {
    clock.now += 1000;
    for (const st of seats) st.tick();
    flush();
  }
  const auditor = new Auditor(log[0]!, { registry, keepEvents: true, verify: nativeVerify });
  for (const l of log.slice(1)) auditor.add(l);
  return { log, committed, events: auditor.referee.events, verdict: auditor.verdict(), seats };
}

describe('commit and leave', () => {
  for (const escrow of ['threshold', 'layers'] as const) {
    for (const leaveAfter of ['commit', 'claim'] as const) {
      it(`${escrow} escrow, gone after its ${leaveAfter}: its orders are opened and adjudicated, nobody is named`, () => {
        const r = leave(escrow, leaveAfter);
        const opened = r.events.find((e) => e.type === 'escrow-opened');
        expect(opened).toMatchObject({ player: 'p1', power: 'england' });
        // The orders adjudicated for England are the ones p1 committed to, not the defaults.
        const first = r.events.find((e) => e.type === 'adjudicated')!;
        const england = (first.results as { power: string; order: string }[]).filter((x) => x.power === 'england').map((x) => x.order);
        expect(england).toEqual(opened!.orders);
        expect(Object.values(r.committed as Record<string, string>).sort()).toEqual([...england].sort());
        // Nobody named, by the audit or by any seat still at the table; nobody forfeited.
        expect(r.verdict.violations).toEqual([]);
        expect(r.verdict.valid).toBe(true);
        for (const st of r.seats.filter((s) => s.id !== 'p1')) expect(st.referee.violations).toEqual([]);
        expect(r.events.some((e) => e.type === 'forfeit')).toBe(false);
        // The game goes on, so it is in progress, not "not valid".
        expect(r.verdict.inProgress).toBe(true);
      });
    }
  }

  it('without escrow the one reveal still missing is rule breaking: it saw every other reveal', () => {
    const r = leave('none', 'claim');
    expect(r.verdict.violations.map((v) => [v.code, v.player, v.kind])).toEqual([['withheld', 'p1', 'rule']]);
    expect(r.verdict.valid).toBe(false);
    expect(r.events.find((e) => e.type === 'forfeit')).toMatchObject({ player: 'p1', code: 'withheld' });
  });

  it('without escrow, gone after its commitment: an absence (its units hold), not rule breaking', () => {
    const r = leave('none', 'commit');
    expect(r.verdict.violations.map((v) => [v.code, v.player, v.kind])).toEqual([['withheld', 'p1', 'absence']]);
    expect(r.verdict.valid).toBe(true);
    expect(r.events.some((e) => e.type === 'forfeit')).toBe(false);
  });
});
