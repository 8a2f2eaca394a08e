/**
 * `npm run bench:relay [-- --json] [--games G] [--players P] [--envelopes E] [--paced-envelopes F] [--paced-rate R] [--verify-threads N]`: the relay's throughput and
 * latency (docs/spec/relay.md). The relay runs as `fairtable relay` in its own process on a fresh data
 * directory; this process is the load: G games of P players (default 1,000 × 4), one WebSocket each,
 * every envelope signed before the clock starts. In each game the players take turns: player n mod P
 * submits line n when line n − 1 reaches it, so every game has one envelope in flight and the relay sees
 * G at once. Measured: envelopes accepted, verified, stored and fanned out a second (first submission to
 * last delivery), and the p99 of submit-to-delivery (the submission to the entry reaching the next
 * player), at saturation and, apart, at a fixed offered rate: 5,000 envelopes/s (the target) when the
 * relay sustains more, else half its throughput (or R a second, given), over F envelopes a game (default 300: 60 s at 5,000/s, long
 * enough to hold the relay's major garbage collections as they come in steady play, about one a minute,
 * where a shorter run holds one or none by chance). The relay's CPU is counted from the moment the clock starts,
 * after every connection is open and has said hello. The same load against a bare `ws` broadcast server
 * (bench/lib/ws-broadcast-server.ts: no verification, no storage) is the ceiling. The relay's peak RSS
 * is read from /proc, and so is each of its threads' CPU, by the names the relay gives them (`ft-verify`, `ft-store`;
 * the event loop is the main thread; the rest, V8's and libuv's). `openssl speed ed25519` is read before and after:
 * with the CPU of the bare server and of the load against it, it gives the budget of an envelope on this machine
 * that day, what any relay that verifies each line must spend at least (docs/BENCHMARKS.md).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair, type KeyPair } from '@fairtable/core/identity.js';
import { signHello } from '@fairtable/core/order/hello.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { clientTextFrame, LeanWebSocket } from './lib/lean-ws-client.js';
import { opensslVerifyRate } from './lib/openssl-speed.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const json = args.includes('--json');
const GAMES = flag('games', 1000);
const PLAYERS = flag('players', 4);
const ENVELOPES = flag('envelopes', 24);
/** Envelopes a game in the paced run, where latency is measured. */
const PACED_ENVELOPES = flag('paced-envelopes', 300);
/** The offered rate of the paced run, when given: else the target when the relay sustains it, else half its throughput. */
const PACED_RATE = args.includes('--paced-rate') ? flag('paced-rate', NaN) : undefined;
/** The relay's verifying threads (`fairtable relay --verify-threads`); its own default when not given. */
const VERIFY_THREADS = args.includes('--verify-threads') ? flag('verify-threads', NaN) : undefined;
if (PACED_RATE !== undefined && !(PACED_RATE > 0 && Number.isFinite(PACED_RATE))) throw new Error('--paced-rate: a number of envelopes a second above 0');
/** The figure to reach (issue 9): envelopes a second, at which latency is also measured once reached. */
const TARGET = 5000;
const say = (text: string): void => {
  if (!json) process.stdout.write(text + '\n');
};

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'packages/cli/dist/main.js');
const ceilingScript = join(root, 'bench/lib/ws-broadcast-server.ts');

interface Game {
  readonly id: string;
  readonly setupLine: string;
  /** lines[n] for n ≥ 1: the envelope line player n mod P submits. */
  readonly lines: string[];
}

/** Envelopes a game of `games` plays (its lines but the setup). */
const envelopesOf = (games: readonly Game[]): number => games[0]!.lines.length - 1;

const keys: KeyPair[] = Array.from({ length: PLAYERS }, (_, i) => generateKeyPair(new Uint8Array(32).fill(i + 1)));
const ids = keys.map((_, i) => `p${i}`);

function makeGame(g: number, envelopes: number): Game {
  const nonce = new Uint8Array(32);
  new DataView(nonce.buffer).setUint32(0, g);
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params: { timeoutMs: 600_000 },
    players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
    nonce: toHex(nonce),
    created: Date.now(),
  };
  const id = gameIdOf(setup);
  const setupEnvelope = createSetupEnvelope(setup, ids[0]!, keys[0]!);
  const setupLine = envelopeLine(setupEnvelope);
  const lines = [setupLine];
  const last = ids.map(() => ({ seq: 0, prev: id }));
  last[0] = { seq: 1, prev: envelopeHash(setupEnvelope) };
  let head = envelopeHash(setupEnvelope);
  for (let n = 1; n <= envelopes; n++) {
    const p = n % PLAYERS;
    const e: Envelope = signEnvelope(
      { v: 1, game: id, from: ids[p]!, seq: last[p]!.seq, prev: last[p]!.prev, at: n, head, time: setup.created + n, body: { type: 'note', n } },
      keys[p]!.secretKey,
      nativeSign,
    );
    head = envelopeHash(e);
    last[p] = { seq: last[p]!.seq + 1, prev: head };
    lines.push(envelopeLine(e));
  }
  return { id, setupLine, lines };
}

/**
 * The processes and data directories this bench made, removed when it exits however it exits: a bench that
 * throws (a relay answering 500, say) must not leave a relay running on the machine.
 */
const children = new Set<ChildProcess>();
const dataDirs = new Set<string>();
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function startChild(command: string[], ready: (line: string) => string | null): Promise<{ child: ChildProcess; url: string }> {
  const prof = process.env.RELAY_BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.RELAY_BENCH_PROF] : [];
  // Node's own options for the relay (RELAY_BENCH_NODE_ARGS, space-separated), for experiments with its heap.
  const nodeArgs = command[0] === cli ? (process.env.RELAY_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean) : [];
  const child = spawn(process.execPath, [...nodeArgs, ...prof, ...command], {
    stdio: ['pipe', 'pipe', 'inherit'],
    cwd: root,
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    let found = false;
    rl.on('line', (text) => {
      if (found) return;
      const url = ready(text);
      if (url !== null) {
        found = true;
        resolve({ child, url });
      }
    });
    child.once('exit', (code) => reject(new Error(`${command.join(' ')} exited (${code}) before listening`)));
  });
}

function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmHWM:\s+(\d+)/.exec(status);
  return kb === null ? NaN : Number(kb[1]) / 1024;
}

/** CPU time (user + system, every thread) the process has used, in seconds: the relay's cost per envelope, whatever else runs on the machine. */
function cpuSeconds(pid: number, thread?: number): number {
  const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of each thread of the process, by thread id, with the thread's name. */
function threadCpu(pid: number): Map<number, { name: string; seconds: number }> {
  const out = new Map<number, { name: string; seconds: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`).map(Number)) {
    try {
      out.set(tid, { name: readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(), seconds: cpuSeconds(pid, tid) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** The CPU of each of the relay's threads, by what it does (the names it gives them), in seconds. */
interface ThreadRoles {
  loop: number;
  verifying: number;
  store: number;
  other: number;
}

function roles(pid: number, threads: Map<number, { name: string; seconds: number }>): ThreadRoles {
  const out: ThreadRoles = { loop: 0, verifying: 0, store: 0, other: 0 };
  for (const [tid, t] of threads) {
    const role = tid === pid ? 'loop' : t.name === 'ft-verify' ? 'verifying' : t.name === 'ft-store' ? 'store' : 'other';
    out[role] += t.seconds;
  }
  return out;
}

/** µs an envelope of each role between two readings. */
function rolesUs(before: ThreadRoles, after: ThreadRoles, envelopes: number): ThreadRoles {
  const us = (k: keyof ThreadRoles): number => Math.round(((after[k] - before[k]) * 1e6) / envelopes);
  return { loop: us('loop'), verifying: us('verifying'), store: us('store'), other: us('other') };
}

const ENTRY = Buffer.from('{"kind":"entry","line":');

/**
 * `{"kind":"entry","line":N,…`: the line number, read from the frame's bytes without decoding or parsing
 * the message (the load generator's own cost per message comes out of the same two cores as the relay's).
 */
function entryLine(data: Buffer): number {
  if (data.length <= ENTRY.length || data.compare(ENTRY, 0, ENTRY.length, 0, ENTRY.length) !== 0) return -1;
  let n = 0;
  for (let i = ENTRY.length; i < data.length; i++) {
    const d = data[i]! - 48;
    if (d < 0 || d > 9) return data[i] === 44 && i > ENTRY.length ? n : -1;
    n = n * 10 + d;
  }
  return -1;
}

interface Result {
  readonly envelopesPerSecond: number;
  readonly p99Ms: number;
  readonly p50Ms: number;
  readonly delivered: number;
  /** This process's CPU (the load generator's, every thread) an envelope, µs. */
  readonly loadCpuUs: number;
  /** Envelopes played. */
  readonly envelopes: number;
  /** The share of deliveries that took longer than 50 ms. */
  readonly over50: number;
  readonly seconds: number;
  /** Each delivery as [submitted at (ms since the epoch), latency (ms)], in the order received. */
  readonly trace: [number, number][];
}

/** Plays every game to its last envelope against `url` (the ceiling answers no challenge, only `welcome`). */
async function load(url: string, games: readonly Game[], rate = 0, onClockStart: () => void = () => {}): Promise<Result> {
  const ENVELOPES = envelopesOf(games);
  const sockets: LeanWebSocket[][] = [];
  const sentAt: Float64Array[] = games.map(() => new Float64Array(ENVELOPES + 1));
  const latencies = new Float64Array(games.length * ENVELOPES);
  const tracing = process.env.RELAY_BENCH_TRACE !== undefined && rate > 0;
  const trace: [number, number][] = [];
  let measured = 0;
  let done = 0;
  let started = false;
  let finish: () => void = () => {};
  const finished = new Promise<void>((r) => (finish = r));
  // Paced (rate > 0): a game whose turn has come waits for the pacer, which lets `rate` envelopes a
  // second through in arrival order; unpaced, it submits at once (every game always has one in flight).
  const ready: [number, number][] = [];
  let allowance = 0;
  let pacedAt = 0;
  const pace = (): void => {
    const now = performance.now();
    allowance = Math.min(allowance + ((now - pacedAt) * rate) / 1000, Math.max(1, rate / 50));
    pacedAt = now;
    while (allowance >= 1 && ready.length > 0) {
      allowance--;
      const [g, n] = ready.shift()!;
      submit(g, n);
    }
  };
  const turn = (g: number, n: number): void => {
    if (rate === 0) submit(g, n);
    else ready.push([g, n]);
  };
  // Every message the load will send, encoded before the clock starts.
  const messages = games.map((game) => game.lines.map((text) => clientTextFrame(Buffer.from(JSON.stringify({ kind: 'submit', text })))));
  const submit = (g: number, n: number): void => {
    sentAt[g]![n] = performance.now();
    sockets[g]![n % PLAYERS]!.sendFrame(messages[g]![n]!);
  };
  // Open every connection (and say hello) before the clock starts, a few hundred at a time.
  // The load's own client (bench/lib/lean-ws-client.ts): it reads only the line number of what it is sent.
  const open = (g: number, p: number): Promise<LeanWebSocket> =>
    new Promise((resolve, reject) => {
      const onmessage = (data: Buffer, ws: LeanWebSocket): void => {
        if (!started) {
          const m = JSON.parse(data.toString()) as { kind: string; nonce?: string };
          if (m.kind === 'challenge')
            ws.send(JSON.stringify({ kind: 'hello', id: ids[p], sig: signHello(games[g]!.id, m.nonce!, keys[p]!.secretKey, nativeSign) }));
          else if (m.kind === 'welcome') resolve(ws);
          return;
        }
        const line = entryLine(data);
        // The player whose turn comes next acts on the entry before it; the others only receive.
        if (line < 1 || (line + 1) % PLAYERS !== p) return;
        latencies[measured++] = performance.now() - sentAt[g]![line]!;
        if (tracing) trace.push([performance.timeOrigin + sentAt[g]![line]!, latencies[measured - 1]!]);
        if (line === ENVELOPES) {
          if (++done === games.length) finish();
        } else turn(g, line + 1);
      };
      LeanWebSocket.open(`${url.replace(/^http/, 'ws')}/games/${games[g]!.id}/ws`, onmessage).catch(reject);
    });
  for (let g = 0; g < games.length; g += 100) {
    const batch = games.slice(g, g + 100).map((_, k) => Promise.all(ids.map((_, p) => open(g + k, p))));
    sockets.push(...(await Promise.all(batch)));
  }
  started = true;
  onClockStart();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  pacedAt = t0;
  const pacer = rate === 0 ? null : setInterval(pace, 2);
  for (let g = 0; g < games.length; g++) turn(g, 1);
  await finished;
  if (pacer !== null) clearInterval(pacer);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  for (const row of sockets) for (const ws of row) ws.terminate();
  const sorted = Array.from(latencies.subarray(0, measured)).sort((a, b) => a - b);
  return {
    envelopesPerSecond: (games.length * ENVELOPES) / seconds,
    p99Ms: sorted[Math.floor(sorted.length * 0.99)]!,
    p50Ms: sorted[Math.floor(sorted.length * 0.5)]!,
    delivered: measured,
    loadCpuUs: (cpu.user + cpu.system) / (games.length * ENVELOPES),
    envelopes: games.length * ENVELOPES,
    over50: sorted.filter((ms) => ms > 50).length / Math.max(1, sorted.length),
    seconds,
    trace,
  };
}

async function main(): Promise<void> {
  say(
    `relay bench: ${GAMES} games × ${PLAYERS} players, ${ENVELOPES} envelopes a game (${GAMES * ENVELOPES} in all) at saturation, ${PACED_ENVELOPES} a game (${GAMES * PACED_ENVELOPES}) paced`,
  );
  let t = performance.now();
  const games = Array.from({ length: GAMES }, (_, g) => makeGame(g, ENVELOPES));
  const pacedGames = Array.from({ length: GAMES }, (_, g) => makeGame(GAMES + g, PACED_ENVELOPES));
  say(`  signed ${GAMES * (ENVELOPES + PACED_ENVELOPES + 2)} envelopes in ${((performance.now() - t) / 1000).toFixed(1)} s (before the clock)`);

  // The machine's yardstick, before the relay runs and again after the ceiling's run.
  const opensslBefore = opensslVerifyRate();
  const dataDir = mkdtempSync(join(tmpdir(), 'fairtable-relay-bench-'));
  dataDirs.add(dataDir);
  // Every game and connection comes from 127.0.0.1, and the games are made with a few keys: the per-address and
  // per-key limits (relay.md §5, "Quotas") are raised to the bench's own load.
  const perAddress = [
    '--games-per-minute',
    String(2 * GAMES),
    '--connections-per-address',
    String(2 * GAMES * PLAYERS),
    '--games-per-key',
    String(2 * GAMES),
    '--games-per-address',
    String(2 * GAMES),
    ...(VERIFY_THREADS === undefined ? [] : ['--verify-threads', String(VERIFY_THREADS)]),
  ];
  const relay = await startChild([cli, 'relay', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, ...perAddress], (line) => {
    if (!line.startsWith('{')) return null;
    const log = JSON.parse(line) as { msg?: string; port?: number };
    return log.msg === 'relay listening' ? `http://127.0.0.1:${log.port}` : null;
  });
  // For diagnosis: RELAY_BENCH_RELAY_LOG=FILE keeps the relay's output (its JSON log, and what Node options
  // such as --trace-gc in RELAY_BENCH_NODE_ARGS print), else it is read and dropped.
  if (process.env.RELAY_BENCH_RELAY_LOG) relay.child.stdout!.pipe(createWriteStream(process.env.RELAY_BENCH_RELAY_LOG));
  else relay.child.stdout!.resume();
  t = performance.now();
  const all = [...games, ...pacedGames];
  for (let g = 0; g < all.length; g += 50) {
    await Promise.all(
      all.slice(g, g + 50).map(async (game) => {
        const res = await fetch(`${relay.url}/games`, { method: 'POST', body: game.setupLine });
        if (res.status !== 201) throw new Error(`POST /games answered ${res.status}: ${await res.text()}`);
      }),
    );
  }
  say(`  created ${all.length} games in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const rssBefore = peakRssMiB(relay.child.pid!);
  const pid = relay.child.pid!;
  /** The relay's CPU (all threads, the event loop, each thread) when a run's clock starts. */
  let before = { all: 0, loop: 0, threads: new Map<number, { name: string; seconds: number }>() };
  const clockStarts = (): void => {
    before = { all: cpuSeconds(pid), loop: cpuSeconds(pid, pid), threads: threadCpu(pid) };
  };
  /** µs an envelope of each kind of the relay's threads since the run's clock started. */
  const rolesSince = (envelopes: number): ThreadRoles => rolesUs(roles(pid, before.threads), roles(pid, threadCpu(pid)), envelopes);
  /** µs of the relay's CPU an envelope since the run's clock started: all threads, and the event loop alone. */
  const cpuSince = (envelopes: number): { all: number; loop: number } => ({
    all: ((cpuSeconds(pid) - before.all) * 1e6) / envelopes,
    // The main thread (its id is the process's): the event loop, which every line passes through in order.
    loop: ((cpuSeconds(pid, pid) - before.loop) * 1e6) / envelopes,
  });
  /** The relay's count of transactions (appends) so far, from its metrics. */
  const appendsSoFar = async (): Promise<number> =>
    Number(/fairtable_relay_store_append_seconds_count (\d+)/.exec(await (await fetch(`${relay.url}/metrics`)).text())?.[1] ?? NaN);
  const appends0 = await appendsSoFar();
  const measured = await load(relay.url, games, 0, clockStarts);
  const saturationRoles = rolesSince(measured.envelopes);
  const appends1 = await appendsSoFar();
  const { all: cpuUsPerEnvelope, loop: loopUsPerEnvelope } = cpuSince(measured.envelopes);
  // Latency is measured apart, at the target's 5,000 envelopes/s offered when the relay sustains more,
  // else at half the throughput just measured: at saturation every game has an envelope in flight and
  // latency is only the queue (games ÷ throughput).
  const pacedRate = PACED_RATE ?? (measured.envelopesPerSecond > TARGET ? TARGET : Math.round(measured.envelopesPerSecond / 2));
  const paced = await load(relay.url, pacedGames, pacedRate, clockStarts);
  const { all: pacedCpuUs, loop: pacedLoopUs } = cpuSince(paced.envelopes);
  const pacedRoles = rolesSince(paced.envelopes);
  const appends2 = await appendsSoFar();
  /** Lines a transaction, on average, in each run: the store's group commit. */
  const linesPerAppend = [measured.envelopes / (appends1 - appends0), paced.envelopes / (appends2 - appends1)].map((x) => Number(x.toFixed(1)));
  // For diagnosis: RELAY_BENCH_TRACE=FILE writes each paced delivery, "submitted-at-ms latency-ms" a line, and the
  // relay's process start, to line its latency up with what the relay logged (--trace-gc counts from that start).
  if (process.env.RELAY_BENCH_TRACE) {
    const started = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]) * 10;
    const boot = Number(/^btime (\d+)/m.exec(readFileSync('/proc/stat', 'utf8'))![1]) * 1000;
    writeFileSync(
      process.env.RELAY_BENCH_TRACE,
      `# relay started ${boot + started}\n` + paced.trace.map(([at, ms]) => `${at.toFixed(1)} ${ms.toFixed(2)}`).join('\n') + '\n',
    );
  }
  const rss = peakRssMiB(relay.child.pid!);
  const metrics = await (await fetch(`${relay.url}/metrics`)).text();
  const stored = /fairtable_relay_lines_accepted_total (\d+)/.exec(metrics)?.[1];
  const appends = /fairtable_relay_store_append_seconds_count (\d+)/.exec(metrics)?.[1];
  const mib = (name: string): string => (Number(new RegExp(`^${name} (\\d+)`, 'm').exec(metrics)?.[1]) / (1 << 20)).toFixed(0);
  const memoryAfter = `RSS ${mib('process_resident_memory_bytes')} MiB, heap ${mib('nodejs_heap_used_bytes')} MiB, buffers ${mib('nodejs_external_memory_bytes')} MiB`;
  relay.child.kill('SIGTERM');
  await new Promise((r) => relay.child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });

  const ceilingServer = await startChild(['--import', 'tsx', ceilingScript], (line) => `http://127.0.0.1:${line.trim()}`);
  const ceilingPid = ceilingServer.child.pid!;
  let ceilingCpu0 = 0;
  const ceiling = await load(ceilingServer.url, games, 0, () => (ceilingCpu0 = cpuSeconds(ceilingPid)));
  const ceilingServerUs = ((cpuSeconds(ceilingPid) - ceilingCpu0) * 1e6) / ceiling.envelopes;
  ceilingServer.child.stdin!.end();
  await new Promise((r) => ceilingServer.child.once('exit', r));
  const opensslAfter = opensslVerifyRate();
  // The budget of an envelope on this machine today, in µs of CPU. Any relay that verifies each line spends at least the
  // bare server's transport and one verification at OpenSSL's own rate, and the load generator its share; 5,000 a
  // second of them need that many millionths of the machine's cores.
  const openssl = opensslBefore !== null && opensslAfter !== null ? (opensslBefore + opensslAfter) / 2 : null;
  const verifyUs = openssl === null ? NaN : 1e6 / openssl;
  const floorUs = ceilingServerUs + ceiling.loadCpuUs + verifyUs;
  const coresAt = (us: number): number => Number(((TARGET * us) / 1e6).toFixed(2));
  // Paced at the target, that run's figures; else the saturation's, the nearest to it.
  const relayAndLoadUs = pacedRate === TARGET ? pacedCpuUs + paced.loadCpuUs : cpuUsPerEnvelope + measured.loadCpuUs;

  const ratio = measured.envelopesPerSecond / ceiling.envelopesPerSecond;
  if (json) {
    process.stdout.write(
      JSON.stringify({
        envelopesPerSecond: Math.round(measured.envelopesPerSecond),
        p99Ms: Number(paced.p99Ms.toFixed(1)),
        p99AtRate: pacedRate,
        p99AtSaturationMs: Number(measured.p99Ms.toFixed(1)),
        ceilingEnvelopesPerSecond: Math.round(ceiling.envelopesPerSecond),
        ratio: Number(ratio.toFixed(3)),
        relayPeakRssMiB: Math.round(rss),
        relayCpuUsPerEnvelope: Math.round(cpuUsPerEnvelope),
        relayEventLoopCpuUsPerEnvelope: Math.round(loopUsPerEnvelope),
        loadCpuUsPerEnvelope: Math.round(measured.loadCpuUs),
        relayThreadsCpuUsPerEnvelope: saturationRoles,
        relayThreadsCpuUsPerEnvelopePaced: pacedRoles,
        linesPerTransaction: linesPerAppend,
        ceilingServerCpuUsPerEnvelope: Math.round(ceilingServerUs),
        ceilingLoadCpuUsPerEnvelope: Math.round(ceiling.loadCpuUs),
        opensslVerifyPerSecond: [opensslBefore, opensslAfter],
        coresAt5000: { relayAndLoad: coresAt(relayAndLoadUs), floor: coresAt(floorUs) },
      }) + '\n',
    );
    return;
  }
  say(
    `  relay:   ${Math.round(measured.envelopesPerSecond)} envelopes/s accepted, verified, stored and fanned out; p50 ${measured.p50Ms.toFixed(1)} ms, p99 ${measured.p99Ms.toFixed(1)} ms (stored: ${stored}, in ${appends} transactions)`,
  );
  say(
    `  relay paced at ${pacedRate} envelopes/s offered: ${Math.round(paced.envelopesPerSecond)} envelopes/s for ${paced.seconds.toFixed(1)} s (${paced.envelopes} envelopes), p50 ${paced.p50Ms.toFixed(1)} ms, p99 ${paced.p99Ms.toFixed(1)} ms, ${(100 * paced.over50).toFixed(2)}% over 50 ms`,
  );
  say(
    `  ceiling: ${Math.round(ceiling.envelopesPerSecond)} envelopes/s through a bare ws broadcast; p50 ${ceiling.p50Ms.toFixed(1)} ms, p99 ${ceiling.p99Ms.toFixed(1)} ms`,
  );
  say(`  ratio:   ${ratio.toFixed(3)}`);
  say(`  relay CPU at saturation: ${cpuUsPerEnvelope.toFixed(0)} µs an envelope (all its threads), ${loopUsPerEnvelope.toFixed(0)} µs on the event loop`);
  say(`  relay CPU paced at ${pacedRate}/s: ${pacedCpuUs.toFixed(0)} µs an envelope (all its threads), ${pacedLoopUs.toFixed(0)} µs on the event loop`);
  say(
    `  load generator CPU at saturation: ${measured.loadCpuUs.toFixed(0)} µs an envelope against the relay, ${ceiling.loadCpuUs.toFixed(0)} against the ceiling`,
  );
  const showRoles = (r: ThreadRoles): string => `event loop ${r.loop}, verifying ${r.verifying}, store ${r.store}, V8 and libuv ${r.other}`;
  say(`  relay CPU by thread, µs an envelope: at saturation ${showRoles(saturationRoles)}; paced ${showRoles(pacedRoles)}`);
  say(`  lines a transaction: ${linesPerAppend[0]} at saturation, ${linesPerAppend[1]} paced`);
  say(
    `  the budget at ${TARGET}/s: the relay and the load need ${coresAt(relayAndLoadUs)} of the machine's cores (${relayAndLoadUs.toFixed(0)} µs an envelope, ${pacedRate === TARGET ? 'paced' : 'at saturation'}); ` +
      `any relay that verifies each line at least ${coresAt(floorUs)} (the bare server ${ceilingServerUs.toFixed(0)} µs, the load against it ${ceiling.loadCpuUs.toFixed(0)} µs, ` +
      `a verification at openssl's ${openssl === null ? '?' : Math.round(openssl)}/s ${verifyUs.toFixed(0)} µs; openssl ${opensslBefore ?? '?'} before, ${opensslAfter ?? '?'} after)`,
  );
  say(`  relay memory: peak RSS ${rss.toFixed(0)} MiB (${rssBefore.toFixed(0)} MiB with the games created, before the load); after the load: ${memoryAfter}`);
}

await main();
