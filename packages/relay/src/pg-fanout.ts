/**
 * Fan-out between the processes of one relay service through Postgres (docs/spec/relay.md §4, "Clients on
 * any process"): one LISTEN connection per process and database, four channels named after the schema.
 *
 * - `lines`: sent by the store in the transaction of every append (postgres-store.ts), one notification per
 *   game, payload `GAME LAST` (the game's id and the number of the last line that append stored). Postgres
 *   delivers it at commit, so a process never hears of a line that is not stored. Processes following the
 *   game catch up from the store by line number; a notification is only a hint to look.
 * - `inbox`: a submission a process received for a game another process orders is a row of `inbox`
 *   (its game, the forwarding process, a request number, the author, the text), then a notification with
 *   payload `GAME`. The game's holder takes the game's rows (`DELETE … RETURNING`, so each is taken once) and
 *   puts them through its door as if its own socket had sent them.
 * - `reply`: what the holder answers a forwarded submission (`accepted`, `refused`, a sealed game's `held`),
 *   payload `NODE REQ MESSAGE`, the message the JSON the submitter's socket is sent.
 * - `talk`: sent by the store in the transaction of every table-talk message it keeps (postgres-store.ts),
 *   payload `GAME INDEX`. Every process with the game in memory reads its talk past the last message it pushed
 *   and pushes it to its sockets (talk-fanout.ts); as with lines, a notification is only a hint to look.
 *
 * Any (re)connection of the LISTEN connection is reported (`onListening`): a process then catches up every
 * game it follows and takes the inbox of every game it orders, so a notification lost while it was away
 * loses nothing. One `PgFanout` serves one database; a service on several databases runs one per database.
 */
import pg from 'pg';
import { FairtableError } from '@fairtable/core/errors.js';
import { checkSchemaName } from './postgres-schema.js';

/** The channel names of a schema (identifiers of at most 63 bytes: the schema's name is at most 56 here). */
export function fanoutChannels(schema: string): { lines: string; inbox: string; reply: string; talk: string } {
  const s = schema.slice(0, 56);
  return { lines: `ft_l_${s}`, inbox: `ft_i_${s}`, reply: `ft_r_${s}`, talk: `ft_t_${s}` };
}

export interface PgFanoutOptions {
  /** A `postgres://` URL. */
  readonly url: string;
  /** The schema the relay's tables live in (default `public`). */
  readonly schema?: string;
  /** This process's name (`--node`): forwarded submissions are answered to it. */
  readonly node: string;
  /** Waits between attempts to open the LISTEN connection again, ms (default 500). */
  readonly retryMs?: number;
}

export interface FanoutEvents {
  /** Lines of `game` were stored, the last numbered `last`. */
  lines(game: string, last: number): void;
  /** Forwarded submissions wait in the inbox for `game`. */
  inbox(game: string): void;
  /** The answer to this process's forwarded submission `req`: the JSON text its submitter is sent. */
  reply(req: number, message: string): void;
  /** A table-talk message of `game` was stored, numbered `index`. */
  talk(game: string, index: number): void;
  /** The LISTEN connection is (again) open: whatever was notified meanwhile must be looked for in the tables. */
  listening(): void;
  /** The LISTEN connection failed; it is opened again. */
  lost(e: Error): void;
}

/** A submission waiting in the inbox. */
export interface Forwarded {
  readonly origin: string;
  readonly req: number;
  readonly author: string;
  readonly text: string;
}

export class PgFanout {
  private readonly pool: pg.Pool;
  private listener: pg.Client | null = null;
  private closed = false;
  private readonly channels: { lines: string; inbox: string; reply: string; talk: string };
  readonly node: string;
  /** Notifications heard, by channel; LISTEN connections opened. */
  readonly counts = { lines: 0, inbox: 0, reply: 0, talk: 0, listens: 0 };

  constructor(
    private readonly options: PgFanoutOptions,
    private readonly events: FanoutEvents,
  ) {
    this.node = options.node;
    const schema = checkSchemaName(options.schema ?? 'public');
    this.channels = fanoutChannels(schema);
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: 4,
      options: `-c synchronous_commit=on -c search_path=${schema}`,
      connectionTimeoutMillis: 10_000,
    });
    this.pool.on('error', () => {});
  }

  /** Opens the LISTEN connection; resolves once it listens (and keeps opening it again after it fails). */
  async start(): Promise<void> {
    await this.listen();
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.options.url, application_name: `fairtable-fanout ${this.node}` });
    let failed = false;
    const retry = (e: Error): void => {
      if (failed) return;
      failed = true;
      if (this.listener === client) this.listener = null;
      client.end().catch(() => {});
      if (this.closed) return;
      this.events.lost(e);
      setTimeout(() => void this.listen().catch(() => {}), this.options.retryMs ?? 500).unref();
    };
    try {
      await client.connect();
      client.on('error', retry);
      client.on('end', () => retry(new Error('the LISTEN connection ended')));
      client.on('notification', (n) => this.heard(n.channel, n.payload ?? ''));
      for (const ch of Object.values(this.channels)) await client.query(`LISTEN ${ch}`);
    } catch (e) {
      retry(e as Error);
      return;
    }
    if (this.closed) return void client.end().catch(() => {});
    this.listener = client;
    this.counts.listens++;
    this.events.listening();
  }

  private heard(channel: string, payload: string): void {
    if (channel === this.channels.lines) {
      const [game, last] = payload.split(' ');
      this.counts.lines++;
      if (game !== undefined && last !== undefined) this.events.lines(game, Number(last));
    } else if (channel === this.channels.inbox) {
      this.counts.inbox++;
      this.events.inbox(payload);
    } else if (channel === this.channels.talk) {
      const [game, index] = payload.split(' ');
      this.counts.talk++;
      if (game !== undefined && index !== undefined) this.events.talk(game, Number(index));
    } else if (channel === this.channels.reply) {
      const first = payload.indexOf(' ');
      const second = payload.indexOf(' ', first + 1);
      if (first < 0 || second < 0 || payload.slice(0, first) !== this.node) return;
      this.counts.reply++;
      this.events.reply(Number(payload.slice(first + 1, second)), payload.slice(second + 1));
    }
  }

  private async query<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query<R>(sql, params)).rows;
    } catch (e) {
      throw new FairtableError('store_failed', `the relay's database: ${(e as Error).message}`, { cause: e });
    }
  }

  /**
   * Puts a submission in `game`'s inbox for its holder and notifies it; true when a lease on the game runs now
   * (false: nobody orders it, and the caller may take it).
   */
  async forward(game: string, req: number, author: string, text: string): Promise<boolean> {
    const rows = await this.query<{ live: boolean | null }>(
      `WITH put AS (INSERT INTO inbox (game, origin, req, author, text) VALUES ($1, $2, $3, $4, $5) RETURNING id)
       SELECT pg_notify($6, $1), (SELECT expires > (extract(epoch from clock_timestamp()) * 1000)::bigint FROM game_leases WHERE game = $1) AS live FROM put`,
      [game, this.node, req, author, text, this.channels.inbox],
    );
    return rows[0]?.live === true;
  }

  /** Notifies `game`'s holder again that submissions wait (one whose notification was lost takes them then). */
  async nudge(game: string): Promise<void> {
    await this.query('SELECT pg_notify($1, $2)', [this.channels.inbox, game]);
  }

  /** Takes every submission waiting for `game`, oldest first (each is taken by one process once). */
  async take(game: string): Promise<Forwarded[]> {
    const rows = await this.query<{ id: string; origin: string; req: string; author: string; text: string }>(
      'DELETE FROM inbox WHERE game = $1 RETURNING id, origin, req, author, text',
      [game],
    );
    return rows.sort((a, b) => Number(a.id) - Number(b.id)).map((r) => ({ origin: r.origin, req: Number(r.req), author: r.author, text: r.text }));
  }

  /** Answers a forwarded submission to the process it came from. */
  async answer(to: Forwarded, message: string): Promise<void> {
    await this.query('SELECT pg_notify($1, $2)', [this.channels.reply, `${to.origin} ${to.req} ${message}`]);
  }

  async close(): Promise<void> {
    this.closed = true;
    const l = this.listener;
    this.listener = null;
    await l?.end().catch(() => {});
    await this.pool.end().catch(() => {});
  }
}
