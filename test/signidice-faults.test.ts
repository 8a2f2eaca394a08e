/**
 * Signidice as separate programs when things go wrong (docs/SPEC.md §10.4):
 * coded one-line errors and non-zero exits for a refused connection, a server
 * that is not a table, a house that dies or goes silent; a house killed with
 * SIGKILL mid-game that loses no accepted line and resumes the same game; and
 * a player that floods the house with sync requests it never reads, which is
 * disconnected and named while the house plays on in bounded memory.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { concatBytes, fromHex, toHex, utf8 } from '@fairtable/core/bytes.js';
import { fromKeyFile } from '@fairtable/core/identity.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import { nativeSign } from '@fairtable/node/native-verify.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const main = join(root, 'packages/cli/dist/main.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-faults-'));

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [main, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Run {
  readonly child: ChildProcess;
  readonly done: Promise<{ code: number | null; out: string; err: string }>;
  readonly err: () => string;
}

function start(args: string[]): Run {
  const child = spawn(process.execPath, [main, ...args], { cwd: dir });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) => child.on('close', (code) => resolve({ code, out, err })));
  return { child, done, err: () => err };
}

async function portOf(house: Run): Promise<number> {
  return new Promise((resolve, reject) => {
    let buf = '';
    house.child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /PORT (\d+)/.exec(buf);
      if (m) resolve(Number(m[1]));
    });
    house.child.on('close', () => reject(new Error(`the house exited: ${house.err()}`)));
  });
}

async function until(cond: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The complete lines of a file (a last line without its newline is not yet complete). */
const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(0, -1) : []);

/** One coded line on stderr, no stack trace. */
function expectCoded(err: string, code: string): void {
  expect(err.trim().split('\n')).toHaveLength(1);
  expect(err).toMatch(new RegExp(`^fairtable: \\[${code}\\] `));
  expect(err).not.toMatch(/\n\s+at /);
}

beforeAll(() => {
  const b = spawnSync('npx', ['tsc', '-b', 'packages/cli'], { cwd: root, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`build failed: ${b.stdout}${b.stderr}`);
  for (const name of ['house', 'alice', 'bob']) writeFileSync(join(dir, `${name}.pub.json`), cli(['keygen', '--name', name, '--out', `${name}.json`]).stdout);
}, 120_000);

/** The house of alice and bob's Signidice game, on any free port, appending its transcript to `out`. */
const startHouse = (rounds: number, timeoutMs: number, out: string) =>
  start([
    'signidice',
    'house',
    '--key',
    'house.json',
    '--players',
    'alice.pub.json,bob.pub.json',
    '--rounds',
    String(rounds),
    '--timeout-ms',
    String(timeoutMs),
    '--out',
    out,
  ]);

describe('signidice play: coded errors and non-zero exits', () => {
  it('a refused connection, a server that is not a table, a bad option', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const free = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const refused = cli(['signidice', 'play', '--key', 'alice.json', '--port', String(free), '--reconnect-ms', '0']);
    expect(refused.status).toBe(2);
    expectCoded(refused.stderr, 'connection_refused');

    const junk = createServer((s) => s.end('SSH-2.0-OpenSSH_9.6\r\n'));
    await new Promise<void>((r) => junk.listen(0, '127.0.0.1', () => r()));
    const bad = start(['signidice', 'play', '--key', 'alice.json', '--port', String((junk.address() as { port: number }).port)]);
    const r = await bad.done;
    junk.close();
    expect(r.code).toBe(2);
    expectCoded(r.err, 'bad_challenge');

    const banana = cli(['signidice', 'house', '--key', 'house.json', '--players', 'alice.pub.json', '--wheel', 'banana']);
    expect(banana.status).toBe(2);
    expectCoded(banana.stderr, 'bad_input');
    const port = cli(['signidice', 'play', '--key', 'alice.json', '--port', 'abc']);
    expect(port.status).toBe(2);
    expectCoded(port.stderr, 'out_of_range');
  });

  it('a house that goes silent (SIGSTOP) or dies (SIGKILL) ends the player with a coded error; the player’s copy is a prefix of the house’s file', async () => {
    for (const signal of ['SIGSTOP', 'SIGKILL'] as const) {
      const out = join(dir, `dies-${signal}.jsonl`);
      const copy = join(dir, `dies-${signal}-alice.jsonl`);
      const house = startHouse(5, 60000, out);
      const port = await portOf(house);
      const alice = start([
        'signidice',
        'play',
        '--key',
        'alice.json',
        '--port',
        String(port),
        '--out',
        copy,
        '--silence-ms',
        '1500',
        '--reconnect-ms',
        '1000',
      ]);
      // bob never comes: the game waits on him, so the house is mid-game when it stops.
      await until(() => lines(copy).length >= 2, 20_000);
      house.child.kill(signal);
      const r = await alice.done;
      expect(r.code).toBe(2);
      expectCoded(r.err, signal === 'SIGSTOP' ? 'table_silent' : 'connection_refused');
      const mine = lines(copy);
      expect(lines(out).slice(0, mine.length)).toEqual(mine);
      if (signal === 'SIGSTOP') house.child.kill('SIGKILL');
      await house.done;
    }
  }, 60_000);
});

describe('a house killed mid-game', () => {
  it('has appended every line it accepted, and resumes the same game, which finishes and audits valid', async () => {
    const out = join(dir, 'resume.jsonl');
    const house = startHouse(5, 8000, out);
    const port = await portOf(house);
    const copies = ['alice', 'bob'].map((p) => join(dir, `resume-${p}.jsonl`));
    const players = ['alice', 'bob'].map((p, i) =>
      start(['signidice', 'play', '--key', `${p}.json`, '--port', String(port), '--out', copies[i]!, '--reconnect-ms', '20000']),
    );
    // Mid-game: past the first bets, before the end (a full game here is 1 + 5 × 6 = 31 lines).
    await until(() => lines(out).length >= 6, 30_000);
    house.child.kill('SIGKILL');
    await house.done;
    const kept = lines(out);
    expect(kept.length).toBeGreaterThanOrEqual(6);
    expect(kept.length).toBeLessThan(31);
    // Every line any player saw had been appended by the house before it was sent.
    for (const c of copies) expect(kept.slice(0, lines(c).length)).toEqual(lines(c));
    // A write the crash cut short: the resumed house drops it from the file.
    appendFileSync(out, '{"at":7,"body":{"type":"si');

    const again = start(['signidice', 'house', '--key', 'house.json', '--resume', out, '--port', String(port)]);
    const results = await Promise.all([again.done, ...players.map((p) => p.done)]);
    for (const r of results) expect(r.code, r.err).toBe(0);
    const reports = results.map((r) => JSON.parse(r.out.trim().split('\n').pop()!) as { player: string; balances: unknown; forfeits: unknown[] });
    expect(reports.map((r) => r.player)).toEqual(['house', 'alice', 'bob']);
    expect(new Set(reports.map((r) => JSON.stringify(r.balances))).size).toBe(1);
    for (const r of reports) expect(r.forfeits).toEqual([]);
    const final = lines(out);
    expect(final).toHaveLength(31);
    expect(final.slice(0, kept.length)).toEqual(kept);
    for (const c of copies) expect(lines(c)).toEqual(final);
    const audit = cli(['audit', out, '--json']);
    expect(audit.status).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ valid: true });
  }, 90_000);
});

describe('a player that floods the house', () => {
  const helloBytes = (gameId: string, nonce: string): Uint8Array =>
    concatBytes(utf8('fairtable/table-hello/v1'), new Uint8Array([0]), fromHex(gameId), fromHex(nonce));

  /** bob connects, proves who he is, then sends sync requests as fast as the socket takes them and never reads. */
  function flood(port: number, secret: Uint8Array, stop: () => boolean): Promise<number> {
    return new Promise((resolve) => {
      let sessions = 0;
      const once = (): void => {
        if (stop()) return resolve(sessions);
        sessions++;
        const s: Socket = connect(port, '127.0.0.1');
        s.on('error', () => {});
        let buf = '';
        const onData = (d: Buffer): void => {
          buf += d.toString();
          const nl = buf.indexOf('\n');
          if (nl < 0) return;
          s.off('data', onData);
          s.pause(); // from here on, bob never reads
          const ch = JSON.parse(buf.slice(0, nl)) as { nonce: string; setup: string };
          const { gameId } = readSetupLine(ch.setup);
          s.write(JSON.stringify({ kind: 'hello', id: 'bob', sig: toHex(nativeSign(helloBytes(gameId, ch.nonce), secret)) }) + '\n');
          const sync = (JSON.stringify({ kind: 'sync', from: 0 }) + '\n').repeat(256);
          const pump = (): void => {
            while (!s.destroyed && !stop() && s.write(sync));
            if (!s.destroyed && !stop()) s.once('drain', pump);
          };
          pump();
        };
        s.on('data', onData);
        s.on('close', () => setTimeout(once, 100));
        setTimeout(() => s.destroy(), 3000);
      };
      once();
    });
  }

  it('is disconnected and named; the game finishes, the house is not named, and its memory stays bounded', async () => {
    const out = join(dir, 'flood.jsonl');
    const house = startHouse(2, 3000, out);
    const port = await portOf(house);
    let peakKb = 0;
    const sampler = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${house.child.pid}/status`, 'utf8'));
        if (m) peakKb = Math.max(peakKb, Number(m[1]));
      } catch {
        // the house has exited
      }
    }, 100);
    let over = false;
    const bob = fromKeyFile(JSON.parse(readFileSync(join(dir, 'bob.json'), 'utf8'))).keys;
    const flooding = flood(port, bob.secretKey, () => over);
    const alice = start(['signidice', 'play', '--key', 'alice.json', '--port', String(port)]);
    const [h, a] = await Promise.all([house.done, alice.done]);
    over = true;
    clearInterval(sampler);
    const sessions = await flooding;
    expect(h.code, h.err).toBe(0);
    expect(a.code, a.err).toBe(0);
    expect(h.out, h.err).toMatch(/\{"player":"house"/);
    const report = JSON.parse(h.out.trim().split('\n').pop()!) as { forfeits: { player: string }[]; violations: { player: string }[] };
    expect(report.forfeits.map((f) => f.player)).not.toContain('house');
    expect(report.violations.map((v) => v.player)).not.toContain('house');
    expect(h.err).toMatch(/disconnected bob: \[(rate_limited|slow_reader)\]/);
    const audit = JSON.parse(cli(['audit', out, '--json']).stdout) as { violations: { player: string }[] };
    expect(audit.violations.map((v) => v.player)).not.toContain('house');
    console.log(`flood: ${sessions} flooding sessions; house peak RSS ${(peakKb / 1024).toFixed(1)} MB`);
    // Without limits the house grew to 790 MB in 3 s of such a flood; a generous ceiling catches a return of that.
    expect(peakKb).toBeGreaterThan(0);
    expect(peakKb / 1024).toBeLessThan(400);
  }, 90_000);
});
