/**
 * Diplomacy's `awaiting` (docs/SPEC.md §7): a player who sends nothing after the assignment is the one the game
 * waits for, and every first deadline claim names exactly whom `awaiting` named just before it, after its deadline.
 */
import { describe, expect, it } from 'vitest';
import { randomChoice } from '@fairtable/core/testing';
import { Referee } from '@fairtable/core/referee.js';
import type { OutgoingHook } from '@fairtable/core/seat/seat.js';
import { RandomStream } from '@fairtable/core/stream.js';
import { diplomacyRegistry as registry } from './index.js';
import { diplomacyTable, seed } from './test-table.js';

describe('Diplomacy: whom the game waits for', () => {
  it('a silent player is awaited, and the claims against it name exactly whom awaiting named', () => {
    // p1 answers nothing once play begins: no commitment, no share, no signature.
    const silent: OutgoingHook = { body: (b) => (b.type === 'commit' ? null : b) };
    const { clock, log, seats, flush } = diplomacyTable({ params: {}, players: 3, hooks: { p1: silent }, keySeed: 71, randomSeed: 80 });
    flush();
    const random = new RandomStream(seed(90), 'strategy');
    for (let step = 0; step < 30; step++) {
      for (const st of seats) {
        const d = st.decision();
        if (d !== null) st.decide(randomChoice(d.choices, random));
        flush();
      }
      clock.now += 1000;
      for (const st of seats) st.tick();
      flush();
    }
    const referee = new Referee(log[0]!, null, undefined, { registry });
    const claims = new Map<string, { missing: string[]; awaited: readonly string[] | null; deadline: number | null; time: number }>();
    for (let i = 1; i < log.length; i++) {
      const env = JSON.parse(log[i]!) as { time: number; body: { type: string; phase?: string; round?: number; missing?: string[] } };
      const a = referee.machine.awaiting!(referee.state);
      const key = `${String(env.body.phase)}/${String(env.body.round)}`;
      if (env.body.type === 'deadline' && !claims.has(key))
        claims.set(key, { missing: env.body.missing ?? [], awaited: a?.players ?? null, deadline: a?.deadline ?? null, time: env.time });
      referee.feedText(i, log[i]!);
    }
    expect(claims.size).toBeGreaterThan(0);
    for (const c of claims.values()) {
      expect(c.missing).toEqual(['p1']);
      expect(c.awaited).toEqual(['p1']);
      expect(c.time).toBeGreaterThanOrEqual(c.deadline!);
    }
  });
});
