/**
 * `fairtable relay [--port P] [--data DIR] [--host H] [--database URL [--database URL …] [--node NAME]]`: runs a relay
 * (docs/spec/relay.md), what `npm start` runs. The port and the data directory default to the PORT and
 * DATA_DIR environment variables, then to 8080 and ./data. `--database` (or DATABASE_URL) keeps the games in
 * Postgres instead of SQLite; given more than once (or DATABASE_URLS, comma-separated), the games are partitioned across
 * those databases by game id, every process given them in one order (relay.md §4, "Beyond one Postgres"); `--node` (or
 * RELAY_NODE) names the process for game leases (relay.md §4). Logs are JSON lines on stdout (pino); SIGTERM and SIGINT stop it
 * gracefully: no new connections, every admitted line stored and acknowledged, then exit.
 * `--games-per-minute` and `--connections-per-address` raise (or lower) the per-address limits of
 * relay.md §5, for a load test or a relay behind one proxy address. `--allow-http-witness HOST` (repeatable,
 * or FAIRTABLE_HTTP_WITNESSES=host,host) lets setups name a witness on HOST over plain http (relay.md §8).
 * `--verify-threads N` (or RELAY_VERIFY_THREADS) sets how many threads check the signatures of submitted lines
 * (relay.md, "The pipeline"; the cores less one, 1 to 4, when not given; 0 checks them on the event loop).
 * `--witness URL` (repeatable; else the WITNESSES variable, comma-separated) names the witness relays
 * published at `/relay` for new games (docs/spec/time.md §5). The quotas, read bounds and storage
 * thresholds of relay.md §5 have a flag each, and an environment variable (`RELAY_SETTINGS`).
 */
import type { Command } from 'commander';
import { FairtableError } from '@fairtable/core/errors.js';
import { checkWitnessUrl } from '@fairtable/core/order/witness-url.js';
import { cliRegistry } from '../registry.js';
import { RELAY_SETTINGS, relayHeapSettings, relaySettings, startRelay } from '@fairtable/relay';
import { collect, httpWitnessHosts } from '../witnesses.js';

type Witnessing = { allowHttpWitness?: string[] };

function portOf(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new FairtableError('out_of_range', `--port: ${value} is not a port number`, { field: 'port' });
  return port;
}

function countOf(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new FairtableError('out_of_range', `--${flag}: ${value} is not a whole number of at least 1`, { field: flag });
  return n;
}

/** `--verify-threads` (or RELAY_VERIFY_THREADS): threads that check signatures, 0 (on the event loop) to 64; undefined: the relay's default. */
function verifyThreadsOf(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 64)
    throw new FairtableError('out_of_range', `--verify-threads (RELAY_VERIFY_THREADS): ${value} is not a whole number from 0 to 64`, {
      field: 'verify-threads',
    });
  return n;
}

/**
 * The databases, in order: the `--database` flags, else DATABASE_URLS (comma-separated), else DATABASE_URL (one);
 * both variables set is refused, as one of them would be silently ignored.
 */
function databasesOf(flags: string[] | undefined): string[] {
  if (flags !== undefined) return flags;
  const one = process.env.DATABASE_URL ?? '';
  const many = (process.env.DATABASE_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  if (many.length > 0 && one !== '')
    throw new FairtableError('bad_input', 'DATABASE_URL and DATABASE_URLS are both set: give the databases once', { field: 'database' });
  return many.length > 0 ? many : one === '' ? [] : [one];
}

export function register(program: Command): void {
  const command = program
    .command('relay')
    .description('run a relay: games are created, stored and played through it over HTTP and WebSocket')
    .option('--port <port>', 'port to listen on (default: $PORT or 8080; 0 for any free port)')
    .option('--host <host>', 'address to listen on', '0.0.0.0')
    .option('--data <dir>', 'where the database and the relay key live (default: $DATA_DIR or ./data)')
    .option(
      '--database <url>',
      'store games in Postgres at this postgres:// URL instead of SQLite in --data (default: $DATABASE_URL); repeated, the games are partitioned across the databases by game id, every process of the service given them in the same order (default: $DATABASE_URLS, comma-separated)',
      collect,
    )
    .option('--database-schema <name>', 'the schema in that database the tables live in, made if missing (default: $DATABASE_SCHEMA or public)')
    .option(
      '--lease-ms <ms>',
      "with --node: how long a game's lease lasts unrenewed, so how soon another process takes a dead one's games (default: $RELAY_LEASE_MS or 15000)",
    )
    .option('--node <name>', "this process's name, unique in the service: with --database, it orders only the games it holds a lease on (default: $RELAY_NODE)")
    .option('--games-per-minute <n>', 'games one address may create a minute, and at once (default 30)')
    .option('--connections-per-address <n>', 'WebSocket connections one address may hold open (default 300)')
    .option(
      '--verify-threads <n>',
      'threads that check the signatures of submitted lines (default: the cores less one, 1 to 4; 0: on the event loop); $RELAY_VERIFY_THREADS',
    )
    .option('--allow-http-witness <host>', 'a host witnesses may use plain http on (also $FAIRTABLE_HTTP_WITNESSES)', collect)
    .option(
      '--trust-proxy <address>',
      "a reverse proxy's address: its requests are limited under the client its X-Forwarded-For names; repeatable (default: $RELAY_TRUST_PROXY, comma-separated)",
      collect,
    )
    .option(
      '--witness <url>',
      'a witness relay new games on this relay name by default (published at /relay); repeatable (default: $WITNESSES, comma-separated)',
      collect,
    );
  for (const s of RELAY_SETTINGS) command.option(`--${s.flag} <n>`, `${s.help}; $${s.env}`);
  command.action(
    async (
      opts: {
        port?: string;
        host: string;
        data?: string;
        database?: string[];
        databaseSchema?: string;
        leaseMs?: string;
        node?: string;
        gamesPerMinute?: string;
        connectionsPerAddress?: string;
        verifyThreads?: string;
        witness?: string[];
        trustProxy?: string[];
      } & Witnessing &
        Record<string, unknown>,
    ) => {
      // Before the relay starts: V8 settings for a process that is a relay (packages/relay/src/heap.ts).
      relayHeapSettings();
      const dataDir = opts.data ?? process.env.DATA_DIR ?? './data';
      const databaseUrls = databasesOf(opts.database);
      const databaseUrl = databaseUrls[0];
      const node = opts.node ?? (process.env.RELAY_NODE === '' ? undefined : process.env.RELAY_NODE);
      const leaseMs = countOf('lease-ms', opts.leaseMs ?? (process.env.RELAY_LEASE_MS === '' ? undefined : process.env.RELAY_LEASE_MS));
      const schema = opts.databaseSchema ?? (process.env.DATABASE_SCHEMA === '' ? undefined : process.env.DATABASE_SCHEMA);
      if (node !== undefined && databaseUrl === undefined)
        throw new FairtableError('bad_input', '--node names a process of a relay service on Postgres: give --database (or DATABASE_URL) too', {
          field: 'node',
        });
      for (const u of databaseUrls)
        if (!/^postgres(ql)?:\/\//.test(u)) throw new FairtableError('bad_input', '--database: a postgres:// or postgresql:// URL', { field: 'database' });
      const games = countOf('games-per-minute', opts.gamesPerMinute);
      const connections = countOf('connections-per-address', opts.connectionsPerAddress);
      const verifyThreads = verifyThreadsOf(opts.verifyThreads ?? process.env.RELAY_VERIFY_THREADS);
      const settings = relaySettings(opts as Record<string, string | undefined>, process.env);
      const trustProxy =
        opts.trustProxy ??
        (process.env.RELAY_TRUST_PROXY ?? '')
          .split(',')
          .map((a) => a.trim())
          .filter((a) => a !== '');
      const witnesses =
        opts.witness ??
        (process.env.WITNESSES ?? '')
          .split(',')
          .map((w) => w.trim())
          .filter((w) => w !== '');
      // Every player's client will post to these: a URL no client may post to is refused here, not in each seat.
      for (const url of witnesses) checkWitnessUrl(url, { httpHosts: httpWitnessHosts(opts.allowHttpWitness) });
      const relay = await startRelay({
        ...settings,
        // Diplomacy's hand-overs, for the talk route (press.md §10).
        talkRegistry: cliRegistry,
        port: portOf(opts.port ?? process.env.PORT ?? '8080'),
        host: opts.host,
        dataDir,
        ...(databaseUrl === undefined
          ? {}
          : {
              database: {
                url: databaseUrl,
                ...(databaseUrls.length > 1 ? { shards: databaseUrls.slice(1) } : {}),
                ...(node === undefined ? {} : { node }),
                ...(leaseMs === undefined ? {} : { leaseMs }),
                ...(schema === undefined ? {} : { schema }),
              },
            }),
        witnesses,
        ...(verifyThreads === undefined ? {} : { verifyThreads }),
        // docs/spec/relay.md §7: NORMAL survives a killed process but not a power loss.
        synchronous: process.env.SQLITE_SYNCHRONOUS === 'NORMAL' ? 'NORMAL' : 'FULL',
        httpWitnessHosts: httpWitnessHosts(opts.allowHttpWitness),
        trustProxy,
        limits: {
          ...(games === undefined ? {} : { gamesPerMinute: games, gameBurst: games }),
          ...(connections === undefined ? {} : { connectionsPerAddress: connections }),
        },
      });
      // The JSON log is for machines; a person who ran `npm start` wants the address and the key.
      const shown = opts.host === '0.0.0.0' || opts.host === '::' ? 'localhost' : opts.host;
      process.stderr.write(
        `fairtable relay on http://${shown}:${relay.port}/ (open it in a browser to play); its key ${relay.publicKey} (for audit --relay-key); ${databaseUrl === undefined ? `data in ${dataDir}` : `games in Postgres${databaseUrls.length > 1 ? ` (${databaseUrls.length} shards)` : ''}${node === undefined ? '' : ` as node ${node}`}`}; Ctrl-C stops it\n`,
      );
      let stopping = false;
      const stop = (): void => {
        if (stopping) return;
        stopping = true;
        relay.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
    },
  );
}
