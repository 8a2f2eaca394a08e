/**
 * `@fairtable/core/testing`: the simulator, its in-memory network and the cheats
 * (docs/SPEC.md §10), for tests, benchmarks and `fairtable simulate`. Kept out of
 * the package root so that a real player's code never pulls in a cheating seat.
 */
export {
  simulate,
  simKeys,
  tamper,
  appendEquivocation,
  SIM_PROTOCOLS,
  type SimOptions,
  type SimResult,
  type SimProtocol,
  type SimExtension,
} from './sim/simulate.js';
export { deepFreeze, frozenMachine, frozenRegistry, Mutation, strict } from './sim/frozen.js';
export { SimPlayer, type SimPlayerOptions } from './sim/player.js';
export { CHEATS, GENERIC_CHEATS, cheatApplies, cheatHook, earlyMove, type Cheat, type CheatDeps } from './sim/cheats.js';
export { belowBig, randomChoice, randomStrategy, simStrategy, type Strategy } from './sim/strategies.js';
export { monopolyStrategy } from './sim/monopoly-strategy.js';
export { MemoryNetwork, type Link, type NetNode, type NetworkOptions } from './sim/network.js';
export { Table, type Refusal, type TableMessage } from './sim/table.js';
export { verifiedOnce } from './sim/memo.js';
