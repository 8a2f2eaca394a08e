/**
 * The diplomacy machine on the in-memory network (docs/spec/diplomacy.md §10): honest games audit valid,
 * and each rule broken on purpose is caught, with the cheater named and the evidence given.
 */
import { describe, expect, it } from 'vitest';
import { randomChoice, simulate, verifiedOnce, type SimExtension } from '@fairtable/core/testing';
import { Auditor, auditLines } from '@fairtable/core/audit.js';
import { commit } from '@fairtable/core/commitment.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { OutgoingHook } from '@fairtable/core/seat/seat.js';
import { RandomStream } from '@fairtable/core/stream.js';
import type { GameEvent } from '@fairtable/core/protocols/machine.js';
import { diplomacyRegistry } from './index.js';
import { diplomacyTable } from './test-table.js';
import { fromHex } from '@fairtable/core/bytes.js';
import { beaconSeed } from '@fairtable/core/protocols/beacon.js';
import { assignPowers, parsePreferences } from '../assign.js';
import { diplomacySim } from './sim.js';
import type { DiplomacyState } from './machine.js';
import type { Cheat } from '@fairtable/core/testing';
import { nativeSign, nativeVerify as checkSignature } from '@fairtable/node/native-verify.js';

// One OpenSSL check a (signature, key, message) for the whole file: every seat, door and audit here checks the same lines.
const nativeVerify = verifiedOnce(checkSignature);

const seed = (n: number): Uint8Array => new Uint8Array(32).fill(n);
const registry = diplomacyRegistry;

function events(lines: readonly string[]): GameEvent[] {
  const a = new Auditor(lines[0]!, { registry, keepEvents: true, verify: nativeVerify });
  for (const l of lines.slice(1)) a.add(l);
  return a.referee.events;
}

/**
 * Signing and checking signatures with OpenSSL's Ed25519 (packages/node's fast path: the same signatures and the
 * same verdicts as noble's, which its differential test proves): seven seats each check every envelope, and noble's
 * checks were most of this file's time. The first honest game and its audit stay on noble.
 */
const native = { verify: nativeVerify, sign: nativeSign } as const;
const audit = (lines: readonly string[]) => auditLines(lines, { registry, verify: nativeVerify });

type PlayOptions = {
  players?: number;
  cheat?: string;
  cheater?: string;
  params?: Record<string, JsonValue>;
  extension?: SimExtension;
  n?: number;
  noble?: boolean;
};
/** Games played with the built-in extension, by their options: a game several tests read is played once (a game is a pure function of its options). */
const played = new Map<string, ReturnType<typeof simulate>>();

function play(options: PlayOptions) {
  const key = options.extension === undefined ? JSON.stringify(options) : null;
  const known = key === null ? undefined : played.get(key);
  if (known !== undefined) return known;
  const r = simulate({
    protocol: 'diplomacy',
    extension: options.extension ?? diplomacySim,
    registry,
    players: options.players ?? 7,
    seed: seed(options.n ?? 3),
    params: { assign: 'fixed', years: 1, ...(options.params ?? {}) },
    ...(options.cheat === undefined ? {} : { cheat: options.cheat, cheater: options.cheater ?? 'p1' }),
    ...(options.noble === true ? {} : native),
  });
  if (key !== null) played.set(key, r);
  return r;
}

describe('diplomacy machine: honest play', () => {
  it('7 players, fixed powers, one year: valid, everyone signs the same positions', () => {
    // On noble's Ed25519, as a browser plays and audits.
    const r = play({ noble: true });
    const v = auditLines(r.lines, { registry });
    expect(v.violations).toEqual([]);
    expect(v.valid).toBe(true);
    expect(v.outcome?.summary).toMatchObject({ phase: 'S1902M' });
    const agreed = events(r.lines).filter((e) => e.type === 'agreed');
    expect(agreed.map((e) => e.phase)).toContain('F1901M');
  });

  it('power assignment by weighted lotteries, then a lossy network: valid, seven distinct powers', () => {
    const r = simulate({
      protocol: 'diplomacy',
      extension: diplomacySim,
      registry,
      players: 7,
      seed: seed(4),
      params: { assign: 'weighted', years: 1 },
      drop: 0.1,
      duplicate: 0.1,
      maxDelay: 50,
      ...native,
    });
    const v = audit(r.lines);
    expect(v.violations).toEqual([]);
    const assignment = events(r.lines).find((e) => e.type === 'assignment')!;
    const powers = Object.values(assignment.powers as Record<string, string>);
    // A reserve (`%`) among the examples takes no power at first; the others get distinct powers.
    expect(new Set(powers).size).toBe(powers.length);
    expect(powers.length).toBeGreaterThanOrEqual(5);
  });

  it('serial dictatorship: one joint random order of the players', () => {
    const r = play({ params: { assign: 'serial' }, n: 5 });
    expect(audit(r.lines).valid).toBe(true);
    const assignment = events(r.lines).find((e) => e.type === 'assignment')!;
    expect([...(assignment.order as string[])].sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
  });
});

describe('diplomacy machine: every cheat is caught and its cheater named', () => {
  const cases: [string, string][] = [
    ['tampered-orders', 'commit_mismatch'],
    ['wrong-opening', 'commit_mismatch'],
    ['disagree', 'position_mismatch'],
    ['withhold', 'withheld'],
    ['out-of-turn', 'out_of_turn'],
    ['tamper', 'broken_chain'],
  ];
  for (const [cheat, code] of cases) {
    it(`${cheat}: ${code}`, () => {
      const r = play({ cheat });
      const v = audit(r.lines);
      expect(v.valid).toBe(false);
      const first = v.violations[0]!;
      expect(first.code).toBe(code);
      expect(first.player).toBe('p1');
      expect(first.evidence.length).toBeGreaterThan(0);
      for (const x of v.violations) expect(['p1', null]).toContain(x.player);
      if (cheat !== 'tamper') expect(r.violations.some((x) => x.code === code && x.player === 'p1')).toBe(true);
    });
  }

  for (const [cheat, code] of [
    ['equivocate', 'equivocation'],
    ['replay', 'wrong_game'],
    ['forge', 'bad_signature'],
  ] as const) {
    it(`${cheat}: refused at the door, ${code}`, () => {
      const r = play({ cheat });
      const refusal = r.refusals.find((x) => x.code === code);
      expect(refusal?.player).toBe('p1');
      expect(r.refusals.every((x) => x.player === 'p1')).toBe(true);
      for (const x of audit(r.lines).violations) expect(['p1', null]).toContain(x.player);
    });
  }

  it('tampered orders: every unit of the power holds, the game goes on', () => {
    const r = play({ cheat: 'tampered-orders' });
    const v = audit(r.lines);
    expect(v.violations[0]!.message).toMatch(/england.*defaults/);
    const first = events(r.lines).find((e) => e.type === 'adjudicated')!;
    // England's orders are not used at all: no result names england, and its three units stay where they were.
    expect((first.results as { power: string }[]).some((x) => x.power === 'england')).toBe(false);
    expect(v.outcome).not.toBeNull();
  });

  it('disagreeing adjudication: the signer is named, the game goes on from the position the orders give', () => {
    const r = play({ cheat: 'disagree' });
    const v = audit(r.lines);
    expect(v.violations).toHaveLength(1);
    expect(v.violations[0]!.message).toMatch(/p1 signed position/);
    expect(v.outcome?.summary).toMatchObject({ phase: 'S1902M' });
  });

  it('a withheld reveal: named, the power forfeits into civil disorder', () => {
    const r = play({ cheat: 'withhold' });
    const v = audit(r.lines);
    expect(v.outcome?.forfeits).toEqual([{ player: 'p1', code: 'withheld' }]);
    expect(events(r.lines).some((e) => e.type === 'civil-disorder' && e.power === 'england')).toBe(true);
  });

  it('missing orders (no commitment): named, the power holds that phase and plays the next', () => {
    let left = 1;
    const silent: SimExtension = {
      ...diplomacySim,
      cheats: { 'skip-commit': () => ({ body: (b) => (b.type === 'commit' && left-- > 0 ? null : b) }) },
    };
    const r = play({ cheat: 'skip-commit', extension: silent });
    const v = audit(r.lines);
    expect(v.violations.map((x) => [x.code, x.player])).toEqual([['withheld', 'p1']]);
    expect(v.outcome?.forfeits).toEqual([]);
    const adjudicated = events(r.lines).filter((e) => e.type === 'adjudicated');
    expect((adjudicated[0]!.results as { power: string }[]).some((x) => x.power === 'england')).toBe(false);
    expect((adjudicated[1]!.results as { power: string }[]).some((x) => x.power === 'england')).toBe(true);
  });
});

/** A table without a network: every seat's submissions are appended and delivered at once. */
function table(params: Record<string, JsonValue>, hooks: Record<string, OutgoingHook> = {}, players = 7) {
  return diplomacyTable({ params, hooks, players, keySeed: 8, randomSeed: 20 });
}

describe('orders written by hand, as a gpg player writes its file', () => {
  for (const [typos, moved] of [
    ['ignore-unit-letter', true],
    ['strict', false],
  ] as const) {
    it(`"A bre - mao" for the fleet in Brest under typos=${typos}: the fleet ${moved ? 'moves' : 'holds'}`, () => {
      const t = table({ typos });
      const france = t.seats[2]!;
      // France commits to its own file; the others answer their decisions with holds.
      const file = 'F par - bur\nA bre - mao\nA mar - spa';
      const opening = commit({ game: france.gameId, player: 'p2', purpose: 'diplomacy/1' }, file, (n) => new Uint8Array(n).fill(7));
      france.sendUnasked({ type: 'commit', round: 1, label: 'S1901M', commitment: opening.commitment });
      t.flush();
      for (const s of t.seats) {
        const d = s.decision();
        if (s.id === 'p2' || d === null || d.choices.type !== 'record') continue;
        s.decide(Object.fromEntries(Object.entries(d.choices.fields).map(([k, f]) => [k, (f as unknown as { values: JsonValue[] }).values[0]!])));
        t.flush();
      }
      // Every seat, France's too, claimed its commitment on its own once the set was complete; France reveals its file by hand.
      expect((france.referee.state as DiplomacyState).phase).toBe('reveal');
      france.sendUnasked({ type: 'reveal', round: 1, opening: opening.opening as unknown as JsonValue });
      t.flush();
      const after = t.seats[0]!.referee.state as DiplomacyState;
      // Every seat adjudicated and signed on its own: the next phase has begun from the agreed position.
      expect([after.phase, after.round]).toEqual(['commit', 2]);
      expect(t.seats[0]!.referee.violations).toEqual([]);
      const fleet = after.position.units.find((u) => u.power === 'france' && u.type === 'fleet')!;
      expect(fleet.at).toBe(moved ? 'mao' : 'bre');
      // "F par - bur": Paris holds an army; the letter is wrong there too.
      const army = after.position.units.find((u) => u.power === 'france' && u.at === (moved ? 'bur' : 'par'));
      expect(army).toBeDefined();
    });
  }
});

describe('threshold escrow: a withheld reveal is opened by k of the others', () => {
  it('the withholder gains nothing and is not named: its committed orders are opened and adjudicated', () => {
    const r = play({ cheat: 'withhold', params: { escrow: 'threshold' } });
    const v = audit(r.lines);
    // Commit and leave (§10.6.1): a reveal opened from escrow names nobody.
    expect(v.violations.map((x) => [x.code, x.player])).toEqual([]);
    const ev = events(r.lines);
    const opened = ev.find((e) => e.type === 'escrow-opened')!;
    expect(opened).toMatchObject({ player: 'p1', power: 'england' });
    expect((opened.orders as string[]).length).toBe(3);
    // The phase finished with England's committed orders, not the defaults.
    const first = ev.find((e) => e.type === 'adjudicated')!;
    expect((first.results as { power: string; order: string }[]).filter((x) => x.power === 'england').map((x) => x.order)).toEqual(opened.orders);
    // Four shares (a majority of the six others) were needed; all six honest players sent theirs, in every phase
    // p1 withheld (it stays in: withholding gained it nothing).
    const phases = ev.filter((e) => e.type === 'escrow-opened' && e.player === 'p1').length;
    expect(phases).toBeGreaterThan(1);
    expect(r.lines.filter((l) => l.includes('"type":"share"')).length).toBe(6 * phases);
  });

  it('honest play with escrow: valid, and no share is ever published', () => {
    const r = play({ params: { escrow: 'threshold', threshold: 3 } });
    expect(audit(r.lines).valid).toBe(true);
    expect(r.lines.some((l) => l.includes('"type":"share"'))).toBe(false);
  });

  it("a share that does not match its dealer's commitments is named; k good ones still open the orders", () => {
    // p1 withholds its reveal; p2 publishes a share that is not the one dealt to it.
    const t = table(
      { escrow: 'threshold' },
      {
        p1: { body: (b) => (b.type === 'reveal' ? null : b) },
        p2: { body: (b) => (b.type === 'share' && typeof b.share === 'string' ? { ...b, share: (b.share[0] === '0' ? '1' : '0') + b.share.slice(1) } : b) },
      },
    );
    const random = new RandomStream(seed(30), 'strategy');
    const answer = (): void => {
      for (const st of t.seats) {
        for (let d = st.decision(); d !== null; d = st.decision()) st.decide(randomChoice(d.choices, random));
        t.flush();
      }
    };
    answer();
    expect((t.seats[0]!.referee.state as DiplomacyState).phase).toBe('reveal');
    t.clock.now = 10_000;
    for (const st of t.seats) st.tick();
    t.flush();
    const referee = t.seats[0]!.referee;
    expect(referee.violations.map((x) => [x.code, x.player])).toEqual([['bad_share', 'p2']]);
    expect(referee.violations[0]!.evidence[0]!.envelope).toBeDefined();
    const state = referee.state as DiplomacyState;
    // The phase was adjudicated with England's committed orders, opened from four good shares.
    expect([state.phase, state.round]).toEqual(['commit', 2]);
    expect(state.forfeits).toEqual([]);
  });
});

describe('power assignment inside the game (seed 003)', () => {
  it("the seed's eight lists: committed, revealed, and the lotteries drawn from the joint random number with below(k)", () => {
    const lists = ['AE(GI)R', 'FRG', '(EFG)TI(AR)', 'E', '', 'FRA', 'GRA', '%REG'];
    const t = table({ assign: 'weighted' }, {}, 8);
    t.seats.forEach((st, i) => {
      expect(st.decision()?.kind).toBe('preferences');
      st.decide(lists[i]!);
      t.flush();
    });
    const referee = t.seats[0]!.referee;
    expect(referee.violations).toEqual([]);
    const state = referee.state as DiplomacyState;
    expect(state.stage).toBe('play');
    // Anyone can recompute it from the log: the revealed random values give the beacon's seed, the seed a stream.
    const reveals = t.log
      .map((l) => JSON.parse(l) as { from: string; body: { type: string; opening?: { value: { prefs: string; random: string } } } })
      .filter((e) => e.body.type === 'reveal');
    const values = Object.fromEntries(reveals.map((e) => [e.from, e.body.opening!.value.random]));
    const players = t.seats.map((x) => x.id);
    const stream = new RandomStream(fromHex(beaconSeed(t.seats[0]!.gameId, 0, players, values), 'seed', 32), 'diplomacy-lottery');
    const prefs = parsePreferences(lists.map((l, i) => `${i + 1} ${l}`).join('\n'));
    const expected = assignPowers(prefs, 'weighted', (k) => stream.below(k));
    expect(Object.fromEntries(Object.entries(expected.assignment).map(([n, power]) => [players[Number(n) - 1]!, power]))).toEqual(state.powers);
    expect(state.contests).toEqual(expected.contests);
    // Player 1's Austria is unopposed; France is contested first with the seed's seven outcomes; the reserve waits.
    expect(state.powers.p0).toBe('austria');
    expect(state.contests[0]).toMatchObject({ power: 'france', outcomes: 7, chances: { '2': 3, '3': 1, '6': 3 } });
    expect(state.powers.p7).toBeUndefined();
    expect(state.reserves.p7).toEqual(['russia', 'england', 'germany']);
  });

  it('a preference list that is not in the notation is refused as an illegal choice', () => {
    const t = table({ assign: 'weighted' });
    expect(() => t.seats[0]!.decide('AXE')).toThrow(/illegal_choice|does not match/);
    expect(() => t.seats[0]!.decide('(AE')).toThrow(/bracket/);
  });
});

describe('lossy networks name no honest player', () => {
  // With escrow a withholder's orders are opened and nobody is named (§10.6.1); a tampered reveal is named once.
  for (const [n, cheat, params, named] of [
    [11, undefined, { assign: 'serial' }, 0],
    [12, 'withhold', { assign: 'fixed', escrow: 'threshold' }, 0],
    [14, 'withhold', { assign: 'fixed', escrow: 'layers' }, 0],
    [13, 'tampered-orders', { assign: 'fixed' }, 1],
  ] as const) {
    it(`${cheat ?? 'honest'}, a fifth of all messages lost, some duplicated, all reordered`, () => {
      const r = simulate({
        protocol: 'diplomacy',
        extension: diplomacySim,
        registry,
        players: 7,
        seed: seed(n),
        params: { years: 1, ...params },
        drop: 0.2,
        duplicate: 0.1,
        maxDelay: 100,
        ...(cheat === undefined ? {} : { cheat, cheater: 'p4' }),
        ...native,
      });
      const v = audit(r.lines);
      expect(v.outcome).not.toBeNull();
      for (const x of v.violations) expect(x.player).toBe('p4');
      expect(v.violations.length).toBe(named);
    });
  }
});

describe("reserve players (seed 003's %)", () => {
  it('a reserve takes over the power of a player who forfeits, in the order of its list', () => {
    // Seven lists that give every power, and a reserve who wants Russia, England or Germany.
    const lists = ['A', 'E', 'F', 'G', 'I', 'R', 'T', '%REG'];
    const t = table(
      { assign: 'weighted' },
      { p5: { body: (b) => (b.type === 'reveal' && typeof (b.opening as { value?: unknown }).value === 'string' ? null : b) } },
      8,
    );
    t.seats.forEach((st, i) => {
      st.decide(lists[i]!);
      t.flush();
    });
    const random = new RandomStream(seed(31), 'strategy');
    for (const st of t.seats) {
      for (let d = st.decision(); d !== null; d = st.decision()) st.decide(randomChoice(d.choices, random));
      t.flush();
    }
    // p5 (Russia) withholds its reveal; the deadline names it and it forfeits.
    t.clock.now = 100_000;
    for (const st of t.seats) st.tick();
    t.flush();
    const state = t.seats[0]!.referee.state as DiplomacyState;
    expect(state.forfeits).toEqual([{ player: 'p5', code: 'withheld' }]);
    expect(state.powers.p7).toBe('russia');
    expect(state.round).toBe(2);
    // The reserve now orders Russia.
    expect(t.seats[7]!.decision()?.prompt).toMatch(/russia/);
  });
});

describe("seed 003's layered escrow: a withheld reveal is peeled by the others", () => {
  const layered = (cheat?: string, cheater = 'p1', accomplices: Record<string, Cheat> = {}) => {
    const r = simulate({
      protocol: 'diplomacy',
      extension: diplomacySim,
      registry,
      players: 7,
      seed: seed(3),
      params: { assign: 'fixed', years: 1, escrow: 'layers' },
      accomplices,
      ...(cheat === undefined ? {} : { cheat, cheater }),
      ...native,
    });
    const v = audit(r.lines);
    return { r, v, ev: events(r.lines), named: v.violations.map((x) => [x.code, x.player]) };
  };
  const englandOrders = (ev: GameEvent[]): string[] =>
    (ev.find((e) => e.type === 'adjudicated')!.results as { power: string; order: string }[]).filter((x) => x.power === 'england').map((x) => x.order);

  it('honest play: valid, every commit carries an onion, every reveal its seed, nothing is peeled', () => {
    const { r, v } = layered();
    expect(v.violations).toEqual([]);
    expect(v.valid).toBe(true);
    const bodies = r.lines.slice(1).map((l) => (JSON.parse(l) as { body: { type: string; onion?: unknown; seed?: string } }).body);
    expect(bodies.filter((b) => b.type === 'commit').every((b) => b.onion !== undefined)).toBe(true);
    expect(bodies.filter((b) => b.type === 'reveal').every((b) => /^[0-9a-f]{64}$/.test(b.seed!))).toBe(true);
    expect(bodies.some((b) => b.type === 'peel')).toBe(false);
  });

  it('the withholder gains nothing and is not named; its committed orders are peeled out of the layers and adjudicated', () => {
    const { r, ev, named } = layered('withhold');
    expect(named).toEqual([]);
    const opened = ev.find((e) => e.type === 'escrow-opened')!;
    expect(opened).toMatchObject({ player: 'p1', power: 'england' });
    expect((opened.orders as string[]).length).toBe(3);
    expect(englandOrders(ev)).toEqual(opened.orders);
    // Each of the six others publishes one proven exchange a phase, which opens its boxes of every layer.
    const phases = ev.filter((e) => e.type === 'escrow-opened' && e.player === 'p1').length;
    expect(phases).toBeGreaterThan(1);
    expect(r.lines.filter((l) => l.includes('"type":"peel"')).length).toBe(6 * phases);
  });

  it("garbage in a member's box: the owner is named on that member's proven exchange, and the partner opens the orders", () => {
    const { v, ev, named } = layered('layers-bad-box');
    expect(named).toEqual([['bad_layer', 'p1']]);
    expect((v.violations[0]!.evidence[0]!.envelope as { body: { type: string } }).body.type).toBe('peel');
    expect(ev.find((e) => e.type === 'escrow-opened')).toMatchObject({ player: 'p1', power: 'england' });
  });

  it('a garbage body: the owner is named, the orders cannot be opened, and England takes the defaults', () => {
    const { ev, named } = layered('layers-bad-body');
    expect(named).toEqual([['bad_layer', 'p1']]);
    expect(ev.find((e) => e.type === 'escrow-failed')).toMatchObject({ player: 'p1', power: 'england', depth: 1 });
    expect(englandOrders(ev).every((o) => / H$|hold/i.test(o) || o === '')).toBe(true);
  });

  it('an onion that holds other orders than the revealed ones: the background check names the owner; the revealed orders stand', () => {
    const { ev, named } = layered('layers-inside-differs');
    expect(named).toEqual([['bad_layer', 'p1']]);
    expect(ev.some((e) => e.type === 'escrow-opened' || e.type === 'escrow-failed')).toBe(false);
  });

  // Two games in which the onion is peeled in every phase (the withholder stays in): slow on a shared machine.
  it('members who refuse to peel or publish a wrong exchange are named, their partners go on; both members refusing shut the onion', () => {
    // p1's others are p0, p2 … p6: layers p0|p6, p0|p2, p2|p3, p3|p4, p4|p5, p5|p6, then the core.
    const some = layered('withhold', 'p1', { p2: 'layers-bad-peel', p5: 'layers-refuse-peel' });
    // In every phase p1 withholds (it stays in): the same two are named.
    expect(some.named.slice(0, 2)).toEqual([
      ['bad_share', 'p2'],
      ['withheld', 'p5'],
    ]);
    expect(new Set(some.named.map((x) => x.join(' ')))).toEqual(new Set(['bad_share p2', 'withheld p5']));
    // A member who does not peel is absent (it steers nothing: its partner peels), not a rule breaker.
    expect(some.v.violations.filter((x) => x.code === 'withheld').every((x) => x.kind === 'absence')).toBe(true);
    expect(some.ev.find((e) => e.type === 'escrow-opened')).toMatchObject({ player: 'p1', power: 'england' });
    const both = layered('withhold', 'p1', { p0: 'layers-refuse-peel', p6: 'layers-refuse-peel' });
    // Nobody left to open the onion: p1's reveal stays missing, an absence like the members'.
    expect(new Set(both.named.map((x) => x.join(' ')))).toEqual(new Set(['withheld p0', 'withheld p1', 'withheld p6']));
    expect(both.v.violations.every((x) => x.kind === 'absence')).toBe(true);
    expect(both.ev.find((e) => e.type === 'escrow-failed')).toMatchObject({ player: 'p1', power: 'england', depth: 0 });
  }, 240_000);
});
