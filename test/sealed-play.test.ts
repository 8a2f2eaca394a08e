/**
 * Sealed mode from the command line (docs/spec/sealed.md): two `fairtable play beacon --sealed commit`
 * processes through a relay; each round's commitments come out together, in seat order, and the game
 * audits valid.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { auditLines } from '@fairtable/core/audit.js';
import { generateKeyPair, toKeyFile, toPublicKeyFile } from '@fairtable/core/identity.js';
import { startRelay } from '@fairtable/relay';

const main = fileURLToPath(new URL('../packages/cli/bin/fairtable.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fairtable-sealed-play-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function play(args: string[], onFirstLine?: (line: string) => void): Promise<{ code: number | null; out: string; err: string }> {
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

describe('fairtable play --sealed', () => {
  it('two players draw beacon numbers with sealed commitments through a relay; the transcript audits valid', async () => {
    const relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: join(dir, 'data'), logger: pino({ level: 'silent' }) });
    try {
      for (const [i, name] of ['alice', 'bob'].entries()) {
        const keys = generateKeyPair(new Uint8Array(32).fill(70 + i));
        writeFileSync(join(dir, `${name}.json`), JSON.stringify(toKeyFile(name, keys)));
        writeFileSync(join(dir, `${name}.pub.json`), JSON.stringify(toPublicKeyFile(name, keys.publicKey)));
      }
      let joined: Promise<{ code: number | null; out: string; err: string }> | null = null;
      const args = [
        'play',
        'beacon',
        '--relay',
        relay.url,
        '--key',
        'alice.json',
        '--players',
        'alice.pub.json,bob.pub.json',
        '--turns',
        '2',
        '--sealed',
        'commit',
      ];
      const creator = await play(args, (line) => {
        joined = play(['play', '--relay', relay.url, '--key', 'bob.json', '--join', line.split(' ')[0]!]);
      });
      const joiner = await joined!;
      expect(creator.code, creator.err).toBe(0);
      expect(joiner.code, joiner.err).toBe(0);
      const game = creator.out.split('\n')[0]!.split(' ')[0]!;
      const lines = (await (await fetch(`${relay.url}/games/${game}/transcript`)).text()).trim().split('\n');
      const receipts = (await (await fetch(`${relay.url}/games/${game}/receipts`)).text())
        .trim()
        .split('\n')
        .map((r) => JSON.parse(r) as { time: number });
      const setup = JSON.parse(lines[0]!) as { body: { setup: { params: { sealed?: unknown } } } };
      expect(setup.body.setup.params.sealed).toEqual({ types: ['commit'] });
      const commits = lines.map((t, i) => ({ i, e: JSON.parse(t) as { from: string; body: { type: string } } })).filter(({ e }) => e.body.type === 'commit');
      expect(commits.map(({ e }) => e.from)).toEqual(['alice', 'bob', 'alice', 'bob']);
      for (const k of [0, 2]) {
        expect(commits[k + 1]!.i).toBe(commits[k]!.i + 1);
        expect(receipts[commits[k + 1]!.i]!.time).toBe(receipts[commits[k]!.i]!.time);
      }
      const verdict = auditLines(lines);
      expect(verdict.violations).toEqual([]);
      expect(verdict.valid).toBe(true);
    } finally {
      await relay.close();
    }
  }, 120_000);
});
