/**
 * @fairtable/relay: the untrusted orderer on the network (docs/spec/relay.md).
 */
export { relayHeapSettings } from './heap.js';
export { startRelay, DEFAULT_LIMITS, type Relay, type RelayLimits, type RelayOptions } from './relay.js';
export { SqliteStore } from './sqlite-store.js';
export { PostgresStore, DEFAULT_LEASE_MS, type PostgresStoreOptions, type PostgresLeaseOptions, type HeldLease } from './postgres-store.js';
export { ShardedStore, shardIndex, shardScore, type ShardedStoreOptions } from './sharded-store.js';
export { ThreadedSqliteStore, type ThreadedSqliteOptions } from './threaded-sqlite-store.js';
export type { Store, StoredLine, LineToStore, LineToSign, BatchSignature, GameSummary, HeldLine, StoredLobby } from './store.js';
export { Metrics } from './metrics.js';
export {
  witnessRoutes,
  MemoryWitnessStore,
  SqliteWitnessStore,
  DEFAULT_WITNESS_LIMITS,
  type WitnessStore,
  type WitnessedLine,
  type WitnessedEnvelope,
  type WitnessApp,
  type WitnessLimits,
  type WitnessUsage,
} from './witness.js';
export { DEFAULT_LOBBY_LIMITS, type LobbyLimits } from './lobby.js';
export { RateLimiter, type RateLimit } from './rate-limit.js';
export { DEFAULT_QUOTAS, type QuotaLimits } from './quotas.js';
export { DEFAULT_READ_LIMITS, type ReadLimits } from './reads.js';
export { DEFAULT_STORAGE_LIMITS, type StorageLimits, type DiskReading } from './storage-watch.js';
export { relaySettings, SETTINGS as RELAY_SETTINGS, type RelaySettings } from './settings.js';
