/**
 * @fairtable/relay: the untrusted orderer on the network (docs/spec/relay.md).
 */
export { startRelay, DEFAULT_LIMITS, type Relay, type RelayLimits, type RelayOptions } from './relay.js';
export { SqliteStore } from './sqlite-store.js';
export { ThreadedSqliteStore, type ThreadedSqliteOptions } from './threaded-sqlite-store.js';
export type { Store, StoredLine, LineToStore, GameSummary, HeldLine } from './store.js';
export { Metrics } from './metrics.js';
export { witnessRoutes, MemoryWitnessStore, SqliteWitnessStore, type WitnessStore, type WitnessedLine } from './witness.js';
