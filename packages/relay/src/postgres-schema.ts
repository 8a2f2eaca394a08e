/**
 * The relay's schema on Postgres and its migrations (docs/spec/relay.md §4, "On Postgres"). Migrations are
 * numbered from 1 and only ever added to; each runs once, in order, recorded in `fairtable_migrations`.
 * They are applied at start, all in one transaction that first takes a transaction-scoped advisory lock
 * named after the schema: two processes starting at once apply each migration once (the second waits,
 * then finds them applied), and a process that dies half way leaves nothing applied. A database whose
 * schema is newer than this code knows is refused (`schema_too_new`): an older process must not write to
 * tables whose meaning it does not know.
 */
import type { PoolClient } from 'pg';
import { FairtableError } from '@fairtable/core/errors.js';

/** Each migration's statements; the index + 1 is its number. */
export const MIGRATIONS: readonly string[] = [
  // 1: the tables of the SQLite store, the same columns (relay.md §4), and the relay's key.
  `CREATE TABLE games (game text PRIMARY KEY, protocol text NOT NULL, created bigint NOT NULL);
   CREATE TABLE lines (
     game text NOT NULL, line integer NOT NULL, text text NOT NULL, receipt text NOT NULL,
     PRIMARY KEY (game, line)
   );
   CREATE TABLE held (game text NOT NULL, hash text NOT NULL, text text NOT NULL, receipt text NOT NULL, PRIMARY KEY (game, hash));
   CREATE TABLE lobbies (id text PRIMARY KEY, created bigint NOT NULL, body text NOT NULL);
   CREATE TABLE relay_key (id integer PRIMARY KEY CHECK (id = 1), secret_key text NOT NULL, created bigint NOT NULL);`,
  // 2: leases (relay.md §4, "Leases"): who orders each game, with a fencing token that only grows.
  `CREATE TABLE game_leases (game text PRIMARY KEY, holder text NOT NULL, token bigint NOT NULL, expires bigint NOT NULL);`,
  // 3: table talk beside the lines (docs/spec/press.md §6), as the SQLite store keeps it.
  `CREATE TABLE talk (game text NOT NULL, idx integer NOT NULL, at bigint NOT NULL, text text NOT NULL, PRIMARY KEY (game, idx));`,
  // 4: a database's place in a sharded service (relay.md §4, "Beyond one Postgres"): the service, its index, how many.
  `CREATE TABLE shard (id integer PRIMARY KEY CHECK (id = 1), service text NOT NULL, idx integer NOT NULL, count integer NOT NULL, created bigint NOT NULL);`,
  // 5: submissions a process forwards to the process ordering their game (pg-fanout.ts, relay.md §4 "Clients on any process").
  `CREATE TABLE inbox (id bigserial PRIMARY KEY, game text NOT NULL, origin text NOT NULL, req bigint NOT NULL, author text NOT NULL, text text NOT NULL);
   CREATE INDEX inbox_game ON inbox (game, id);`,
];

/** An SQL identifier fairtable makes or accepts for a schema: lower-case letters, digits, underscores. */
export function checkSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new FairtableError('bad_input', `schema ${JSON.stringify(schema)}: lower-case letters, digits and _ only, at most 63`, { field: 'schema' });
  return schema;
}

/**
 * Brings `schema` up to the newest migration, in one transaction under an advisory lock; returns the
 * schema's version. The client's search_path must already name `schema`.
 */
export async function migrate(client: PoolClient, schema: string): Promise<number> {
  await client.query('BEGIN');
  try {
    // The lock's key: the schema's name hashed by Postgres, in a namespace of fairtable's own (the first key).
    await client.query('SELECT pg_advisory_xact_lock(1718185326, hashtext($1))', [schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.fairtable_migrations (version integer PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${schema}.fairtable_migrations`);
    const current = rows[0]?.v ?? 0;
    if (current > MIGRATIONS.length)
      throw new FairtableError(
        'schema_too_new',
        `the relay's database (schema ${schema}) is at version ${current}, newer than this relay knows (${MIGRATIONS.length}); run a newer relay`,
        { field: 'schema' },
      );
    for (let v = current + 1; v <= MIGRATIONS.length; v++) {
      await client.query(MIGRATIONS[v - 1]!);
      await client.query(`INSERT INTO ${schema}.fairtable_migrations (version) VALUES ($1)`, [v]);
    }
    await client.query('COMMIT');
    return MIGRATIONS.length;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  }
}
