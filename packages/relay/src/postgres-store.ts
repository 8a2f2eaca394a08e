/**
 * The relay's store on Postgres through `pg` (docs/spec/relay.md §4, "On Postgres"): the same `Store` as
 * SQLite's, chosen with `DATABASE_URL` (`fairtable relay --database URL`). Every connection runs with
 * `synchronous_commit = on`, so a transaction that has returned is in the server's flushed WAL: a line is
 * acknowledged only once the `append` that carried it has committed. Each `append` is one statement (one
 * transaction, all or none); the relay's group commit (batch-writer.ts) gives it every line admitted while
 * the previous one committed. The receipts are signed in the relay's process before the INSERT (the
 * pipeline's `signReceiptBatch`, one signature a batch): this store has no `appendSigning`.
 *
 * The relay's key is in the database (`relay_key`), so every process of one service signs as one relay.
 *
 * Leases (relay.md §4, "Leases"), when the store is given a `lease`: a game is appended to only by the
 * process holding its lease, and each append checks, in its transaction and under a lock on the lease's
 * row, that the lease's fencing token is still the one this process was given and that it has not run out
 * (by the database's clock). A process whose lease ran out or was taken over (the token grew) is refused
 * `lease_lost` and writes nothing: the log never forks.
 */
import pg from 'pg';
import { randomBytes, toHex, fromHex, isHex } from '@fairtable/core/bytes.js';
import { FairtableError } from '@fairtable/core/errors.js';
import type { HoldingReceipt } from '@fairtable/core/order/holding.js';
import type { Receipt } from '@fairtable/core/order/receipt.js';
import { fanoutChannels } from './pg-fanout.js';
import { checkSchemaName, migrate } from './postgres-schema.js';
import { claimShardPlace, readShardPlace, refuseShard, type ShardPlace } from './shard-record.js';
import type { GameSummary, HeldLine, LineToStore, Store, StoredLine, StoredLobby, StoredTalk } from './store.js';

export interface PostgresLeaseOptions {
  /** This process's name (`--node`), unique in the service. */
  readonly holder: string;
  /** How long a lease lasts without being renewed, ms (by the database's clock). */
  readonly ttlMs: number;
}

export interface PostgresStoreOptions {
  /** A `postgres://` URL (DATABASE_URL). */
  readonly url: string;
  /** The schema the tables live in (default `public`); made if missing. */
  readonly schema?: string;
  /** Connections in the pool (default 10). */
  readonly maxConnections?: number;
  /** Leases: without them, this store assumes it is the only process writing the games it appends to. */
  readonly lease?: PostgresLeaseOptions;
  /** Told of errors of idle connections (a restarted server); the pool replaces them. */
  readonly onError?: (e: Error) => void;
  /** One shard of a `ShardedStore` (sharded-store.ts), which checks the database's place; alone, a shard's database is refused. */
  readonly sharded?: boolean;
}

/** How long a game's lease lasts unrenewed by default: a dead process's games are taken over after this. */
export const DEFAULT_LEASE_MS = 15_000;

/** A lease this store holds: its game and fencing token. */
export interface HeldLease {
  readonly game: string;
  readonly token: number;
}

/** The database's clock in ms: one clock for every process of the service. */
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

type LineRow = { line: number; text: string; receipt: string };
const toStored = (r: LineRow): StoredLine => ({ line: r.line, text: r.text, receipt: JSON.parse(r.receipt) as Receipt });

export class PostgresStore implements Store {
  private readonly pool: pg.Pool;
  private readonly schema: string;
  /** Leases, when this store was opened with them. */
  readonly lease: PostgresLeaseOptions | undefined;
  private ready: Promise<void> | null = null;
  /** The leases this store holds, by game: the token each was given. */
  private readonly tokens = new Map<string, number>();
  private readonly sharded: boolean;
  private readonly url: string;
  /** The connection lease renewals use (renewQuery). */
  private renewer: pg.Client | null = null;
  /** The channels the store notifies of appended lines and talk on (pg-fanout.ts). */
  private readonly linesChannel: string;
  private readonly talkChannel: string;

  constructor(options: PostgresStoreOptions) {
    this.schema = checkSchemaName(options.schema ?? 'public');
    this.sharded = options.sharded === true;
    this.lease = options.lease;
    this.url = options.url;
    this.linesChannel = fanoutChannels(this.schema).lines;
    this.talkChannel = fanoutChannels(this.schema).talk;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxConnections ?? 10,
      // Durable before acknowledged, whatever the server's default; tables found in the relay's schema.
      options: `-c synchronous_commit=on -c search_path=${this.schema}`,
      connectionTimeoutMillis: 10_000,
    });
    // An idle connection the server closed (a restart) must not take the process down; the pool opens a new one.
    this.pool.on('error', (e) => options.onError?.(e));
  }

  /** Applies the migrations (once per store; every method waits for it). */
  start(): Promise<void> {
    if (this.ready !== null) return this.ready;
    const ready = (async () => {
      const client = await this.connect();
      try {
        await migrate(client, this.schema);
        if (!this.sharded) await refuseShard(client, this.schema);
      } finally {
        client.release();
      }
    })();
    // A failed start is tried again by the next call.
    ready.catch(() => {
      if (this.ready === ready) this.ready = null;
    });
    this.ready = ready;
    return ready;
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (e) {
      throw new FairtableError('store_failed', `cannot reach the relay's database: ${(e as Error).message}`, { cause: e });
    }
  }

  private async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    await this.start();
    try {
      return (await this.pool.query<R>(sql, params)).rows;
    } catch (e) {
      if (e instanceof FairtableError) throw e;
      throw new FairtableError('store_failed', `the relay's database: ${(e as Error).message}`, { cause: e });
    }
  }

  /** Runs `work` in one transaction on one connection; rolled back if it throws. */
  private async transaction<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.start();
    const client = await this.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const out = await work(client);
      await client.query('COMMIT');
      return out;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => (broken = true));
      if (e instanceof FairtableError) throw e;
      throw new FairtableError('store_failed', `the relay's database: ${(e as Error).message}`, { cause: e });
    } finally {
      // A connection that could not roll back is not given to the next caller.
      client.release(broken);
    }
  }

  async createGame(game: string, protocol: string, setup: LineToStore): Promise<boolean> {
    return this.transaction(async (c) => {
      const made = await c.query('INSERT INTO games (game, protocol, created) VALUES ($1, $2, $3) ON CONFLICT (game) DO NOTHING', [
        game,
        protocol,
        setup.receipt.time,
      ]);
      if (made.rowCount !== 1) return false;
      await c.query('INSERT INTO lines (game, line, text, receipt) VALUES ($1, 0, $2, $3)', [game, setup.text, JSON.stringify(setup.receipt)]);
      // The process that creates a game orders it.
      if (this.lease !== undefined) await this.takeLease(c, game);
      return true;
    });
  }

  async append(lines: readonly LineToStore[]): Promise<void> {
    if (lines.length === 0) return;
    const games: string[] = [];
    const numbers: number[] = [];
    const texts: string[] = [];
    const receipts: string[] = [];
    for (const l of lines) {
      games.push(l.game);
      numbers.push(l.line);
      texts.push(l.text);
      receipts.push(JSON.stringify(l.receipt));
    }
    const insert = 'INSERT INTO lines (game, line, text, receipt) SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[])';
    if (this.lease === undefined) {
      // One statement is one transaction: all or none.
      await this.query(insert, [games, numbers, texts, receipts]);
      return;
    }
    // With leases the service has several processes: each game's followers are told of its new lines at commit
    // (pg-fanout.ts), one notification a game, naming the last line this append stored.
    const notifying = `WITH stored AS (${insert} RETURNING game, line) SELECT pg_notify($5, game || ' ' || max(line)) FROM stored GROUP BY game`;
    await this.transaction(async (c) => {
      await this.checkLeases(c, [...new Set(games)]);
      await c.query(notifying, [games, numbers, texts, receipts, this.linesChannel]);
    });
  }

  /**
   * Fencing: locks the lease rows of `games` (a takeover's UPDATE waits for this transaction, or this one
   * for it) and refuses, writing nothing, unless each token is still the one this store holds and the lease
   * was not given up. A lease that ran out unrenewed (a loaded process) and that nobody took since still has
   * this store's token: no other process can have ordered a line, so the append goes on and extends it.
   */
  private async checkLeases(c: pg.PoolClient, games: string[]): Promise<void> {
    const { rows } = await c.query<{ game: string; token: string; live: boolean }>(
      `SELECT game, token, expires > 0 AS live FROM game_leases WHERE game = ANY($1::text[]) ORDER BY game FOR UPDATE`,
      [games],
    );
    const current = new Map(rows.map((r) => [r.game, r]));
    for (const g of games) {
      const mine = this.tokens.get(g);
      const row = current.get(g);
      if (mine === undefined || row === undefined || Number(row.token) !== mine || !row.live) {
        this.tokens.delete(g);
        const holder = this.lease!.holder;
        throw new FairtableError(
          'lease_lost',
          mine === undefined
            ? `game ${g}: this relay process (${holder}) holds no lease on it`
            : row !== undefined && Number(row.token) === mine
              ? `game ${g}: the lease of this relay process (${holder}, token ${mine}) was given up or ran out; nothing was appended`
              : `game ${g}: the lease of this relay process (${holder}, token ${mine}) was taken over (token ${row?.token ?? 'none'}); nothing was appended`,
          { field: 'game' },
        );
      }
    }
    await c.query(`UPDATE game_leases SET expires = ${NOW_MS} + $2 WHERE game = ANY($1::text[])`, [games, this.lease!.ttlMs]);
  }

  /** Takes the lease of `game` when it is free, expired, or already this holder's; the token grows by one. */
  private async takeLease(c: pg.PoolClient | pg.Pool, game: string): Promise<boolean> {
    const { holder, ttlMs } = this.lease!;
    const { rows } = await c.query<{ token: string }>(
      `INSERT INTO game_leases AS l (game, holder, token, expires) VALUES ($1, $2, 1, ${NOW_MS} + $3)
       ON CONFLICT (game) DO UPDATE SET holder = excluded.holder, token = l.token + 1, expires = excluded.expires
       WHERE l.expires <= ${NOW_MS} OR l.holder = excluded.holder
       RETURNING token`,
      [game, holder, ttlMs],
    );
    const token = rows[0]?.token;
    if (token === undefined) return false;
    this.tokens.set(game, Number(token));
    return true;
  }

  /**
   * Takes the lease of `game` for this process (docs/spec/relay.md §4, "Leases"): true when it now holds it
   * (it was free, had expired, or was this holder's from before a restart), false while another process's
   * lease runs. After taking over, the game's door is rebuilt from the stored log.
   */
  async acquireLease(game: string): Promise<boolean> {
    if (this.lease === undefined) throw new FairtableError('bad_input', 'this store was opened without leases', { field: 'lease' });
    await this.start();
    try {
      return await this.takeLease(this.pool, game);
    } catch (e) {
      throw new FairtableError('store_failed', `the relay's database: ${(e as Error).message}`, { cause: e });
    }
  }

  /**
   * Extends every lease held that has neither run out nor been taken over; returns the games of the others
   * (lost: to append to them again, this process must take their leases anew, with a larger token).
   */
  async renewLeases(): Promise<string[]> {
    if (this.lease === undefined || this.tokens.size === 0) return [];
    const held = [...this.tokens];
    // A lease that ran out unrenewed but that nobody took (its token still this store's) is extended too: no
    // other process can have ordered a line. One given up (expires 0) is not: it was released on purpose.
    const sql = `UPDATE game_leases AS l SET expires = ${NOW_MS} + $3
       FROM unnest($1::text[], $2::bigint[]) AS m(game, token)
       WHERE l.game = m.game AND l.token = m.token AND l.expires > 0 RETURNING l.game`;
    const params = [held.map(([g]) => g), held.map(([, t]) => t), this.lease.ttlMs];
    const rows = await this.renewQuery<{ game: string }>(sql, params);
    const kept = new Set(rows.map((r) => r.game));
    // A game given up and taken again while this renewal was under way has a new token: it is not lost.
    const lost = held.filter(([g, t]) => !kept.has(g) && this.tokens.get(g) === t).map(([g]) => g);
    for (const g of lost) this.tokens.delete(g);
    return lost;
  }

  /**
   * Renewals go over a connection of their own, outside the pool: under load the pool's connections are
   * busy with appends and reads, and a renewal queued behind them could reach the database after its leases ran out.
   */
  private async renewQuery<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> {
    await this.start();
    try {
      if (this.renewer === null) {
        const client = new pg.Client({ connectionString: this.url, options: `-c search_path=${this.schema}` });
        client.on('error', () => {
          if (this.renewer === client) this.renewer = null;
        });
        this.renewer = client;
        await client.connect();
      }
      return (await this.renewer.query<R>(sql, params)).rows;
    } catch (e) {
      const broken = this.renewer;
      this.renewer = null;
      await broken?.end().catch(() => {});
      throw new FairtableError('store_failed', `the relay's database: ${(e as Error).message}`, { cause: e });
    }
  }

  /** Gives the lease of `game` up at once (its token kept, so the next holder's is larger). */
  async releaseLease(game: string): Promise<void> {
    const token = this.tokens.get(game);
    if (token === undefined) return;
    this.tokens.delete(game);
    await this.query('UPDATE game_leases SET expires = 0 WHERE game = $1 AND token = $2', [game, token]);
  }

  /** The leases this store holds (for /health). */
  heldLeases(): HeldLease[] {
    return [...this.tokens].map(([game, token]) => ({ game, token }));
  }

  async readLines(game: string, from: number, limit: number): Promise<StoredLine[]> {
    const rows = await this.query<LineRow>('SELECT line, text, receipt FROM lines WHERE game = $1 AND line >= $2 ORDER BY line LIMIT $3', [game, from, limit]);
    return rows.map(toStored);
  }

  async readPage(game: string, from: number, limit: number, maxBytes: number): Promise<StoredLine[]> {
    // The running size is summed in the database, so that no line past the page comes back.
    const rows = await this.query<LineRow>(
      `SELECT line, text, receipt FROM (
         SELECT line, text, receipt, row_number() OVER w AS n, sum(length(text) + length(receipt)) OVER w AS bytes
         FROM (SELECT line, text, receipt FROM lines WHERE game = $1 AND line >= $2 ORDER BY line LIMIT $3) AS page
         WINDOW w AS (ORDER BY line)
       ) AS counted WHERE n = 1 OR bytes <= $4 ORDER BY line`,
      [game, from, limit, maxBytes],
    );
    return rows.map(toStored);
  }

  async lineCount(game: string): Promise<number> {
    const rows = await this.query<{ n: string }>('SELECT count(*) AS n FROM lines WHERE game = $1', [game]);
    return Number(rows[0]?.n ?? 0);
  }

  async listGames(): Promise<GameSummary[]> {
    const rows = await this.query<{ game: string; protocol: string; created: string }>('SELECT game, protocol, created FROM games ORDER BY created, game');
    return rows.map((r) => ({ game: r.game, protocol: r.protocol, created: Number(r.created) }));
  }

  async hold(game: string, held: HeldLine): Promise<void> {
    await this.query('INSERT INTO held (game, hash, text, receipt) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
      game,
      held.receipt.hash,
      held.text,
      JSON.stringify(held.receipt),
    ]);
  }

  async readHeld(game: string): Promise<HeldLine[]> {
    const rows = await this.query<{ text: string; receipt: string }>('SELECT text, receipt FROM held WHERE game = $1 ORDER BY hash', [game]);
    return rows.map((r) => ({ text: r.text, receipt: JSON.parse(r.receipt) as HoldingReceipt }));
  }

  async unhold(game: string, hashes: readonly string[]): Promise<void> {
    await this.query('DELETE FROM held WHERE game = $1 AND hash = ANY($2::text[])', [game, [...hashes]]);
  }

  async gamesHolding(): Promise<string[]> {
    return (await this.query<{ game: string }>('SELECT DISTINCT game FROM held ORDER BY game')).map((r) => r.game);
  }

  async saveLobby(lobby: StoredLobby): Promise<void> {
    await this.query(
      'INSERT INTO lobbies (id, created, body) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET created = excluded.created, body = excluded.body',
      [lobby.id, lobby.created, lobby.body],
    );
  }

  async deleteLobby(id: string): Promise<void> {
    await this.query('DELETE FROM lobbies WHERE id = $1', [id]);
  }

  async listLobbies(): Promise<StoredLobby[]> {
    const rows = await this.query<{ id: string; created: string; body: string }>('SELECT id, created, body FROM lobbies ORDER BY created, id');
    return rows.map((r) => ({ id: r.id, created: Number(r.created), body: r.body }));
  }

  async readLobby(id: string): Promise<StoredLobby | null> {
    const rows = await this.query<{ id: string; created: string; body: string }>('SELECT id, created, body FROM lobbies WHERE id = $1', [id]);
    const r = rows[0];
    return r === undefined ? null : { id: r.id, created: Number(r.created), body: r.body };
  }

  async replaceLobby(lobby: StoredLobby, was: string): Promise<boolean> {
    const rows = await this.query<{ id: string }>('UPDATE lobbies SET body = $2 WHERE id = $1 AND body = $3 RETURNING id', [lobby.id, lobby.body, was]);
    return rows.length === 1;
  }

  /**
   * Table talk (docs/spec/press.md §6): one message appended under a per-game advisory lock, so that two
   * processes (or two connections) never give two messages one index. With leases (several processes), the
   * message is notified in the same statement (`GAME INDEX`, pg-fanout.ts), delivered at its commit: every
   * process pushes it to its own sockets of the game (talk-fanout.ts), and the lock keeps notifications in index order.
   */
  async appendTalk(game: string, at: number, text: string): Promise<number> {
    return this.transaction(async (c) => {
      await c.query("SELECT pg_advisory_xact_lock(hashtext('talk/' || $1))", [game]);
      const insert = 'INSERT INTO talk (game, idx, at, text) VALUES ($1, (SELECT coalesce(max(idx) + 1, 0) FROM talk WHERE game = $1), $2, $3) RETURNING idx';
      const { rows } =
        this.lease === undefined
          ? await c.query<{ idx: number }>(insert, [game, at, text])
          : await c.query<{ idx: number }>(`WITH stored AS (${insert}) SELECT idx, pg_notify($4, $1 || ' ' || idx) FROM stored`, [
              game,
              at,
              text,
              this.talkChannel,
            ]);
      return rows[0]!.idx;
    });
  }

  async readTalk(game: string, from: number, limit: number): Promise<StoredTalk[]> {
    const rows = await this.query<{ index: number; at: string; text: string }>(
      'SELECT idx AS "index", at, text FROM talk WHERE game = $1 AND idx >= $2 ORDER BY idx LIMIT $3',
      [game, from, limit],
    );
    return rows.map((r) => ({ index: r.index, at: Number(r.at), text: r.text }));
  }

  async talkUsage(game: string): Promise<{ count: number; bytes: number }> {
    const rows = await this.query<{ count: string; bytes: string }>(
      'SELECT count(*) AS count, coalesce(sum(octet_length(text)), 0) AS bytes FROM talk WHERE game = $1',
      [game],
    );
    return { count: Number(rows[0]?.count ?? 0), bytes: Number(rows[0]?.bytes ?? 0) };
  }

  /** The one key of every process of the service: made by the first to ask, read by the others. */
  async relayKey(): Promise<Uint8Array> {
    const candidate = toHex(randomBytes(32));
    await this.query(`INSERT INTO relay_key (id, secret_key, created) VALUES (1, $1, ${NOW_MS}) ON CONFLICT (id) DO NOTHING`, [candidate]);
    const rows = await this.query<{ secret_key: string }>('SELECT secret_key FROM relay_key WHERE id = 1');
    const key = rows[0]?.secret_key;
    if (!isHex(key, 32))
      throw new FairtableError('bad_key_file', `the relay key in the database (schema ${this.schema}) is not 64 hex digits`, { field: 'secretKey' });
    return fromHex(key);
  }

  /** Records the database's place in a sharded service unless it has one; the place recorded (shard-record.ts). */
  async claimShard(claim: ShardPlace): Promise<ShardPlace> {
    return this.transaction(async (c) => claimShardPlace(c, claim, Date.now()));
  }

  /** The database's place in a sharded service, if any, and whether it holds games (shard-record.ts). */
  async shardPlace(): Promise<{ place: ShardPlace | null; games: boolean }> {
    await this.start();
    return readShardPlace(this.pool);
  }

  /** Resolves once the database answers (the storage watch's look on a relay on Postgres); `store_failed` when it does not. */
  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  /** Gives up every lease held (a closing relay has stored all it admitted: others may take its games at once). */
  async close(): Promise<void> {
    if (this.pool.ended) return;
    const held = [...this.tokens];
    this.tokens.clear();
    if (held.length > 0)
      await this.pool
        .query('UPDATE game_leases AS l SET expires = 0 FROM unnest($1::text[], $2::bigint[]) AS m(game, token) WHERE l.game = m.game AND l.token = m.token', [
          held.map(([g]) => g),
          held.map(([, t]) => t),
        ])
        .catch(() => {});
    const renewer = this.renewer;
    this.renewer = null;
    await renewer?.end().catch(() => {});
    await this.pool.end();
  }
}
