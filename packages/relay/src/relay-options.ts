/**
 * The relay's options (docs/spec/relay.md §5): the limits against hostile clients and their defaults,
 * what `startRelay` is given and what it returns, and what the parts of a running relay share.
 */
import type { Logger } from 'pino';
import type { Registry } from '@fairtable/core/registry.js';
import type { LobbyLimits } from './lobby.js';
import type { Metrics } from './metrics.js';
import type { QuotaLimits } from './quotas.js';
import type { TalkLimits } from './talk.js';
import type { ReadLimits } from './reads.js';
import type { LeaseKeeper } from './leases.js';
import type { DiskReading, StorageLimits, StorageWatch } from './storage-watch.js';
import type { Store } from './store.js';
import type { WitnessLimits, WitnessStore } from './witness.js';

export interface RelayLimits {
  /** Longest frame (and line) taken from a client, bytes; a longer one is answered `line_too_long` and the connection closed. */
  readonly maxFrameBytes: number;
  /** Time a new connection has to send a valid hello. */
  readonly helloTimeoutMs: number;
  /** Open WebSocket connections at once; when full, the oldest without a hello gives way, or the newcomer is refused. */
  readonly maxConnections: number;
  /** Sustained messages a second from one connection, and the burst above it. */
  readonly messagesPerSecond: number;
  readonly messageBurst: number;
  /** Output waiting for a connection above which it is dropped (`slow_reader`). */
  readonly maxOutputBytes: number;
  /** A connection that sends nothing (not even a pong) for this long is closed. */
  readonly idleMs: number;
  /** Lines one `sync` answer carries at most. */
  readonly syncBatch: number;
  /** A game with no connection and nothing waiting to be stored leaves memory after this long (it is rebuilt from the store when asked for). */
  readonly unloadAfterMs: number;
  /** Client addresses whose HTTP rate buckets (witness and lobby routes, `messagesPerSecond`/`messageBurst` each) are kept at once. */
  readonly httpClients: number;
  /** Games one client address may create (`POST /games`) a minute, sustained, and the burst above it; more are answered `429 rate_limited`. */
  readonly gamesPerMinute: number;
  readonly gameBurst: number;
  /** Open WebSocket connections from one client address; one more is refused `429 too_many_connections_from_address`. */
  readonly connectionsPerAddress: number;
}

export const DEFAULT_LIMITS: RelayLimits = {
  maxFrameBytes: 1 << 20,
  helloTimeoutMs: 10_000,
  maxConnections: 10_000,
  messagesPerSecond: 200,
  messageBurst: 400,
  maxOutputBytes: 8 << 20,
  idleMs: 120_000,
  syncBatch: 256,
  unloadAfterMs: 60_000,
  httpClients: 100_000,
  gamesPerMinute: 30,
  gameBurst: 30,
  connectionsPerAddress: 300,
};

export interface RelayOptions {
  readonly host?: string;
  /** 0: any free port. */
  readonly port?: number;
  /** Where the SQLite store and the relay's key live (default ./data); ignored when `store` is given. */
  readonly dataDir?: string;
  readonly store?: Store;
  /**
   * The store on Postgres instead of SQLite (relay.md §4, "On Postgres"; `DATABASE_URL`, `fairtable relay --database`):
   * its URL, the schema (default `public`), and this process's name for game leases (`--node`; without it, no leases:
   * the relay is the only process writing its games). Ignored when `store` is given.
   */
  readonly database?: {
    readonly url: string;
    readonly schema?: string;
    readonly node?: string;
    readonly leaseMs?: number;
    /**
     * More primaries after `url` (relay.md §4, "Beyond one Postgres"): the games are partitioned across `[url, ...shards]`
     * by game id, every process of the service given the same list in the same order; `url` holds the key and the lobbies.
     */
    readonly shards?: readonly string[];
  };
  /** Where the relay keeps what it witnesses for games other relays order (relay.md §8); in memory when `store` is given. */
  readonly witnessStore?: WitnessStore;
  /** Bounds on what the relay keeps as a witness (relay.md §8, "Limits"). */
  readonly witnessLimits?: Partial<WitnessLimits>;
  /** Bounds on lobbies (web.md §2). */
  readonly lobbyLimits?: Partial<LobbyLimits>;
  readonly limits?: Partial<RelayLimits>;
  /** What one game may hold, and how many games one key or address may create (relay.md §5, "Quotas"). */
  readonly quotas?: Partial<QuotaLimits>;
  /** Bounds on reads built from stored lines: transcripts, receipts, `sync` (relay.md §5, "Reads"). */
  readonly reads?: Partial<ReadLimits>;
  /**
   * When writes stop for want of space (relay.md §5, "Storage"); `readDisk` replaces the look at the data
   * directory's file system (the default; with `store` given and no `readDisk`, only failed writes stop writes).
   */
  readonly storage?: Partial<StorageLimits> & { readonly readDisk?: () => Promise<DiskReading> };
  readonly logger?: Logger;
  /** The relay's clock for receipts (ms). */
  readonly clock?: () => number;
  /**
   * The witness relays this relay's operator names (their URLs; `WITNESSES`, `fairtable relay --witness`),
   * published at `GET /relay` with the relay's key for clients to put in new setups (docs/spec/time.md §5).
   */
  readonly witnesses?: readonly string[];
  /**
   * Told of each append the store failed. The relay goes on: writes are refused `storage_full` until the
   * storage watch finds room, and each game whose lines were lost leaves memory (its connections are closed
   * with `storage_full`), to be rebuilt from what was stored (relay.md §4).
   */
  readonly onStoreFailure?: (error: unknown) => void;
  /** The built web app served at `/` (default apps/web/dist of this checkout; the CLI's page when absent). */
  readonly webDir?: string;
  /** Threads that verify submitted lines (relay.md, "The pipeline"); 0 verifies on the event loop. Default: the cores less one, 1 to 4. */
  readonly verifyThreads?: number;
  /** SQLite's `synchronous` for the appends (relay.md, "The pipeline"): FULL (default) survives a power loss, NORMAL only a killed process. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** Hosts a setup's witnesses may be reached on over plain `http:` besides loopback (relay.md §8, "Which URLs"). */
  readonly httpWitnessHosts?: readonly string[];
  /**
   * Addresses of reverse proxies in front of the relay (relay.md §5, "Behind a reverse proxy"): a request from
   * one of them is limited under the client its `X-Forwarded-For` names; from any other peer the header is ignored.
   */
  readonly trustProxy?: readonly string[];
  /** Table talk's rates and caps (docs/spec/press.md §6). */
  readonly talk?: Partial<TalkLimits>;
  /**
   * The machines the talk route replays a game's log with to see its hand-overs (press.md §10: a player whose
   * power went to a newcomer writes no more press), for games whose log introduced a newcomer. Without it the
   * relay sees no hand-over, and readers alone refuse such press.
   */
  readonly talkRegistry?: Registry;
}

export interface Relay {
  readonly port: number;
  readonly url: string;
  /** The relay's public key, hex. */
  readonly publicKey: string;
  readonly metrics: Metrics;
  /** Stops accepting, stores and acknowledges what was admitted, closes every connection and the store. */
  close(): Promise<void>;
}

/** What the parts of a running relay share: made once by `startRelay` from its options. */
export interface RelayCore {
  readonly options: RelayOptions;
  readonly limits: RelayLimits;
  readonly quotas: QuotaLimits;
  readonly readLimits: ReadLimits;
  readonly log: Logger;
  /** The relay's clock for receipts (ms). */
  readonly clock: () => number;
  readonly store: Store;
  readonly secretKey: Uint8Array;
  /** The relay's public key, hex. */
  readonly publicKey: string;
  readonly metrics: Metrics;
  readonly storage: StorageWatch;
  /** The game leases of this process, when its store keeps them (relay.md §4, "Leases"); null otherwise. */
  readonly leases: LeaseKeeper | null;
}

/** A coded HTTP error body. */
export const failure = (code: string, message: string) => ({ error: { code, message } });
