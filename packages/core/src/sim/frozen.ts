/**
 * Machines are pure (docs/SPEC.md §7): a step never changes the state it was given. These wrap a machine so
 * that every state handed to it is deep-frozen first: a write into it throws, and `strict` turns that throw
 * into a `Mutation`, which the referee does not absorb as a bad message. For the purity tests of every
 * package's machines.
 */
import type { AnyMachine, Registry } from '../registry.js';

export class Mutation extends Error {}

/** Freezes `value` and everything it holds (typed arrays excepted: they cannot be frozen). */
export function deepFreeze<T>(value: T, seen = new WeakSet<object>()): T {
  if (value === null || typeof value !== 'object' || seen.has(value) || ArrayBuffer.isView(value)) return value;
  seen.add(value);
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key], seen);
  return value;
}

/** Runs `f`; a write into a frozen state (a TypeError in strict mode) becomes a `Mutation`. */
export function strict<R>(f: () => R): R {
  try {
    return f();
  } catch (e) {
    if (e instanceof TypeError && /read only|not extensible|frozen|Cannot (assign|add|delete|define)/i.test(e.message)) throw new Mutation(e.message);
    throw e;
  }
}

/** `m`, every function of which that takes a state is given it deep-frozen. */
export function frozenMachine(m: AnyMachine): AnyMachine {
  return {
    ...m,
    init: (setup, gameId, me, ctx) => m.init(setup, gameId, me, ctx),
    step: (s, msg, ctx) => strict(() => m.step(deepFreeze(s), msg, ctx)),
    tick: (s, ctx) => strict(() => m.tick(deepFreeze(s), ctx)),
    penalize: (s, player, code, line, ctx, time) => strict(() => m.penalize(deepFreeze(s), player, code, line, ctx, time)),
    decision: (s) => strict(() => m.decision(deepFreeze(s))),
    decide: (s, choice, ctx) => strict(() => m.decide(deepFreeze(s), choice, ctx)),
    outcome: (s) => strict(() => m.outcome(deepFreeze(s))),
    ...(m.awaiting === undefined ? {} : { awaiting: (s: unknown) => strict(() => m.awaiting!(deepFreeze(s))) }),
  };
}

/** `r` with every machine frozen (`frozenMachine`). */
export function frozenRegistry(r: Registry): Registry {
  return { machines: new Map([...r.machines].map(([k, m]) => [k, frozenMachine(m)])), games: r.games };
}
