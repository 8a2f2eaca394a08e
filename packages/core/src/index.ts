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
export type { Ctx, Machine, Outcome, GameEvent, StepResult } from './protocols/machine.js';
