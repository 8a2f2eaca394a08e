/**
 * The relay on Postgres (docs/spec/relay.md §4, "On Postgres"): a real game played through it, every receipt
 * checked by the seats, audited valid from the stored transcript, and a second relay on the same database
 * serving the same log under the same key; with leases, a game ordered by one process at a time, taken over
 * by another when the first stops. The server is FAIRTABLE_TEST_DATABASE_URL's (postgres-store.test.ts says
 * how it is started, and why the suite fails under CI without it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { fromHex } from '@fairtable/core/bytes.js';
import { auditLines } from '@fairtable/core/audit.js';
import { startRelay, type Relay } from './relay.js';
import { checkReceipt } from '@fairtable/core/order/receipt.js';
import { createGame, CuttableProxy, diceGame, noteEnvelopes, RelaySeat, until, WireClient } from './test-helpers.js';

const url = process.env.FAIRTABLE_TEST_DATABASE_URL;
const skipReason = 'skipped: FAIRTABLE_TEST_DATABASE_URL is not set (`eval "$(.ci/postgres.sh start)"` starts a server and sets it)';

let schemas = 0;
const schemasMade: string[] = [];
const freshSchema = (): string => {
  const s = `r_${process.pid}_${Date.now().toString(36)}_${schemas++}`;
  schemasMade.push(s);
  return s;
};

const relays: Relay[] = [];
const seats: RelaySeat[] = [];
afterEach(async () => {
  for (const s of seats.splice(0)) s.stop();
  for (const r of relays.splice(0)) await r.close();
  if (url === undefined) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const s of schemasMade.splice(0)) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  } finally {
    await client.end();
  }
});

const relayOn = async (schema: string, node?: string, leaseMs?: number, databaseUrl = url!): Promise<Relay> => {
  const r = await startRelay({
    port: 0,
    database: { url: databaseUrl, schema, ...(node === undefined ? {} : { node }), ...(leaseMs === undefined ? {} : { leaseMs }) },
    logger: pino({ level: 'silent' }),
    verifyThreads: 0,
  });
  relays.push(r);
  return r;
};

const main = fileURLToPath(new URL('../../cli/bin/fairtable.js', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', (code) => r(code)));

/** `fairtable relay --node NODE --lease-ms MS` on the test database; its URL and key once it listens. */
function cliRelayNode(schema: string, node: string, leaseMs: number): { child: ChildProcess; listening: Promise<{ url: string; key: string }> } {
  const command = [
    'relay',
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--database',
    url!,
    '--database-schema',
    schema,
    '--node',
    node,
    '--lease-ms',
    String(leaseMs),
  ];
  const child = spawn(process.execPath, [main, ...command], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const listening = new Promise<{ url: string; key: string }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const log = JSON.parse(line) as { msg?: string; port?: number; relay?: string };
      if (log.msg === 'relay listening') resolve({ url: `http://127.0.0.1:${log.port}`, key: log.relay! });
    });
    child.once('exit', (code) => reject(new Error(`the relay exited (${code}) before listening`)));
  });
  return { child, listening };
}

const text = async (u: string): Promise<string[]> => (await (await fetch(u)).text()).trim().split('\n');

describe.skipIf(url === undefined)(`the relay on Postgres${url === undefined ? ` (${skipReason})` : ''}`, () => {
  it('plays a game to its end with every receipt checked; a second relay on the database serves the same log under the same key', async () => {
    const schema = freshSchema();
    const relay = await relayOn(schema);
    const g = diceGame(3, 4, 3);
    expect((await createGame(relay.url, g.setupLine)).status).toBe(201);
    const playing = g.ids.map((_, i) => new RelaySeat(g, i, fromHex(relay.publicKey)));
    seats.push(...playing);
    for (const s of playing) await s.connect(relay.url);
    await until(() => playing.every((s) => s.seat.outcome() !== null), 30_000, 'the game to end');
    for (const s of playing) expect(s.problems).toEqual([]);
    const transcript = await text(`${relay.url}/games/${g.id}/transcript`);
    expect(transcript).toEqual(playing[0]!.seat.lines);
    expect(transcript.length).toBeGreaterThan(10);
    const verdict = auditLines(transcript);
    expect(verdict.violations).toEqual([]);
    expect(verdict.valid).toBe(true);

    const second = await relayOn(schema);
    expect(second.publicKey).toBe(relay.publicKey);
    expect(await text(`${second.url}/games/${g.id}/transcript`)).toEqual(transcript);
    const receipts = (await text(`${second.url}/games/${g.id}/receipts`)).map((r) => JSON.parse(r) as unknown);
    expect(receipts).toEqual(playing[0]!.receipts);
  });

  it('runs as `fairtable relay --database URL --node NAME`, saying in /health which games it holds leases on', async () => {
    const schema = freshSchema();
    const command = ['relay', '--port', '0', '--host', '127.0.0.1', '--database', url!, '--database-schema', schema, '--node', 'cli-node'];
    const child = spawn(process.execPath, [main, ...command], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const relayUrl = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const log = JSON.parse(line) as { msg?: string; port?: number };
        if (log.msg === 'relay listening') resolve(`http://127.0.0.1:${log.port}`);
      });
      child.once('exit', (code) => reject(new Error(`the relay exited (${code}) before listening`)));
    });
    const g = diceGame(2, 12, 1);
    expect((await createGame(relayUrl, g.setupLine)).status).toBe(201);
    const health = (await (await fetch(`${relayUrl}/health`)).json()) as { node: string; leases: { game: string }[] };
    expect(health.node).toBe('cli-node');
    expect(health.leases.map((l) => l.game)).toContain(g.id);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);

    // A node name without a database is refused before anything starts.
    const wrong = spawn(process.execPath, [main, 'relay', '--port', '0', '--node', 'cli-node'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DATABASE_URL: '' },
    });
    children.push(wrong);
    let said = '';
    wrong.stderr!.on('data', (d: Buffer) => (said += d.toString()));
    expect(await exited(wrong)).not.toBe(0);
    expect(said).toContain('--database');
  });

  it('a relay process killed mid-game loses its leases after their length; another takes the game over from the stored log', async () => {
    const schema = freshSchema();
    const leaseMs = 2000;
    const { child, listening } = cliRelayNode(schema, 'doomed', leaseMs);
    const first = await listening;
    const g = diceGame(3, 14, 8);
    expect((await createGame(first.url, g.setupLine)).status).toBe(201);
    const playing = g.ids.map((_, i) => new RelaySeat(g, i, fromHex(first.key)));
    seats.push(...playing);
    for (const s of playing) await s.connect(first.url);
    await until(() => playing.some((s) => s.receipts.length >= 8), 20_000, 'the game to be under way');
    child.kill('SIGKILL');
    await exited(child);
    const killedAt = Date.now();
    for (const s of playing) s.disconnect();
    const acknowledged = [...playing.reduce((a, s) => (s.seat.lines.length > a.length ? s.seat.lines : a), [] as readonly string[])];

    // Another process of the service serves the game at once, following it; it orders it only once the dead
    // process's lease has run out (its seats' submissions wait in the inbox meanwhile), then takes it over.
    const second = await relayOn(schema, 'survivor', leaseMs);
    expect(second.publicKey).toBe(first.key);
    expect((await fetch(`${second.url}/games/${g.id}`)).status).toBe(200);
    for (const s of playing) await s.connect(second.url);
    const holds = async (): Promise<boolean> =>
      ((await (await fetch(`${second.url}/health`)).json()) as { leases: { game: string }[] }).leases.some((l) => l.game === g.id);
    for (let i = 0; i < 400 && !(await holds()); i++) await new Promise((r) => setTimeout(r, 25));
    expect(await holds()).toBe(true);
    // Not before the lease could have run out (the dead process renewed it at most a third of its length before dying).
    expect(Date.now() - killedAt).toBeGreaterThan(leaseMs / 2);
    await until(() => playing.every((s) => s.seat.outcome() !== null), 30_000, 'the game to end on the survivor');
    for (const s of playing) expect(s.problems).toEqual([]);
    const transcript = await text(`${second.url}/games/${g.id}/transcript`);
    expect(transcript.slice(0, acknowledged.length)).toEqual(acknowledged);
    expect(transcript).toEqual(playing[0]!.seat.lines);
    const verdict = auditLines(transcript);
    expect(verdict.violations).toEqual([]);
    expect(verdict.valid).toBe(true);
  });

  it('a relay process paused (SIGSTOP) past its lease and resumed appends nothing: the game goes on elsewhere, and the log never forks', async () => {
    const schema = freshSchema();
    const leaseMs = 2000;
    const { child, listening } = cliRelayNode(schema, 'paused', leaseMs);
    const first = await listening;
    const g = diceGame(3, 9, 2);
    expect((await createGame(first.url, g.setupLine)).status).toBe(201);
    const [n0] = noteEnvelopes(g, 0, 1);
    const [n1] = noteEnvelopes(g, 1, 1);
    const [n2] = noteEnvelopes(g, 2, 1);
    const p0 = await WireClient.join(first.url, g, 0);
    const p1 = await WireClient.join(first.url, g, 1);
    p0.send({ kind: 'submit', text: n0! });
    expect((await p0.next('accepted')).line).toBe(1);

    // Paused with its lease held; p1's submission waits unread in its socket.
    child.kill('SIGSTOP');
    p1.send({ kind: 'submit', text: n1! });
    const survivor = await relayOn(schema, 'survivor', leaseMs);
    const p2 = await WireClient.join(survivor.url, g, 2);
    p2.send({ kind: 'submit', text: n2! });
    // Ordered by the survivor once the paused process's lease ran out (its renewals stopped with it).
    const second = await p2.next('accepted', 20_000);
    expect(second.line).toBe(2);

    // Resumed: it finds its lease gone (by its renewal, or by the fenced append of p1's submission) and refuses
    // p1 `lease_lost`, storing nothing; p1 would reconnect and resend to whichever process serves it.
    child.kill('SIGCONT');
    const refusal = await p1.next('error', 10_000);
    expect(refusal.code).toBe('lease_lost');
    await new Promise((r) => setTimeout(r, 1500));
    const transcript = await text(`${survivor.url}/games/${g.id}/transcript`);
    expect(transcript).toEqual([g.setupLine, n0, n2]);
    // One receipt a line, each under the one key, each naming its own line: no line was stored twice.
    const receipts = (await text(`${survivor.url}/games/${g.id}/receipts`)).map((r) => checkReceipt(JSON.parse(r), fromHex(first.key)));
    expect(receipts.map((r) => r.line)).toEqual(transcript.map((_, i) => i));
    // The paused process holds no lease on the game any more.
    const held = (await (await fetch(`${first.url}/health`)).json()) as { leases: { game: string }[] };
    expect(held.leases.some((l) => l.game === g.id)).toBe(false);
    p0.close();
    p1.close();
    p2.close();
  });

  it('refuses to start on a database migrated past what it knows, with a coded error', async () => {
    const schema = freshSchema();
    await (await relayOn(schema)).close();
    relays.splice(0);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`INSERT INTO ${schema}.fairtable_migrations (version) SELECT max(version) + 1 FROM ${schema}.fairtable_migrations`);
    } finally {
      await client.end();
    }
    await expect(relayOn(schema)).rejects.toMatchObject({ code: 'schema_too_new' });
  });

  it('rides out a database restart mid-game: coded errors, nothing acknowledged lost, and play resumes', async () => {
    const schema = freshSchema();
    const target = new URL(url!);
    const proxy = await CuttableProxy.start(target.hostname, Number(target.port || 5432));
    try {
      const through = new URL(url!);
      through.host = `127.0.0.1:${proxy.port}`;
      const relay = await relayOn(schema, undefined, undefined, through.toString());
      const g = diceGame(3, 8, 10);
      expect((await createGame(relay.url, g.setupLine)).status).toBe(201);
      const playing = g.ids.map((_, i) => new RelaySeat(g, i, fromHex(relay.publicKey)));
      seats.push(...playing);
      for (const s of playing) await s.connect(relay.url);
      // A watcher on the game's wire, to read the relay's coded error.
      const watcher = await WireClient.join(relay.url, g, 0);
      await until(() => playing.some((s) => s.receipts.length >= 6), 20_000, 'the game to be under way');

      proxy.cut();
      // Everything a seat was sent by now was stored and acknowledged first.
      const acknowledged = [...playing.reduce((a, s) => (s.seat.lines.length > a.length ? s.seat.lines : a), [] as readonly string[])];
      // A submission now is refused with a code: at once once the storage watch has found the database away, or
      // by the append failing, which closes the game's connections with the same code.
      let coded: Record<string, unknown> | undefined;
      for (let i = 0; i < 100 && coded === undefined; i++) {
        if (watcher.closed === null) watcher.send({ kind: 'submit', text: '{}' });
        await new Promise((r) => setTimeout(r, 100));
        coded = watcher.messages.find((m) => m.code === 'storage_full');
      }
      expect(coded).toMatchObject({ code: 'storage_full' });
      expect(['refused', 'error']).toContain(coded!.kind);
      // While the database is away, reads are refused with a code, not hung, and /health says writes are refused.
      // (A game not in memory must be read from the store.)
      const read = await fetch(`${relay.url}/games/${'ee'.repeat(32)}`);
      expect(read.status).toBe(503);
      expect(((await read.json()) as { error: { code: string } }).error.code).toBe('store_failed');
      const health = (await (await fetch(`${relay.url}/health`)).json()) as { storage?: { code: string } };
      expect(health.storage?.code).toBe('storage_full');

      proxy.restore();
      // The seats reconnect (as a client does after a coded close) and sync; the game ends.
      for (const s of playing) s.disconnect();
      for (const s of playing)
        for (let tries = 0; ; tries++) {
          try {
            await s.connect(relay.url);
            break;
          } catch (e) {
            if (tries > 100) throw e;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      await until(() => playing.every((s) => s.seat.outcome() !== null), 40_000, 'the game to end after the restart');
      for (const s of playing) expect(s.problems).toEqual([]);
      const transcript = await text(`${relay.url}/games/${g.id}/transcript`);
      expect(transcript.slice(0, acknowledged.length)).toEqual(acknowledged);
      expect(transcript).toEqual(playing[0]!.seat.lines);
      const verdict = auditLines(transcript);
      expect(verdict.violations).toEqual([]);
      expect(verdict.valid).toBe(true);
      watcher.ws.terminate();
    } finally {
      for (const s of seats.splice(0)) s.stop();
      for (const r of relays.splice(0)) await r.close();
      await proxy.close();
    }
  });

  it('orders a game in one process at a time: a lease taken from a live process fences it, and the other finishes the game from the stored log', async () => {
    const schema = freshSchema();
    const a = await relayOn(schema, 'node-a', 3000);
    const b = await relayOn(schema, 'node-b', 3000);
    // One relay identity for every process of the service: the key is the database's.
    expect(b.publicKey).toBe(a.publicKey);
    const g = diceGame(3, 6, 6);
    expect((await createGame(a.url, g.setupLine)).status).toBe(201);
    // B serves a game A holds by following it (relay.md §4, "Clients on any process"), without its lease.
    expect((await fetch(`${b.url}/games/${g.id}`)).status).toBe(200);
    const follower = await WireClient.join(b.url, g, 0);
    follower.close();
    const health = async (r: Relay): Promise<{ node: string; leases: { game: string; token: number }[] }> =>
      (await (await fetch(`${r.url}/health`)).json()) as { node: string; leases: { game: string; token: number }[] };
    expect(await health(a)).toMatchObject({ node: 'node-a', leases: [{ game: g.id }] });
    expect(await health(b)).toMatchObject({ leases: [], fanout: { followed: 1 } });

    const playing = g.ids.map((_, i) => new RelaySeat(g, i, fromHex(a.publicKey)));
    seats.push(...playing);
    for (const s of playing) await s.connect(a.url);
    await until(() => playing.some((s) => s.receipts.length >= 6), 20_000, 'the game to be under way on A');

    // A "pauses": its lease is made to run out in the database (as if A had not renewed it), and B takes the game
    // over while A still runs.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`UPDATE ${schema}.game_leases SET expires = 0 WHERE game = $1`, [g.id]);
    } finally {
      await client.end();
    }
    // A hears of it at its next renewal: the game leaves A's memory and A writes no more of it.
    const dropped = async (): Promise<boolean> => (await health(a)).leases.length === 0;
    for (let i = 0; i < 250 && !(await dropped()); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await dropped()).toBe(true);
    expect(await (await fetch(`${a.url}/metrics`)).text()).toMatch(/fairtable_relay_leases_held\{node="node-a"\} 0\n/);

    // The seats move to B and finish there: every receipt checks under the one key, on one chain.
    for (const s of playing) s.disconnect();
    for (const s of playing) await s.connect(b.url);
    await until(() => playing.every((s) => s.seat.outcome() !== null), 30_000, 'the game to end on B');
    for (const s of playing) expect(s.problems).toEqual([]);
    const transcript = await text(`${b.url}/games/${g.id}/transcript`);
    expect(transcript).toEqual(playing[0]!.seat.lines);
    const verdict = auditLines(transcript);
    expect(verdict.violations).toEqual([]);
    expect(verdict.valid).toBe(true);
    // B took the game over with a larger token; A, asked for it again, follows it and orders nothing.
    expect((await health(b)).leases).toEqual([{ game: g.id, token: expect.any(Number) as number }]);
    expect((await fetch(`${a.url}/games/${g.id}`)).status).toBe(200);
    expect((await health(a)).leases).toEqual([]);
  });
});
