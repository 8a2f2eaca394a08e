/**
 * @fairtable/core: the pure, isomorphic heart of fairtable. Import modules by
 * subpath (`@fairtable/core/stream.js`) on hot paths; this index is for
 * convenience. It exports no internals: the simulator and its cheats are
 * `@fairtable/core/testing`, the platform hook is `@fairtable/core/platform.js`.
 */
export * from './errors.js';
export * from './bytes.js';
export * from './jcs.js';
export * from './hash.js';
export * from './identity.js';
export * from './envelope.js';
export * from './setup.js';
export * from './commitment.js';
export * from './chance.js';
export * from './stream.js';
export * from './transcript.js';
export * from './referee.js';
export * from './audit.js';
export * from './armor.js';
export * from './door.js';
export * from './registry.js';
export * from './seat/seat.js';
export { checkChoice, noDecision, refuseDecision, Stepper, deadlineTick, judgeClaim, isDeadlineBody, intParam } from './protocols/machine.js';
export type { Choices, Ctx, Decision, DeadlineBody, DeadlineState, Machine, Outcome, GameEvent, StepResult } from './protocols/machine.js';
export type { ChanceGame, DecisionGame, GameQuestion, TurnResult, Waiting } from './games/game.js';
export { BUILTIN_GAMES, gameBook, gameByName, type GameBook } from './games/index.js';
