/**
 * Escrow in the power-assignment round (docs/spec/diplomacy.md §10.5.1). The last revealer of the lottery
 * values sees the whole assignment before choosing; without escrow its withholding reruns the lottery (a
 * second draw for an ally). With threshold or layered escrow its committed value is opened and the draw is
 * the one it would have had; every escrow rule broken in that round names its breaker with evidence, and
 * no honest player.
 */
import { describe, expect, it } from 'vitest';
import { cheatHook, simKeys, simulate } from '@fairtable/core/testing';
import { Auditor, auditLines } from '@fairtable/core/audit.js';
import { fromHex } from '@fairtable/core/bytes.js';
import { openEscrowedValue, reconstruct } from '@fairtable/core/escrow/vss.js';
import type { Body } from '@fairtable/core/envelope.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { OutgoingHook } from '@fairtable/core/seat/seat.js';
import { RandomStream } from '@fairtable/core/stream.js';
import type { GameEvent } from '@fairtable/core/protocols/machine.js';
import type { Violation } from '@fairtable/core/errors.js';
import { diplomacyRegistry as registry } from './index.js';
import { diplomacyTable } from './test-table.js';
import { diplomacySim } from './sim.js';
import type { DiplomacyState } from './machine.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';

/**
 * The seats and the audits sign and check with OpenSSL's Ed25519 (the same signatures and verdicts as noble's,
 * which packages/node's differential test proves): noble's checks were most of this file's time, and the
 * Diplomacy machine's own tests keep a game on noble.
 */
const ed25519 = { sign: nativeSign, verify: nativeVerify } as const;

const seed = (n: number): Uint8Array => new Uint8Array(32).fill(n);
const ids = Array.from({ length: 7 }, (_, i) => `p${i}`);
const keys = ids.map((_, i) => simKeys(seed(71), i));
/** Lists that contest England, France and Germany, so that every lottery value decides something. */
const LISTS = ['EF', 'EG', 'FE', 'FG', 'GE', 'GF', 'EFG'];
/** p6 reveals last: it sees every other value, and so the whole assignment, before it chooses. */
const LAST = 'p6';

interface Run {
  readonly log: string[];
  readonly state: DiplomacyState;
  readonly named: [string, string | null, string][];
  readonly violations: readonly Violation[];
  readonly events: GameEvent[];
}

/** Seven seats assign powers with `escrow`; `hooks` rewrite what a seat sends. Deadlines pass until every seat plays. */
function assign(escrow: string, hooks: Record<string, OutgoingHook> = {}): Run {
  const { clock, log, seats, flush } = diplomacyTable({ params: { assign: 'weighted', escrow }, hooks, keySeed: 71, randomSeed: 80, ed25519 });
  const observer = seats[0]!;
  for (let pass = 0; pass < 12 && (observer.referee.state as DiplomacyState).stage === 'assign'; pass++) {
    seats.forEach((s, i) => {
      if (s.decision()?.kind === 'preferences') s.decide(LISTS[i]!);
      flush();
    });
    if ((observer.referee.state as DiplomacyState).stage !== 'assign') break;
    clock.now += 2000;
    for (const s of seats) s.tick();
    flush();
  }
  const state = observer.referee.state as DiplomacyState;
  expect(state.stage).toBe('play');
  const violations = observer.referee.violations;
  const auditor = new Auditor(log[0]!, { registry, keepEvents: true, verify: nativeVerify });
  for (const l of log.slice(1)) auditor.add(l);
  const events = auditor.referee.events;
  return { log, state, events, violations, named: violations.map((v) => [v.code, v.player, v.kind ?? 'rule']) };
}

/** A hook that changes (or drops, with null) the first body `change` accepts, and leaves every other one alone. */
function once(change: (b: Body) => Body | null | undefined): OutgoingHook {
  let done = false;
  return {
    body: (b) => {
      if (done) return b;
      const changed = change(b);
      if (changed === undefined) return b;
      done = true;
      return changed;
    },
  };
}
const withholdReveal = (): OutgoingHook => once((b) => (b.type === 'reveal' ? null : undefined));
const flip = (h: string): string => (h[0] === '0' ? '1' : '0') + h.slice(1);
const opened = (r: Run, player: string): GameEvent | undefined => r.events.find((e) => e.type === 'escrow-opened' && e.player === player);
/** The powers of every player but `but`. */
const othersPowers = (r: Run, but: string): Record<string, string> => Object.fromEntries(Object.entries(r.state.powers).filter(([p]) => p !== but));

describe('without escrow, the last revealer of the lottery values has a second draw to give', () => {
  it('its withheld reveal forfeits it and reruns the lottery: a different assignment (the option escrow takes away)', () => {
    const honest = assign('none');
    const withheld = assign('none', { [LAST]: withholdReveal() });
    expect(withheld.named).toEqual([['withheld', LAST, 'rule']]);
    expect(withheld.state.forfeits).toEqual([{ player: LAST, code: 'withheld' }]);
    expect(withheld.state.powers).not.toEqual(othersPowers(honest, LAST));
  });
});

describe('with escrow the colluding withholder gains nothing: the assignment is the one its reveal gives', () => {
  for (const escrow of ['threshold', 'layers']) {
    it(`${escrow}: its committed value is opened in round 0, every player gets the same power, nobody is named`, () => {
      const honest = assign(escrow);
      expect(honest.named).toEqual([]);
      expect(Object.keys(honest.state.powers)).toHaveLength(7);
      // Nothing to open when everyone reveals.
      expect(honest.log.some((l) => l.includes('"type":"share"') || l.includes('"type":"peel"'))).toBe(false);
      const withheld = assign(escrow, { [LAST]: withholdReveal() });
      expect(withheld.named).toEqual([]);
      expect(withheld.state.forfeits).toEqual([]);
      expect(opened(withheld, LAST)).toMatchObject({ round: 0, prefs: LISTS[6] });
      expect(withheld.state.powers).toEqual(honest.state.powers);
      expect(withheld.events.find((e) => e.type === 'assignment')!.seed).toBe(honest.events.find((e) => e.type === 'assignment')!.seed);
      // The auditor, from the log alone, finds the same.
      expect(auditLines(withheld.log, { registry }).violations).toEqual([]);
    });
  }
});

describe('escrow rules broken in the assignment round: the breaker is named with evidence, honest players never', () => {
  it('threshold: a share that does not match the dealer’s commitments is named; k good ones still open the value', () => {
    const honest = assign('threshold');
    const r = assign('threshold', {
      [LAST]: withholdReveal(),
      p2: once((b) => (b.type === 'share' && typeof b.share === 'string' ? { ...b, share: flip(b.share) } : undefined)),
    });
    expect(r.named).toEqual([['bad_share', 'p2', 'rule']]);
    expect((r.violations[0]!.evidence[0]!.envelope as { body: Body }).body.type).toBe('share');
    expect(r.state.powers).toEqual(honest.state.powers);
  });

  it('threshold: a value sealed that k valid shares do not open to the commitment is withholding (a rule broken); the lottery reruns', () => {
    const r = assign('threshold', {
      [LAST]: {
        body: (b) => {
          if (b.type === 'reveal' && b.round === 0) return null;
          const e = b.escrow as { sealed: string } | undefined;
          return b.type === 'commit' && b.round === 0 && e !== undefined ? { ...b, escrow: { ...e, sealed: flip(e.sealed) } as JsonValue } : b;
        },
      },
    });
    expect(r.named).toEqual([['withheld', LAST, 'rule']]);
    expect(r.events.find((e) => e.type === 'escrow-failed')).toMatchObject({ player: LAST, round: 0, shares: 4 });
    expect(r.state.forfeits).toEqual([{ player: LAST, code: 'withheld' }]);
    // The fallback: drawn again among the others.
    expect(r.state.powers[LAST]).toBeUndefined();
    expect(r.events.filter((e) => e.type === 'assignment')).toHaveLength(1);
    expect(r.state.round).toBe(2);
  });

  it('threshold: too few holders answer, so the value cannot be opened: absences only, and the lottery reruns', () => {
    const refuse: OutgoingHook = { body: (b) => (b.type === 'share' ? null : b) };
    const r = assign('threshold', { [LAST]: withholdReveal(), p0: refuse, p1: refuse, p2: refuse });
    expect(new Set(r.named.map((x) => x.join(' ')))).toEqual(
      new Set(['withheld p0 absence', 'withheld p1 absence', 'withheld p2 absence', `withheld ${LAST} absence`]),
    );
    expect(r.events.find((e) => e.type === 'escrow-failed')).toMatchObject({ player: LAST, shares: 3 });
    expect(r.state.powers[LAST]).toBeUndefined();
  });

  it('a reveal that does not open its commitment is named commit_mismatch; its value is opened from escrow and the draw stands', () => {
    for (const escrow of ['threshold', 'layers']) {
      const honest = assign(escrow);
      const r = assign(escrow, {
        [LAST]: once((b) => {
          const o = b.opening as { nonce: string } | undefined;
          return b.type === 'reveal' && o !== undefined ? { ...b, opening: { ...o, nonce: flip(o.nonce) } } : undefined;
        }),
      });
      expect(r.named).toEqual([['commit_mismatch', LAST, 'rule']]);
      expect(r.state.forfeits).toEqual([{ player: LAST, code: 'commit_mismatch' }]);
      expect(opened(r, LAST)).toMatchObject({ round: 0 });
      // Every other player's power is the one the honest game gives; the forfeited player's falls into civil disorder.
      expect(r.state.powers).toEqual(othersPowers(honest, LAST));
      expect(r.events.some((e) => e.type === 'civil-disorder' && e.power === honest.state.powers[LAST])).toBe(true);
    }
  });

  it('an equivocation at the reveal forfeits the equivocator and reruns nothing: its value is drawn, its power vacated', () => {
    const honest = assign('threshold');
    let done = false;
    const r = assign('threshold', {
      [LAST]: {
        body: (b) => b,
        envelope: (e, seat) => {
          if (done || e.body.type !== 'reveal') return [e];
          done = true;
          return [seat.sign({ ...e.body, variant: true }), e];
        },
      },
    });
    expect(r.named).toEqual([['equivocation', LAST, 'rule']]);
    expect(r.violations.every((v) => v.player === LAST)).toBe(true);
    expect(r.state.forfeits).toEqual([{ player: LAST, code: 'equivocation' }]);
    expect(r.state.powers).toEqual(othersPowers(honest, LAST));
  });

  const layersCheat = (cheat: 'layers-bad-box' | 'layers-bad-body' | 'layers-inside-differs'): OutgoingHook => {
    const stream = new RandomStream(seed(90), 'cheat');
    return cheatHook(cheat, { keys: keys[6]!, random: (n) => stream.bytes(n) })!;
  };

  it("layers: garbage in a member's box is named on that member's proven exchange; the partner opens the value and it counts", () => {
    const honest = assign('layers');
    const r = assign('layers', { [LAST]: layersCheat('layers-bad-box') });
    expect(r.named).toEqual([['bad_layer', LAST, 'rule']]);
    expect((r.violations[0]!.evidence[0]!.envelope as { body: Body }).body.type).toBe('peel');
    expect(opened(r, LAST)).toMatchObject({ round: 0 });
    // It forfeits for the garbage, but its value was drawn with the others': the lottery is the honest one.
    expect(r.state.forfeits).toEqual([{ player: LAST, code: 'bad_layer' }]);
    expect(r.state.powers).toEqual(othersPowers(honest, LAST));
  });

  it('layers: a garbage body shuts the onion: the owner is named bad_layer, forfeits, and the lottery reruns among the others', () => {
    const r = assign('layers', { [LAST]: layersCheat('layers-bad-body') });
    expect(r.named).toEqual([['bad_layer', LAST, 'rule']]);
    expect(r.events.find((e) => e.type === 'escrow-failed')).toMatchObject({ player: LAST, round: 0, depth: 1 });
    expect(r.state.forfeits).toEqual([{ player: LAST, code: 'bad_layer' }]);
    expect(r.state.powers[LAST]).toBeUndefined();
    expect(Object.keys(r.state.powers)).toHaveLength(6);
  });

  it('layers: an onion holding another value than the one revealed fails the background check; the revealed value stands', () => {
    const honest = assign('layers');
    const r = assign('layers', { [LAST]: layersCheat('layers-inside-differs') });
    expect(r.named).toEqual([['bad_layer', LAST, 'rule']]);
    expect(r.events.some((e) => e.type === 'escrow-opened' || e.type === 'escrow-failed')).toBe(false);
    expect(r.state.powers).toEqual(honest.state.powers);
  });

  it('an assignment escrow never opens as an orders escrow: its sealed value names the stage in its context', () => {
    const r = assign('threshold', { [LAST]: withholdReveal() });
    const entries = r.log
      .slice(1)
      .map((l) => JSON.parse(l) as { from: string; body: { type: string; round?: number; dealer?: string; share?: string; escrow?: { sealed: string } } });
    const sealed = entries.find((e) => e.from === LAST && e.body.type === 'commit' && e.body.round === 0)!.body.escrow!.sealed;
    const others = ids.filter((p) => p !== LAST);
    const shares = entries
      .filter((e) => e.body.type === 'share' && e.body.dealer === LAST && typeof e.body.share === 'string')
      .map((e) => ({ seat: others.indexOf(e.from) + 1, share: e.body.share! }))
      .slice(0, 4);
    const secret = reconstruct(shares);
    const game = r.state.gameId;
    const value = JSON.parse(new TextDecoder().decode(openEscrowedValue(sealed, secret, `diplomacy/${game}/powers/0/${LAST}`))) as { value: { prefs: string } };
    expect(value.value.prefs).toBe(LISTS[6]);
    // The same secret and sealed value under an orders context (round 0 or any other) open nothing.
    for (const context of [`diplomacy/${game}/0/${LAST}`, `diplomacy/${game}/1/${LAST}`]) expect(() => openEscrowedValue(sealed, secret, context)).toThrow();
    expect(fromHex(sealed, 'sealed').length).toBeGreaterThan(0);
  });
});

describe('lossy networks: the withholder of the assignment round is opened, and nobody is named', () => {
  for (const [n, escrow] of [
    [15, 'threshold'],
    [16, 'layers'],
  ] as const) {
    it(`${escrow}: a fifth of all messages lost, some duplicated, all reordered`, () => {
      const r = simulate({
        protocol: 'diplomacy',
        extension: diplomacySim,
        registry,
        players: 7,
        seed: seed(n),
        params: { assign: 'weighted', years: 1, escrow },
        drop: 0.2,
        duplicate: 0.1,
        maxDelay: 100,
        cheat: 'withhold',
        cheater: 'p4',
        ...ed25519,
      });
      const v = auditLines(r.lines, { registry, verify: nativeVerify });
      expect(v.outcome).not.toBeNull();
      expect(v.violations).toEqual([]);
      expect(v.outcome?.forfeits).toEqual([]);
      const bodies = r.lines.slice(1).map((l) => (JSON.parse(l) as { from: string; body: { type: string; round: number } }).body);
      // Opened in the assignment round (round 0), not rerun: one assignment, drawn in round 0.
      expect(bodies.some((b) => (b.type === 'share' || b.type === 'peel') && b.round === 0)).toBe(true);
      expect(bodies.some((b) => b.type === 'commit' && b.round === 1 && (b as { label?: string }).label === 'powers')).toBe(false);
    });
  }
});
