/**
 * Signidice as separate programs through a relay when things go wrong (docs/spec/relay.md §9; the relay's
 * own limits against hostile clients are tested in packages/relay/src/relay.test.ts): coded one-line
 * errors and non-zero exits for a relay that cannot be reached or is not a relay, or that dies mid-game; a
 * house killed with SIGKILL mid-game that resumes its seat from its own copy, the game finishing and
 * auditing valid; a house that dies for good, which the players name `withheld` and finish without.
 */
import { afterAll, describe, expect, it, beforeAll } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-faults-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [main, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Run {
  readonly child: ChildProcess;
  readonly done: Promise<{ code: number | null; out: string; err: string }>;
  readonly err: () => string;
  readonly out: () => string;
}

function start(args: string[]): Run {
  const child = spawn(process.execPath, [main, ...args], { cwd: dir });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) => child.on('close', (code) => resolve({ code, out, err })));
  return { child, done, err: () => err, out: () => out };
}

/** A relay on any free port (or `port`), keeping its data in `data`. */
async function relay(data: string, port = 0): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [main, 'relay', '--port', String(port), '--host', '127.0.0.1', '--data', join(dir, data)], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (text) => {
      const log = JSON.parse(text) as { msg?: string; port?: number };
      if (log.msg === 'relay listening') resolve(`http://127.0.0.1:${log.port}`);
    });
    child.once('exit', (code) => reject(new Error(`the relay exited with ${code}`)));
  });
  return { child, url };
}

const stopped = (c: ChildProcess): Promise<void> => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

async function gameOf(house: Run): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    house.child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /^([0-9a-f]{64}) /.exec(buf);
      if (m) resolve(m[1]!);
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
  const last = err.trim().split('\n').pop()!;
  expect(last).toMatch(new RegExp(`^fairtable: \\[${code}\\] `));
  expect(err).not.toMatch(/\n\s+at /);
}

beforeAll(() => {
  for (const name of ['house', 'alice', 'bob']) writeFileSync(join(dir, `${name}.pub.json`), cli(['keygen', '--name', name, '--out', `${name}.json`]).stdout);
}, 120_000);

/** The house of alice and bob's Signidice game on `url`, keeping its copy in `out`. */
const startHouse = (url: string, rounds: number, timeoutMs: number, out: string) =>
  start([
    'signidice',
    'house',
    '--relay',
    url,
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

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  return port;
}

describe('signidice house and play: coded errors and non-zero exits', () => {
  it('a relay that cannot be reached, a server that is not a relay, bad options', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const house = cli(['signidice', 'house', '--relay', nowhere, '--key', 'house.json', '--players', 'alice.pub.json']);
    expect(house.status).toBe(2);
    expectCoded(house.stderr, 'connection_failed');
    const game = 'ab'.repeat(32);
    const player = cli(['signidice', 'play', '--relay', nowhere, '--game', game, '--key', 'alice.json', '--reconnect-ms', '500']);
    expect(player.status).toBe(2);
    expectCoded(player.stderr, 'connection_closed');

    const junk = createServer((s) => s.end('SSH-2.0-OpenSSH_9.6\r\n'));
    await new Promise<void>((r) => junk.listen(0, '127.0.0.1', () => r()));
    const junkUrl = `http://127.0.0.1:${(junk.address() as { port: number }).port}`;
    // Not spawnSync: the junk server answers from this process.
    const bad = await start(['signidice', 'house', '--relay', junkUrl, '--key', 'house.json', '--players', 'alice.pub.json']).done;
    junk.close();
    expect(bad.code).toBe(2);
    expectCoded(bad.err, 'connection_failed');

    const banana = cli(['signidice', 'house', '--relay', nowhere, '--key', 'house.json', '--players', 'alice.pub.json', '--wheel', 'banana']);
    expect(banana.status).toBe(2);
    expectCoded(banana.stderr, 'bad_input');
    const id = cli(['signidice', 'play', '--relay', nowhere, '--key', 'alice.json', '--game', 'abc']);
    expect(id.status).toBe(2);
    expectCoded(id.stderr, 'bad_hex');
  }, 60_000);

  it('a relay killed mid-game ends the player with a coded error; what the player holds, the restarted relay still has', async () => {
    const r = await relay('dies');
    const out = join(dir, 'dies.jsonl');
    const copy = join(dir, 'dies-alice.jsonl');
    const house = startHouse(r.url, 5, 60000, out);
    const game = await gameOf(house);
    const alice = start(['signidice', 'play', '--relay', r.url, '--game', game, '--key', 'alice.json', '--out', copy, '--reconnect-ms', '1000']);
    // bob never comes: the game waits on him, so it is mid-game when the relay dies.
    await until(() => lines(copy).length >= 2, 20_000);
    r.child.kill('SIGKILL');
    const a = await alice.done;
    expect(a.code).toBe(2);
    expectCoded(a.err, 'connection_closed');
    house.child.kill('SIGKILL');
    await stopped(r.child);
    const again = await relay('dies');
    const fetched = join(dir, 'dies-fetched.jsonl');
    expect(cli(['fetch', '--relay', again.url, '--game', game, '--out', fetched]).status).toBe(0);
    const mine = lines(copy);
    expect(lines(fetched).slice(0, mine.length)).toEqual(mine);
    again.child.kill('SIGTERM');
    await stopped(again.child);
  }, 60_000);
});

describe('a house killed mid-game', () => {
  it('resumes its seat from its own copy; the game finishes, every seat agrees, and the relay’s log audits valid', async () => {
    const r = await relay('resume');
    const out = join(dir, 'resume.jsonl');
    const house = startHouse(r.url, 5, 8000, out);
    const game = await gameOf(house);
    const copies = ['alice', 'bob'].map((p) => join(dir, `resume-${p}.jsonl`));
    const players = ['alice', 'bob'].map((p, i) =>
      start(['signidice', 'play', '--relay', r.url, '--game', game, '--key', `${p}.json`, '--out', copies[i]!, '--reconnect-ms', '20000']),
    );
    // Mid-game: past the first bets, before the end (a full game here is 1 + 5 × 6 = 31 lines).
    await until(() => lines(out).length >= 6, 30_000);
    house.child.kill('SIGKILL');
    await house.done;
    const kept = lines(out);
    expect(kept.length).toBeLessThan(31);
    // A write the crash cut short: the resumed house drops it from its copy.
    appendFileSync(out, '{"at":7,"body":{"type":"si');

    const again = start(['signidice', 'house', '--relay', r.url, '--key', 'house.json', '--resume', out]);
    const results = await Promise.all([again.done, ...players.map((p) => p.done)]);
    for (const x of results) expect(x.code, x.err).toBe(0);
    const reports = results.map((x) => JSON.parse(x.out.trim().split('\n').pop()!) as { player: string; balances: unknown; forfeits: unknown[] });
    expect(reports.map((x) => x.player)).toEqual(['house', 'alice', 'bob']);
    expect(new Set(reports.map((x) => JSON.stringify(x.balances))).size).toBe(1);
    for (const x of reports) expect(x.forfeits).toEqual([]);
    const fetched = join(dir, 'resume-fetched.jsonl');
    expect(cli(['fetch', '--relay', r.url, '--game', game, '--out', fetched]).status).toBe(0);
    const final = lines(fetched);
    expect(final).toHaveLength(31);
    expect(final.slice(0, kept.length)).toEqual(kept);
    expect(lines(out)).toEqual(final);
    for (const c of copies) expect(lines(c)).toEqual(final);
    const audit = cli(['audit', fetched, '--json']);
    expect(audit.status).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ valid: true });
    r.child.kill('SIGTERM');
  }, 90_000);

  it('and never back, is named withheld by the players, who finish the game without it', async () => {
    const r = await relay('gone');
    const out = join(dir, 'gone.jsonl');
    const house = startHouse(r.url, 3, 1500, out);
    const game = await gameOf(house);
    const players = ['alice', 'bob'].map((p) => start(['signidice', 'play', '--relay', r.url, '--game', game, '--key', `${p}.json`]));
    await until(() => lines(out).length >= 4, 30_000);
    house.child.kill('SIGKILL');
    const results = await Promise.all(players.map((p) => p.done));
    for (const x of results) expect(x.code, x.err).toBe(0);
    const reports = results.map((x) => JSON.parse(x.out.trim().split('\n').pop()!) as { forfeits: { player: string; code: string }[] });
    for (const x of reports) expect(x.forfeits).toEqual([{ player: 'house', code: 'withheld' }]);
    r.child.kill('SIGTERM');
  }, 60_000);
});
