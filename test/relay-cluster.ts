/**
 * Several `fairtable relay` processes on one Postgres database behind HAProxy, on 127.0.0.1, for the
 * cluster test and the bench (docs/spec/relay.md §4, "Many processes behind a balancer"). The balancer
 * runs the repository's own deploy/haproxy.cfg, only its listening address and its `server` lines
 * rewritten to the processes started here.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const CLI_MAIN = join(root, 'packages/cli/bin/fairtable.js');
export const HAPROXY_CONFIG = join(root, 'deploy/haproxy.cfg');

/** The HAProxy binary, or null when it is not installed (`apt-get install haproxy`). */
export function haproxyBinary(): string | null {
  for (const p of ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy']) {
    const r = spawnSync(p, ['-v'], { stdio: 'ignore' });
    if (r.status === 0) return p;
  }
  return null;
}

export interface RelayProcess {
  readonly node: string;
  readonly url: string;
  readonly port: number;
  readonly key: string;
  readonly child: ChildProcess;
}

export const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));

/** Starts `fairtable relay --database URL --node NODE` on a free port of 127.0.0.1; resolves once it listens. */
export function startRelayProcess(options: {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly node: string;
  readonly leaseMs: number;
  readonly extra?: readonly string[];
}): Promise<RelayProcess> {
  const args = [
    CLI_MAIN,
    'relay',
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--database',
    options.databaseUrl,
    '--database-schema',
    options.schema,
    '--node',
    options.node,
    '--lease-ms',
    String(options.leaseMs),
    // HAProxy passes each player's address on (`option forwardfor`): the relay limits players by it.
    '--trust-proxy',
    '127.0.0.1',
    ...(options.extra ?? []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let log: { msg?: string; port?: number; relay?: string };
      try {
        log = JSON.parse(line) as typeof log;
      } catch {
        return;
      }
      if (log.msg === 'relay listening' && log.port !== undefined && log.relay !== undefined)
        resolve({ node: options.node, url: `http://127.0.0.1:${log.port}`, port: log.port, key: log.relay, child });
    });
    child.once('exit', (code) => reject(new Error(`relay ${options.node} exited (${code}) before listening`)));
  });
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/**
 * deploy/haproxy.cfg with its `bind` on 127.0.0.1:`port` and one `server` line per relay; `spread`: each
 * request to the next live process in turn, no affinity by game (relay.md §4, "Clients on any process").
 */
export function balancerConfig(port: number, relays: readonly { readonly node: string; readonly port: number }[], spread = false): string {
  const text = readFileSync(HAPROXY_CONFIG, 'utf8');
  const lines = text.split('\n');
  const out: string[] = [];
  let serversWritten = false;
  for (const line of lines) {
    if (/^\s*bind\s/.test(line)) out.push(`    bind 127.0.0.1:${port}`);
    else if (spread && /^\s*balance\s/.test(line)) out.push('    balance roundrobin');
    else if (spread && /^\s*hash-type\s/.test(line)) continue;
    else if (/^\s*server\s/.test(line)) {
      if (!serversWritten) for (const r of relays) out.push(`    server ${r.node} 127.0.0.1:${r.port} check`);
      serversWritten = true;
    } else out.push(line);
  }
  if (!serversWritten) throw new Error(`${HAPROXY_CONFIG} has no server lines to replace`);
  return out.join('\n');
}

export interface Balancer {
  readonly url: string;
  readonly child: ChildProcess;
  close(): Promise<void>;
}

/** Starts HAProxy in the foreground in front of `relays`; resolves once it answers /health through them. */
export async function startBalancer(binary: string, relays: readonly { readonly node: string; readonly port: number }[], spread = false): Promise<Balancer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'fairtable-haproxy-'));
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, balancerConfig(port, relays, spread));
  const check = spawnSync(binary, ['-c', '-q', '-f', config], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy -c refused the configuration: ${check.stderr}`);
  // -db: one process in the foreground, no daemon, no master: a signal to it stops it all.
  const child = spawn(binary, ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  child.stderr!.on('data', (d: Buffer) => (said = (said + d.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited(child);
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${said}`);
    try {
      if ((await fetch(`${url}/health`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (i > 200) {
      await close();
      throw new Error(`haproxy did not answer on ${url}: ${said}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return { url, child, close };
}
