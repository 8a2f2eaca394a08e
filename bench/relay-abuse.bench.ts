/**
 * `npm run bench:relay-abuse [-- --games G] [--think MS] [--seconds S] [--fetchers F] [--no-disk | --only-disk]`: the relay under abuse (docs/spec/relay.md
 * §5, "Quotas", "Reads", "Storage"). The relay runs as `fairtable relay` in its own process; this process is
 * the load and the attacker:
 * 1. one game is filled to its byte quota (lines of about 1 MB until `game_full`);
 * 2. G honest games of two players (default 1,000, one WebSocket a player) play, each player answering the
 *    other's line after about MS (default 2,000, so 500 lines a second in all), while F clients (default 32) fetch the full game's transcript over and
 *    over: the relay's peak RSS (VmHWM, /proc) and the honest games' p99 of submit-to-delivery;
 * 3. the honest games' p99 for S seconds with nobody else, then for S seconds while one connection sends `sync`
 *    from line 0 of the full game as fast as the message rate allows (and reads what it is sent);
 * 4. a full disk (a tmpfs mounted for it; needs root, else skipped and said so): the time from space returning
 *    to the first line accepted again, with writes stopped by the free-space threshold, and with writes
 *    failing (SQLITE_FULL) under a threshold of 0; and a relay restarted on the full disk.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair, type KeyPair } from '@fairtable/core/identity.js';
import { signHello } from '@fairtable/core/order/hello.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { clientTextFrame, LeanWebSocket } from './lib/lean-ws-client.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const GAMES = flag('games', 1000);
const SECONDS = flag('seconds', 8);
const FETCHERS = flag('fetchers', 32);
/** Each honest player answers the other's line after about this long (ms): G games offer G × 1000 / THINK lines a second. */
const THINK = flag('think', 2000);
const say = (text: string): void => void process.stdout.write(text + '\n');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'packages/cli/dist/main.js');

const children = new Set<ChildProcess>();
const cleanups: (() => void)[] = [];
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const f of cleanups.reverse()) f();
});

/** `fairtable relay` on `dataDir` with `flags`; resolves with its URL once it listens. */
function startRelay(dataDir: string, flags: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [cli, 'relay', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, ...flags], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.stderr!.resume();
  return new Promise((resolve, reject) => {
    let found = false;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (found || !line.startsWith('{')) return;
      const log = JSON.parse(line) as { msg?: string; port?: number };
      if (log.msg === 'relay listening') {
        found = true;
        resolve({ child, url: `http://127.0.0.1:${log.port}` });
      }
    });
    child.once('exit', (code) => {
      if (!found) reject(new Error(`the relay exited (${code}) before listening`));
    });
  });
}

const stopRelay = async (child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
};

/** CPU seconds (user + system, all threads) process `pid` has used. */
const cpuOf = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

const rssMiB = (pid: number, field: 'VmRSS' | 'VmHWM'): number =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

interface Game {
  readonly id: string;
  readonly setupLine: string;
  readonly keys: readonly KeyPair[];
}

function makeGame(n: number, players = 2): Game {
  const keys = Array.from({ length: players }, (_, i) => generateKeyPair(new Uint8Array(32).fill((n * 7 + i + 1) % 251)));
  const nonce = new Uint8Array(32);
  new DataView(nonce.buffer).setUint32(0, n);
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params: { timeoutMs: 600_000 },
    players: keys.map((k, i) => ({ id: `p${i}`, key: toHex(k.publicKey) })),
    nonce: toHex(nonce),
    created: Date.now(),
  };
  return { id: gameIdOf(setup), setupLine: envelopeLine(createSetupEnvelope(setup, 'p0', keys[0]!)), keys };
}

/** Lines 1..count of `g`, player n mod 2 writing line n (`noteBytes` of note each). */
function linesOf(g: Game, count: number, noteBytes = 8): string[] {
  const setupHash = envelopeHash(JSON.parse(g.setupLine) as Envelope);
  const last = [
    { seq: 1, prev: setupHash },
    { seq: 0, prev: g.id },
  ];
  let head = setupHash;
  const out = [g.setupLine];
  for (let n = 1; n <= count; n++) {
    const p = n % 2;
    const e = signEnvelope(
      {
        v: 1,
        game: g.id,
        from: `p${p}`,
        seq: last[p]!.seq,
        prev: last[p]!.prev,
        at: n,
        head,
        time: n,
        body: { type: 'note', note: `${n}`.padEnd(noteBytes, '.') },
      },
      g.keys[p]!.secretKey,
      nativeSign,
    );
    head = envelopeHash(e);
    last[p] = { seq: last[p]!.seq + 1, prev: head };
    out.push(envelopeLine(e));
  }
  return out;
}

async function create(url: string, g: Game): Promise<number> {
  const res = await fetch(`${url}/games`, { method: 'POST', body: g.setupLine });
  await res.text();
  return res.status;
}

/** A `ws` client of `g` said hello as player `p`; its messages go to `onMessage`. */
async function joinAs(url: string, g: Game, p: number, onMessage: (m: Record<string, unknown>, raw: Buffer) => void = () => {}): Promise<WebSocket> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/games/${g.id}/ws`, { maxPayload: 64 << 20 });
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.on('message', (data: Buffer) => {
      // A large frame is an entry, counted and not parsed: the load's own event loop is the honest players' clock.
      const m = (data.length > 65_536 ? { kind: 'entry' } : JSON.parse(data.toString())) as Record<string, unknown>;
      if (m.kind === 'challenge')
        ws.send(JSON.stringify({ kind: 'hello', id: `p${p}`, sig: signHello(g.id, m.nonce as string, g.keys[p]!.secretKey, nativeSign) }));
      else if (m.kind === 'welcome') resolve();
      else onMessage(m, data);
    });
  });
  return ws;
}

/** Submits `text` on `ws` and waits for its answer (`accepted`, `refused` or an `error`). */
function submit(ws: WebSocket, text: string): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const done = (m: Record<string, unknown>): void => {
      ws.off('message', on);
      ws.off('close', closed);
      resolve(m);
    };
    const on = (data: Buffer): void => {
      const m = JSON.parse(data.toString()) as Record<string, unknown>;
      if (m.kind === 'accepted' || m.kind === 'refused' || m.kind === 'error') done(m);
    };
    const closed = (): void => done({ kind: 'closed' });
    ws.on('message', on);
    ws.on('close', closed);
    // A relay that answers nothing is reported, not waited for.
    setTimeout(() => done({ kind: 'no answer' }), 30_000).unref();
    ws.send(JSON.stringify({ kind: 'submit', text }));
  });
}

const ENTRY = Buffer.from('{"kind":"entry","line":');
function entryLine(data: Buffer): number {
  if (data.length <= ENTRY.length || data.compare(ENTRY, 0, ENTRY.length, 0, ENTRY.length) !== 0) return -1;
  let n = 0;
  for (let i = ENTRY.length; i < data.length; i++) {
    const d = data[i]! - 48;
    if (d < 0 || d > 9) return data[i] === 44 ? n : -1;
    n = n * 10 + d;
  }
  return -1;
}

/** The honest games: two players each, one line in flight a game, each answered after about `thinkMs`. */
class Honest {
  private readonly sockets: LeanWebSocket[][] = [];
  private readonly frames: Buffer[][];
  private readonly sentAt: Float64Array[];
  private readonly next: number[];
  private latencies: number[] = [];
  private playing = false;
  /** The phase being played: a player's answer scheduled in an earlier phase is not sent in a later one. */
  private phase = 0;

  constructor(
    private readonly games: readonly Game[],
    lines: readonly string[][],
    private readonly thinkMs: number,
  ) {
    this.frames = lines.map((ls) => ls.map((text) => clientTextFrame(Buffer.from(JSON.stringify({ kind: 'submit', text })))));
    this.sentAt = lines.map((ls) => new Float64Array(ls.length));
    this.next = games.map(() => 1);
  }

  async open(url: string): Promise<void> {
    const openOne = (g: number, p: number): Promise<LeanWebSocket> =>
      new Promise((resolve, reject) => {
        let welcomed = false;
        LeanWebSocket.open(`${url.replace(/^http/, 'ws')}/games/${this.games[g]!.id}/ws`, (data, ws) => {
          if (!welcomed) {
            const m = JSON.parse(data.toString()) as { kind: string; nonce?: string };
            if (m.kind === 'challenge')
              ws.send(
                JSON.stringify({ kind: 'hello', id: `p${p}`, sig: signHello(this.games[g]!.id, m.nonce!, this.games[g]!.keys[p]!.secretKey, nativeSign) }),
              );
            else if (m.kind === 'welcome') {
              welcomed = true;
              resolve(ws);
            }
            return;
          }
          const line = entryLine(data);
          // The player who writes the next line takes the delivery of this one.
          if (line < 1 || (line + 1) % 2 !== p) return;
          if (this.playing) this.latencies.push(performance.now() - this.sentAt[g]![line]!);
          this.next[g] = line + 1;
          const phase = this.phase;
          if (this.playing) setTimeout(() => phase === this.phase && this.send(g), this.thinkMs * (0.5 + Math.random()));
        }).catch(reject);
      });
    for (let g = 0; g < this.games.length; g += 100) {
      const batch = this.games.slice(g, g + 100).map((_, k) => Promise.all([openOne(g + k, 0), openOne(g + k, 1)]));
      this.sockets.push(...(await Promise.all(batch)));
    }
  }

  private send(g: number): void {
    const n = this.next[g]!;
    if (!this.playing || n >= this.frames[g]!.length) return;
    this.sentAt[g]![n] = performance.now();
    this.sockets[g]![n % 2]!.sendFrame(this.frames[g]![n]!);
  }

  /** Plays for `seconds`; the p50 and p99 of submit-to-delivery (ms) and the deliveries measured. */
  async play(seconds: number): Promise<{ p50: number; p99: number; n: number }> {
    this.latencies = [];
    this.playing = true;
    const phase = ++this.phase;
    for (let g = 0; g < this.games.length; g++) setTimeout(() => phase === this.phase && this.send(g), Math.random() * this.thinkMs);
    await sleep(seconds * 1000);
    this.playing = false;
    // The lines in flight arrive; they are not counted.
    await sleep(500);
    const sorted = this.latencies.sort((a, b) => a - b);
    return { p50: sorted[Math.floor(sorted.length * 0.5)] ?? NaN, p99: sorted[Math.floor(sorted.length * 0.99)] ?? NaN, n: sorted.length };
  }

  close(): void {
    for (const row of this.sockets) for (const ws of row) ws.terminate();
  }
}

/** Lines 1..count of `g`, all of player p1, `noteBytes` of note each. */
function soloLines(g: Game, count: number, noteBytes: number): string[] {
  let head = envelopeHash(JSON.parse(g.setupLine) as Envelope);
  let prev = g.id;
  const out: string[] = [];
  for (let seq = 0; seq < count; seq++) {
    const e = signEnvelope(
      { v: 1, game: g.id, from: 'p1', seq, prev, at: seq + 1, head, time: seq, body: { type: 'note', note: `${seq}`.padEnd(noteBytes, '.') } },
      g.keys[1]!.secretKey,
      nativeSign,
    );
    out.push(envelopeLine(e));
    head = prev = envelopeHash(e);
  }
  return out;
}

/** Fills `g` on `url` with lines of about 1 MB until the relay refuses one; the lines accepted and the refusal's code. */
async function fillGame(url: string, g: Game): Promise<{ lines: number; code: string }> {
  const ws = await joinAs(url, g, 1);
  const setupHash = envelopeHash(JSON.parse(g.setupLine) as Envelope);
  let head = setupHash;
  let prev = g.id;
  for (let seq = 0; ; seq++) {
    const e = signEnvelope(
      { v: 1, game: g.id, from: 'p1', seq, prev, at: seq + 1, head, time: seq, body: { type: 'note', note: `${seq}`.padEnd(1_000_000, '.') } },
      g.keys[1]!.secretKey,
      nativeSign,
    );
    const answer = await submit(ws, envelopeLine(e));
    if (answer.kind !== 'accepted') {
      ws.terminate();
      return { lines: seq, code: String(answer.code) };
    }
    head = prev = envelopeHash(e);
  }
}

async function abuse(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fairtable-relay-abuse-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  // Every client is 127.0.0.1: the per-address limits are raised to the bench's load, and reads per address to
  // the fetchers' count, so that all of them are served at once (with the default of 4, 28 would be refused).
  const flags = ['--games-per-minute', String(4 * GAMES), '--connections-per-address', String(4 * GAMES), '--games-per-address', String(4 * GAMES)];
  const relay = await startRelay(dataDir, [...flags, '--reads-per-address', String(FETCHERS)]);
  const pid = relay.child.pid!;
  say(
    `relay abuse bench: ${GAMES} honest games of 2 players (about ${Math.round((GAMES * 1000) / THINK)} lines a second offered); ${FETCHERS} fetchers; ${SECONDS} s a phase`,
  );
  const full = makeGame(1_000_000);
  await create(relay.url, full);
  const t = performance.now();
  const filled = await fillGame(relay.url, full);
  say(`  filled one game to its quota: ${filled.lines} lines of 1 MB, then refused ${filled.code} (${((performance.now() - t) / 1000).toFixed(1)} s)`);

  const games = Array.from({ length: GAMES }, (_, g) => makeGame(g));
  // Enough lines for every phase at one line a second a game (and a margin).
  const lines = games.map((g) => linesOf(g, Math.ceil((4 * SECONDS * 1000) / THINK) + 20));
  for (let g = 0; g < games.length; g += 50) await Promise.all(games.slice(g, g + 50).map((game) => create(relay.url, game)));
  const honest = new Honest(games, lines, THINK);
  /** The relay's and this process's CPU over a phase, as a share of one core. */
  let cpuAt = { relay: 0, load: 0, t: 0 };
  const cpuStart = (): void => {
    const u = process.cpuUsage();
    cpuAt = { relay: cpuOf(pid), load: (u.user + u.system) / 1e6, t: performance.now() };
  };
  const cpuShare = (): string => {
    const u = process.cpuUsage();
    const s = (performance.now() - cpuAt.t) / 1000;
    return `relay CPU ${((100 * (cpuOf(pid) - cpuAt.relay)) / s).toFixed(0)}% of a core, load ${((100 * ((u.user + u.system) / 1e6 - cpuAt.load)) / s).toFixed(0)}%`;
  };
  await honest.open(relay.url);
  const rssIdle = rssMiB(pid, 'VmRSS');
  say(`  ${GAMES} honest games open; relay RSS ${rssIdle.toFixed(0)} MiB, peak so far ${rssMiB(pid, 'VmHWM').toFixed(0)} MiB`);

  // 2. The fetchers, in a process of their own (their reading is not the honest players' clock), each fetching the
  // full game's transcript again and again while the honest games play.
  const fetcherScript = `
    const [url, n, ms] = process.argv.slice(1);
    const t0 = performance.now();
    let fetching = true, fetched = 0, bytes = 0; const refused = {};
    const stop = new AbortController();
    setTimeout(() => { fetching = false; stop.abort(); }, Number(ms));
    await Promise.all(Array.from({ length: Number(n) }, async () => {
      while (fetching) {
        try {
          const res = await fetch(url, { signal: stop.signal });
          if (res.status !== 200) { refused[res.status] = (refused[res.status] ?? 0) + 1; await res.text(); await new Promise((r) => setTimeout(r, 200)); continue; }
          for await (const chunk of res.body) bytes += chunk.length;
          fetched++;
        } catch {}
      }
    }));
    process.stdout.write(JSON.stringify({ fetched, bytes, refused, seconds: (performance.now() - t0) / 1000 }));`;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid, 'VmRSS'))), 100);
  const fetcher = spawn(
    process.execPath,
    ['--input-type=module', '-e', fetcherScript, `${relay.url}/games/${full.id}/transcript`, String(FETCHERS), String(SECONDS * 1000)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.add(fetcher);
  let fetcherOut = '';
  fetcher.stdout!.on('data', (b: Buffer) => (fetcherOut += b.toString()));
  const fetcherDone = new Promise((r) => fetcher.once('exit', r));
  cpuStart();
  const during = await honest.play(SECONDS);
  const duringCpu = cpuShare();
  await fetcherDone;
  clearInterval(sampler);
  const f = JSON.parse(fetcherOut || '{"fetched":0,"bytes":0,"refused":{},"seconds":0}') as {
    fetched: number;
    bytes: number;
    refused: Record<string, number>;
    seconds: number;
  };
  say(
    `  ${FETCHERS} fetchers of the full game: ${f.fetched} whole transcripts and ${(f.bytes / 2 ** 20).toFixed(0)} MiB in all in ${f.seconds.toFixed(1)} s (cut off at the end)${Object.keys(f.refused).length === 0 ? '' : `, refused ${JSON.stringify(f.refused)}`}; relay RSS peak ${peak.toFixed(0)} MiB sampled, VmHWM ${rssMiB(pid, 'VmHWM').toFixed(0)} MiB; honest p50 ${during.p50.toFixed(1)} ms, p99 ${during.p99.toFixed(1)} ms (${during.n} lines; ${duringCpu})`,
  );

  // 3. Honest p99 alone, then with a sync flood.
  cpuStart();
  const alone = await honest.play(SECONDS);
  const aloneCpu = cpuShare();
  let syncEntries = 0;
  let syncBytes = 0;
  const flooder = await joinAs(relay.url, full, 0, (m, raw) => {
    if (m.kind === 'entry') {
      syncEntries++;
      syncBytes += raw.length;
    }
  });
  let flooding = true;
  let asked = 0;
  const flood = (async () => {
    // 180 a second: under the message rate (200 a second), so the connection is not cut for its rate.
    while (flooding && flooder.readyState === WebSocket.OPEN) {
      flooder.send(JSON.stringify({ kind: 'sync', from: 0 }));
      asked++;
      await sleep(1000 / 180);
    }
  })();
  cpuStart();
  const flooded = await honest.play(SECONDS);
  const floodedCpu = cpuShare();
  flooding = false;
  await flood;
  const cut = flooder.readyState !== WebSocket.OPEN;
  flooder.terminate();
  say(`  honest alone: p50 ${alone.p50.toFixed(1)} ms, p99 ${alone.p99.toFixed(1)} ms (${alone.n} lines; ${aloneCpu})`);
  say(
    `  honest with a sync flood: p50 ${flooded.p50.toFixed(1)} ms, p99 ${flooded.p99.toFixed(1)} ms (${flooded.n} lines), ${(flooded.p99 / alone.p99).toFixed(2)}× alone; the flooder asked ${asked} syncs, got ${syncEntries} entries (${(syncBytes / 2 ** 20).toFixed(0)} MiB)${cut ? ', and was cut off' : ''}; ${floodedCpu}`,
  );
  say(`  relay peak RSS over the whole run (VmHWM): ${rssMiB(pid, 'VmHWM').toFixed(0)} MiB`);
  honest.close();
  await stopRelay(relay.child);
}

/** Writes zeros to `file` until the disk is full, or until `leave` bytes are left free; the bytes written. */
function fill(file: string, dir: string, leave = 0): number {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(256 << 10);
  let written = 0;
  try {
    for (;;) {
      if (leave > 0) {
        const out = spawnSync('stat', ['-f', '-c', '%a %S', dir], { encoding: 'utf8' });
        const [blocks, size] = out.stdout.trim().split(' ').map(Number);
        if (blocks! * size! - chunk.length < leave) break;
      }
      written += writeSync(fd, chunk);
    }
  } catch {
    // ENOSPC: full.
  } finally {
    closeSync(fd);
  }
  return written;
}

/** Resubmits `text` every 10 ms until it is accepted; ms from `since` (NaN after 60 s without). */
async function untilAccepted(url: string, g: Game, text: string, since: number): Promise<number> {
  while (performance.now() - since < 60_000) {
    try {
      const ws = await joinAs(url, g, 1);
      for (let i = 0; i < 500; i++) {
        const answer = await Promise.race([submit(ws, text), sleep(5000).then(() => ({ kind: 'no answer' }))]);
        if (answer.kind === 'accepted') {
          ws.terminate();
          return performance.now() - since;
        }
        if (answer.kind !== 'refused') break;
        await sleep(10);
      }
      ws.terminate();
    } catch {
      // The relay closed the connection (a failed write): connect again.
    }
    await sleep(10);
  }
  return NaN;
}

async function disk(): Promise<void> {
  const mount = mkdtempSync(join(tmpdir(), 'fairtable-relay-disk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mount], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    say(`  full disk: skipped (cannot mount a tmpfs: ${mounted.stderr.trim()}); the tests simulate it with a threshold`);
    rmSync(mount, { recursive: true, force: true });
    return;
  }
  cleanups.push(() => {
    spawnSync('umount', [mount]);
    rmSync(mount, { recursive: true, force: true });
  });
  const dataDir = join(mount, 'data');
  mkdirSync(dataDir);
  const filler = join(mount, 'filler');
  const g = makeGame(2_000_000);
  // Lines 1.. of the game, all p1's (the bench resubmits as p1).
  const lines = [g.setupLine, ...soloLines(g, 6, 2000)];

  // Writes stopped by the threshold (4 MiB here: the tmpfs is 48 MiB).
  let relay = await startRelay(dataDir, ['--min-free-bytes', String(4 << 20)]);
  await create(relay.url, g);
  const ws = await joinAs(relay.url, g, 1);
  if ((await submit(ws, lines[1]!)).kind !== 'accepted') throw new Error('line 1 was not accepted');
  fill(filler, mount, 2 << 20);
  await sleep(1500);
  const refusal = await submit(ws, lines[2]!);
  const health = (await (await fetch(`${relay.url}/health`)).json()) as Record<string, unknown>;
  ws.terminate();
  let since = performance.now();
  unlinkSync(filler);
  const byThreshold = await untilAccepted(relay.url, g, lines[2]!, since);
  say(
    `  full disk (tmpfs of 48 MiB, threshold 4 MiB): refused ${String(refusal.code)}, /health ${JSON.stringify(health)}; space returned → first line accepted in ${byThreshold.toFixed(0)} ms`,
  );
  await stopRelay(relay.child);

  // Writes that fail (SQLITE_FULL) under a threshold of 0: the disk filled to the last byte.
  relay = await startRelay(dataDir, ['--min-free-bytes', '0']);
  fill(filler, mount);
  const ws2 = await joinAs(relay.url, g, 1);
  const failed = await submit(ws2, lines[3]!);
  ws2.terminate();
  since = performance.now();
  unlinkSync(filler);
  const afterFailure = await untilAccepted(relay.url, g, lines[3]!, since);
  say(
    `  full disk, threshold 0 (the append fails): the submitter got ${failed.kind} ${String(failed.code)}; space returned → first line accepted in ${afterFailure.toFixed(0)} ms; the relay ${relay.child.exitCode === null ? 'kept running' : `exited ${relay.child.exitCode}`}`,
  );

  // Killed on a full disk and started again on it.
  fill(filler, mount);
  await stopRelay(relay.child, 'SIGKILL');
  let restarted: string;
  try {
    relay = await startRelay(dataDir, ['--min-free-bytes', '0']);
    const h = (await (await fetch(`${relay.url}/health`)).json()) as Record<string, unknown>;
    const ws3 = await joinAs(relay.url, g, 1);
    const answer = await submit(ws3, lines[4]!);
    ws3.terminate();
    since = performance.now();
    unlinkSync(filler);
    const back = await untilAccepted(relay.url, g, lines[4]!, since);
    const transcript = (await (await fetch(`${relay.url}/games/${g.id}/transcript`)).text()).trim().split('\n').length;
    restarted = `started (health ${JSON.stringify(h)}), a line got ${answer.kind} ${String(answer.code ?? '')}, space returned → accepted in ${back.toFixed(0)} ms; the transcript holds ${transcript} lines`;
    await stopRelay(relay.child);
  } catch (e) {
    restarted = `did not start: ${(e as Error).message}`;
  }
  say(`  restarted on the full disk: ${restarted}`);
}

if (!args.includes('--only-disk')) await abuse();
if (!args.includes('--no-disk')) await disk();
process.exit(0);
