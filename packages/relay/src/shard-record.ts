/**
 * A database's place in a sharded relay service (docs/spec/relay.md §4, "Beyond one Postgres"): the row
 * `shard(service, idx, count)`, written once by the first process that starts with the database in its list
 * and read by every later one. A process whose list puts the database at another index, or counts another
 * number of shards, or joins it to another service, is refused `shard_mismatch` before it reads or writes a
 * game: every process of a service must route each game to the same database. A database that serves one
 * relay alone (`--database URL`) refuses to start once it is a shard, and a database that already holds the
 * games of a single-database service is not made a shard (its games would be routed to other databases;
 * moving them is not built).
 */
import type pg from 'pg';
import { FairtableError } from '@fairtable/core/errors.js';

/** Where one database stands in a service of `count` databases: `index` from 0, `service` shard 0's random id. */
export interface ShardPlace {
  readonly service: string;
  readonly index: number;
  readonly count: number;
}

type Queryable = Pick<pg.ClientBase, 'query'>;

/** A URL without its password, for messages. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return '(an unreadable URL)';
  }
}

/**
 * Records `claim` as the database's place unless it has one; returns the place recorded (the claim, or the
 * one a process wrote before). Refused `shard_mismatch` when the database has no place yet but holds games.
 * Runs in the caller's transaction.
 */
export async function claimShardPlace(c: Queryable, claim: ShardPlace, now: number): Promise<ShardPlace> {
  await c.query(
    `INSERT INTO shard (id, service, idx, count, created) SELECT 1, $1, $2, $3, $4
     WHERE NOT EXISTS (SELECT 1 FROM games) ON CONFLICT (id) DO NOTHING`,
    [claim.service, claim.index, claim.count, now],
  );
  const { place } = await readShardPlace(c);
  if (place === null) throw holdsGames(claim);
  return place;
}

/** The database's place, if it has one, and whether it holds any game. */
export async function readShardPlace(c: Queryable): Promise<{ place: ShardPlace | null; games: boolean }> {
  const { rows } = await c.query<{ service: string | null; idx: number | null; count: number | null; games: boolean }>(
    'SELECT s.service, s.idx, s.count, EXISTS (SELECT 1 FROM games) AS games FROM (SELECT 1) AS one LEFT JOIN shard AS s ON s.id = 1',
  );
  const row = rows[0]!;
  return { place: row.service === null ? null : { service: row.service, index: row.idx!, count: row.count! }, games: row.games };
}

/** The refusal of a database, unplaced, that holds games: those of a relay on it alone. */
export function holdsGames(claim: Pick<ShardPlace, 'index' | 'count'>): FairtableError {
  return new FairtableError(
    'shard_mismatch',
    `the database given as shard ${claim.index} of ${claim.count} holds the games of a relay on one database; moving them to the shards their ids name is not built`,
    { field: 'database' },
  );
}

/** Refuses (`shard_mismatch`) a database that is a shard of a service, for a store opened on it alone. */
export async function refuseShard(c: Queryable, schema: string): Promise<void> {
  const { rows } = await c.query<{ idx: number; count: number }>('SELECT idx, count FROM shard WHERE id = 1');
  const row = rows[0];
  if (row !== undefined)
    throw new FairtableError(
      'shard_mismatch',
      `the relay's database (schema ${schema}) is shard ${row.idx} of ${row.count} of a sharded relay service: give every shard, in the service's order (--database once for each)`,
      { field: 'database' },
    );
}

/** Refuses a recorded place that is not the one this process's list gives the database. */
export function checkShardPlace(found: ShardPlace, wanted: ShardPlace, url: string): void {
  if (found.service === wanted.service && found.index === wanted.index && found.count === wanted.count) return;
  const why =
    found.service !== wanted.service
      ? `belongs to another sharded service (${found.service}, where shard 0 of this list names ${wanted.service})`
      : `is shard ${found.index} of ${found.count}`;
  throw new FairtableError(
    'shard_mismatch',
    `the database ${shownUrl(url)}, given as shard ${wanted.index} of ${wanted.count}, ${why}: every process of the service must be given the same databases in the same order`,
    { field: 'database' },
  );
}
