/**
 * The TCP table against hostile clients (docs/SPEC.md §10.4): malformed
 * messages, oversized lines, idle and excess connections, resets, floods and
 * clients that never read; and the door that admits only well-formed,
 * canonical, correctly signed envelopes next in their author's sequence.
 * Every test ends by checking that the server still serves an honest client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { concatBytes, fromHex, toHex, utf8 } from '@fairtable/core/bytes.js';
import { generateKeyPair, type KeyPair } from '@fairtable/core/identity.js';
import { createSetupEnvelope } from '@fairtable/core/setup.js';
import { envelopeLine, signEnvelope, type Body, type Envelope } from '@fairtable/core/envelope.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import { nativeSign } from './native-verify.js';
import { admitLine, createDoor, enterLine, reopenDoor, serveTable, connectTable, type TableEvent, type TableLimits, type TableServer } from './tcp-table.js';

const alice = generateKeyPair(new Uint8Array(32).fill(1));
const bob = generateKeyPair(new Uint8Array(32).fill(2));
const carol = generateKeyPair(new Uint8Array(32).fill(3));
const KEYS: Record<string, KeyPair> = { alice, bob, carol };

function makeSetup(nonceByte = 7): string {
  const setup = {
    protocol: 'beacon',
    game: null,
    params: { timeoutMs: 2000 },
    players: Object.entries(KEYS).map(([id, k]) => ({ id, key: toHex(k.publicKey) })),
    nonce: toHex(new Uint8Array(32).fill(nonceByte)),
    created: 1,
  };
  return envelopeLine(createSetupEnvelope(setup, 'alice', alice));
}

/** Signs the envelope `from` would write next on a log of `log` lines (line hashes in `hashes`). */
function next(door: ReturnType<typeof createDoor>, from: string, body: Body = { type: 'note', x: door.log.length }, game = door.gameId): string {
  const author = door.authors.get(from);
  const at = door.log.length;
  const env: Envelope = signEnvelope(
    { v: 1, game, from, seq: author?.lines.length ?? 0, prev: author?.lastHash ?? door.gameId, at, head: door.hashes[at - 1]!, time: 5, body },
    KEYS[from]!.secretKey,
  );
  return envelopeLine(env);
}

describe('the door (admitLine)', () => {
  it('admits the next envelope of the connection’s own player, and refuses every other kind of line with its code', () => {
    const door = createDoor(makeSetup());
    const line1 = next(door, 'bob');
    const ok = admitLine(door, 'bob', line1);
    expect(ok.kind).toBe('admit');
    if (ok.kind !== 'admit') return;
    enterLine(door, line1, ok);
    expect(admitLine(door, 'bob', line1)).toEqual({ kind: 'duplicate', line: 1 });

    const code = (sender: string, text: string): string => {
      const a = admitLine(door, sender, text);
      return a.kind === 'refuse' ? a.code : a.kind;
    };
    const good = next(door, 'carol');
    const parsed = JSON.parse(good) as Record<string, unknown>;
    expect(code('carol', 'null')).toBe('malformed');
    expect(code('carol', '[1]')).toBe('malformed');
    expect(code('carol', '{')).toBe('malformed');
    expect(code('bob', good)).toBe('wrong_sender');
    expect(code('carol', ` ${good}`)).toBe('malformed');
    // A second, conflicting "from": two readers would see two authors.
    expect(code('carol', good.replace('"from":"carol"', '"from":"bob","from":"carol"'))).toBe('malformed');
    expect(code('carol', good.replace('"type":"note"', '"type":"note","n":1e400'))).toBe('malformed');
    expect(code('carol', good.replace('"type":"note"', '"type":"note","s":"\\ud800"'))).toBe('malformed');
    expect(code('carol', good.replace('"type":"note"', `"type":"note","d":${'['.repeat(20000)}${']'.repeat(20000)}`))).toBe('malformed');
    // Depth is counted outside strings: brackets inside a string are text.
    expect(code('carol', next(door, 'carol', { type: 'note', s: '[{'.repeat(100) }))).toBe('admit');
    const deep = (n: number): unknown => (n === 0 ? 0 : [deep(n - 1)]);
    expect(code('carol', next(door, 'carol', { type: 'note', d: deep(62) as never }))).toBe('admit');
    // One level deeper cannot even be signed: the canonical form refuses it (jcs.ts).
    expect(() => next(door, 'carol', { type: 'note', d: deep(63) as never })).toThrow(/deeper than 64/);
    expect(code('carol', next(door, 'carol', undefined, '1'.repeat(64)))).toBe('wrong_game');
    const { sig: _carolSig, ...unsignedGood } = parsed as unknown as Envelope;
    const forged = envelopeLine(signEnvelope(unsignedGood, bob.secretKey));
    expect(code('carol', forged)).toBe('bad_signature');
    const resign = (patch: Record<string, unknown>): string => {
      const { sig: _s, ...unsigned } = { ...parsed, ...patch } as unknown as Envelope;
      return envelopeLine(signEnvelope(unsigned, carol.secretKey));
    };
    expect(code('carol', resign({ seq: 1 }))).toBe('bad_position');
    expect(code('carol', resign({ prev: '2'.repeat(64) }))).toBe('broken_chain');
    expect(code('carol', resign({ at: 0 }))).toBe('bad_position');
    expect(code('carol', resign({ at: 5 }))).toBe('bad_position');
    expect(code('carol', resign({ head: '3'.repeat(64) }))).toBe('broken_chain');
    // bob's second version of its seq-0 envelope: refused, pointing at the first.
    const again = JSON.parse(line1) as Envelope;
    const { sig: _sig, ...u } = { ...again, time: 6 };
    expect(admitLine(door, 'bob', envelopeLine(signEnvelope(u, bob.secretKey)))).toMatchObject({
      kind: 'refuse',
      code: 'equivocation',
      player: 'bob',
      line: 1,
    });
    expect(code('carol', good)).toBe('admit');
  });

  it('rebuilds itself from a transcript it wrote, dropping a last line cut short, and refuses a foreign one', () => {
    const door = createDoor(makeSetup());
    for (const p of ['bob', 'carol', 'bob', 'alice']) {
      const t = next(door, p);
      const a = admitLine(door, p, t);
      if (a.kind !== 'admit') throw new Error(a.kind);
      enterLine(door, t, a);
    }
    const file = door.log.join('\n') + '\n';
    const again = reopenDoor(file + door.log[2]!.slice(0, 40));
    expect(again.log).toEqual(door.log);
    expect(again.authors.get('bob')!.lines).toEqual([1, 3]);
    const lines = door.log.slice();
    [lines[2], lines[3]] = [lines[3]!, lines[2]!];
    expect(() => reopenDoor(lines.join('\n') + '\n')).toThrow(/bad_position|door/);
  });
});

// ---------------------------------------------------------------------------
// Over sockets.
// ---------------------------------------------------------------------------

const helloBytes = (gameId: string, nonce: string): Uint8Array =>
  concatBytes(utf8('fairtable/table-hello/v1'), new Uint8Array([0]), fromHex(gameId), fromHex(nonce));

interface Raw {
  readonly socket: Socket;
  readonly lines: string[];
  readonly closed: Promise<void>;
  waitFor(pred: (msg: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  hello(id: string): Promise<void>;
}

function raw(port: number): Raw {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  const lines: string[] = [];
  let buf = '';
  const waiters: (() => void)[] = [];
  socket.on('data', (d: Buffer) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<void>((r) => socket.on('close', () => r()));
  const self: Raw = {
    socket,
    lines,
    closed,
    async waitFor(pred, ms = 5000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const hit = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find(pred);
        if (hit !== undefined) return hit;
        if (Date.now() > deadline) throw new Error(`timed out; got ${lines.join(' | ')}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
    },
    async hello(id) {
      const ch = await self.waitFor((m) => m.kind === 'challenge');
      const { gameId } = readSetupLine(ch.setup as string);
      socket.write(JSON.stringify({ kind: 'hello', id, sig: toHex(nativeSign(helloBytes(gameId, ch.nonce as string), KEYS[id]!.secretKey)) }) + '\n');
    },
  };
  return self;
}

let server: TableServer | null = null;
const events: TableEvent[] = [];
const setupLine = makeSetup();

async function start(limits: Partial<TableLimits> = {}, journal?: string): Promise<TableServer> {
  events.length = 0;
  server = await serveTable(setupLine, { limits, onEvent: (e) => events.push(e), ...(journal === undefined ? {} : { journal }) });
  return server;
}

afterEach(async () => {
  await server?.close();
  server = null;
});

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** An honest client can still connect, prove itself and sync: the server survived. */
async function stillServes(s: TableServer, id = 'carol'): Promise<void> {
  const c = raw(s.port);
  await c.hello(id);
  c.socket.write(JSON.stringify({ kind: 'sync', from: 0 }) + '\n');
  await c.waitFor((m) => m.kind === 'entry' && m.index === 0);
  c.socket.destroy();
}

describe('the TCP table facing hostile clients', () => {
  it('answers a non-object message before or after hello with a coded error and closes only that connection', async () => {
    const s = await start();
    for (const bad of ['null', '42', '"hello"', '[]', '{"kind":7}', 'not json']) {
      const before = raw(s.port);
      await before.waitFor((m) => m.kind === 'challenge');
      before.socket.write(bad + '\n');
      expect(await before.waitFor((m) => m.kind === 'error')).toMatchObject({ code: 'bad_message' });
      await before.closed;

      const after = raw(s.port);
      await after.hello('bob');
      after.socket.write(bad + '\n');
      expect(await after.waitFor((m) => m.kind === 'error')).toMatchObject({ code: 'bad_message', player: 'bob' });
      await after.closed;
    }
    expect(events.filter((e) => e.type === 'disconnected' && e.player === 'bob' && e.code === 'bad_message')).toHaveLength(6);
    await stillServes(s);
  });

  it('closes a connection whose line passes the cap, without holding the line', async () => {
    const s = await start({ maxLineBytes: 64 * 1024 });
    const c = raw(s.port);
    await c.hello('bob');
    const chunk = Buffer.alloc(1 << 20, 0x61);
    // 16 MiB offered; the server stops after the first 64 KiB.
    for (let i = 0; i < 16 && !c.socket.destroyed; i++) if (!c.socket.write(chunk)) await new Promise((r) => setTimeout(r, 20));
    expect(await c.waitFor((m) => m.kind === 'error')).toMatchObject({ code: 'line_too_long', player: 'bob' });
    await c.closed;
    await stillServes(s);
  });

  it('drops a connection that sends no hello in time, and keeps to its connection limit', async () => {
    const s = await start({ helloTimeoutMs: 200, maxConnections: 3 });
    const idle = raw(s.port);
    expect(await idle.waitFor((m) => m.kind === 'error')).toMatchObject({ code: 'hello_timeout' });
    await idle.closed;
    await s.close();

    const t = await start({ maxConnections: 3 });
    // Two players in, one idle connection: a newcomer takes the idle one's place.
    const bobC = raw(t.port);
    await bobC.hello('bob');
    const carolC = raw(t.port);
    await carolC.hello('carol');
    const squatter = raw(t.port);
    await squatter.waitFor((m) => m.kind === 'challenge');
    await new Promise((r) => setTimeout(r, 50));
    const alice = raw(t.port);
    expect(await squatter.waitFor((m) => m.kind === 'error')).toMatchObject({ code: 'too_many_connections' });
    await alice.hello('alice');
    await new Promise((r) => setTimeout(r, 50));
    expect(t.connections).toBe(3);
    // Three players in: nobody to make way, so the newcomer is refused.
    const extra = raw(t.port);
    expect(await extra.waitFor((m) => m.kind === 'error')).toMatchObject({ code: 'too_many_connections' });
    for (const c of [bobC, carolC, alice]) {
      c.socket.write(JSON.stringify({ kind: 'sync', from: 0 }) + '\n');
      await c.waitFor((m) => m.kind === 'entry');
      c.socket.destroy();
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(t.connections).toBe(0);
    await stillServes(t);
  });

  it('survives clients that reset their connections, mid-line and mid-game, again and again', async () => {
    const s = await start();
    for (let i = 0; i < 30; i++) {
      const c = raw(s.port);
      if (i % 2 === 0) await c.hello('bob');
      else await c.waitFor((m) => m.kind === 'challenge');
      c.socket.write(JSON.stringify({ kind: 'sync', from: 0 }).slice(0, 9));
      c.socket.resetAndDestroy();
    }
    await stillServes(s);
  });

  it('survives player processes killed mid-game (kill -9)', async () => {
    const s = await start();
    const script = `
      const net = require('node:net');
      const s = net.connect(${s.port}, '127.0.0.1');
      s.on('data', () => { s.write('{"kind":"sync","from":0}\\n{"kind":"su'); process.stdout.write('ready\\n'); });
      setInterval(() => {}, 1000);`;
    for (let i = 0; i < 8; i++) {
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
      await new Promise<void>((r) => child.stdout.once('data', () => r()));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('close', r));
    }
    await stillServes(s);
  });

  it('refuses at submission what the door refuses, and broadcasts what it admits', async () => {
    const s = await start();
    const b = raw(s.port);
    await b.hello('bob');
    const shadow = createDoor(setupLine);
    b.socket.write(JSON.stringify({ kind: 'submit', text: next(shadow, 'carol') }) + '\n');
    expect(await b.waitFor((m) => m.kind === 'refused')).toMatchObject({ code: 'wrong_sender' });
    const line = next(shadow, 'bob');
    b.socket.write(JSON.stringify({ kind: 'submit', text: line }) + '\n');
    b.socket.write(JSON.stringify({ kind: 'submit', text: line }) + '\n');
    expect(await b.waitFor((m) => m.kind === 'entry' && m.index === 1)).toMatchObject({ text: line });
    expect(s.log).toEqual([setupLine, line]);
    expect(events.filter((e) => e.type === 'refused')).toMatchObject([{ player: 'bob', code: 'wrong_sender' }]);
    b.socket.destroy();
  });

  it('disconnects and names a client that floods sync requests', async () => {
    const s = await start({ messagesPerSecond: 50, messageBurst: 100 });
    const f = raw(s.port);
    await f.hello('bob');
    f.socket.pause(); // never reads
    const flood = (JSON.stringify({ kind: 'sync', from: 0 }) + '\n').repeat(1000);
    f.socket.write(flood);
    await until(() => events.some((e) => e.type === 'disconnected'));
    expect(events).toContainEqual(expect.objectContaining({ type: 'disconnected', player: 'bob', code: 'rate_limited' }));
    await stillServes(s);
  });

  it('disconnects and names a client within the rate that never reads what it asks for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairtable-tcp-'));
    const s = await start({ pauseOutputBytes: 64 * 1024, maxOutputBytes: 1 << 20, stallMs: 500 }, join(dir, 'log.jsonl'));
    // A log of 70 lines, so that each sync answer is 64 entries.
    const w = raw(s.port);
    await w.hello('carol');
    const shadow = createDoor(setupLine);
    for (let i = 0; i < 70; i++) {
      const t = next(shadow, 'carol', { type: 'note', pad: 'x'.repeat(400) });
      const a = admitLine(shadow, 'carol', t);
      if (a.kind !== 'admit') throw new Error(a.kind);
      enterLine(shadow, t, a);
      w.socket.write(JSON.stringify({ kind: 'submit', text: t }) + '\n');
    }
    await w.waitFor((m) => m.kind === 'entry' && m.index === 70);
    w.socket.destroy();
    // The journal holds every accepted line, in order, as it was accepted.
    expect(readFileSync(join(dir, 'log.jsonl'), 'utf8')).toBe(shadow.log.join('\n') + '\n');

    const f = raw(s.port);
    await f.hello('bob');
    f.socket.pause();
    const timer = setInterval(() => {
      if (!f.socket.destroyed) f.socket.write(JSON.stringify({ kind: 'sync', from: 0 }) + '\n');
    }, 20);
    await until(() => events.some((e) => e.type === 'disconnected' && e.player === 'bob'), 30_000);
    clearInterval(timer);
    f.socket.destroy();
    expect(events).toContainEqual(expect.objectContaining({ type: 'disconnected', player: 'bob', code: 'slow_reader' }));
    await stillServes(s);
  }, 60_000);
});

describe('the TCP client', () => {
  it('gives coded errors: nothing listening, a server that is not a table, a table that closes', async () => {
    const s = await start();
    const port = s.port;
    await s.close();
    server = null;
    await expect(connectTable('127.0.0.1', port, 'bob', bob.secretKey)).rejects.toMatchObject({ code: 'connection_refused' });

    const { createServer } = await import('node:net');
    const junk = createServer((sock) => sock.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await new Promise<void>((r) => junk.listen(0, '127.0.0.1', () => r()));
    const junkPort = (junk.address() as { port: number }).port;
    await expect(connectTable('127.0.0.1', junkPort, 'bob', bob.secretKey)).rejects.toMatchObject({ code: 'bad_challenge' });
    junk.close();

    const t = await start();
    const conn = await connectTable('127.0.0.1', t.port, 'bob', bob.secretKey, { reconnectMs: 0 });
    await t.close();
    server = null;
    await expect(conn.failed).resolves.toMatchObject({ code: 'connection_closed' });
  });

  it('reconnects to a restarted table of the same game and keeps its own copy of the log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairtable-tcp-'));
    const journal = join(dir, 'house.jsonl');
    const s = await start({}, journal);
    const port = s.port;
    const copy = join(dir, 'bob.jsonl');
    const conn = await connectTable('127.0.0.1', port, 'bob', bob.secretKey, { reconnectMs: 5000, copyTo: copy });
    const seen: number[] = [];
    conn.attach(
      {
        id: 'bob',
        receive: (_f, p) => seen.push((p as { index: number }).index),
        tick: (net) => net.send('bob', 'table', { kind: 'sync', from: seen.length + 1 }),
      },
      50,
    );
    const shadow = createDoor(setupLine);
    const t1 = next(shadow, 'bob');
    enterLine(shadow, t1, admitLine(shadow, 'bob', t1) as never);
    conn.link.send('bob', 'table', { kind: 'submit', text: t1 });
    await new Promise((r) => setTimeout(r, 300));
    await s.close();
    // The same game again, from the journal, on the same port.
    server = await serveTable(setupLine, { port, journal, resume: reopenDoor(readFileSync(journal, 'utf8')) });
    const t2 = next(shadow, 'bob');
    enterLine(shadow, t2, admitLine(shadow, 'bob', t2) as never);
    const deadline = Date.now() + 5000;
    while (!seen.includes(2) && Date.now() < deadline) {
      conn.link.send('bob', 'table', { kind: 'submit', text: t2 });
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toContain(2);
    conn.close();
    expect(readFileSync(copy, 'utf8')).toBe(shadow.log.join('\n') + '\n');
    expect(readFileSync(journal, 'utf8')).toBe(shadow.log.join('\n') + '\n');
  });
});
