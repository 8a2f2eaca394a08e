/**
 * The TCP table's memory under hostile clients (docs/SPEC.md §10.4 "Limits"):
 * the server runs in its own process, and its peak RSS is reported for an idle
 * table (the baseline), a client offering a 600 MB line with no newline, and a
 * player that floods `sync` requests it never reads, reconnecting ten times.
 * Before the limits, the line was held whole and the flood grew a house to
 * 790 MB in 3 s.
 */
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { concatBytes, fromHex, toHex, utf8 } from '@fairtable/core/bytes.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { createSetupEnvelope } from '@fairtable/core/setup.js';
import { envelopeLine, signEnvelope } from '@fairtable/core/envelope.js';
import { prepareLine, readSetupLine } from '@fairtable/core/transcript.js';
import { nativeSign } from '@fairtable/node/native-verify.js';

const serverScript = fileURLToPath(new URL('./lib/tcp-table-server.ts', import.meta.url));
const alice = generateKeyPair(new Uint8Array(32).fill(1));
const bob = generateKeyPair(new Uint8Array(32).fill(2));
const setup = {
  protocol: 'beacon',
  game: null,
  params: {},
  players: [
    { id: 'alice', key: toHex(alice.publicKey) },
    { id: 'bob', key: toHex(bob.publicKey) },
  ],
  nonce: '00'.repeat(32),
  created: 1,
};
const setupLine = envelopeLine(createSetupEnvelope(setup, 'alice', alice));
const { gameId } = readSetupLine(setupLine);

interface Server {
  port: number;
  finish(): Promise<{ maxRssMiB: number; events: string[] }>;
}

async function startServer(): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', serverScript], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.write(setupLine + '\n');
  let buf = '';
  const lines: string[] = [];
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  while (lines.length === 0) await new Promise((r) => setTimeout(r, 20));
  const port = Number(lines.shift());
  return {
    port,
    async finish() {
      child.stdin.end();
      await new Promise((r) => child.once('close', r));
      return JSON.parse(lines[lines.length - 1]!) as { maxRssMiB: number; events: string[] };
    },
  };
}

function hello(port: number, id: string, secret: Uint8Array): Promise<Socket> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => {});
    let buf = '';
    const onData = (d: Buffer): void => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      s.off('data', onData);
      const ch = JSON.parse(buf.slice(0, nl)) as { nonce: string };
      const msg = concatBytes(utf8('fairtable/table-hello/v1'), new Uint8Array([0]), fromHex(gameId), fromHex(ch.nonce));
      s.write(JSON.stringify({ kind: 'hello', id, sig: toHex(nativeSign(msg, secret)) }) + '\n');
      resolve(s);
    };
    s.on('data', onData);
  });
}

const report = (label: string, r: { maxRssMiB: number; events: string[] }): void => {
  const counts = new Map<string, number>();
  for (const e of r.events) counts.set(e, (counts.get(e) ?? 0) + 1);
  process.stdout.write(
    `${label.padEnd(52)} peak RSS ${r.maxRssMiB.toFixed(1)} MB; ${[...counts].map(([k, v]) => `${k} ×${v}`).join(', ') || 'no disconnections'}\n`,
  );
};

// Baseline: a table and one honest client.
{
  const server = await startServer();
  const a = await hello(server.port, 'alice', alice.secretKey);
  a.write(JSON.stringify({ kind: 'sync', from: 0 }) + '\n');
  await new Promise((r) => setTimeout(r, 500));
  a.destroy();
  report('idle table, one honest client', await server.finish());
}

// A 600 MB line with no newline.
{
  const server = await startServer();
  const s = await hello(server.port, 'bob', bob.secretKey);
  const chunk = Buffer.alloc(1 << 20, 0x61);
  let offered = 0;
  await new Promise<void>((resolve) => {
    const pump = (): void => {
      while (offered < 600 && !s.destroyed) {
        offered++;
        if (!s.write(chunk)) {
          s.once('drain', pump);
          return;
        }
      }
      resolve();
    };
    s.on('close', () => resolve());
    setTimeout(() => resolve(), 5000);
    pump();
  });
  s.destroy();
  report(`a 600 MB line (${offered} MiB taken by the socket)`, await server.finish());
}

// A sync flood that is never read, ten connections in a row; a log of 100 lines of 1 KB.
{
  const server = await startServer();
  const a = await hello(server.port, 'alice', alice.secretKey);
  // alice writes 100 envelopes so that each sync answer is 64 entries of about 1 KB.
  const keys = new Map([
    ['alice', alice.publicKey],
    ['bob', bob.publicKey],
  ]);
  let headHash = prepareLine(0, setupLine, keys).hash!;
  let prev = headHash;
  for (let i = 1; i <= 100; i++) {
    const env = signEnvelope(
      { v: 1, game: gameId, from: 'alice', seq: i, prev, at: i, head: headHash, time: i, body: { type: 'note', pad: 'x'.repeat(1000) } },
      alice.secretKey,
    );
    const line = envelopeLine(env);
    headHash = prepareLine(i, line, keys).hash!;
    prev = headHash;
    a.write(JSON.stringify({ kind: 'submit', text: line }) + '\n');
  }
  await new Promise((r) => setTimeout(r, 500));
  const flood = (JSON.stringify({ kind: 'sync', from: 0 }) + '\n').repeat(512);
  for (let round = 0; round < 10; round++) {
    const s = await hello(server.port, 'bob', bob.secretKey);
    s.pause();
    const until = Date.now() + 1500;
    while (!s.destroyed && Date.now() < until) {
      if (!s.write(flood)) await new Promise((r) => setTimeout(r, 10));
      else await new Promise((r) => setImmediate(r));
    }
    s.destroy();
  }
  a.destroy();
  report('sync flood never read, 10 connections × 1.5 s', await server.finish());
}
