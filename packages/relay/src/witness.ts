/**
 * The relay as a witness (docs/spec/relay.md §8): for games another relay orders, it stores each player's
 * envelopes in that author's own order and signs a witness receipt for each (`@fairtable/core/order/witness.js`),
 * so that a player whose envelope the ordering relay never took can show it published it in time. A
 * witness runs no game logic and orders nothing: it checks each envelope as its author's next (`WitnessBook`)
 * and keeps it. HTTP only: an envelope carries its author's signature, so who posts it does not matter.
 *
 * Storage is its own interface (`WitnessStore`), in memory for tests and in `DATA_DIR/witness.sqlite`
 * otherwise: apart from the ordering relay's store, which it never touches.
 *
 * Bounds (relay.md §8, "Limits"): every route is rate-limited per client address like a WebSocket connection
 * (rate-limit.ts); a game holds at most `maxGameLines` envelopes and `maxGameBytes`, the witness at most
 * `maxGames` games and `maxBytes` in all (`507 game_full` / `witness_full` beyond); the doors kept in memory
 * are bounded by games and by the envelopes they index, so memory does not grow with what is witnessed.
 *
 * Group commit (relay.md §8, "Storage"): admitted envelopes go to the store through the relay's `BatchWriter`,
 * one transaction a batch, and each post is answered with its receipt only once its batch has committed; a
 * failed batch answers every post in it, and every post admitted after it, `503 store_failed`.
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { isHex } from '@fairtable/core/bytes.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import { envelopeHash, type Envelope } from '@fairtable/core/envelope.js';
import { signWitnessReceipt, WitnessBook, type WitnessReceipt } from '@fairtable/core/order/witness.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { clientKey, rateLimited, remoteAddress, type RateLimiter } from './rate-limit.js';
import { BatchWriter } from './batch-writer.js';

export interface WitnessedLine {
  readonly text: string;
  readonly receipt: WitnessReceipt;
}

/** One envelope of `game` to append, with its receipt. */
export interface WitnessedEnvelope {
  readonly game: string;
  readonly line: WitnessedLine;
}

/** What a witness holds in all: the bounds of `WitnessLimits` are checked against it. */
export interface WitnessUsage {
  readonly games: number;
  /** UTF-8 bytes of every line held. */
  readonly bytes: number;
}

export interface WitnessStore {
  /** Keeps a game's setup line with its receipt (the creator's envelope 0); false when the game is held. */
  createGame(game: string, setup: WitnessedLine): Promise<boolean>;
  /**
   * Appends envelopes, of any games held, with their receipts: all or none, in one transaction, resolved once it
   * is durable. The envelopes of one game come in the order they were admitted.
   */
  append(lines: readonly WitnessedEnvelope[]): Promise<void>;
  /** Every line held for `game`, in the order they were taken (the setup first); empty when not held. */
  read(game: string): Promise<WitnessedLine[]>;
  /** The setup line held for `game`, or null. */
  first(game: string): Promise<WitnessedLine | null>;
  /** The receipt given for the envelope of `game` whose hash is `hash`, or null. */
  receiptOf(game: string, hash: string): Promise<WitnessReceipt | null>;
  usage(): Promise<WitnessUsage>;
  close(): Promise<void>;
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

export class MemoryWitnessStore implements WitnessStore {
  private readonly games = new Map<string, WitnessedLine[]>();
  private bytes = 0;
  createGame(game: string, setup: WitnessedLine): Promise<boolean> {
    if (this.games.has(game)) return Promise.resolve(false);
    this.games.set(game, [setup]);
    this.bytes += utf8Bytes(setup.text);
    return Promise.resolve(true);
  }
  append(lines: readonly WitnessedEnvelope[]): Promise<void> {
    for (const { game, line } of lines) {
      const held = this.games.get(game);
      if (held !== undefined) {
        held.push(line);
        this.bytes += utf8Bytes(line.text);
      }
    }
    return Promise.resolve();
  }
  read(game: string): Promise<WitnessedLine[]> {
    return Promise.resolve([...(this.games.get(game) ?? [])]);
  }
  first(game: string): Promise<WitnessedLine | null> {
    return Promise.resolve(this.games.get(game)?.[0] ?? null);
  }
  receiptOf(game: string, hash: string): Promise<WitnessReceipt | null> {
    return Promise.resolve(this.games.get(game)?.find((l) => l.receipt.hash === hash)?.receipt ?? null);
  }
  usage(): Promise<WitnessUsage> {
    return Promise.resolve({ games: this.games.size, bytes: this.bytes });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * `DATA_DIR/witness.sqlite`, WAL, `synchronous = FULL`, like the relay's own store (relay.md §4). Beside the lines,
 * `witness_games` keeps each game's line and byte count, written in the same transaction as the line, so
 * that the witness's usage is known at start without reading every line (a file from before the table is
 * counted once, when the table is made).
 */
export class SqliteWitnessStore implements WitnessStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<[string, string, string]>;
  private readonly select: Database.Statement<[string], { text: string; receipt: string }>;
  private readonly selectFirst: Database.Statement<[string], { text: string; receipt: string }>;
  private readonly selectReceipt: Database.Statement<[string, string], { receipt: string }>;
  private readonly count: Database.Statement<[{ game: string; bytes: number }]>;
  private readonly has: Database.Statement<[string], { n: number }>;

  constructor(dataDir: string) {
    try {
      mkdirSync(dataDir, { recursive: true });
      this.db = new Database(join(dataDir, 'witness.sqlite'));
    } catch (e) {
      throw new FairtableError('bad_input', `cannot open the witness database in ${dataDir}: ${(e as Error).message}`, { field: 'dataDir', cause: e });
    }
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.exec('CREATE TABLE IF NOT EXISTS witnessed (id INTEGER PRIMARY KEY, game TEXT NOT NULL, text TEXT NOT NULL, receipt TEXT NOT NULL)');
    this.db.exec('CREATE INDEX IF NOT EXISTS witnessed_game ON witnessed (game, id)');
    // A resend is answered with the receipt held for its hash: found through this index, not by reading the game.
    this.db.exec("CREATE INDEX IF NOT EXISTS witnessed_hash ON witnessed (game, json_extract(receipt, '$.hash'))");
    const counted = this.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'witness_games'").get() as { n: number };
    if (counted.n === 0)
      this.db.exec(`
        CREATE TABLE witness_games (game TEXT PRIMARY KEY, lines INTEGER NOT NULL, bytes INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO witness_games SELECT game, count(*), sum(length(CAST(text AS BLOB))) FROM witnessed GROUP BY game;
      `);
    this.insert = this.db.prepare('INSERT INTO witnessed (game, text, receipt) VALUES (?, ?, ?)');
    this.select = this.db.prepare('SELECT text, receipt FROM witnessed WHERE game = ? ORDER BY id');
    this.selectFirst = this.db.prepare('SELECT text, receipt FROM witnessed WHERE game = ? ORDER BY id LIMIT 1');
    this.selectReceipt = this.db.prepare("SELECT receipt FROM witnessed WHERE game = ? AND json_extract(receipt, '$.hash') = ? LIMIT 1");
    this.count = this.db.prepare(
      'INSERT INTO witness_games (game, lines, bytes) VALUES (@game, 1, @bytes) ON CONFLICT (game) DO UPDATE SET lines = lines + 1, bytes = bytes + @bytes',
    );
    this.has = this.db.prepare('SELECT count(*) AS n FROM witnessed WHERE game = ?');
  }
  private keep(game: string, line: WitnessedLine): void {
    this.insert.run(game, line.text, JSON.stringify(line.receipt));
    this.count.run({ game, bytes: utf8Bytes(line.text) });
  }
  createGame(game: string, setup: WitnessedLine): Promise<boolean> {
    const create = this.db.transaction((): boolean => {
      if (this.has.get(game)!.n > 0) return false;
      this.keep(game, setup);
      return true;
    });
    return Promise.resolve(create());
  }
  append(lines: readonly WitnessedEnvelope[]): Promise<void> {
    // One transaction, so one sync to disk, for the whole batch.
    try {
      this.db.transaction(() => {
        for (const l of lines) this.keep(l.game, l.line);
      })();
    } catch (e) {
      return Promise.reject(new FairtableError('store_failed', `the witness store failed to append: ${(e as Error).message}`, { cause: e }));
    }
    return Promise.resolve();
  }
  read(game: string): Promise<WitnessedLine[]> {
    return Promise.resolve(this.select.all(game).map((r) => ({ text: r.text, receipt: JSON.parse(r.receipt) as WitnessReceipt })));
  }
  first(game: string): Promise<WitnessedLine | null> {
    const r = this.selectFirst.get(game);
    return Promise.resolve(r === undefined ? null : { text: r.text, receipt: JSON.parse(r.receipt) as WitnessReceipt });
  }
  receiptOf(game: string, hash: string): Promise<WitnessReceipt | null> {
    const r = this.selectReceipt.get(game, hash);
    return Promise.resolve(r === undefined ? null : (JSON.parse(r.receipt) as WitnessReceipt));
  }
  usage(): Promise<WitnessUsage> {
    const r = this.db.prepare('SELECT count(*) AS games, coalesce(sum(bytes), 0) AS bytes FROM witness_games').get() as WitnessUsage;
    return Promise.resolve({ games: r.games, bytes: r.bytes });
  }
  close(): Promise<void> {
    if (this.db.open) this.db.close();
    return Promise.resolve();
  }
}

export interface WitnessLimits {
  /** Games witnessed at once; a new game beyond is refused (`507 witness_full`). */
  readonly maxGames: number;
  /** Lines (the setup and envelopes) one game holds; an envelope beyond is refused (`507 game_full`). */
  readonly maxGameLines: number;
  /** UTF-8 bytes one game's lines take; an envelope beyond is refused (`507 game_full`). */
  readonly maxGameBytes: number;
  /** UTF-8 bytes every game's lines take together; a line beyond is refused (`507 witness_full`). */
  readonly maxBytes: number;
  /** Games whose door stays in memory (least recently used leave first; rebuilt from the store). */
  readonly cachedGames: number;
  /** Envelopes the doors in memory index together (each door keeps one hash per envelope); the least recently used leave first. */
  readonly cachedLines: number;
}

export const DEFAULT_WITNESS_LIMITS: WitnessLimits = {
  maxGames: 100_000,
  maxGameLines: 100_000,
  maxGameBytes: 32 << 20,
  maxBytes: 2 ** 31,
  cachedGames: 1_000,
  cachedLines: 250_000,
};

export interface WitnessOptions {
  readonly store: WitnessStore;
  readonly secretKey: Uint8Array;
  readonly publicKey: string;
  readonly clock: () => number;
  readonly maxBodyBytes: number;
  readonly limits?: Partial<WitnessLimits>;
  /** The per-address rate limit of the relay's HTTP routes (rate-limit.ts); none when absent. */
  readonly rateLimiter?: RateLimiter;
  /** Counts a refusal by code (the relay's metrics). */
  readonly onRefused?: (code: string) => void;
  /** Counts reads of a witnessed game at once, per address and in all (the relay's `ReadGate`, relay.md §5 "Reads"); none when absent. */
  readonly readGate?: { enter(address: string): (() => void) | string };
}

/** What the witness holds in memory for a game: its door and how much the game holds, stored or on its way. */
interface Held {
  readonly book: WitnessBook;
  lines: number;
  bytes: number;
  /** Admitted envelopes not yet committed: while there are any the door stays in memory (the store is behind it). */
  unstored: number;
  /** The receipt of each envelope not yet committed, by hash, for a resend that arrives meanwhile. */
  readonly waiting: Map<string, Promise<WitnessReceipt>>;
  /** Dropped after a failed append: ahead of the store, never to be used again. */
  spoiled: boolean;
}

/** Totals of the whole witness, counted when an envelope is admitted. */
interface Totals {
  games: number;
  bytes: number;
}

/** A post admitted and waiting for its batch to commit. */
interface Posted {
  readonly game: string;
  readonly held: Held;
  readonly all: Totals;
  readonly line: WitnessedLine;
  readonly size: number;
  readonly stored: () => void;
  readonly failed: (error: FairtableError) => void;
}

const failure = (code: string, message: string) => ({ error: { code, message } });

/** The witness's routes; `flush` resolves once every envelope admitted so far is committed (or its batch failed). */
export type WitnessApp = Hono & { flush(): Promise<void> };

/** The witness's HTTP routes, mounted at `/witness` (relay.md §8). */
export function witnessRoutes(o: WitnessOptions): WitnessApp {
  const limits: WitnessLimits = { ...DEFAULT_WITNESS_LIMITS, ...o.limits };
  const refused = o.onRefused ?? (() => {});
  const app = new Hono();
  /** Doors in memory, least recently used first. */
  const cache = new Map<string, Held>();
  const loading = new Map<string, Promise<Held | null>>();
  let cachedLines = 0;
  let usage: Promise<Totals> | null = null;
  const totals = (): Promise<Totals> => (usage ??= o.store.usage().then((u) => ({ games: u.games, bytes: u.bytes })));

  /** The batch writer and the posts given to it and not yet answered. */
  interface Writer {
    readonly batches: BatchWriter<Posted>;
    readonly open: Set<Posted>;
  }
  const newWriter = (): Writer => {
    const open = new Set<Posted>();
    const batches = new BatchWriter<Posted>(
      // Async, so that a store that throws at once fails the batch like one that rejects.
      async (batch) => o.store.append(batch.map((p) => ({ game: p.game, line: p.line }))),
      (batch) => {
        for (const p of batch) {
          open.delete(p);
          p.held.unstored--;
          p.held.waiting.delete(p.line.receipt.hash);
          p.stored();
        }
      },
      (e) => {
        // A failed BatchWriter hands back the failed batch and what waited behind it: every post it holds is answered with the error and uncounted, and its game's door is dropped, to be rebuilt
        // from what the store kept. Posts after this go to a new writer.
        writer = newWriter();
        const error =
          e instanceof FairtableError && e.code === 'store_failed'
            ? e
            : new FairtableError('store_failed', `the witness store failed to append: ${(e as Error).message}`, { cause: e });
        for (const p of open) {
          p.held.spoiled = true;
          if (cache.get(p.game) === p.held) {
            cache.delete(p.game);
            cachedLines -= p.held.lines;
          }
          p.all.bytes -= p.size;
          p.held.waiting.delete(p.line.receipt.hash);
          p.failed(error);
        }
        open.clear();
      },
    );
    return { batches, open };
  };
  let writer = newWriter();

  const receiptFor = (book: WitnessBook, from: string, seq: number, hash: string): WitnessReceipt =>
    signWitnessReceipt({ v: 1, game: book.gameId, from, seq, hash, time: o.clock() }, o.secretKey, nativeSign);

  function remember(game: string, held: Held): void {
    const before = cache.get(game);
    if (before !== undefined) cachedLines -= before.lines;
    cache.delete(game);
    cache.set(game, held);
    cachedLines += held.lines;
    // The door just used stays, even alone over the bound: it is bounded by maxGameLines. So does a door with
    // envelopes not yet committed, which the store could not rebuild: those are bounded by the posts in flight.
    for (const [g, h] of cache) {
      if (cache.size <= limits.cachedGames && cachedLines <= limits.cachedLines) break;
      if (g === game || h.unstored > 0) continue;
      cache.delete(g);
      cachedLines -= h.lines;
    }
  }

  /** The game's door: from memory, or rebuilt by admitting every stored line again. */
  function heldOf(game: string): Promise<Held | null> {
    const hit = cache.get(game);
    if (hit !== undefined) {
      cache.delete(game);
      cache.set(game, hit);
      return Promise.resolve(hit);
    }
    let found = loading.get(game);
    if (found === undefined) {
      found = o.store
        .read(game)
        .then((lines) => {
          if (lines.length === 0) return null;
          // Only lines that passed the door were stored: the rebuild takes them again without verifying their
          // signatures a second time (a door evicted and rebuilt often would otherwise cost a verification per
          // line held each time); what is posted after is verified.
          let rebuilding = true;
          const book = new WitnessBook(lines[0]!.text, (sig, message, key) => rebuilding || nativeVerify(sig, message, key));
          let bytes = utf8Bytes(lines[0]!.text);
          for (const l of lines.slice(1)) {
            book.admit(l.text);
            bytes += utf8Bytes(l.text);
          }
          rebuilding = false;
          const held: Held = { book, lines: lines.length, bytes, unstored: 0, waiting: new Map(), spoiled: false };
          remember(game, held);
          return held;
        })
        .finally(() => loading.delete(game));
      loading.set(game, found);
    }
    return found;
  }

  const limit = bodyLimit({
    maxSize: o.maxBodyBytes,
    onError: (c) => {
      refused('line_too_long');
      return c.json(failure('line_too_long', `a line over ${o.maxBodyBytes} bytes`), 413);
    },
  });
  const body = async (c: import('hono').Context): Promise<string> => (await c.req.text()).replace(/\r?\n$/, '');
  const full = (c: import('hono').Context, code: 'game_full' | 'witness_full', message: string) => {
    refused(code);
    return c.json(failure(code, message), 507);
  };
  const storeFailed = (c: import('hono').Context, e: FairtableError) => {
    refused(e.code);
    return c.json(failure(e.code, e.message), 503);
  };
  /** The receipt of an envelope held or on its way to the store; null when neither. */
  const receiptHeld = async (c: import('hono').Context, game: string, held: Held, hash: string) => {
    const waiting = held.waiting.get(hash);
    if (waiting === undefined) {
      const receipt = await o.store.receiptOf(game, hash);
      return receipt === null ? null : c.json({ receipt }, 200);
    }
    try {
      return c.json({ receipt: await waiting }, 200);
    } catch (e) {
      return storeFailed(c, e as FairtableError);
    }
  };
  if (o.rateLimiter !== undefined) app.use('*', rateLimited(o.rateLimiter, refused));

  app.get('/', (c) => c.json({ relay: o.publicKey }));
  app.post('/games', limit, async (c) => {
    const text = await body(c);
    let gameId: string;
    let envelope: Envelope;
    try {
      const read = readSetupLine(text, nativeVerify);
      gameId = read.gameId;
      envelope = read.envelope;
      new WitnessBook(text, nativeVerify);
    } catch (e) {
      const code = e instanceof FairtableError ? e.code : 'bad_setup';
      refused(code);
      return c.json(failure(code, (e as Error).message), 400);
    }
    const held = await o.store.first(gameId);
    if (held !== null) {
      if (held.text !== text) return c.json(failure('game_exists', `game ${gameId} is witnessed with another setup line`), 409);
      return c.json({ game: gameId, relay: o.publicKey, receipt: held.receipt }, 200);
    }
    const size = utf8Bytes(text);
    const all = await totals();
    if (all.games >= limits.maxGames) return full(c, 'witness_full', `this witness holds ${limits.maxGames} games, its most; it takes no new game`);
    if (all.bytes + size > limits.maxBytes) return full(c, 'witness_full', `this witness holds ${limits.maxBytes} bytes of lines, its most`);
    const book = new WitnessBook(text, nativeVerify);
    const receipt = receiptFor(book, envelope.from, 0, envelopeHash(envelope));
    all.games++;
    all.bytes += size;
    let created: boolean;
    try {
      created = await o.store.createGame(gameId, { text, receipt });
    } catch (e) {
      usage = null;
      throw e;
    }
    if (!created) {
      all.games--;
      all.bytes -= size;
      return c.json(failure('game_exists', `game ${gameId} is already witnessed`), 409);
    }
    return c.json({ game: gameId, relay: o.publicKey, receipt }, 201);
  });
  app.post('/games/:game', limit, async (c) => {
    const game = c.req.param('game');
    if (!isHex(game, 32)) return c.json(failure('unknown_game', 'a game id is 64 hex digits'), 404);
    const text = await body(c);
    const size = utf8Bytes(text);
    const all = await totals();
    // The door admitted into must be the one in memory: two doors of a game would each take the same position. A
    // door evicted while this post waited is taken back when no other has replaced it (it had nothing uncommitted,
    // so it is what the store holds); otherwise the door in memory is asked for again.
    let held = await heldOf(game);
    for (let tries = 0; held !== null && cache.get(game) !== held && tries < 10; tries++) {
      if (!held.spoiled && !cache.has(game) && !loading.has(game)) remember(game, held);
      else held = await heldOf(game);
    }
    if (held === null) return c.json(failure('unknown_game', 'this witness does not hold that game: post its setup line to /witness/games first'), 404);
    if (cache.get(game) !== held) return storeFailed(c, new FairtableError('store_failed', 'the witness is busy: ask again'));
    const why =
      held.lines >= limits.maxGameLines || held.bytes + size > limits.maxGameBytes
        ? (['game_full', `this witness holds at most ${limits.maxGameLines} lines and ${limits.maxGameBytes} bytes of one game`] as const)
        : all.bytes + size > limits.maxBytes
          ? (['witness_full', `this witness holds ${limits.maxBytes} bytes of lines, its most`] as const)
          : null;
    if (why !== null) {
      // At a bound a resend is still answered with its receipt; nothing new is taken.
      let hash: string | null = null;
      try {
        hash = envelopeHash(JSON.parse(text) as Envelope);
      } catch {
        hash = null;
      }
      const answer = hash === null ? null : await receiptHeld(c, game, held, hash);
      return answer ?? full(c, why[0], why[1]);
    }
    const a = held.book.admit(text);
    if (!a.ok) {
      refused(a.code);
      return c.json(failure(a.code, a.message), a.code === 'equivocation' ? 409 : 400);
    }
    if (a.duplicate) {
      const answer = await receiptHeld(c, game, held, a.hash);
      if (answer !== null) return answer;
      if (cache.get(game) !== held) return storeFailed(c, new FairtableError('store_failed', 'the witness is busy: ask again'));
    }
    // Counted when admitted, before any await: posts of one batch cannot pass a bound together.
    held.lines++;
    held.bytes += size;
    cachedLines++;
    all.bytes += size;
    const receipt = receiptFor(held.book, a.envelope.from, a.envelope.seq, a.hash);
    let stored!: () => void;
    let failed!: (error: FairtableError) => void;
    const committed = new Promise<WitnessReceipt>((resolve, reject) => {
      stored = () => resolve(receipt);
      failed = reject;
    });
    // A resend may wait on this too; when none does, a failure is still answered below, not left unhandled.
    committed.catch(() => {});
    held.waiting.set(a.hash, committed);
    held.unstored++;
    const posted: Posted = { game, held, all, line: { text, receipt }, size, stored, failed };
    writer.open.add(posted);
    writer.batches.add(posted);
    try {
      await committed;
    } catch (e) {
      return storeFailed(c, e as FairtableError);
    }
    return c.json({ receipt }, 201);
  });
  app.get('/games/:game', async (c) => {
    const game = c.req.param('game');
    const release = o.readGate?.enter(clientKey(remoteAddress(c))) ?? (() => {});
    if (typeof release === 'string') {
      o.onRefused?.('too_many_reads');
      c.header('Retry-After', '1');
      return c.json(failure('too_many_reads', release), 429);
    }
    let held: WitnessedLine[];
    try {
      held = isHex(game, 32) ? await o.store.read(game) : [];
    } catch (e) {
      release();
      throw e;
    }
    if (held.length === 0) {
      release();
      return c.json(failure('unknown_game', 'this witness does not hold that game'), 404);
    }
    // Sent a line at a time as the client takes them, not joined into one string beside the lines read; the
    // read counts against the gate until the last line is taken (or the client goes).
    let at = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          const l = held[at++];
          if (l === undefined) {
            release();
            return controller.close();
          }
          controller.enqueue(Buffer.from(JSON.stringify({ relay: o.publicKey, text: l.text, receipt: l.receipt }) + '\n', 'utf8'));
        },
        cancel: () => release(),
      },
      { highWaterMark: 0 },
    );
    return c.body(body, 200, { 'content-type': 'application/jsonl; charset=utf-8' });
  });
  return Object.assign(app, {
    async flush(): Promise<void> {
      // A writer replaced after a failure has answered everything it held; the current one is flushed.
      await writer.batches.flush();
    },
  });
}
