/**
 * Group commit against SIGKILL (docs/spec/relay.md, "The pipeline"): the relay process, under a load of many games
 * whose lines share transactions, is killed with SIGKILL and started again on its data directory. Every
 * line it acknowledged (`accepted`, with its receipt) or showed to anyone (`entry`) is stored, at its
 * number, with the very receipt sent: nothing leaves the relay before its batch has committed. And a
 * relay that cannot listen ends, its threads with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { signHello } from '@fairtable/core/order/hello.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { useNativeCrypto } from '@fairtable/node/native-crypto.js';
import { createGame, diceGame, until, type TestGame } from './test-helpers.js';

const main = fileURLToPath(new URL('../../cli/bin/fairtable.js', import.meta.url));
// The lines are signed with OpenSSL's Ed25519 and hashed with node:crypto's SHA-256 (the same bytes as noble's):
// what is tested is what the relay stores, not how the test made its lines.
useNativeCrypto();
const children: ChildProcess[] = [];
const dirs: string[] = [];
const sockets: WebSocket[] = [];

afterEach(() => {
  for (const ws of sockets.splice(0)) ws.terminate();
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function spawnRelay(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [main, 'relay', '--port', '0', '--host', '127.0.0.1', '--data', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (text) => {
      const log = JSON.parse(text) as { msg?: string; port?: number };
      if (log.msg === 'relay listening') resolve({ child, url: `http://127.0.0.1:${log.port}` });
    });
    child.once('exit', (code) => reject(new Error(`the relay exited (${code}) before listening`)));
  });
}

/** `count` lines after the setup, the players taking turns (line n from player n mod P), each on the log before it. */
function chain(g: TestGame, count: number): string[] {
  const setup = JSON.parse(g.setupLine) as Envelope;
  const lines = [g.setupLine];
  const last = g.ids.map(() => ({ seq: 0, prev: g.id }));
  last[0] = { seq: 1, prev: envelopeHash(setup) };
  let head = envelopeHash(setup);
  for (let n = 1; n <= count; n++) {
    const p = n % g.ids.length;
    const e = signEnvelope(
      { v: 1, game: g.id, from: g.ids[p]!, seq: last[p]!.seq, prev: last[p]!.prev, at: n, head, time: 1000 + n, body: { type: 'note', n } },
      g.keys[p]!.secretKey,
      nativeSign,
    );
    head = envelopeHash(e);
    last[p] = { seq: last[p]!.seq + 1, prev: head };
    lines.push(envelopeLine(e));
  }
  return lines;
}

interface Seen {
  readonly line: number;
  readonly text?: string;
  readonly receipt: unknown;
}

describe('the relay killed under load', () => {
  it('has stored every line it acknowledged or fanned out, with the receipt it sent', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fairtable-relay-load-kill-'));
    dirs.push(dataDir);
    const first = await spawnRelay(dataDir);
    const games = Array.from({ length: 24 }, (_, i) => diceGame(3, 40 + i));
    const lines = games.map((g) => chain(g, 60));
    for (const g of games) expect((await createGame(first.url, g.setupLine)).status).toBe(201);
    const seen: Seen[][] = games.map(() => []);
    let acknowledged = 0;
    const starters: [WebSocket, number][] = [];
    await Promise.all(
      games.flatMap((g, gi) =>
        g.ids.map(
          (id, p) =>
            new Promise<void>((resolve, reject) => {
              const ws = new WebSocket(`${first.url.replace(/^http/, 'ws')}/games/${g.id}/ws`);
              sockets.push(ws);
              ws.on('error', () => {});
              ws.once('close', () => reject(new Error('closed before the welcome')));
              ws.on('message', (data) => {
                const m = JSON.parse(data.toString()) as { kind: string; nonce?: string; line?: number; text?: string; receipt?: unknown };
                if (m.kind === 'challenge') ws.send(JSON.stringify({ kind: 'hello', id, sig: signHello(g.id, m.nonce!, g.keys[p]!.secretKey, nativeSign) }));
                else if (m.kind === 'welcome') {
                  ws.removeAllListeners('close');
                  resolve();
                } else if (m.kind === 'accepted') {
                  acknowledged++;
                  seen[gi]!.push({ line: m.line!, receipt: m.receipt });
                } else if (m.kind === 'entry') {
                  seen[gi]!.push({ line: m.line!, text: m.text!, receipt: m.receipt });
                  // The next player submits the next line as soon as it sees this one.
                  const next = m.line! + 1;
                  if (next % g.ids.length === p && next < lines[gi]!.length) ws.send(JSON.stringify({ kind: 'submit', text: lines[gi]![next] }));
                }
              });
              if (p === 1) starters.push([ws, gi]);
            }),
        ),
      ),
    );
    // Every game under way at once: player 1 of each submits line 1.
    for (const [ws, gi] of starters) ws.send(JSON.stringify({ kind: 'submit', text: lines[gi]![1] }));
    await until(() => acknowledged >= 400, 60_000, 'the load to be under way');
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    const taken = seen.map((s) => [...s]);
    expect(taken.flat().length).toBeGreaterThan(400);

    const second = await spawnRelay(dataDir);
    for (const [gi, g] of games.entries()) {
      const transcript = (await (await fetch(`${second.url}/games/${g.id}/transcript`)).text()).trim().split('\n');
      const receipts = (await (await fetch(`${second.url}/games/${g.id}/receipts`)).text())
        .trim()
        .split('\n')
        .map((r) => JSON.parse(r) as unknown);
      // The stored log is the game's lines in order, with no gap.
      expect(transcript).toEqual(lines[gi]!.slice(0, transcript.length));
      for (const s of taken[gi]!) {
        expect(s.line).toBeLessThan(transcript.length);
        if (s.text !== undefined) expect(transcript[s.line]).toBe(s.text);
        expect(receipts[s.line]).toEqual(s.receipt);
      }
    }
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));
  });

  it('exits with an error, instead of living on in its threads, when it cannot listen', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fairtable-relay-busy-'));
    dirs.push(dataDir);
    const first = await spawnRelay(dataDir);
    const port = new URL(first.url).port;
    const second = spawn(process.execPath, [main, 'relay', '--port', port, '--host', '127.0.0.1', '--data', join(dataDir, 'second')], { stdio: 'ignore' });
    children.push(second);
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => resolve(-1), 20_000);
      second.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code).toBe(2);
  });
});
