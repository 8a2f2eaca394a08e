/**
 * The diplomacy machine is pure (docs/SPEC.md §7): every state handed to it is deep-frozen first, so a
 * write into it throws, and games are played through the simulator honestly and with cheats, escrow on.
 */
import { describe, expect, it } from 'vitest';
import { simulate } from '@fairtable/core/testing';
import { Auditor } from '@fairtable/core/audit.js';
import type { AnyMachine, Registry } from '@fairtable/core/registry.js';
import { diplomacyRegistry } from './index.js';
import { diplomacySim } from './sim.js';

class Mutation extends Error {}

function deepFreeze<T>(value: T, seen = new WeakSet<object>()): T {
  if (value === null || typeof value !== 'object' || seen.has(value) || ArrayBuffer.isView(value)) return value;
  seen.add(value);
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key], seen);
  return value;
}

function strict<R>(f: () => R): R {
  try {
    return f();
  } catch (e) {
    if (e instanceof TypeError && /read only|not extensible|frozen|Cannot (assign|add|delete|define)/i.test(e.message)) throw new Mutation(e.message);
    throw e;
  }
}

function frozen(m: AnyMachine): AnyMachine {
  return {
    protocol: m.protocol,
    init: (setup, gameId, me, ctx) => m.init(setup, gameId, me, ctx),
    step: (s, msg, ctx) => strict(() => m.step(deepFreeze(s), msg, ctx)),
    tick: (s, ctx) => strict(() => m.tick(deepFreeze(s), ctx)),
    penalize: (s, player, code, line, ctx, time) => strict(() => m.penalize(deepFreeze(s), player, code, line, ctx, time)),
    decision: (s) => strict(() => m.decision(deepFreeze(s))),
    decide: (s, choice, ctx) => strict(() => m.decide(deepFreeze(s), choice, ctx)),
    outcome: (s) => strict(() => m.outcome(deepFreeze(s))),
  };
}

const registry: Registry = { machines: new Map([...diplomacyRegistry.machines].map(([k, m]) => [k, frozen(m)])), games: diplomacyRegistry.games };

describe('the diplomacy machine never changes the state it is given', () => {
  for (const [cheat, params] of [
    [undefined, { assign: 'weighted' }],
    ['withhold', { assign: 'fixed', escrow: 'threshold' }],
    ['layers-bad-box', { assign: 'fixed', escrow: 'layers' }],
    ['tampered-orders', { assign: 'serial' }],
    ['disagree', { assign: 'fixed' }],
  ] as const) {
    it(`${cheat ?? 'honest'} (${JSON.stringify(params)}) on frozen states`, () => {
      const r = simulate({
        protocol: 'diplomacy',
        extension: diplomacySim,
        registry,
        players: 7,
        seed: new Uint8Array(32).fill(21),
        params: { years: 1, ...params },
        drop: 0.05,
        ...(cheat === undefined ? {} : { cheat, cheater: 'p2' }),
      });
      const a = new Auditor(r.lines[0]!, { registry });
      for (const l of r.lines.slice(1)) a.add(l);
      const v = a.verdict();
      expect(v.outcome).not.toBeNull();
      for (const x of v.violations) expect(['p2', null]).toContain(x.player);
      expect(v.valid).toBe(cheat === undefined);
    });
  }
});
