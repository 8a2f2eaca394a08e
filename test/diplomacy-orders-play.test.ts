/**
 * Diplomacy played by hand through a relay (docs/spec/diplomacy-by-hand.md): seven `fairtable play`
 * processes; France's seat reads its orders from a directory of files (one malformed, then fixed while the
 * seat waits; one never fixed, so its good line is committed at the deadline), England's too (a convoy through two fleets), Austria's is asked on stdin (its preference list with --ask, then its orders unit
 * by unit), the rest play at random. The fetched transcript, replayed, shows France's units where its
 * orders sent them and the orders each person gave; `fairtable audit` says the game is valid.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { generateKeyPair, toKeyFile, toPublicKeyFile } from '@fairtable/core/identity.js';
import { Referee } from '@fairtable/core/referee.js';
import { diplomacyRegistry, phaseLabel, type DiplomacyState } from '@fairtable/diplomacy/protocol/index.js';
import { startRelay } from '@fairtable/relay';

const main = fileURLToPath(new URL('../packages/cli/bin/fairtable.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fairtable-diplomacy-orders-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

function play(args: string[], options: { onFirstLine?: (line: string) => void; onErr?: (text: string) => void; stdin?: string } = {}): Promise<Run> {
  const child = spawn(process.execPath, [main, ...args], { cwd: dir, stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  let out = '';
  let err = '';
  let first = true;
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    if (first && out.includes('\n')) {
      first = false;
      options.onFirstLine?.(out.split('\n')[0]!);
    }
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    options.onErr?.(err);
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
}

const NAMES = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'];
// Every first choice unopposed: p1 Austria (typed on stdin), p3 France, and so on.
const PREFS = ['A', 'E', 'F', 'G', 'I', 'R', 'T'];

describe('fairtable play diplomacy --orders', () => {
  it('refuses --orders for another protocol, and an orders directory that is not one, before playing', () => {
    const keys = generateKeyPair();
    writeFileSync(join(dir, 'solo.json'), JSON.stringify(toKeyFile('solo', keys)));
    writeFileSync(join(dir, 'solo.pub.json'), JSON.stringify(toPublicKeyFile('solo', keys.publicKey)));
    const run = (args: string[]) =>
      spawnSync(process.execPath, [main, 'play', '--relay', 'http://127.0.0.1:9', '--key', 'solo.json', ...args], { cwd: dir, encoding: 'utf8' });
    const dice = run(['dice', '--players', 'solo.pub.json', '--orders', '.']);
    expect([dice.status, dice.stderr.trim()]).toEqual([2, 'fairtable: [bad_input] --orders is for diplomacy']);
    const missing = run(['--join', '0'.repeat(64), '--orders', 'no-such-dir']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('fairtable: [bad_input] --orders no-such-dir: not a directory');
  });

  it('--ask asks any decision on stdin: a Rochambeau hand out of range is refused, the next one played', async () => {
    const relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: join(dir, 'data-rps'), logger: pino({ level: 'silent' }) });
    try {
      for (const name of ['r1', 'r2']) {
        const keys = generateKeyPair();
        writeFileSync(join(dir, `${name}.json`), JSON.stringify(toKeyFile(name, keys)));
        writeFileSync(join(dir, `${name}.pub.json`), JSON.stringify(toPublicKeyFile(name, keys.publicKey)));
      }
      let joined: Promise<Run> | null = null;
      // A tie asks again: enough answers for every attempt.
      const creator = await play(
        [
          'play',
          'rochambeau',
          '--relay',
          relay.url,
          '--key',
          'r1.json',
          '--players',
          'r1.pub.json,r2.pub.json',
          '--timeout-ms',
          '20000',
          '--ask',
          '--out',
          'rps.jsonl',
        ],
        {
          stdin: `paper\n9\n${'1\n'.repeat(40)}`,
          onFirstLine: (line) => (joined = play(['play', '--relay', relay.url, '--key', 'r2.json', '--join', line.split(' ')[0]!])),
        },
      );
      const joiner = await joined!;
      for (const r of [creator, joiner]) expect(r.code, r.err).toBe(0);
      expect(creator.err).toContain('hand: an integer from 1 to 2 >');
      expect(creator.err).toContain('[illegal_choice] hand: must be from 1 to 2');
      expect(creator.err).not.toContain('at random');
      // Every hand r1 revealed is the state it typed (the reveal's last byte is the state).
      const reveals = readFileSync(join(dir, 'rps.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((t) => JSON.parse(t) as { from: string; body: { type: string; payload?: string } })
        .filter((e) => e.from === 'r1' && e.body.type === 'reveal');
      expect(reveals.length).toBeGreaterThan(0);
      for (const r of reveals) expect(r.body.payload!.slice(-2)).toBe('01');
    } finally {
      await relay.close();
    }
  }, 120_000);

  it('France plays from an orders directory, Austria from stdin; the transcript shows their orders carried out', async () => {
    const relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: join(dir, 'data'), logger: pino({ level: 'silent' }) });
    try {
      for (const name of NAMES) {
        const keys = generateKeyPair();
        writeFileSync(join(dir, `${name}.json`), JSON.stringify(toKeyFile(name, keys)));
        writeFileSync(join(dir, `${name}.pub.json`), JSON.stringify(toPublicKeyFile(name, keys.publicKey)));
      }
      const orders = join(dir, 'france');
      mkdirSync(orders);
      writeFileSync(join(orders, 'S1901M.txt'), '# France, spring 1901\nA Par-Bur\nA Mar S A Par-Bur\nF Bre-MAO\n');
      // Line 2 names no province: the seat says so and waits; the test writes the fixed file when it does.
      writeFileSync(join(orders, 'F1901M.txt'), 'A Bur H\nA Mar-Spx\nF MAO-Por\n');
      // Never fixed: at the deadline the good line is committed and the other build is waived.
      writeFileSync(join(orders, 'W1901A.txt'), 'Build A Par\nBuild F Bxx\n');
      // England carries an army from Wales to Holland through two fleets, the Channel's mid-chain (written without "via convoy").
      const england = join(dir, 'england');
      mkdirSync(england);
      writeFileSync(join(england, 'S1901M.txt'), 'F Lon-Eng\nF Edi-Nth\nA Lvp-Wal\n');
      writeFileSync(join(england, 'F1901M.txt'), 'A Wal-Hol\nF Eng C A Wal-Hol\nF Nth convoys A Wales - Holland\n');
      writeFileSync(join(england, 'W1901A.txt'), 'Waive\n');
      let fixed = false;
      const france = ['--orders', orders, '--prefs', 'F'];
      const onFranceErr = (err: string): void => {
        if (fixed || !err.includes('F1901M.txt line 2')) return;
        fixed = true;
        writeFileSync(join(orders, 'F1901M.txt'), 'A Bur H\nA Mar-Spa\nA MAO-Por   # the typo rule reads this as the fleet\n');
      };
      // Austria at a terminal: its preference list, then for each unit an order, a bad one, a number.
      const austria = 'XYZ\nA\nA Bud-Ser\n1\nA Vie-Xyz\nA Vie-Gal\n';

      let joined: Promise<Run[]> | null = null;
      const args = ['play', 'diplomacy', '--relay', relay.url, '--key', 'p1.json', '--players', NAMES.map((n) => `${n}.pub.json`).join(',')];
      const creator = await play([...args, '--years', '1', '--timeout-ms', '10000', '--ask'], {
        stdin: austria,
        onFirstLine: (line) => {
          const id = line.split(' ')[0]!;
          joined = Promise.all(
            NAMES.slice(1).map((n, i) =>
              play(
                [
                  'play',
                  '--relay',
                  relay.url,
                  '--key',
                  `${n}.json`,
                  '--join',
                  id,
                  ...(n === 'p3' ? france : n === 'p2' ? ['--orders', england, '--prefs', 'E'] : ['--prefs', PREFS[i + 1]!]),
                ],
                n === 'p3' ? { onErr: onFranceErr } : {},
              ),
            ),
          );
        },
      });
      const joiners = await joined!;
      for (const r of [creator, ...joiners]) expect(r.code, r.err).toBe(0);
      const frenchErr = joiners[1]!.err;
      // The malformed file: a coded error naming the file and the line; then the fixed file is read.
      expect(frenchErr).toMatch(/fairtable: \[unknown_province\] \S*F1901M\.txt line 2: "A Mar-Spx"/);
      expect(frenchErr).toContain('F1901M.txt line 3: "A MAO-Por": the unit is a fleet: read as "F mao - por"');
      expect(frenchErr).toContain('p3: you play france');
      expect(frenchErr).toContain('Spring 1901, movement (S1901M)');
      expect(frenchErr).toContain('waiting for');
      // Austria's bad line on stdin was refused with its code, and the next line taken.
      expect(creator.err).toContain('[unknown_province] stdin line 1: "A Vie-Xyz"');
      // --ask: the preference list was asked with its pattern, a list it does not match refused.
      expect(creator.err).toMatch(/preferences: text matching .* > fairtable: \[illegal_choice\] preferences: does not match/);

      const outcome = JSON.parse(joiners[1]!.out.trim().split('\n').pop()!) as { summary: { phase: string; powers: Record<string, string> } };
      expect(outcome.summary.phase).toBe('S1902M');
      expect(outcome.summary.powers).toMatchObject({ p1: 'austria', p3: 'france' });

      const fetched = join(dir, 'fetched.jsonl');
      const f = await play(['fetch', '--relay', relay.url, '--game', creator.out.split(' ')[0]!, '--out', fetched]);
      expect(f.code, f.err).toBe(0);
      const lines = readFileSync(fetched, 'utf8').trim().split('\n');
      const receipts = readFileSync(`${fetched}.receipts.jsonl`, 'utf8')
        .trim()
        .split('\n')
        .map((t) => JSON.parse(t) as { time: number });
      // Replayed as any observer would: France's orders as revealed, and its units after each phase.
      const referee = new Referee<DiplomacyState>(lines[0]!, null, undefined, { registry: diplomacyRegistry, timeOf: (l) => receipts[l]?.time });
      const revealed: Record<string, Record<string, string[]>> = {};
      const unitsAfter: Record<string, string[]> = {};
      for (let i = 1; i < lines.length; i++) {
        const before = referee.state.position;
        const { events } = referee.feedText(i, lines[i]!);
        for (const e of events) {
          if (e.type === 'adjudicated') revealed[String(e.phase)] = { ...referee.state.orders };
          if (e.type === 'agreed')
            unitsAfter[phaseLabel(before)] = referee.state.position.units.filter((u) => u.power === 'france').map((u) => `${u.type} ${u.at}`);
        }
      }
      expect(revealed.S1901M!.france).toEqual(['F bre - mao', 'A mar S A par - bur', 'A par - bur']);
      expect(unitsAfter.S1901M!.sort()).toEqual(['army bur', 'army mar', 'fleet mao']);
      expect([...revealed.F1901M!.france!].sort()).toEqual(['A bur H', 'A mar - spa', 'F mao - por']);
      // Spain and Portugal were France's alone to take in the fall of 1901 (no other unit can reach them).
      expect(unitsAfter.F1901M).toEqual(expect.arrayContaining(['army spa', 'fleet por']));
      expect(revealed.S1901M!.austria).toEqual(['A bud - ser', 'F tri H', 'A vie - gal']);
      // England's two-fleet convoy and both convoy orders, from its files (docs/spec/diplomacy.md §10.3.1).
      expect([...revealed.S1901M!.england!].sort()).toEqual(['A lvp - wal', 'F edi - nth', 'F lon - eng']);
      expect([...revealed.F1901M!.england!].sort()).toEqual(['A wal - hol via convoy', 'F eng C A wal - hol', 'F nth C A wal - hol']);
      expect(joiners[0]!.err).not.toContain('illegal_order');
      // The build the file's good line asked for; the other builds due are waived.
      expect(frenchErr).toMatch(/fairtable: \[unknown_province\] \S*W1901A\.txt line 2: "Build F Bxx"/);
      expect(frenchErr).toContain("W1901A: committing france's orders (the good lines of");
      expect(revealed.W1901A!.france![0]).toBe('Build A par');
      expect(revealed.W1901A!.france!.slice(1)).toEqual(revealed.W1901A!.france!.slice(1).map(() => 'Waive'));
      expect(revealed.W1901A!.france!.length).toBeGreaterThan(1);
      expect(referee.state.position.units).toContainEqual({ power: 'france', type: 'army', at: 'par' });

      const audit = spawnSync(process.execPath, [main, 'audit', fetched, '--json'], { encoding: 'utf8' });
      expect(audit.status, audit.stderr).toBe(0);
      expect(JSON.parse(audit.stdout)).toMatchObject({ valid: true, violations: [] });
    } finally {
      await relay.close();
    }
  }, 240_000);
});
