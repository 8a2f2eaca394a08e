/**
 * The relay's Postgres store (docs/spec/relay.md §4, "On Postgres"): the store contract (store-contract.ts),
 * migrations applied once by processes starting together and a newer schema refused, and leases whose
 * fencing token keeps a process that lost its game from ever appending to it.
 *
 * The server is FAIRTABLE_TEST_DATABASE_URL's (`.ci/postgres.sh start` prints it); each test works in a
 * schema of its own, dropped after. Without the variable the suite is skipped, except under CI, where
 * its absence fails.
 */
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FairtableError } from '@fairtable/core/errors.js';
import { MIGRATIONS } from './postgres-schema.js';
import { PostgresStore, type PostgresStoreOptions } from './postgres-store.js';
import { describeStoreContract, linesOf } from './store-contract.js';

const url = process.env.FAIRTABLE_TEST_DATABASE_URL;

if (url === undefined && process.env.CI !== undefined && process.env.CI !== '')
  describe('the Postgres store under CI', () => {
    it('has a server to test against', () => {
      throw new Error('CI is set but FAIRTABLE_TEST_DATABASE_URL is not: .ci/run starts a server with .ci/postgres.sh; the Postgres store would go untested');
    });
  });

let schemas = 0;
const freshSchema = (): string => `t_${process.pid}_${Date.now().toString(36)}_${schemas++}`;

/** Drops a test's schema with a connection of its own. */
async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

const skipReason = 'skipped: FAIRTABLE_TEST_DATABASE_URL is not set (`eval "$(.ci/postgres.sh start)"` starts a server and sets it)';

describe.skipIf(url === undefined)(`the Postgres store${url === undefined ? ` (${skipReason})` : ''}`, () => {
  describeStoreContract('Postgres', () => {
    const schema = freshSchema();
    return Promise.resolve({ open: () => new PostgresStore({ url: url!, schema }), remove: () => dropSchema(schema) });
  });

  const stores: PostgresStore[] = [];
  const used: string[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });
  afterAll(async () => {
    for (const s of used.splice(0)) await dropSchema(s);
  });
  const open = (options: Omit<PostgresStoreOptions, 'url'>): PostgresStore => {
    const s = new PostgresStore({ url: url!, ...options });
    stores.push(s);
    return s;
  };
  const schemaForTest = (): string => {
    const s = freshSchema();
    used.push(s);
    return s;
  };
  const game = 'c3'.repeat(32);

  describe('migrations', () => {
    it('are applied once when several processes start at the same time', async () => {
      const schema = schemaForTest();
      const starting = Array.from({ length: 4 }, () => open({ schema }));
      await Promise.all(starting.map((s) => s.start()));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${schema}.fairtable_migrations ORDER BY version`);
        expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
      } finally {
        await client.end();
      }
      // And every one of them works on the same tables.
      await starting[0]!.createGame(game, 'chain', linesOf(game, 0, 1)[0]!);
      expect(await starting[3]!.lineCount(game)).toBe(1);
    });

    it('refuse a schema newer than the code knows, with a coded error, and touch nothing', async () => {
      const schema = schemaForTest();
      await open({ schema }).start();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`INSERT INTO ${schema}.fairtable_migrations (version) VALUES ($1)`, [MIGRATIONS.length + 1]);
      } finally {
        await client.end();
      }
      const older = open({ schema });
      const refused = await older.start().then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(FairtableError);
      expect((refused as FairtableError).code).toBe('schema_too_new');
      await expect(older.lineCount(game)).rejects.toMatchObject({ code: 'schema_too_new' });
    });
  });

  describe('leases', () => {
    // Long leases, run out on purpose (`runOut`): what a process that stopped renewing leaves, without a test
    // that waits on the clock of a loaded machine.
    const ttlMs = 60_000;
    const runOut = async (schema: string, g: string): Promise<void> => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`UPDATE ${schema}.game_leases SET expires = 0 WHERE game = $1`, [g]);
      } finally {
        await client.end();
      }
    };

    it('let one process order a game: a paused process whose lease was taken over is refused lease_lost, and the log never forks', async () => {
      const schema = schemaForTest();
      const a = open({ schema, lease: { holder: 'node-a', ttlMs } });
      const b = open({ schema, lease: { holder: 'node-b', ttlMs } });
      const lines = linesOf(game, 0, 6);
      // A creates the game, and with it takes its lease.
      expect(await a.createGame(game, 'chain', lines[0]!)).toBe(true);
      expect(a.heldLeases()).toEqual([{ game, token: 1 }]);
      await a.append([lines[1]!, lines[2]!]);
      // B cannot take a lease that runs, renewed or not.
      expect(await b.acquireLease(game)).toBe(false);
      expect(await a.renewLeases()).toEqual([]);
      expect(await b.acquireLease(game)).toBe(false);
      // A pauses (stops renewing); once its lease has run out, B takes the game over with a larger token.
      await runOut(schema, game);
      expect(await b.acquireLease(game)).toBe(true);
      expect(b.heldLeases()).toEqual([{ game, token: 2 }]);
      // B rebuilds from the stored log and goes on.
      expect(await b.lineCount(game)).toBe(3);
      await b.append([{ ...lines[3]!, text: '{"by":"b"}' }]);
      // A wakes up and appends a line it admitted before the pause: refused, nothing written.
      const refused = await a.append([{ ...lines[3]!, text: '{"by":"a"}' }]).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(FairtableError);
      expect((refused as FairtableError).code).toBe('lease_lost');
      expect((refused as FairtableError).message).toContain('node-a');
      expect((refused as FairtableError).message).toContain('taken over');
      // Nor a line past B's.
      await expect(a.append([{ ...lines[4]!, text: '{"by":"a"}' }])).rejects.toMatchObject({ code: 'lease_lost' });
      expect(a.heldLeases()).toEqual([]);
      // One log: B's line 3, nothing of A's after the takeover.
      const log = await b.readLines(game, 0, 10);
      expect(log.map((l) => l.line)).toEqual([0, 1, 2, 3]);
      expect(log[3]!.text).toBe('{"by":"b"}');
    });

    it('a lease that ran out is lost even before anyone takes it: no append, no renewal; taken anew with a larger token', async () => {
      const schema = schemaForTest();
      const a = open({ schema, lease: { holder: 'node-a', ttlMs } });
      await a.createGame(game, 'chain', linesOf(game, 0, 1)[0]!);
      await runOut(schema, game);
      await expect(a.append(linesOf(game, 1, 1))).rejects.toMatchObject({ code: 'lease_lost', message: expect.stringContaining('ran out') as string });
      expect(await a.lineCount(game)).toBe(1);
      expect(await a.acquireLease(game)).toBe(true);
      expect(a.heldLeases()).toEqual([{ game, token: 2 }]);
      await a.append(linesOf(game, 1, 1));
      expect(await a.lineCount(game)).toBe(2);
    });

    it('a renewal reports the games lost to a takeover, and keeps the others', async () => {
      const schema = schemaForTest();
      const a = open({ schema, lease: { holder: 'node-a', ttlMs } });
      const b = open({ schema, lease: { holder: 'node-b', ttlMs } });
      const other = 'd4'.repeat(32);
      await a.createGame(game, 'chain', linesOf(game, 0, 1)[0]!);
      await a.createGame(other, 'chain', linesOf(other, 0, 1)[0]!);
      await runOut(schema, game);
      expect(await b.acquireLease(game)).toBe(true);
      expect(await a.renewLeases()).toEqual([game]);
      expect(a.heldLeases().map((l) => l.game)).toEqual([other]);
      await a.append(linesOf(other, 1, 1));
      await expect(a.append(linesOf(game, 1, 1))).rejects.toMatchObject({ code: 'lease_lost' });
    });

    it('an append racing a takeover: either it commits before the takeover or it is refused, never both logs', async () => {
      const schema = schemaForTest();
      const a = open({ schema, lease: { holder: 'node-a', ttlMs } });
      const b = open({ schema, lease: { holder: 'node-b', ttlMs } });
      await a.createGame(game, 'chain', linesOf(game, 0, 1)[0]!);
      // A's lease runs out while A appends, and B takes over at once: whichever comes first, one log.
      const line1 = linesOf(game, 1, 1)[0]!;
      const [appended, taken] = await Promise.allSettled([a.append([{ ...line1, text: '{"by":"a"}' }]), runOut(schema, game).then(() => b.acquireLease(game))]);
      expect(taken).toEqual({ status: 'fulfilled', value: true });
      const stored = await b.readLines(game, 1, 5);
      if (appended.status === 'fulfilled') expect(stored.map((l) => l.text)).toEqual(['{"by":"a"}']);
      else {
        expect(appended.reason).toMatchObject({ code: 'lease_lost' });
        expect(stored).toEqual([]);
      }
      // After the takeover B appends the next line whichever won; A cannot.
      const next = await b.lineCount(game);
      await b.append([{ ...linesOf(game, next, 1)[0]!, text: '{"by":"b"}' }]);
      await expect(a.append([{ ...linesOf(game, next + 1, 1)[0]!, text: '{"by":"a"}' }])).rejects.toMatchObject({ code: 'lease_lost' });
    });

    it('a process restarted under its own name takes its games back at once, and fences its old self', async () => {
      const schema = schemaForTest();
      const before = open({ schema, lease: { holder: 'node-a', ttlMs } });
      await before.createGame(game, 'chain', linesOf(game, 0, 1)[0]!);
      const after = open({ schema, lease: { holder: 'node-a', ttlMs } });
      expect(await after.acquireLease(game)).toBe(true);
      await after.append(linesOf(game, 1, 1));
      await expect(before.append(linesOf(game, 2, 1))).rejects.toMatchObject({ code: 'lease_lost' });
      // A closed store gives its leases up: another process takes them without waiting for them to run out.
      await after.close();
      const b = open({ schema, lease: { holder: 'node-b', ttlMs } });
      expect(await b.acquireLease(game)).toBe(true);
      expect(b.heldLeases()).toEqual([{ game, token: 3 }]);
    });

    it('a lease that ran out unrenewed (a loaded process) but that nobody took is kept: an append and a renewal extend it; a takeover still fences', async () => {
      const schema = schemaForTest();
      const a = open({ schema, lease: { holder: 'node-a', ttlMs } });
      const b = open({ schema, lease: { holder: 'node-b', ttlMs } });
      await a.createGame(game, 'chain', linesOf(game, 0, 1)[0]!);
      const lapse = async (): Promise<void> => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          // In the past, but not given up (0): what a renewal that came late leaves.
          await client.query(`UPDATE ${schema}.game_leases SET expires = 1 WHERE game = $1`, [game]);
        } finally {
          await client.end();
        }
      };
      await lapse();
      await a.append(linesOf(game, 1, 1));
      // The append extended it: B cannot take it.
      expect(await b.acquireLease(game)).toBe(false);
      await lapse();
      expect(await a.renewLeases()).toEqual([]);
      expect(await b.acquireLease(game)).toBe(false);
      expect(a.heldLeases()).toEqual([{ game, token: 1 }]);
      // Run out and taken before A came back: A is fenced, the log does not fork.
      await lapse();
      expect(await b.acquireLease(game)).toBe(true);
      await expect(a.append([{ ...linesOf(game, 2, 1)[0]!, text: '{"by":"a"}' }])).rejects.toMatchObject({ code: 'lease_lost' });
      expect(await a.lineCount(game)).toBe(2);
    });

    it('a renewal under way while its game is given up and taken again does not report the new lease lost', async () => {
      const schema = schemaForTest();
      const a = open({ schema, lease: { holder: 'node-a', ttlMs } });
      await a.createGame(game, 'chain', linesOf(game, 0, 1)[0]!);
      // The renewal's statement reaches the database only after the game left memory and came back (a loaded process).
      let letGo!: () => void;
      const gate = new Promise<void>((r) => (letGo = r));
      const held = a as unknown as { renewQuery: (sql: string, params: unknown[]) => Promise<unknown[]> };
      const renewQuery = held.renewQuery.bind(a);
      held.renewQuery = async (sql, params) => {
        await gate;
        return renewQuery(sql, params);
      };
      const renewal = a.renewLeases();
      await a.releaseLease(game);
      expect(await a.acquireLease(game)).toBe(true);
      letGo();
      expect(await renewal).toEqual([]);
      expect(a.heldLeases()).toEqual([{ game, token: 2 }]);
      await a.append(linesOf(game, 1, 1));
      expect(await a.lineCount(game)).toBe(2);
    });

    it('an append to a game whose lease was never taken is refused', async () => {
      const schema = schemaForTest();
      const free = open({ schema });
      await free.createGame(game, 'chain', linesOf(game, 0, 1)[0]!);
      const a = open({ schema, lease: { holder: 'node-a', ttlMs } });
      await expect(a.append(linesOf(game, 1, 1))).rejects.toMatchObject({ code: 'lease_lost' });
      expect(await a.lineCount(game)).toBe(1);
    });
  });
});
