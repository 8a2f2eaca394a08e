/**
 * Diplomacy through a relay from the command line (docs/spec/diplomacy.md §10.10): seven `fairtable play`
 * processes, one per power, play two game years of random legal orders with their commitments sealed by
 * the relay; `fairtable fetch` and `fairtable audit` then judge the transcript valid.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { generateKeyPair, toKeyFile, toPublicKeyFile } from '@fairtable/core/identity.js';
import { startRelay } from '@fairtable/relay';
import { Referee } from '@fairtable/core/referee.js';
import { diplomacyRegistry } from '@fairtable/diplomacy/protocol/index.js';

const main = fileURLToPath(new URL('../packages/cli/bin/fairtable.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fairtable-diplomacy-play-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

function play(args: string[], onFirstLine?: (line: string) => void): Promise<Run> {
  const child = spawn(process.execPath, [main, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let first = true;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (first && out.includes('\n')) {
      first = false;
      onFirstLine?.(out.split('\n')[0]!);
    }
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
}

const NAMES = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'];
const PREFS = ['AE(GI)R', 'FRG', '(EFG)TI(AR)', 'E', '', 'FRA', 'GRA'];

describe('fairtable play diplomacy', () => {
  it('seven seats play to 1903 through a relay with sealed commitments; fetch and audit say valid', async () => {
    const relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: join(dir, 'data'), logger: pino({ level: 'silent' }) });
    try {
      for (const name of NAMES) {
        const keys = generateKeyPair();
        writeFileSync(join(dir, `${name}.json`), JSON.stringify(toKeyFile(name, keys)));
        writeFileSync(join(dir, `${name}.pub.json`), JSON.stringify(toPublicKeyFile(name, keys.publicKey)));
      }
      let joined: Promise<Run[]> | null = null;
      const args = ['play', 'diplomacy', '--relay', relay.url, '--key', 'p1.json', '--players', NAMES.map((n) => `${n}.pub.json`).join(',')];
      const creator = await play([...args, '--years', '2', '--timeout-ms', '60000', '--prefs', PREFS[0]!], (line) => {
        const id = line.split(' ')[0]!;
        joined = Promise.all(NAMES.slice(1).map((n, i) => play(['play', '--relay', relay.url, '--key', `${n}.json`, '--join', id, '--prefs', PREFS[i + 1]!])));
      });
      const joiners = await joined!;
      for (const r of [creator, ...joiners]) expect(r.code, r.err).toBe(0);
      const game = creator.out.split('\n')[0]!.split(' ')[0]!;
      const outcomes = [creator, ...joiners].map((r) => JSON.parse(r.out.trim().split('\n').pop()!) as Record<string, unknown>);
      const summary = outcomes[0]!.summary as { phase: string; powers: Record<string, string> };
      // Two years played: the game stops at the first phase of 1903, every seat agreeing on where it stands.
      expect(summary.phase).toBe('S1903M');
      for (const o of outcomes) expect(o.summary).toEqual(summary);
      expect(Object.keys(summary.powers).sort()).toEqual(NAMES);
      expect(new Set(Object.values(summary.powers)).size).toBe(7);
      // Player 1's first choice, Austria, is nobody else's first: it gets it in the first pass.
      expect(summary.powers.p1).toBe('austria');

      const fetched = join(dir, 'fetched.jsonl');
      // Not spawnSync: the relay answering the fetch runs in this process.
      const f = await play(['fetch', '--relay', relay.url, '--game', game, '--out', fetched]);
      expect(f.code, f.err).toBe(0);
      const lines = readFileSync(fetched, 'utf8').trim().split('\n');
      const setup = JSON.parse(lines[0]!) as { body: { setup: { params: { sealed?: unknown; years?: unknown } } } };
      expect(setup.body.setup.params.sealed).toEqual({ types: ['commit'] });
      expect(setup.body.setup.params.years).toBe(2);
      const bodies = lines.map((t) => (JSON.parse(t) as { body: { type: string; label?: string } }).body);
      // The commitments of each phase stand together in the log: the relay released each set whole.
      const labels = bodies.filter((b) => b.type === 'commit').map((b) => b.label);
      // Every movement phase is played; a retreat or adjustment phase only when the position has one.
      for (const phase of ['powers', 'S1901M', 'F1901M', 'S1902M', 'F1902M'])
        expect(
          labels.filter((l) => l === phase),
          phase,
        ).toHaveLength(7);
      for (const phase of new Set(labels))
        expect(
          labels.filter((l) => l === phase),
          phase,
        ).toHaveLength(7);
      let i = 0;
      while (i < bodies.length) {
        if (bodies[i]!.type !== 'commit') {
          i++;
          continue;
        }
        const run = bodies.slice(i).findIndex((b) => b.type !== 'commit');
        expect(run === -1 ? bodies.length - i : run).toBe(7);
        i += 7;
      }
      // Every seat was told each phase's orders with what came of them, as the machine adjudicated them, and
      // who had done each step so far.
      const judge = new Referee(lines[0]!, null, undefined, { registry: diplomacyRegistry, keepEvents: true });
      lines.slice(1).forEach((text, n) => judge.feedText(n + 1, text));
      const spring = judge.events.find((e) => e.type === 'adjudicated' && e.phase === 'S1901M')!;
      const results = spring.results as { order: string; status: string; reason: string | null }[];
      expect(results.length).toBeGreaterThan(0);
      for (const r of [creator, ...joiners]) {
        const at = r.err.search(/^p\d: Results of the .* \(S1901M\):$/m);
        expect(at, r.err).toBeGreaterThanOrEqual(0);
        const told = r.err.slice(at);
        for (const o of results) {
          const words = told
            .split('\n')
            .find((l) => l.startsWith(`    ${o.order}: `))
            ?.slice(o.order.length + 6);
          expect(words, o.order).toBeDefined();
          if (o.status === 'succeeded') expect(words).not.toMatch(/bounced|cut|failed|invalid|ignored/);
          else expect(words).toContain(o.reason ?? o.status);
          if (o.reason === 'bounced') expect(words).toMatch(/^bounced/);
        }
        expect(r.err).toMatch(/, sign: Signed so far: p\d/);
        // Its own sealed commitment, the one it may know of before the set is recorded.
        expect(r.err).toContain('our commitment is in: the relay holds it sealed');
      }
      const audit = spawnSync(process.execPath, [main, 'audit', fetched, '--json'], { encoding: 'utf8' });
      expect(audit.status, audit.stderr).toBe(0);
      expect(JSON.parse(audit.stdout)).toMatchObject({ valid: true, violations: [] });
    } finally {
      await relay.close();
    }
  }, 240_000);
});
