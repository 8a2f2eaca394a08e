/**
 * Hold'em on the cryptographic deck (docs/spec/holdem.md §11.7).
 *
 *   npm run bench holdem-deck            (in-process, then through a relay)
 *   node --import tsx bench/holdem-deck.bench.ts --players 6 [--no-relay] [--seat-profiles DIR]
 *
 * One hand of six players from a fresh deck to the showdown (automatic players who never fold), twice:
 * - in-process, the six seats and the table on the simulator's in-memory network: wall time, CPU per
 *   player (its seat's referee, proofs and signing), transcript bytes;
 * - through a relay: `fairtable relay` in its own process and six `fairtable play holdem` processes, six
 *   seats on one machine: wall time from the creator's start to the last seat's outcome, each process's CPU
 *   (user + system, read by bash's `times`), and the transcript's bytes.
 * With --seat-profiles, each seat process of the relay run writes a V8 CPU profile (node --cpu-prof) to DIR.
 * Baseline in the same run: one 52-card shuffle proved and verified, the deck's dominant cost.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { utf8 } from '@fairtable/core/bytes.js';
import { taggedHash } from '@fairtable/core/hash.js';
import { cliProcesses, main as cli } from '../test/cli-processes.js';
import { simulate } from '@fairtable/core/testing';
import { holdemSim, holdemStrategy } from '@fairtable/core/protocols/holdem/sim.js';
import { holdemRegistry } from '@fairtable/core/protocols/holdem/registry.js';
import { newDeck, shuffle, verifyShuffle, makeKeyShare } from '@fairtable/core/deck/index.js';

const args = process.argv.slice(2);
const PLAYERS = args.includes('--players') ? Number(args[args.indexOf('--players') + 1]) : 6;
const PROFILES = args.includes('--seat-profiles') ? args[args.indexOf('--seat-profiles') + 1]! : null;
const line = (label: string, value: string): void => void process.stdout.write(`${label.padEnd(56)} ${value}\n`);
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
// Process CPU time in ms: on a shared machine, what a seat's handlers cost rather than how long they waited.
const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
line('load average (1, 5, 15 min) at the start', load());

// Baseline: one shuffle of 52 cards proved, and verified.
{
  const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));
  const table = { game: 'bench', players: ['a'] };
  const key = makeKeyShare(table, 'a', random).share.key;
  const st = { table, shuffler: 'a', index: 0, key, input: newDeck(52) };
  let t = performance.now();
  const made = shuffle(st, random);
  const prove = performance.now() - t;
  t = performance.now();
  verifyShuffle({ ...st, output: made.output }, made.proof);
  line('baseline: one 52-card shuffle, prove / verify', `${prove.toFixed(0)} ms / ${(performance.now() - t).toFixed(0)} ms`);
}

// In-process.
{
  const seed = taggedHash('holdem-bench', utf8('in-process'));
  const start = performance.now();
  const r = simulate({
    protocol: 'holdem',
    extension: holdemSim,
    players: PLAYERS,
    seed,
    params: { hands: 1, timeoutMs: 600_000 },
    strategy: (id) => holdemStrategy(taggedHash('holdem-bench-strategy', seed, utf8(id))),
    registry: holdemRegistry,
    cpuClock: cpuNow,
  });
  const wall = performance.now() - start;
  const summary = r.outcome?.summary as { results?: { shown: Record<string, unknown>; board: number[] }[] } | undefined;
  const shown = Object.keys(summary?.results?.[0]?.shown ?? {}).length;
  const bytes = r.lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  line(`in-process: ${PLAYERS} players, one hand, wall`, `${(wall / 1000).toFixed(1)} s (${shown} hands shown, ${r.violations.length} violations)`);
  line(
    'in-process: CPU per player (seat: referee, proofs, signing)',
    `${r.cpuMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')}; all ${(r.cpuMs.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s`,
  );
  line('in-process: transcript of the hand', `${r.lines.length} lines, ${bytes.toLocaleString('en')} bytes`);
}

async function relayRun(): Promise<void> {
  const scratch = cliProcesses('fairtable-holdem-bench-');
  const dir = scratch.dir;
  const relay = spawn(process.execPath, [cli, 'relay', '--port', '0', '--host', '127.0.0.1', '--data', join(dir, 'data')], { stdio: ['pipe', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    relay.on('exit', (code) => reject(new Error(`relay exited ${code}`)));
    for (const stream of [relay.stdout!, relay.stderr!])
      createInterface({ input: stream }).on('line', (l) => {
        if (!l.startsWith('{')) return;
        const log = JSON.parse(l) as { msg?: string; port?: number };
        if (log.msg === 'relay listening') resolve(`http://127.0.0.1:${log.port}`);
      });
  });
  const names = Array.from({ length: PLAYERS }, (_, i) => `p${i}`);
  const files = names.map((name) => scratch.keys(name));
  // Each seat under bash, whose `times` prints the process's user and system CPU when it ends.
  // When each seat first said "ready" (connected, synced, playing): the hand starts once the last seat is seated.
  const seated: number[] = [];
  const seat = (playArgs: string[], onFirst?: (l: string) => void): Promise<{ status: number | null; cpu: number; stderr: string }> =>
    new Promise((resolve) => {
      const profile = PROFILES === null ? '' : `--cpu-prof --cpu-prof-dir="${PROFILES}"`;
      const child: ChildProcess = spawn('bash', ['-c', `"${process.execPath}" ${profile} "$@"; s=$?; times >&2; exit $s`, 'seat', cli, ...playArgs]);
      let out = '';
      let err = '';
      let told = false;
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (!told && out.includes('\n')) {
          told = true;
          onFirst?.(out.slice(0, out.indexOf('\n')));
        }
      });
      child.stderr!.on('data', (d: Buffer) => {
        const before = err.length;
        err += d.toString();
        if (/^[^:\n]+: ready$/m.test(err) && !/^[^:\n]+: ready$/m.test(err.slice(0, before))) seated.push(performance.now());
      });
      child.on('close', (status) => {
        // `times` prints the shell's line, then its children's: "0m1.234s 0m0.056s".
        const last = err.trim().split('\n').slice(-1)[0] ?? '';
        const secs = [...last.matchAll(/(\d+)m([\d.]+)s/g)].reduce((n, m) => n + Number(m[1]) * 60 + Number(m[2]), 0);
        resolve({ status, cpu: secs, stderr: err });
      });
    });
  const out = join(dir, 'p0-copy.jsonl');
  const start = performance.now();
  let joiners: Promise<{ status: number | null; cpu: number; stderr: string }[]> = Promise.resolve([]);
  const creator = await seat(
    [
      'play',
      'holdem',
      '--relay',
      url,
      '--key',
      files[0]!.key,
      '--players',
      files.map((f) => f.pub).join(','),
      '--turns',
      '1',
      '--timeout-ms',
      '600000',
      '--out',
      out,
    ],
    (first) => {
      const gameId = first.split(' ')[0]!;
      joiners = Promise.all(files.slice(1).map((f) => seat(['play', '--relay', url, '--key', f.key, '--join', gameId])));
    },
  );
  const others = await joiners;
  const end = performance.now();
  const wall = end - start;
  const handWall = seated.length === PLAYERS ? end - Math.max(...seated) : NaN;
  relay.kill();
  const runs = [creator, ...others];
  const failed = runs.filter((r) => r.status !== 0);
  if (failed.length > 0) process.stdout.write(`!!! ${failed.length} seat(s) failed:\n${failed[0]!.stderr.slice(-2000)}\n`);
  const lines = readFileSync(out, 'utf8').trim().split('\n');
  line(
    `through a relay: ${PLAYERS} seats on one machine, whole run, wall`,
    `${(wall / 1000).toFixed(1)} s (from the creator's start: Node's start of ${PLAYERS} processes included)`,
  );
  line(
    `through a relay: ${PLAYERS} seats seated, the hand, wall`,
    `${(handWall / 1000).toFixed(1)} s (goal: under 15 s; from the last seat's "ready" to the last seat's outcome: keys, shuffles, deal, betting, showdown)`,
  );
  line(
    'through a relay: CPU per player process (user + system)',
    `${runs.map((r) => `${r.cpu.toFixed(1)} s`).join(', ')}; all ${runs.reduce((n, r) => n + r.cpu, 0).toFixed(1)} s`,
  );
  line('through a relay: transcript of the hand', `${lines.length} lines, ${statSync(out).size.toLocaleString('en')} bytes`);
}

if (!args.includes('--no-relay')) await relayRun();
line('load average (1, 5, 15 min) at the end', load());
