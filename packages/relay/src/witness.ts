/**
 * The relay as a witness (docs/spec/relay.md §8): for games another relay orders, it stores each player's
 * envelopes in that author's own order and signs a witness receipt for each (`@fairtable/core/order/witness.js`),
 * so that a player whose envelope the ordering relay never took can show it published it in time. A
 * witness runs no game logic and orders nothing: it checks each envelope as its author's next (`WitnessBook`)
 * and keeps it. HTTP only: an envelope carries its author's signature, so who posts it does not matter.
 *
 * Storage is its own interface (`WitnessStore`), in memory for tests and in `DATA_DIR/witness.sqlite`
 * otherwise: apart from the ordering relay's store, which it never touches.
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { isHex } from '@fairtable/core/bytes.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import { envelopeHash } from '@fairtable/core/envelope.js';
import { signWitnessReceipt, WitnessBook, type WitnessReceipt } from '@fairtable/core/order/witness.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';

export interface WitnessedLine {
  readonly text: string;
  readonly receipt: WitnessReceipt;
}

export interface WitnessStore {
  /** Keeps a game's setup line with its receipt (the creator's envelope 0); false when the game is held. */
  createGame(game: string, setup: WitnessedLine): Promise<boolean>;
  /** Appends one envelope of `game` with its receipt. */
  append(game: string, line: WitnessedLine): Promise<void>;
  /** Every line held for `game`, in the order they were taken (the setup first); empty when not held. */
  read(game: string): Promise<WitnessedLine[]>;
  close(): Promise<void>;
}

export class MemoryWitnessStore implements WitnessStore {
  private readonly games = new Map<string, WitnessedLine[]>();
  createGame(game: string, setup: WitnessedLine): Promise<boolean> {
    if (this.games.has(game)) return Promise.resolve(false);
    this.games.set(game, [setup]);
    return Promise.resolve(true);
  }
  append(game: string, line: WitnessedLine): Promise<void> {
    this.games.get(game)?.push(line);
    return Promise.resolve();
  }
  read(game: string): Promise<WitnessedLine[]> {
    return Promise.resolve([...(this.games.get(game) ?? [])]);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** `DATA_DIR/witness.sqlite`, WAL, `synchronous = FULL`, like the relay's own store (relay.md §4). */
export class SqliteWitnessStore implements WitnessStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<[string, string, string]>;
  private readonly select: Database.Statement<[string], { text: string; receipt: string }>;
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
    this.insert = this.db.prepare('INSERT INTO witnessed (game, text, receipt) VALUES (?, ?, ?)');
    this.select = this.db.prepare('SELECT text, receipt FROM witnessed WHERE game = ? ORDER BY id');
    this.has = this.db.prepare('SELECT count(*) AS n FROM witnessed WHERE game = ?');
  }
  createGame(game: string, setup: WitnessedLine): Promise<boolean> {
    const create = this.db.transaction((): boolean => {
      if (this.has.get(game)!.n > 0) return false;
      this.insert.run(game, setup.text, JSON.stringify(setup.receipt));
      return true;
    });
    return Promise.resolve(create());
  }
  append(game: string, line: WitnessedLine): Promise<void> {
    this.insert.run(game, line.text, JSON.stringify(line.receipt));
    return Promise.resolve();
  }
  read(game: string): Promise<WitnessedLine[]> {
    return Promise.resolve(this.select.all(game).map((r) => ({ text: r.text, receipt: JSON.parse(r.receipt) as WitnessReceipt })));
  }
  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}

export interface WitnessOptions {
  readonly store: WitnessStore;
  readonly secretKey: Uint8Array;
  readonly publicKey: string;
  readonly clock: () => number;
  readonly maxBodyBytes: number;
  /** Games whose door stays in memory (least recently used leave first; rebuilt from the store). */
  readonly cachedGames?: number;
}

const failure = (code: string, message: string) => ({ error: { code, message } });

/** The witness's HTTP routes, mounted at `/witness` (relay.md §8). */
export function witnessRoutes(o: WitnessOptions): Hono {
  const app = new Hono();
  const books = new Map<string, Promise<WitnessBook | null>>();
  const cap = o.cachedGames ?? 1000;
  const receiptFor = (book: WitnessBook, from: string, seq: number, hash: string): WitnessReceipt =>
    signWitnessReceipt({ v: 1, game: book.gameId, from, seq, hash, time: o.clock() }, o.secretKey, nativeSign);

  /** The game's door: from memory, or rebuilt by admitting every stored line again. */
  function bookOf(game: string): Promise<WitnessBook | null> {
    let found = books.get(game);
    if (found === undefined) {
      found = o.store.read(game).then((held) => {
        if (held.length === 0) return null;
        const book = new WitnessBook(held[0]!.text, nativeVerify);
        for (const l of held.slice(1)) book.admit(l.text);
        return book;
      });
      books.set(game, found);
      void found.then(
        (b) => b === null && books.delete(game),
        () => books.delete(game),
      );
      while (books.size > cap) books.delete(books.keys().next().value!);
    } else {
      books.delete(game);
      books.set(game, found);
    }
    return found;
  }
  const limit = bodyLimit({ maxSize: o.maxBodyBytes, onError: (c) => c.json(failure('line_too_long', `a line over ${o.maxBodyBytes} bytes`), 413) });
  const body = async (c: import('hono').Context): Promise<string> => (await c.req.text()).replace(/\r?\n$/, '');

  app.get('/', (c) => c.json({ relay: o.publicKey }));
  app.post('/games', limit, async (c) => {
    const text = await body(c);
    let gameId: string;
    let from: string;
    try {
      const read = readSetupLine(text);
      gameId = read.gameId;
      from = read.envelope.from;
      new WitnessBook(text, nativeVerify);
    } catch (e) {
      const code = e instanceof FairtableError ? e.code : 'bad_setup';
      return c.json(failure(code, (e as Error).message), 400);
    }
    const held = await o.store.read(gameId);
    if (held.length > 0) {
      if (held[0]!.text !== text) return c.json(failure('game_exists', `game ${gameId} is witnessed with another setup line`), 409);
      return c.json({ game: gameId, relay: o.publicKey, receipt: held[0]!.receipt }, 200);
    }
    const book = new WitnessBook(text, nativeVerify);
    const receipt = receiptFor(book, from, 0, envelopeHash(readSetupLine(text).envelope));
    if (!(await o.store.createGame(gameId, { text, receipt }))) return c.json(failure('game_exists', `game ${gameId} is already witnessed`), 409);
    books.delete(gameId);
    return c.json({ game: gameId, relay: o.publicKey, receipt }, 201);
  });
  app.post('/games/:game', limit, async (c) => {
    const game = c.req.param('game');
    if (!isHex(game, 32)) return c.json(failure('unknown_game', 'a game id is 64 hex digits'), 404);
    const book = await bookOf(game);
    if (book === null) return c.json(failure('unknown_game', 'this witness does not hold that game: post its setup line to /witness/games first'), 404);
    const text = await body(c);
    const a = book.admit(text);
    if (!a.ok) return c.json(failure(a.code, a.message), a.code === 'equivocation' ? 409 : 400);
    if (a.duplicate) {
      const held = (await o.store.read(game)).find((l) => l.receipt.hash === a.hash);
      if (held !== undefined) return c.json({ receipt: held.receipt }, 200);
    }
    const receipt = receiptFor(book, a.envelope.from, a.envelope.seq, a.hash);
    try {
      await o.store.append(game, { text, receipt });
    } catch (e) {
      // The door is ahead of the store: it is rebuilt from what was kept.
      books.delete(game);
      throw e;
    }
    return c.json({ receipt }, 201);
  });
  app.get('/games/:game', async (c) => {
    const game = c.req.param('game');
    const held = isHex(game, 32) ? await o.store.read(game) : [];
    if (held.length === 0) return c.json(failure('unknown_game', 'this witness does not hold that game'), 404);
    const lines = held.map((l) => JSON.stringify({ relay: o.publicKey, text: l.text, receipt: l.receipt }) + '\n');
    return c.body(lines.join(''), 200, { 'content-type': 'application/jsonl; charset=utf-8' });
  });
  return app;
}
