/**
 * Signidice as separate programs through a relay: `fairtable relay` orders the
 * game, `fairtable signidice house` opens it there and plays the house, and two
 * `fairtable signidice play` processes join (docs/spec/relay.md §9: the house
 * never orders its own game). Every seat must end with the same balances, and
 * the fetched transcript must audit valid on the relay's receipt times.
 */
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runInProcess } from '../packages/cli/src/in-process.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-signidice-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function cli(args: string[]): string {
  const r = spawnSync(process.execPath, [main, ...args], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/**
 * The same in this process (`runInProcess`), for the commands that reach no relay: key files, and audits of
 * the small transcripts (on the calling thread). The key swap's audit, with its exit status, goes through a process.
 */
async function here(args: string[]): Promise<string> {
  const r = await runInProcess(args, { cwd: dir });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

function collect(child: ChildProcess): Promise<{ out: string; code: number | null }> {
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', () => {});
  return new Promise((resolve) => child.on('close', (code) => resolve({ out, code })));
}

let relayUrl = '';
let witnessUrl = '';
beforeAll(async () => {
  for (const name of ['house', 'alice', 'bob']) writeFileSync(join(dir, `${name}.pub.json`), await here(['keygen', '--name', name, '--out', `${name}.json`]));
  relayUrl = await startRelay('data');
  witnessUrl = await startRelay('witness-data');
}, 120_000);

async function startRelay(data: string): Promise<string> {
  const relay = spawn(process.execPath, [main, 'relay', '--port', '0', '--host', '127.0.0.1', '--data', join(dir, data)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(relay);
  return new Promise<string>((resolve, reject) => {
    createInterface({ input: relay.stdout! }).on('line', (text) => {
      const log = JSON.parse(text) as { msg?: string; port?: number };
      if (log.msg === 'relay listening') resolve(`http://127.0.0.1:${log.port}`);
    });
    relay.once('exit', (code) => reject(new Error(`the relay exited with ${code}`)));
  });
}

type Report = { player: string; game: string; balances: unknown; violations: { code: string; player: string }[] };

async function play(houseArgs: string[]): Promise<{ reports: Report[]; transcript: string; game: string }> {
  const transcript = join(dir, `game-${Math.random().toString(36).slice(2)}.jsonl`);
  const house = spawn(
    process.execPath,
    [
      main,
      'signidice',
      'house',
      '--relay',
      relayUrl,
      '--key',
      'house.json',
      '--players',
      'alice.pub.json,bob.pub.json',
      '--rounds',
      '2',
      '--timeout-ms',
      '4000',
      '--out',
      transcript,
      ...houseArgs,
    ],
    { cwd: dir },
  );
  const houseDone = collect(house);
  const game = await new Promise<string>((resolve, reject) => {
    let buf = '';
    house.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /^([0-9a-f]{64}) /.exec(buf);
      if (m) resolve(m[1]!);
    });
    house.on('error', reject);
  });
  const players = ['alice', 'bob'].map((p) =>
    // alice chooses her bet (red, 7 a round); bob leaves his to the automatic player.
    collect(
      spawn(
        process.execPath,
        [
          main,
          'signidice',
          'play',
          '--relay',
          relayUrl,
          '--game',
          game,
          '--key',
          `${p}.json`,
          '--out',
          `${transcript}.${p}`,
          ...(p === 'alice' ? ['--bet', 'red:7'] : []),
        ],
        { cwd: dir },
      ),
    ),
  );
  const results = await Promise.all([houseDone, ...players]);
  for (const r of results) expect(r.code).toBe(0);
  const reports = results.map((r) => JSON.parse(r.out.trim().split('\n').pop()!) as Report);
  return { reports, transcript, game };
}

describe('Signidice across processes through a relay', () => {
  it('house and two players agree on every balance, and the fetched transcript audits valid on the receipts', async () => {
    const { reports, transcript, game } = await play([]);
    // Every bet alice placed is the one she chose on the command line.
    const bets = readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { from: string; body: { type: string; bet?: unknown } })
      .filter((e) => e.from === 'alice' && e.body.type === 'bet');
    expect(bets.length).toBeGreaterThan(0);
    for (const b of bets) expect(b.body.bet).toEqual({ kind: 'red', pick: null, amount: 7 });
    expect(reports.map((r) => r.player)).toEqual(['house', 'alice', 'bob']);
    expect(reports.every((r) => r.game === game)).toBe(true);
    expect(new Set(reports.map((r) => JSON.stringify(r.balances))).size).toBe(1);
    // The house's own copy, with its receipts, is the relay's log.
    const fetched = join(dir, `fetched-${game}.jsonl`);
    cli(['fetch', '--relay', relayUrl, '--game', game, '--out', fetched]);
    expect(readFileSync(fetched, 'utf8')).toBe(readFileSync(transcript, 'utf8'));
    const relayKey = JSON.parse(await here(['audit', fetched, '--json', '--relay-key', await keyOf(relayUrl)])) as {
      relay: { receipted: number };
      valid: boolean;
      lines: number;
      outcome: { summary: { balances: unknown } };
    };
    expect(relayKey.valid).toBe(true);
    expect(relayKey.relay.receipted).toBe(relayKey.lines);
    expect(JSON.stringify(relayKey.outcome.summary.balances)).toBe(JSON.stringify(reports[0]!.balances));
    // The house's setup binds the game to its relay (docs/spec/time.md §5): the receipts beside the copy judge it.
    const key = await keyOf(relayUrl);
    const setup = JSON.parse(readFileSync(transcript, 'utf8').split('\n')[0]!) as { body: { setup: { params: { relay?: string } } } };
    expect(setup.body.setup.params.relay).toBe(key);
    const bound = JSON.parse(await here(['audit', fetched, '--json'])) as { valid: boolean; relay: { boundTo: string; timed: boolean } };
    expect(bound).toMatchObject({ valid: true, relay: { boundTo: key, timed: true } });
  }, 60_000);

  it('a house that swaps its key is named by every player and by the auditor', async () => {
    const { reports, transcript } = await play(['--cheat', 'house-key-swap']);
    for (const r of reports.slice(1)) expect(r.violations[0]).toMatchObject({ code: 'key_swap', player: 'house' });
    const audit = spawnSync(process.execPath, [main, 'audit', transcript, '--json'], { encoding: 'utf8' });
    expect(audit.status).toBe(1);
    expect((JSON.parse(audit.stdout) as { violations: { code: string; player: string }[] }).violations[0]).toMatchObject({ code: 'key_swap', player: 'house' });
  }, 60_000);
});

describe('Signidice with a witness relay named in the setup', () => {
  it('every seat publishes to the witness; the fetched evidence audits valid with the receipts, every record used', async () => {
    const { reports, transcript, game } = await play(['--witness', witnessUrl]);
    expect(new Set(reports.map((r) => JSON.stringify(r.balances))).size).toBe(1);
    const setup = JSON.parse(readFileSync(transcript, 'utf8').split('\n')[0]!) as {
      body: { setup: { params: { witnesses: { url: string }[]; relay?: string } } };
    };
    expect(setup.body.setup.params.witnesses.map((w) => w.url)).toEqual([witnessUrl]);
    expect(setup.body.setup.params.relay).toBe(await keyOf(relayUrl));
    const fetched = join(dir, `witnessed-${game}.jsonl`);
    cli(['fetch', '--relay', relayUrl, '--game', game, '--out', fetched, '--witness', witnessUrl]);
    const records = readFileSync(`${fetched}.witness.jsonl`, 'utf8').trim().split('\n');
    // Every line of the log was published to the witness by its author (the setup by the house).
    expect(records.length).toBe(readFileSync(fetched, 'utf8').trim().split('\n').length);
    const args = ['audit', fetched, '--json', '--relay-key', await keyOf(relayUrl)];
    const verdict = JSON.parse(await here([...args, '--witness', `${fetched}.witness.jsonl`, '--witness', `${transcript}.alice.evidence.jsonl`])) as {
      valid: boolean;
      relay: { recordsUsed: number; recordsIgnored: string[] };
    };
    expect(verdict.valid).toBe(true);
    expect(verdict.relay.recordsIgnored).toEqual([]);
    expect(verdict.relay.recordsUsed).toBeGreaterThan(records.length);
  }, 60_000);
});

async function keyOf(url: string): Promise<string> {
  return ((await fetch(`${url}/witness`).then((r) => r.json())) as { relay: string }).relay;
}
