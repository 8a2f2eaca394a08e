/**
 * Receipt-timed machines (docs/SPEC.md §7.4, docs/spec/time.md §4): a seat playing through a relay judges
 * deadlines on the relay's receipt times, not on the authors' claims.
 */
import type { Ctx } from '@fairtable/core/protocols/machine.js';
import type { AnyMachine, Registry } from '@fairtable/core/registry.js';
import type { GameSetup } from '@fairtable/core/setup.js';
import type { Accepted } from '@fairtable/core/transcript.js';
import { firstPhaseStart } from '@fairtable/core/time/index.js';

/**
 * Machines whose steps see a line's receipt time instead of its author's claim (docs/SPEC.md §7.4): what the
 * referee's `timeOf` does, reached through the registry because the seat builds its own referee. The first
 * phase starts at the later of the setup's `created` and line 0's receipt time (docs/spec/time.md §4).
 */
export function receiptTimedRegistry(registry: Registry, timeOf: (line: number) => number | undefined): Registry {
  const machines = new Map<string, AnyMachine>();
  for (const [name, m] of registry.machines) {
    const timedSetup = (setup: GameSetup): GameSetup => ({ ...setup, created: firstPhaseStart(setup.created, timeOf(0)) });
    // Every member of the machine is kept: the optional ones too (a seat that follows its key reads its sealed
    // answers back with `readBack`, and takes carried messages and snapshots as the machine defines them).
    const timed: AnyMachine = {
      protocol: m.protocol,
      ...(m.messages === undefined ? {} : { messages: m.messages }),
      ...(m.carried === undefined ? {} : { carried: m.carried }),
      ...(m.readBack === undefined ? {} : { readBack: (s, body, ctx) => m.readBack!(s, body, ctx) }),
      ...(m.awaiting === undefined ? {} : { awaiting: (s) => m.awaiting!(s) }),
      ...(m.saveState === undefined ? {} : { saveState: (s) => m.saveState!(s) }),
      ...(m.loadState === undefined ? {} : { loadState: (saved, setup, game, me) => m.loadState!(saved, timedSetup(setup), game, me) }),
      decision: (s) => m.decision(s),
      decide: (s, choice, ctx) => m.decide(s, choice, ctx),
      init: (setup, game, me, ctx) => m.init(timedSetup(setup), game, me, ctx),
      step: (s, msg: Accepted, ctx) => m.step(s, { ...msg, time: timeOf(msg.line) ?? msg.time }, ctx),
      tick: (s, ctx) => m.tick(s, ctx),
      outcome: (s) => m.outcome(s),
      penalize: (s, player, code, line, ctx: Ctx, time) => m.penalize(s, player, code, line, ctx, timeOf(line) ?? time),
    };
    machines.set(name, timed);
  }
  return { machines, games: registry.games };
}
