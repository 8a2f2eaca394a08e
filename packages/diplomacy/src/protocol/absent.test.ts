/**
 * Deadlines by phase type and powers handed on after missed phases (docs/spec/diplomacy.md §10.13): a
 * movement phase's orders wait the movement deadline, not the step deadline; a player who sends no orders is
 * an absence, its units take the defaults, and after `absentAfter` phases in a row its power goes to civil
 * disorder. Nobody is named a rule-breaker for it.
 */
import { describe, expect, it } from 'vitest';
import { randomChoice } from '@fairtable/core/testing';
import { Auditor } from '@fairtable/core/audit.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { RandomStream } from '@fairtable/core/stream.js';
import { diplomacyRegistry as registry } from './index.js';
import { diplomacyTable, seed } from './test-table.js';

/** Seven seats; everyone but `silent` answers each decision at random; the clock runs `steps` seconds. */
function play(params: Readonly<Record<string, JsonValue>>, silent: string, steps: number) {
  const table = diplomacyTable({ params, keySeed: 21, randomSeed: 30 });
  const { clock, seats, flush } = table;
  flush();
  const random = new RandomStream(seed(40), 'strategy');
  const answer = (): void => {
    for (const st of seats) {
      if (st.id === silent) continue;
      const d = st.decision();
      if (d !== null) {
        st.decide(randomChoice(d.choices, random));
        flush();
      }
    }
  };
  const audit = () => {
    const a = new Auditor(table.log[0]!, { registry, keepEvents: true });
    for (const l of table.log.slice(1)) a.add(l);
    return a;
  };
  const run = (n: number): void => {
    for (let i = 0; i < n; i++) {
      answer();
      clock.now += 1000;
      for (const st of seats) st.tick();
      flush();
    }
  };
  run(steps);
  return { table, run, audit };
}

describe('deadlines by phase type, and a power handed on after missed phases', () => {
  it("a movement phase's orders wait the movement deadline, not the step deadline", () => {
    const g = play({ timeoutMs: 1000, deadlines: { movement: 20_000 } }, 'p6', 15);
    // Fifteen seconds in, past the step deadline many times over: nobody has claimed p6 late.
    expect(g.table.log.filter((l) => l.includes('"type":"deadline"'))).toEqual([]);
    g.run(15);
    const claims = g.table.log.filter((l) => l.includes('"type":"deadline"'));
    expect(claims.length).toBeGreaterThan(0);
    expect(claims[0]).toContain('"missing":["p6"]');
    const a = g.audit();
    expect(a.verdict().violations.map((v) => [v.kind, v.player])).toEqual([['absence', 'p6']]);
    expect(a.referee.events.find((e) => e.type === 'no-orders')).toMatchObject({ player: 'p6', power: 'turkey', missed: 1 });
  });

  it('after two phases without orders, the power goes into civil disorder; the player is absent, not a rule-breaker', () => {
    const g = play({ timeoutMs: 1000, absentAfter: 2 }, 'p6', 40);
    const a = g.audit();
    const events = a.referee.events;
    expect(events.filter((e) => e.type === 'no-orders').map((e) => e.missed)).toEqual([1, 2]);
    expect(events.find((e) => e.type === 'absent-too-long')).toMatchObject({ player: 'p6', power: 'turkey', missed: 2 });
    expect(events.find((e) => e.type === 'civil-disorder')).toMatchObject({ power: 'turkey' });
    // Two absences, one a phase; no rule broken by anybody.
    expect(a.verdict().violations.map((v) => [v.kind, v.player])).toEqual([
      ['absence', 'p6'],
      ['absence', 'p6'],
    ]);
    // Out of the game now: the game goes on without it to its end (the last year here).
    expect(events.filter((e) => e.type === 'agreed').length).toBe(2);
    expect(events.at(-1)).toMatchObject({ type: 'game-over' });
    expect(a.referee.outcome()?.winners).not.toContain('p6');
  });

  it('without absentAfter a silent player keeps its power, its units holding each phase', () => {
    const g = play({ timeoutMs: 1000 }, 'p6', 40);
    const a = g.audit();
    const events = a.referee.events;
    expect(events.filter((e) => e.type === 'no-orders').map((e) => e.missed)).toEqual([1, 2]);
    expect(events.some((e) => e.type === 'absent-too-long' || e.type === 'civil-disorder')).toBe(false);
    expect(a.referee.state).toMatchObject({ powers: { p6: 'turkey' } });
  });

  it('refuses a deadline for a phase type that does not exist', () => {
    expect(() => diplomacyTable({ params: { deadlines: { autumn: 1000 } }, keySeed: 1, randomSeed: 2 }).seats[0]!.decision()).toThrow(/deadlines\.autumn/);
  });
});
