/**
 * The relay as its own process (`fairtable relay`, docs/spec/relay.md §4, §6): killed with SIGKILL in the
 * middle of a game and started again on the same data directory, it still holds every line it
 * acknowledged, in order; the seats resume with `sync`, the game ends and audits valid. SIGTERM stops it
 * cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { fromHex } from '@fairtable/core/bytes.js';
import { auditLines } from '@fairtable/core/audit.js';
import { createGame, diceGame, RelaySeat, until } from './test-helpers.js';

const main = fileURLToPath(new URL('../../cli/bin/fairtable.js', import.meta.url));
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Starts `fairtable relay` on any free port; resolves with its URL and key once it listens. */
function spawnRelay(dataDir: string): Promise<{ child: ChildProcess; url: string; key: string }> {
  const child = spawn(process.execPath, [main, 'relay', '--port', '0', '--host', '127.0.0.1', '--data', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (text) => {
      const log = JSON.parse(text) as { msg?: string; port?: number; relay?: string };
      if (log.msg === 'relay listening') resolve({ child, url: `http://127.0.0.1:${log.port}`, key: log.relay! });
    });
    child.once('exit', (code) => reject(new Error(`the relay exited (${code}) before listening`)));
  });
}

const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', (code) => r(code)));

describe('the relay process', () => {
  it('keeps every acknowledged line through SIGKILL; the seats resume and the game audits valid', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fairtable-relay-kill-'));
    dirs.push(dataDir);
    const first = await spawnRelay(dataDir);
    const g = diceGame(3, 9, 8);
    expect((await createGame(first.url, g.setupLine)).status).toBe(201);
    const seats = g.ids.map((_, i) => new RelaySeat(g, i, fromHex(first.key)));
    for (const s of seats) await s.connect(first.url);
    await until(() => seats.some((s) => s.receipts.length >= 8), 20_000, 'the game to be under way');
    first.child.kill('SIGKILL');
    await exited(first.child);
    for (const s of seats) s.disconnect();
    // Every line some seat was sent was stored and acknowledged first.
    const seen = seats.reduce((a, s) => (s.seat.lines.length > a.length ? s.seat.lines : a), [] as readonly string[]);
    const acknowledged = [...seen];
    expect(seats.every((s) => s.seat.outcome() === null)).toBe(true);

    const second = await spawnRelay(dataDir);
    expect(second.key).toBe(first.key);
    const stored = (await (await fetch(`${second.url}/games/${g.id}/transcript`)).text()).trim().split('\n');
    expect(stored.slice(0, acknowledged.length)).toEqual(acknowledged);
    // The restarted relay serves the very receipts it signed before: one history, no fork.
    const storedReceipts = (await (await fetch(`${second.url}/games/${g.id}/receipts`)).text()).trim().split('\n');
    const holder = seats.find((s) => s.seat.lines.length === acknowledged.length)!;
    expect(storedReceipts.slice(0, acknowledged.length).map((r) => JSON.parse(r) as unknown)).toEqual(holder.receipts);
    for (const s of seats) await s.connect(second.url);
    await until(() => seats.every((s) => s.seat.outcome() !== null), 30_000, 'the game to end after the restart');
    for (const s of seats) s.stop();
    for (const s of seats) expect(s.problems).toEqual([]);
    const transcript = (await (await fetch(`${second.url}/games/${g.id}/transcript`)).text()).trim().split('\n');
    expect(transcript.slice(0, acknowledged.length)).toEqual(acknowledged);
    expect(transcript).toEqual(seats[1]!.seat.lines);
    const verdict = auditLines(transcript);
    expect(verdict.violations).toEqual([]);
    expect(verdict.valid).toBe(true);

    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
  });
});
