/**
 * A 7-power Diplomacy game through the relay with press (docs/spec/diplomacy.md §10, docs/spec/press.md):
 * random legal orders for 20 game years (`--years`), and 50 messages a phase (`--per-phase`), two in five to the
 * table and the rest sealed to one or two powers, every message read and checked by every power. The setup is the
 * CLI's for `play diplomacy` (weighted assignment, threshold escrow, sealed commitments) with full, signed press.
 *
 *   npm run bench diplomacy-press            (or: node --import tsx bench/diplomacy-press.bench.ts --years 2)
 *
 * The relay runs in this process; each power is its own process (bench/lib/diplomacy-press-player.ts), and
 * reports its own CPU time from joining to the end. The figure is CPU per player per phase, on the noble path
 * (the browser's: noble's SHA-256 and Ed25519) and on the native one (Node's SHA-256, OpenSSL's Ed25519 for
 * envelopes). Target: under 300 ms on the noble path. The relay's own limits on talk are raised for the run (50
 * messages a phase on one address is far above the per-author rate a relay allows by default).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { bindToRelay, createGame } from '@fairtable/client';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { taggedHash } from '@fairtable/core/hash.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { startRelay } from '@fairtable/relay';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
};
const YEARS = Number(arg('years', '20'));
const PER_PHASE = Number(arg('per-phase', '50'));
const PATHS = arg('paths', 'noble,native').split(',');
const player = fileURLToPath(new URL('./lib/diplomacy-press-player.ts', import.meta.url));
const line = (label: string, value: string): void => void process.stdout.write(`${label.padEnd(52)} ${value}\n`);

interface Report {
  readonly id: string;
  readonly cpuMs: number;
  readonly phases: number;
  readonly written: number;
  readonly failures: readonly string[];
  readonly read: number;
  readonly opened: number;
  readonly refused: number;
  readonly violations: number;
  readonly lines: number;
}

function runPlayer(args: string[]): Promise<Report> {
  // FAIRTABLE_BENCH_PROFILE=DIR: each power writes a CPU profile there.
  const profile = process.env.FAIRTABLE_BENCH_PROFILE;
  const flags = profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profile}`];
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', player, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`player ${args[2]} exited with ${code}: ${err.slice(-2000)}`));
      else resolve(JSON.parse(out.trim().split('\n').pop()!) as Report);
    }),
  );
}

async function game(path: string, seed: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fairtable-bench-press-'));
  const relay = await startRelay({
    host: '127.0.0.1',
    port: 0,
    dataDir: join(dir, 'data'),
    logger: pino({ level: 'silent' }),
    talk: { perAuthorPerMinute: 100_000, perAuthorBurst: 10_000, gameMessages: 1_000_000, gameBytes: 1 << 30, readsPerSecond: 10_000 },
    limits: { messagesPerSecond: 100_000, messageBurst: 100_000 },
  });
  try {
    const ids = Array.from({ length: 7 }, (_, i) => `p${i + 1}`);
    const secrets = ids.map((id) => taggedHash('bench-press', new Uint8Array([seed]), new TextEncoder().encode(id)));
    const keys = secrets.map((s) => generateKeyPair(s));
    const params = {
      timeoutMs: 600_000,
      years: YEARS,
      assign: 'weighted',
      typos: 'ignore-unit-letter',
      escrow: 'threshold',
      press: { rule: 'full', mode: 'signed' },
      sealed: { types: ['commit'] },
    };
    const bound = await bindToRelay(params, relay.url);
    const setup: GameSetup = {
      protocol: 'diplomacy',
      game: null,
      params: bound.params,
      players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
      nonce: toHex(taggedHash('bench-press-nonce', new Uint8Array([seed]))),
      created: Date.now(),
    };
    const created = await createGame(relay.url, envelopeLine(createSetupEnvelope(setup, ids[0]!, keys[0]!)));
    const wall = performance.now();
    const load = loadavg()[0]!;
    const reports = await Promise.all(
      ids.map((id, i) =>
        runPlayer([
          relay.url,
          created.game,
          id,
          toHex(secrets[i]!),
          String(i),
          String(Math.floor(PER_PHASE / 7) + (i < PER_PHASE % 7 ? 1 : 0)),
          String(PER_PHASE),
          path,
        ]),
      ),
    );
    const seconds = (performance.now() - wall) / 1000;
    const perPhase = reports.map((r) => r.cpuMs / Math.max(1, r.phases));
    const sorted = [...perPhase].sort((a, b) => a - b);
    const phases = reports[0]!.phases;
    const written = reports.reduce((a, r) => a + r.written, 0);
    if (reports.some((r) => r.violations > 0 || r.refused > 0 || r.failures.length > 0))
      throw new Error(`a power saw violations, refused press or failed to send: ${JSON.stringify(reports)}`);
    line(`${path} path: game`, `${phases} phases, ${reports[0]!.lines} lines, ${written} messages, ${seconds.toFixed(0)} s wall (load ${load.toFixed(1)})`);
    line(
      `  press read per power`,
      `${Math.min(...reports.map((r) => r.read))} messages, ${Math.min(...reports.map((r) => r.opened))} readable to the power or more`,
    );
    line(
      `  CPU per player per phase`,
      `median ${sorted[3]!.toFixed(0)} ms, max ${sorted[6]!.toFixed(0)} ms (each: ${perPhase.map((x) => x.toFixed(0)).join(', ')})` +
        (path === 'noble' ? `; target < 300 ms: ${sorted[6]! < 300 ? 'met' : 'NOT met'}` : ''),
    );
  } finally {
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

line(
  'machine',
  `load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
for (const [i, path] of PATHS.entries()) await game(path, i + 1);
