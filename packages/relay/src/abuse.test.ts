/**
 * The relay stays up for everyone (docs/spec/relay.md §5, "Quotas", "Reads", "Storage"), on 127.0.0.1: a game
 * at its quota refuses the next line `game_full` and a key past its games `too_many_games`; transcripts are
 * streamed a page at a time, never read ahead of the client, bounded per request (`read_too_large`) and in
 * reads at once (`too_many_reads`); a `sync` flood on one connection is paced and another game's lines go on;
 * writes are refused `storage_full` while the disk is short of space and let in again when it returns; a
 * relay whose store cannot write neither exits nor loses an acknowledged line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readPage, linesStream } from './reads.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store, StoredLine } from './store.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { createGame, diceGame, testRelays, until, WireClient, type TestGame } from './test-helpers.js';
import type { DiskReading } from './storage-watch.js';
import { MemoryWitnessStore, type WitnessStore } from './witness.js';

const { relay, directory, closeAll } = testRelays();
afterEach(closeAll);

/** A SQLite store whose byte-bounded reads are counted (and can be held), and whose appends can be made to fail. */
function watchedStore(dir: string) {
  const inner = new SqliteStore(dir);
  const pages: StoredLine[][] = [];
  const state = { failing: false, hold: null as Promise<void> | null };
  const store: Store = {
    createGame: (...a) => inner.createGame(...a),
    readLines: (...a) => inner.readLines(...a),
    async readPage(game, from, limit, maxBytes) {
      if (state.hold !== null) await state.hold;
      const page = await inner.readPage(game, from, limit, maxBytes);
      pages.push(page);
      return page;
    },
    lineCount: (...a) => inner.lineCount(...a),
    listGames: () => inner.listGames(),
    relayKey: () => inner.relayKey(),
    close: () => inner.close(),
    append: (lines) => (state.failing ? Promise.reject(new Error('SQLITE_FULL: database or disk is full')) : inner.append(lines)),
  };
  return { store, pages, state, inner };
}

/** `count` notes of player 1 of `g`, each `noteBytes` long, to be lines 1, 2, … of the game (player 1 writes alone). */
function noteEnvelopes(g: TestGame, _player: 1, count: number, noteBytes = 16): string[] {
  const out: string[] = [];
  let head = envelopeHash(JSON.parse(g.setupLine) as Envelope);
  let prev = g.id;
  for (let seq = 0; seq < count; seq++) {
    const e = signEnvelope(
      { v: 1, game: g.id, from: g.ids[1]!, seq, prev, at: seq + 1, head, time: 5, body: { type: 'note', note: `${seq}`.padEnd(noteBytes, '.') } },
      g.keys[1]!.secretKey,
      nativeSign,
    );
    out.push(envelopeLine(e));
    head = prev = envelopeHash(e);
  }
  return out;
}

/** Submits `lines` one after another on `c`, each waiting for its answer; the answers. */
async function submitAll(c: WireClient, lines: readonly string[]): Promise<{ kind: string; code?: unknown; line?: unknown }[]> {
  const out: { kind: string; code?: unknown; line?: unknown }[] = [];
  for (const text of lines) {
    c.send({ kind: 'submit', text });
    await until(() => c.messages.some((m) => m.kind === 'accepted' || m.kind === 'refused'), 10_000, 'an answer');
    const i = c.messages.findIndex((m) => m.kind === 'accepted' || m.kind === 'refused');
    out.push(c.messages.splice(i, 1)[0]!);
  }
  return out;
}

describe('quotas', () => {
  it('refuses the line that would take a game past its lines, and past its bytes, with game_full', async () => {
    const r = await relay({ quotas: { gameLines: 4 } });
    const g = diceGame(3, 31);
    await createGame(r.url, g.setupLine);
    const c = await WireClient.join(r.url, g, 1);
    const answers = await submitAll(c, noteEnvelopes(g, 1, 5));
    expect(answers.map((a) => a.kind)).toEqual(['accepted', 'accepted', 'accepted', 'refused', 'refused']);
    expect(answers[3]!.code).toBe('game_full');
    expect(r.metrics.refusalCount('game_full')).toBe(2);

    const big = await relay({ quotas: { gameBytes: g.setupLine.length + 2 * 20_000 + 1000 } });
    const h = diceGame(3, 32);
    await createGame(big.url, h.setupLine);
    const d = await WireClient.join(big.url, h, 1);
    const sized = await submitAll(d, noteEnvelopes(h, 1, 3, 20_000));
    expect(sized.map((a) => [a.kind, a.code ?? a.line])).toEqual([
      ['accepted', 1],
      ['accepted', 2],
      ['refused', 'game_full'],
    ]);
    // The game stays readable, and holds what was accepted.
    const transcript = await (await fetch(`${big.url}/games/${h.id}/transcript`)).text();
    expect(transcript.trim().split('\n')).toHaveLength(3);
  });

  it('refuses a key past its games with too_many_games, and takes another key', async () => {
    const r = await relay({ quotas: { gamesPerKey: 2 } });
    // The same seed: the same creator key, a new game each time (the setup's time differs).
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push(await createGame(r.url, diceGame(2, 33, i + 2).setupLine));
    }
    expect(made.map((m) => m.status)).toEqual([201, 201, 429]);
    expect((made[2]!.body.error as { code: string }).code).toBe('too_many_games');
    expect((await createGame(r.url, diceGame(2, 34).setupLine)).status).toBe(201);
  });
});

describe('reads', () => {
  it('reads a stream of lines a page at a time, only when the reader asks for more', async () => {
    const dir = directory();
    const { store, pages, inner } = watchedStore(dir);
    const g = diceGame(2, 35);
    const r = await relay({ store, reads: { pageBytes: 64 << 10 } });
    await createGame(r.url, g.setupLine);
    const c = await WireClient.join(r.url, g, 1);
    await submitAll(c, noteEnvelopes(g, 1, 12, 30_000));
    expect(await inner.lineCount(g.id)).toBe(13);
    pages.length = 0;
    let ended = false;
    const stream = linesStream(
      store,
      g.id,
      13,
      64 << 10,
      (l) => l.text,
      () => (ended = true),
    );
    const reader = stream.getReader();
    const first = await reader.read();
    await new Promise((res) => setTimeout(res, 100));
    // One page read for one chunk taken: nothing read ahead of the reader.
    expect(pages).toHaveLength(1);
    let text = Buffer.from(first.value!).toString('utf8');
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += Buffer.from(chunk.value).toString('utf8');
    expect(ended).toBe(true);
    expect(text.trim().split('\n')).toHaveLength(13);
    // Every page within its bytes (a page is at least one line).
    for (const p of pages) expect(p.length === 1 || p.reduce((n, l) => n + l.text.length, 0) <= 64 << 10).toBe(true);
    expect(pages.length).toBeGreaterThan(3);
    // The same through the relay: the transcript, streamed in pages, is the stored lines.
    pages.length = 0;
    const served = await (await fetch(`${r.url}/games/${g.id}/transcript`)).text();
    expect(served).toBe((await readPage(store, g.id, 0, 100, 1 << 30)).map((l) => l.text + '\n').join(''));
    expect(pages.length).toBeGreaterThan(3);
  });

  it('refuses an answer over its bytes (read_too_large) and reads past the count at once (too_many_reads)', async () => {
    const dir = directory();
    const { store, state } = watchedStore(dir);
    const r = await relay({ store, reads: { readBytes: 50_000, readsPerAddress: 1 } });
    const g = diceGame(2, 36);
    await createGame(r.url, g.setupLine);
    const c = await WireClient.join(r.url, g, 1);
    await submitAll(c, noteEnvelopes(g, 1, 3, 30_000));
    const tooBig = await fetch(`${r.url}/games/${g.id}/transcript`);
    expect(tooBig.status).toBe(413);
    expect(((await tooBig.json()) as { error: { code: string } }).error.code).toBe('read_too_large');
    // Receipts are small enough; while one read is under way (its store read held), a second is refused.
    let release: () => void = () => {};
    state.hold = new Promise((res) => (release = res));
    const first = fetch(`${r.url}/games/${g.id}/receipts`).then((res) => res.text());
    await new Promise((res) => setTimeout(res, 200));
    const second = await fetch(`${r.url}/games/${g.id}/receipts`);
    expect(second.status).toBe(429);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('too_many_reads');
    state.hold = null;
    release();
    expect((await first).trim().split('\n')).toHaveLength(4);
    // The read done, the address reads again.
    expect((await fetch(`${r.url}/games/${g.id}/receipts`)).status).toBe(200);
  });

  it('counts reads of a witnessed game against the same gate (too_many_reads)', async () => {
    const inner = new MemoryWitnessStore();
    let release: () => void = () => {};
    const held = new Promise<void>((res) => (release = res));
    const witnessStore: WitnessStore = {
      createGame: (...a) => inner.createGame(...a),
      append: (...a) => inner.append(...a),
      read: async (game) => {
        await held;
        return inner.read(game);
      },
      first: (...a) => inner.first(...a),
      receiptOf: (...a) => inner.receiptOf(...a),
      usage: () => inner.usage(),
      close: () => inner.close(),
    };
    const r = await relay({ witnessStore, reads: { readsPerAddress: 1 } });
    const g = diceGame(2, 41);
    expect((await fetch(`${r.url}/witness/games`, { method: 'POST', body: g.setupLine })).status).toBe(201);
    const first = fetch(`${r.url}/witness/games/${g.id}`).then(async (res) => [res.status, await res.text()] as const);
    await new Promise((res) => setTimeout(res, 200));
    const second = await fetch(`${r.url}/witness/games/${g.id}`);
    expect([second.status, ((await second.json()) as { error: { code: string } }).error.code]).toEqual([429, 'too_many_reads']);
    release();
    const [status, body] = await first;
    expect(status).toBe(200);
    expect(body.trim().split('\n')).toHaveLength(1);
    expect((await fetch(`${r.url}/witness/games/${g.id}`)).status).toBe(200);
  });

  it("paces a sync flood on one connection, and another game's lines go on", async () => {
    const r = await relay({ reads: { syncBytesPerSecond: 1 << 20 } });
    const big = diceGame(2, 37);
    await createGame(r.url, big.setupLine);
    const flooder = await WireClient.join(r.url, big, 1);
    await submitAll(flooder, noteEnvelopes(big, 1, 30, 50_000));
    flooder.messages.length = 0;
    const other = diceGame(2, 38);
    await createGame(r.url, other.setupLine);
    const player = await WireClient.join(r.url, other, 1);
    // 150 syncs a second (under the message rate) for as long as the other game plays 20 lines.
    let flooding = true;
    let asked = 0;
    const flood = (async () => {
      while (flooding) {
        flooder.send({ kind: 'sync', from: 0 });
        asked++;
        await new Promise((res) => setTimeout(res, 7));
      }
    })();
    const started = Date.now();
    const answers = await submitAll(player, noteEnvelopes(other, 1, 20));
    flooding = false;
    await flood;
    const seconds = (Date.now() - started) / 1000;
    expect(answers.map((a) => a.kind)).toEqual(Array(20).fill('accepted'));
    expect(flooder.closed).toBeNull();
    // Each answer is one page (about 1 MiB) and answers come at 1 MiB/s: far fewer entries than asked for.
    const entries = flooder.messages.filter((m) => m.kind === 'entry').length;
    expect(entries).toBeGreaterThan(0);
    expect(entries).toBeLessThan(Math.max(60, 2 * 20 * (seconds + 2)));
    expect(asked * 20).toBeGreaterThan(entries * 2);
  });
});

describe('storage', () => {
  it('refuses writes with storage_full while free space is under the threshold, and lets them in when it returns', async () => {
    const disk = { free: 1000 };
    const r = await relay({
      storage: { minFreeBytes: 1 << 20, checkMs: 50, readDisk: (): Promise<DiskReading> => Promise.resolve({ free: disk.free, storeBytes: 0 }) },
    });
    const health = async () => (await (await fetch(`${r.url}/health`)).json()) as { ok: boolean; writable?: boolean; storage?: { code: string } };
    expect(await health()).toMatchObject({ ok: true, writable: false, storage: { code: 'storage_full' } });
    const g = diceGame(2, 39);
    const refused = await createGame(r.url, g.setupLine);
    expect(refused.status).toBe(503);
    expect((refused.body.error as { code: string }).code).toBe('storage_full');
    expect(await (await fetch(`${r.url}/metrics`)).text()).toMatch(/fairtable_relay_storage_full 1/);
    disk.free = 1 << 30;
    const deadline = Date.now() + 5000;
    while ((await health()).writable === false && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
    expect(await health()).toEqual({ ok: true });
    expect((await createGame(r.url, g.setupLine)).status).toBe(201);
    const c = await WireClient.join(r.url, g, 1);
    const [line1, line2] = noteEnvelopes(g, 1, 2);
    expect((await submitAll(c, [line1!]))[0]!.kind).toBe('accepted');
    // Space runs out again: the next line is refused, reads go on, and the line is taken once space returns.
    disk.free = 0;
    while ((await health()).writable !== false && Date.now() < deadline + 5000) await new Promise((res) => setTimeout(res, 20));
    const [full] = await submitAll(c, [line2!]);
    expect([full!.kind, full!.code]).toEqual(['refused', 'storage_full']);
    expect((await (await fetch(`${r.url}/games/${g.id}/transcript`)).text()).trim().split('\n')).toHaveLength(2);
    disk.free = 1 << 30;
    while ((await health()).writable === false && Date.now() < deadline + 10_000) await new Promise((res) => setTimeout(res, 20));
    expect((await submitAll(c, [line2!]))[0]).toMatchObject({ kind: 'accepted', line: 2 });
  });

  it("reads the data directory's real free space (statfs), and refuses writes under an impossible threshold", async () => {
    const r = await relay({ storage: { minFreeBytes: Number.MAX_SAFE_INTEGER } });
    expect(await (await fetch(`${r.url}/health`)).json()).toMatchObject({ ok: true, writable: false });
    const free = /fairtable_relay_storage_free_bytes (\d+)/.exec(await (await fetch(`${r.url}/metrics`)).text());
    expect(Number(free?.[1])).toBeGreaterThan(0);
  });

  it('restarted on a store that cannot write, the relay neither exits nor loses a line, and takes lines again once it can', async () => {
    const dir = directory();
    const g = diceGame(2, 40);
    const [line1, line2] = noteEnvelopes(g, 1, 2);
    const first = await relay({ dataDir: dir });
    await createGame(first.url, g.setupLine);
    const c1 = await WireClient.join(first.url, g, 1);
    expect((await submitAll(c1, [line1!]))[0]!.kind).toBe('accepted');
    await first.close();

    const { store, state } = watchedStore(dir);
    state.failing = true;
    const failures: unknown[] = [];
    // No exit: the default on a failed append is to refuse writes and rebuild the game from the store.
    const r = await relay({ store, storage: { checkMs: 100 }, onStoreFailure: (e) => failures.push(e) });
    const c = await WireClient.join(r.url, g, 1);
    c.send({ kind: 'submit', text: line2 });
    const error = await c.next('error');
    expect(error.code).toBe('storage_full');
    expect(failures).toHaveLength(1);
    // What was acknowledged is served.
    expect((await (await fetch(`${r.url}/games/${g.id}/transcript`)).text()).trim().split('\n')).toHaveLength(2);
    state.failing = false;
    const deadline = Date.now() + 5000;
    let answer: { kind: string; line?: unknown; code?: unknown } = { kind: 'none' };
    // The client comes back and resends its line, byte for byte, until it is taken.
    while (Date.now() < deadline) {
      const again = await WireClient.join(r.url, g, 1);
      answer = (await submitAll(again, [line2!]))[0]!;
      again.close();
      if (answer.kind === 'accepted') break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(answer).toMatchObject({ kind: 'accepted', line: 2 });
    expect((await (await fetch(`${r.url}/games/${g.id}/transcript`)).text()).trim().split('\n')).toHaveLength(3);
  });
});
