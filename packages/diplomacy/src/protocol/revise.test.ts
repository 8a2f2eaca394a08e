/**
 * Orders revised until the deadline, and ready (docs/spec/diplomacy.md §10.14): the last commitment counts; a
 * draft at the deadline counts and nobody is named; the phase ends as soon as everyone is final; a commit
 * after a final one, a ready for another commitment, a draft in a game that takes none and a deadline claim
 * that leaves out a drafting player are each named, and only their author; with threshold escrow a player
 * who leaves after a draft has that draft opened.
 */
import { describe, expect, it } from 'vitest';
import { randomChoice } from '@fairtable/core/testing';
import { Auditor } from '@fairtable/core/audit.js';
import type { Body } from '@fairtable/core/envelope.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { Seat, type OutgoingHook } from '@fairtable/core/seat/seat.js';
import { RandomStream } from '@fairtable/core/stream.js';
import { diplomacyRegistry as registry } from './index.js';
import { diplomacyTable, seed } from './test-table.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';

/**
 * The seats and the audits sign and check with OpenSSL's Ed25519 (the same signatures and verdicts as noble's,
 * which packages/node's differential test proves): noble's checks were most of this file's time, and the
 * Diplomacy machine's own tests keep a game on noble.
 */
const ed25519 = { sign: nativeSign, verify: nativeVerify } as const;

type Answer = Record<string, JsonValue>;

function game(params: Readonly<Record<string, JsonValue>>, hooks: Readonly<Record<string, OutgoingHook>> = {}, followKey = false) {
  const table = diplomacyTable({ params: { revisable: true, ...params }, hooks, keySeed: 91, randomSeed: 100, followKey, ed25519 });
  table.flush();
  const random = new RandomStream(seed(110), 'strategy');
  const seat = (id: string): Seat => table.seats.find((s) => s.id === id)!;
  /** Random orders for `id`'s decision, without the optional members. */
  const pick = (id: string): Answer => {
    const d = seat(id).decision();
    if (d === null) throw new Error(`${id} has no decision`);
    const { ready, vote, ...orders } = randomChoice(d.choices, random) as Answer;
    void ready;
    void vote;
    return orders;
  };
  const decide = (id: string, answer: Answer): void => {
    seat(id).decide(answer);
    table.flush();
  };
  /** Every seat but `except` commits final random orders. */
  const othersFinal = (except: readonly string[]): void => {
    for (const s of table.seats) if (!except.includes(s.id) && s.decision() !== null) decide(s.id, pick(s.id));
  };
  const tick = (n: number): void => {
    for (let i = 0; i < n; i++) {
      table.clock.now += 1000;
      for (const s of table.seats) s.tick();
      table.flush();
    }
  };
  const audit = () => {
    const a = new Auditor(table.log[0]!, { registry, keepEvents: true, verify: nativeVerify });
    for (const l of table.log.slice(1)) a.add(l);
    return { events: a.referee.events, verdict: a.verdict(), named: a.verdict().violations.map((v) => [v.code, v.player]) };
  };
  /** The orders adjudicated for `power` in the first phase, sorted. */
  const adjudicated = (power: string): string[] | undefined => {
    const e = audit().events.find((x) => x.type === 'adjudicated');
    return e === undefined
      ? undefined
      : (e.results as { power: string; order: string }[])
          .filter((r) => r.power === power)
          .map((r) => r.order)
          .sort();
  };
  const lines = (type: string, from: string): Body[] =>
    table.log
      .slice(1)
      .map((l) => JSON.parse(l) as { from: string; body: Body })
      .filter((e) => e.from === from && e.body.type === type)
      .map((e) => e.body);
  return { table, seat, pick, decide, othersFinal, tick, audit, adjudicated, lines };
}

const ordersOf = (a: Answer): string[] => Object.values(a).map(String).sort();

describe('revising orders until the deadline, and ready', () => {
  it('a player revises twice: the last orders are adjudicated, and the phase ends as soon as everyone is final', () => {
    const g = game({ timeoutMs: 60_000 });
    const first = g.pick('p0');
    g.decide('p0', { ...first, ready: false });
    // A draft: the seat offers the orders again, and the step waits for it.
    expect(g.seat('p0').decision()?.choices).toMatchObject({ optional: { ready: { type: 'one-of' } } });
    const second = g.pick('p0');
    g.decide('p0', { ...second, ready: false });
    g.othersFinal(['p0']);
    expect(g.adjudicated('austria')).toBeUndefined();
    const last = g.pick('p0');
    expect(ordersOf(last)).not.toEqual(ordersOf(first));
    g.decide('p0', last);
    // The next phase's orders are asked now: S1901M is over.
    expect(g.seat('p0').decision()?.prompt).toContain('F1901M');
    // No clock has moved: every power ready ends the commit step long before its deadline.
    expect(g.table.clock.now).toBe(0);
    expect(g.adjudicated('austria')).toEqual(ordersOf(last));
    const { events, named } = g.audit();
    expect(named).toEqual([]);
    expect(events.filter((e) => e.type === 'orders-revised').map((e) => e.player)).toEqual(['p0', 'p0']);
    expect(g.lines('commit', 'p0').map((b) => b.ready)).toEqual([false, false, undefined]);
    for (const s of g.table.seats) expect(s.referee.violations).toEqual([]);
  });

  it('the same orders answered again send a ready, not a new commitment', () => {
    const g = game({ timeoutMs: 60_000 });
    const orders = g.pick('p3');
    g.decide('p3', { ...orders, ready: false });
    g.othersFinal(['p3']);
    expect(g.adjudicated('germany')).toBeUndefined();
    g.decide('p3', { ...orders, ready: true });
    expect(g.lines('commit', 'p3').length).toBe(1);
    expect(g.lines('ready', 'p3')).toEqual([{ type: 'ready', round: 1, commitment: g.lines('commit', 'p3')[0]!.commitment }]);
    expect(g.adjudicated('germany')).toEqual(ordersOf(orders));
    expect(g.audit().named).toEqual([]);
  });

  it('drafts at the deadline count as they stand; nobody is named, nobody is absent', () => {
    const g = game({ timeoutMs: 5000 });
    const a = g.pick('p0');
    const b = g.pick('p1');
    g.decide('p0', { ...a, ready: false });
    g.decide('p1', { ...b, ready: false });
    g.othersFinal(['p0', 'p1']);
    g.tick(4);
    expect(g.adjudicated('austria')).toBeUndefined();
    g.tick(10);
    expect(g.adjudicated('austria')).toEqual(ordersOf(a));
    expect(g.adjudicated('england')).toEqual(ordersOf(b));
    const { events, named } = g.audit();
    expect(named).toEqual([]);
    expect(events.filter((e) => e.type === 'draft-final').map((e) => e.player)).toEqual(['p0', 'p1']);
    expect(events.some((e) => e.type === 'no-orders')).toBe(false);
    for (const s of g.table.seats) expect(s.referee.violations).toEqual([]);
  });

  it('when every player holds a draft, the drafters claim the deadline themselves and the drafts count', () => {
    const g = game({ timeoutMs: 2000 });
    const answers = new Map(g.table.ids.map((id) => [id, g.pick(id)]));
    for (const [id, a] of answers) g.decide(id, { ...a, ready: false });
    g.tick(6);
    expect(g.adjudicated('turkey')).toEqual(ordersOf(answers.get('p6')!));
    const claim = g.table.log.find((l) => l.includes('"type":"deadline"'))!;
    expect(claim).toContain('"missing":["p0","p1","p2","p3","p4","p5","p6"]');
    expect(g.audit().named).toEqual([]);
  });

  it('a commit after a final one is duplicate_commit, naming its author; its first orders count', () => {
    let final: Body | null = null;
    const g = game({ timeoutMs: 60_000 }, { p2: { body: (b) => ((final ??= b.type === 'commit' ? b : null), b) } });
    const orders = g.pick('p2');
    g.decide('p2', orders);
    g.seat('p2').sendUnasked(final!);
    g.table.flush();
    g.othersFinal([]);
    expect(g.audit().named).toEqual([['duplicate_commit', 'p2']]);
    expect(g.adjudicated('france')).toEqual(ordersOf(orders));
  });

  it("a ready naming a commitment that is not the player's current one is named; the current draft still counts at the deadline", () => {
    const g = game({ timeoutMs: 3000 });
    const a = g.pick('p5');
    g.decide('p5', { ...a, ready: false });
    const b = g.pick('p5');
    g.decide('p5', { ...b, ready: false });
    const replaced = g.lines('commit', 'p5')[0]!.commitment as string;
    g.seat('p5').sendUnasked({ type: 'ready', round: 1, commitment: replaced });
    g.table.flush();
    g.othersFinal(['p5']);
    // The ready did not make the draft final: the step still waits.
    expect(g.adjudicated('russia')).toBeUndefined();
    g.tick(8);
    expect(g.adjudicated('russia')).toEqual(ordersOf(b));
    expect(g.audit().named).toEqual([['unexpected_message', 'p5']]);
  });

  it('a deadline claim that leaves out a drafting player is false_deadline_claim, naming the claimant only', () => {
    const quiet: OutgoingHook = { body: (b) => (b.type === 'deadline' ? null : b) };
    const liar: OutgoingHook = { body: (b) => (b.type === 'deadline' ? { ...b, missing: [] as string[] } : b) };
    const hooks = Object.fromEntries(['p0', 'p1', 'p2', 'p3', 'p4', 'p5'].map((id) => [id, quiet]));
    const g = game({ timeoutMs: 2000 }, { ...hooks, p6: liar });
    g.decide('p0', { ...g.pick('p0'), ready: false });
    g.othersFinal(['p0']);
    g.tick(6);
    expect(g.table.log.some((l) => l.includes('"type":"deadline"'))).toBe(true);
    expect(g.audit().named).toEqual([['false_deadline_claim', 'p6']]);
    expect(g.adjudicated('austria')).toBeUndefined();
  });

  it('with threshold escrow, a player who leaves after revising a draft has that draft opened and adjudicated; nobody is named', () => {
    let gone = false;
    let drafts = 0;
    const leaving: OutgoingHook = {
      body: (b) => {
        if (gone) return null;
        if (b.type === 'commit' && ++drafts === 2) gone = true;
        return b;
      },
    };
    const g = game({ timeoutMs: 2000, escrow: 'threshold' }, { p1: leaving });
    g.decide('p1', { ...g.pick('p1'), ready: false });
    const kept = g.pick('p1');
    g.decide('p1', { ...kept, ready: false });
    g.othersFinal(['p1']);
    g.tick(30);
    const { events, named } = g.audit();
    expect(events.find((e) => e.type === 'escrow-opened')).toMatchObject({ player: 'p1', power: 'england' });
    expect(g.adjudicated('england')).toEqual(ordersOf(kept));
    expect(named).toEqual([]);
    expect(events.some((e) => e.type === 'forfeit')).toBe(false);
  });

  it('a revision or ready that lands after the commit set is fixed is a race with the deadline: ignored, nobody named', () => {
    // p3 holds the round in its claim step (it claims nothing), so the late messages meet the same round.
    const g = game({ timeoutMs: 2000 }, { p3: { body: (b) => (b.type === 'claim' || b.type === 'deadline' ? null : b) } });
    const a = g.pick('p0');
    g.decide('p0', { ...a, ready: false });
    g.othersFinal(['p0']);
    g.tick(3);
    expect(g.audit().events.find((e) => e.type === 'draft-final')).toMatchObject({ player: 'p0' });
    const first = g.lines('commit', 'p0')[0]!;
    g.seat('p0').sendUnasked({ type: 'ready', round: 1, commitment: first.commitment as string });
    g.seat('p0').sendUnasked(first);
    g.table.flush();
    expect(g.lines('ready', 'p0').length).toBe(1);
    expect(g.audit().named).toEqual([]);
    for (const s of g.table.seats) expect(s.referee.violations).toEqual([]);
  });

  it('a seat rebuilt from its key and the log reads back each draft and the ready, and plays on', () => {
    const g = game({ timeoutMs: 60_000 }, {}, true);
    g.decide('p0', { ...g.pick('p0'), ready: false });
    const kept = g.pick('p0');
    g.decide('p0', { ...kept, ready: false });
    // Rebuilt while its orders are a draft: it is offered them again.
    const rebuilt = Seat.follow(g.table.options(0), g.table.log);
    expect(rebuilt.journal.map((j) => (j.choice as Answer).ready)).toEqual([false, false]);
    expect(rebuilt.decision()).not.toBeNull();
    g.table.seats[0] = rebuilt;
    g.decide('p0', kept);
    expect(g.lines('ready', 'p0').length).toBe(1);
    // Rebuilt again after the ready: nothing more to answer in this phase.
    expect(Seat.follow(g.table.options(0), g.table.log).journal.map((j) => (j.choice as Answer).ready)).toEqual([false, false, true]);
    g.othersFinal(['p0']);
    expect(g.adjudicated('austria')).toEqual(ordersOf(kept));
    expect(g.audit().named).toEqual([]);
  });

  it('a draft in a game that takes none is named; revisable is refused with sealed commits and must be a boolean', () => {
    const drafting: OutgoingHook = { body: (b) => (b.type === 'commit' ? { ...b, ready: false } : b) };
    const g = game({ revisable: false, timeoutMs: 60_000 }, { p0: drafting });
    g.decide('p0', g.pick('p0'));
    g.othersFinal(['p0']);
    expect(g.audit().named).toEqual([['unexpected_message', 'p0']]);
    expect(() => game({ sealed: { types: ['commit'] } })).toThrow(/sealed/);
    expect(() => game({ revisable: 'yes' })).toThrow(/revisable/);
    // Without revisable the decision has no ready member, as before.
    expect(game({ revisable: false }).seat('p0').decision()?.choices).not.toMatchObject({ optional: { ready: {} } });
  });
});
