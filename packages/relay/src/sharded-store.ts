/**
 * The relay's games partitioned across several Postgres primaries by game id (docs/spec/relay.md §4, "Beyond
 * one Postgres"): a `Store` over N `PostgresStore`s, one a database, given to every process of the service in
 * the same order (`fairtable relay --database URL0 --database URL1 …`).
 *
 * The routing rule, which every process computes alike from the game id and the number of shards:
 *
 *   score(game, i) = SHA-256("fairtable/shard/v1" ‖ 0x00 ‖ UTF-8(game) ‖ u32be(i))    for i in 0 … N−1
 *   shard(game)    = the i whose score is greatest, the scores compared as byte strings
 *
 * (rendezvous hashing over the shards' indexes; `shardIndex`). Adding a shard at the end (index N) moves only
 * the games whose score for N beats their old shard's, about 1/(N+1) of them, all to the new shard; their
 * rows must be copied there first, which is not built, so a service's list is fixed once it holds games.
 *
 * What lives where: a game's row, lines, receipts, held envelopes, talk and lease are on its shard, and
 * every per-game call goes to that shard alone. The relay's key and the lobbies (which name no game) are on
 * shard 0. Lists (`listGames`, `gamesHolding`) ask every shard and merge. An `append` holding lines of games
 * on several shards is split: each shard's part is one transaction of its own, all sent at once, and the
 * append resolves once every part has committed, or rejects once every part has settled and one failed.
 * So a batch is all or none for each game (as the relay needs: a failed append's games are rebuilt from the
 * store), no longer across games, and a line is acknowledged only after its own shard, and the other parts
 * of its batch, have committed. Each shard records its place (shard-record.ts); a process given the shards
 * in another order, or another number of them, is refused `shard_mismatch` at its first call.
 */
import { concatBytes, randomBytes, toHex, u32be, utf8 } from '@fairtable/core/bytes.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { taggedHash } from '@fairtable/core/hash.js';
import { PostgresStore, type HeldLease, type PostgresLeaseOptions } from './postgres-store.js';
import { checkShardPlace, holdsGames } from './shard-record.js';
import type { GameSummary, HeldLine, LineToStore, Store, StoredLine, StoredLobby, StoredTalk } from './store.js';

/** The routing rule's score of shard `index` for `game` (32 bytes). */
export function shardScore(game: string, index: number): Uint8Array {
  return taggedHash('shard', concatBytes(utf8(game), u32be(index)));
}

/** The shard (0 … count−1) that holds `game` in a service of `count` shards. */
export function shardIndex(game: string, count: number): number {
  if (!Number.isInteger(count) || count < 1) throw new FairtableError('out_of_range', `shards: ${count} is not a count of at least 1`, { field: 'shards' });
  let best = 0;
  let bestScore = shardScore(game, 0);
  for (let i = 1; i < count; i++) {
    const score = shardScore(game, i);
    if (Buffer.compare(score, bestScore) > 0) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}

export interface ShardedStoreOptions {
  /** The shards' `postgres://` URLs, in the service's order (at least two); shard 0 holds the relay's key and the lobbies. */
  readonly urls: readonly string[];
  /** The schema on every shard (default `public`). */
  readonly schema?: string;
  /** Connections in each shard's pool (default 10). */
  readonly maxConnections?: number;
  /** Leases, as on one database: each game's lease row lives on its shard. */
  readonly lease?: PostgresLeaseOptions;
  readonly onError?: (e: Error) => void;
}

/** The first rejection of `settled`, if any (thrown once every promise has settled). */
function throwFirst(settled: readonly PromiseSettledResult<unknown>[]): void {
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
}

export class ShardedStore implements Store {
  readonly shards: readonly PostgresStore[];
  readonly urls: readonly string[];
  readonly lease: PostgresLeaseOptions | undefined;
  private ready: Promise<void> | null = null;

  constructor(options: ShardedStoreOptions) {
    if (options.urls.length < 2)
      throw new FairtableError('bad_input', 'a sharded store has two databases or more (one is a PostgresStore)', { field: 'database' });
    this.urls = [...options.urls];
    this.lease = options.lease;
    this.shards = this.urls.map(
      (url) =>
        new PostgresStore({
          url,
          sharded: true,
          ...(options.schema === undefined ? {} : { schema: options.schema }),
          ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
          ...(options.lease === undefined ? {} : { lease: options.lease }),
          ...(options.onError === undefined ? {} : { onError: options.onError }),
        }),
    );
  }

  /** The index of the shard holding `game`. */
  shardOf(game: string): number {
    return shardIndex(game, this.shards.length);
  }

  /**
   * Migrates every shard and checks (or, on a new database, records) its place: shard 0 first, whose
   * service id every other shard must carry. Every method waits for it; a failed start is tried again.
   */
  start(): Promise<void> {
    if (this.ready !== null) return this.ready;
    const ready = (async () => {
      const count = this.shards.length;
      // Nothing is recorded while any database of the list would be refused for holding a lone relay's games.
      const found = await Promise.all(this.shards.map((s) => s.shardPlace()));
      for (const [index, f] of found.entries()) if (f.place === null && f.games) throw holdsGames({ index, count });
      const first = await this.shards[0]!.claimShard({ service: toHex(randomBytes(16)), index: 0, count });
      checkShardPlace(first, { service: first.service, index: 0, count }, this.urls[0]!);
      for (let index = 1; index < count; index++) {
        const wanted = { service: first.service, index, count };
        checkShardPlace(await this.shards[index]!.claimShard(wanted), wanted, this.urls[index]!);
      }
    })();
    ready.catch(() => {
      if (this.ready === ready) this.ready = null;
    });
    this.ready = ready;
    return ready;
  }

  /** `work` on the shard holding `game`. */
  private async on<T>(game: string, work: (shard: PostgresStore) => Promise<T>): Promise<T> {
    await this.start();
    return work(this.shards[this.shardOf(game)]!);
  }

  /** `work` on shard 0, which holds what belongs to no game. */
  private async onFirst<T>(work: (shard: PostgresStore) => Promise<T>): Promise<T> {
    await this.start();
    return work(this.shards[0]!);
  }

  /** `work` on every shard at once; rejects, once all have settled, if one failed. */
  private async onEach<T>(work: (shard: PostgresStore) => Promise<T>): Promise<T[]> {
    await this.start();
    const settled = await Promise.allSettled(this.shards.map(work));
    throwFirst(settled);
    return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  }

  createGame(game: string, protocol: string, setup: LineToStore): Promise<boolean> {
    return this.on(game, (s) => s.createGame(game, protocol, setup));
  }

  async append(lines: readonly LineToStore[]): Promise<void> {
    if (lines.length === 0) return;
    await this.start();
    // Each shard's lines, in the batch's order (so each game's stay in log order).
    const parts = new Map<number, LineToStore[]>();
    for (const l of lines) {
      const i = this.shardOf(l.game);
      const part = parts.get(i);
      if (part === undefined) parts.set(i, [l]);
      else part.push(l);
    }
    const settled = await Promise.allSettled([...parts].map(([i, part]) => this.shards[i]!.append(part)));
    // A shard that could not write is reported before a lease lost on another: the relay stops writes for the first only.
    const failed = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (failed.length > 0) throw failed.find((e) => (e as { code?: unknown } | null)?.code !== 'lease_lost') ?? failed[0];
  }

  readLines(game: string, from: number, limit: number): Promise<StoredLine[]> {
    return this.on(game, (s) => s.readLines(game, from, limit));
  }

  readPage(game: string, from: number, limit: number, maxBytes: number): Promise<StoredLine[]> {
    return this.on(game, (s) => s.readPage(game, from, limit, maxBytes));
  }

  lineCount(game: string): Promise<number> {
    return this.on(game, (s) => s.lineCount(game));
  }

  async listGames(): Promise<GameSummary[]> {
    const all = (await this.onEach((s) => s.listGames())).flat();
    return all.sort((a, b) => a.created - b.created || (a.game < b.game ? -1 : a.game > b.game ? 1 : 0));
  }

  hold(game: string, held: HeldLine): Promise<void> {
    return this.on(game, (s) => s.hold(game, held));
  }

  readHeld(game: string): Promise<HeldLine[]> {
    return this.on(game, (s) => s.readHeld(game));
  }

  unhold(game: string, hashes: readonly string[]): Promise<void> {
    return this.on(game, (s) => s.unhold(game, hashes));
  }

  async gamesHolding(): Promise<string[]> {
    return (await this.onEach((s) => s.gamesHolding())).flat().sort();
  }

  saveLobby(lobby: StoredLobby): Promise<void> {
    return this.onFirst((s) => s.saveLobby(lobby));
  }

  /** Lobbies read and changed on shard 0 at each request, so every process sees one lobby (relay.md §4, "Clients on any process"). */
  readLobby(id: string): Promise<StoredLobby | null> {
    return this.onFirst((s) => s.readLobby(id));
  }

  replaceLobby(lobby: StoredLobby, was: string): Promise<boolean> {
    return this.onFirst((s) => s.replaceLobby(lobby, was));
  }

  deleteLobby(id: string): Promise<void> {
    return this.onFirst((s) => s.deleteLobby(id));
  }

  listLobbies(): Promise<StoredLobby[]> {
    return this.onFirst((s) => s.listLobbies());
  }

  appendTalk(game: string, at: number, text: string): Promise<number> {
    return this.on(game, (s) => s.appendTalk(game, at, text));
  }

  readTalk(game: string, from: number, limit: number): Promise<StoredTalk[]> {
    return this.on(game, (s) => s.readTalk(game, from, limit));
  }

  talkUsage(game: string): Promise<{ count: number; bytes: number }> {
    return this.on(game, (s) => s.talkUsage(game));
  }

  /** The service's one key, on shard 0 (no other shard is given one). */
  relayKey(): Promise<Uint8Array> {
    return this.onFirst((s) => s.relayKey());
  }

  /** Leases (leases.ts): each game's on its shard. */
  acquireLease(game: string): Promise<boolean> {
    return this.on(game, (s) => s.acquireLease(game));
  }

  /**
   * Renews on every shard at once. The lost leases of the shards that answered are returned even when another
   * shard could not be reached (its leases run out, and its games' appends are fenced, as on one database);
   * with none lost, a shard's failure is thrown, for the lease keeper to count.
   */
  async renewLeases(): Promise<string[]> {
    await this.start();
    const settled = await Promise.allSettled(this.shards.map((s) => s.renewLeases()));
    const lost = settled.flatMap((s) => (s.status === 'fulfilled' ? s.value : []));
    if (lost.length === 0) throwFirst(settled);
    return lost;
  }

  releaseLease(game: string): Promise<void> {
    return this.on(game, (s) => s.releaseLease(game));
  }

  heldLeases(): HeldLease[] {
    return this.shards.flatMap((s) => s.heldLeases());
  }

  /** Resolves once every shard answers: one away refuses the relay's writes (the storage watch is one a process). */
  async ping(): Promise<void> {
    await this.onEach((s) => s.ping());
  }

  async close(): Promise<void> {
    throwFirst(await Promise.allSettled(this.shards.map((s) => s.close())));
  }
}
