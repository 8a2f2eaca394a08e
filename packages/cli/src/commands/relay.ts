/**
 * `fairtable relay [--port P] [--data DIR] [--host H]`: runs a relay (docs/spec/relay.md), what
 * `npm start` runs. The port and the data directory default to the PORT and DATA_DIR environment
 * variables, then to 8080 and ./data. Logs are JSON lines on stdout (pino); SIGTERM and SIGINT stop it
 * gracefully: no new connections, every admitted line stored and acknowledged, then exit.
 */
import type { Command } from 'commander';
import { FairtableError } from '@fairtable/core/errors.js';
import { startRelay } from '@fairtable/relay';

function portOf(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new FairtableError('out_of_range', `--port: ${value} is not a port number`, { field: 'port' });
  return port;
}

export function register(program: Command): void {
  program
    .command('relay')
    .description('run a relay: games are created, stored and played through it over HTTP and WebSocket')
    .option('--port <port>', 'port to listen on (default: $PORT or 8080; 0 for any free port)')
    .option('--host <host>', 'address to listen on', '0.0.0.0')
    .option('--data <dir>', 'where the database and the relay key live (default: $DATA_DIR or ./data)')
    .action(async (opts: { port?: string; host: string; data?: string }) => {
      const dataDir = opts.data ?? process.env.DATA_DIR ?? './data';
      const relay = await startRelay({
        port: portOf(opts.port ?? process.env.PORT ?? '8080'),
        host: opts.host,
        dataDir,
        // docs/spec/relay.md §7: NORMAL survives a killed process but not a power loss.
        synchronous: process.env.SQLITE_SYNCHRONOUS === 'NORMAL' ? 'NORMAL' : 'FULL',
      });
      // The JSON log is for machines; a person who ran `npm start` wants the address and the key.
      const shown = opts.host === '0.0.0.0' || opts.host === '::' ? 'localhost' : opts.host;
      process.stderr.write(
        `fairtable relay on http://${shown}:${relay.port}/ (open it in a browser to play); its key ${relay.publicKey} (for audit --relay-key); data in ${dataDir}; Ctrl-C stops it\n`,
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
    });
}
