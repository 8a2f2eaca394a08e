/**
 * `fairtable play --resume FILE` (docs/SPEC.md §10.2, "A seat follows its key"): a player's process is killed
 * mid-game, and the seat is continued in another folder (another machine) from nothing but the key file and
 * the copy `--out` wrote; the hand it committed is read back from the log and revealed, and nobody is named.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../packages/cli/bin/fairtable.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fairtable-play-resume-'));
const other = join(dir, 'other-machine');
mkdirSync(other);
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

const cli = (args: string[], cwd = dir) => spawnSync(process.execPath, [main, ...args], { cwd, encoding: 'utf8' });

function relay(): Promise<string> {
  const child = spawn(process.execPath, [main, 'relay', '--port', '0', '--host', '127.0.0.1', '--data', join(dir, 'data')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (text) => {
      try {
        const log = JSON.parse(text) as { msg?: string; port?: number };
        if (log.msg === 'relay listening') resolve(`http://127.0.0.1:${log.port}`);
      } catch {
        // not a log line
      }
    });
    child.once('exit', (code) => reject(new Error(`the relay exited with ${code}`)));
  });
}

function start(args: string[], cwd = dir) {
  const child = spawn(process.execPath, [main, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code: code ?? (signal === null ? null : -1), out, err })),
  );
  return { child, done, out: () => out };
}

async function until(what: () => boolean, ms = 30_000): Promise<void> {
  for (const t0 = Date.now(); !what();) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const envelopes = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as { from: string; body: { type: string } })
    : [];

describe('fairtable play --resume', () => {
  it('a Rochambeau seat killed after its commit is continued on another machine from the key and its copy', async () => {
    const url = await relay();
    const pubs = ['alice', 'bob'].map((name) => {
      const r = cli(['keygen', '--name', name, '--out', `${name}.json`]);
      expect(r.status).toBe(0);
      writeFileSync(join(dir, `${name}.pub.json`), r.stdout);
      return `${name}.pub.json`;
    });
    const alice = start(['play', 'rochambeau', '--relay', url, '--key', 'alice.json', '--players', pubs.join(','), '--hand', '2', '--out', 'alice.jsonl']);
    await until(() => envelopes(join(dir, 'alice.jsonl')).some((e) => e.from === 'alice' && e.body.type === 'commit'));
    const game = alice.out().split(' ')[0]!;
    alice.child.kill('SIGKILL');
    await alice.done;
    // The other machine holds only the key file and the copy with its receipts.
    for (const f of ['alice.json', 'alice.jsonl', 'alice.jsonl.receipts.jsonl']) copyFileSync(join(dir, f), join(other, f));
    const bob = start(['play', '--relay', url, '--key', 'bob.json', '--join', game, '--hand', '1']);
    const resumed = start(['play', '--relay', url, '--key', 'alice.json', '--resume', 'alice.jsonl'], other);
    const [b, a] = await Promise.all([bob.done, resumed.done]);
    expect(a.code, a.err).toBe(0);
    expect(b.code, b.err).toBe(0);
    const outcome = JSON.parse(a.out.trim().split('\n').pop()!) as { winners: string[]; violations: unknown[]; forfeits: unknown[] };
    expect(outcome.violations).toEqual([]);
    expect(outcome.forfeits).toEqual([]);
    // Hand 2 beats hand 1 with three states (the draft's rule: the state one above wins).
    expect(outcome.winners).toEqual(JSON.parse(b.out.trim().split('\n').pop()!).winners);
    // The resumed copy goes on from where it stopped, and audits valid with nobody named.
    const copy = envelopes(join(other, 'alice.jsonl'));
    // Reveals are escrowed by default (docs/spec/rochambeau.md §11): a share check comes between commit and reveal.
    expect(copy.filter((e) => e.from === 'alice').map((e) => e.body.type)).toEqual(['setup', 'commit', 'check', 'reveal']);
    const audit = cli(['audit', 'alice.jsonl', '--json'], other);
    expect(audit.status, audit.stdout).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ valid: true, violations: [] });
  }, 120_000);

  it('refuses a copy of a game the key does not play', () => {
    expect(cli(['keygen', '--name', 'carol', '--out', 'carol.json']).status).toBe(0);
    const r = cli(['play', '--relay', 'http://127.0.0.1:9', '--key', 'carol.json', '--resume', 'alice.jsonl']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/bad_journal/);
  });
});
