/**
 * The relay's store on SQLite through better-sqlite3 (docs/spec/relay.md §4): one database file
 * `relay.sqlite` in the data directory, in WAL mode with `synchronous = FULL`, so a transaction that has
 * returned survives a crash of the process and of the machine. The relay's key lives beside it in
 * `relay-key.json` (mode 0600), created on first start.
 *
 * better-sqlite3 is synchronous: an append blocks the event loop for one transaction, which is why the
 * relay gathers every line admitted during one turn of the loop into a single `append`.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fromHex, isHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { FairtableError } from '@fairtable/core/errors.js';
import type { HoldingReceipt } from '@fairtable/core/order/holding.js';
import type { Receipt } from '@fairtable/core/order/receipt.js';
import type { GameSummary, HeldLine, LineToStore, Store, StoredLine, StoredLobby, StoredTalk } from './store.js';

export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly dir: string;
  private readonly insertGame: Database.Statement<[string, string, number]>;
  private readonly insertLine: Database.Statement<[string, number, string, string]>;
  private readonly selectLines: Database.Statement<[string, number, number], { line: number; text: string; receipt: string }>;
  private readonly countLines: Database.Statement<[string], { n: number }>;
  private readonly appendAll: (lines: readonly LineToStore[]) => void;

  constructor(dataDir: string) {
    this.dir = dataDir;
    try {
      mkdirSync(dataDir, { recursive: true });
      this.db = new Database(join(dataDir, 'relay.sqlite'));
    } catch (e) {
      throw new FairtableError('bad_input', `cannot open the relay's database in ${dataDir}: ${(e as Error).message}`, { field: 'dataDir', cause: e });
    }
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    // `lines` is a rowid table with its key in an index: its rows (a line and its receipt, ~800 bytes) are
    // large for a WITHOUT ROWID table, whose B-tree holds them whole in key order, games interleaved. Measured
    // (24,000 lines of 1,000 games, 150 a transaction): 9.0 µs of CPU a line against 26.8, and a third of
    // the time to commit. A database made with the earlier WITHOUT ROWID table is read and written the same.
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS games (game TEXT PRIMARY KEY, protocol TEXT NOT NULL, created INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS lines (
        game TEXT NOT NULL, line INTEGER NOT NULL, text TEXT NOT NULL, receipt TEXT NOT NULL,
        PRIMARY KEY (game, line)
      );
      CREATE TABLE IF NOT EXISTS held (
        game TEXT NOT NULL, hash TEXT NOT NULL, text TEXT NOT NULL, receipt TEXT NOT NULL,
        PRIMARY KEY (game, hash)
      ) WITHOUT ROWID;
    `);
    // Lobbies in a table of their own, apart from the lines: written on the caller's thread, never by the append thread.
    this.db.exec('CREATE TABLE IF NOT EXISTS lobbies (id TEXT PRIMARY KEY, created INTEGER NOT NULL, body TEXT NOT NULL) WITHOUT ROWID');
    // Table talk beside the lines (docs/spec/press.md §6): its own table, written on the caller's thread.
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS talk (game TEXT NOT NULL, idx INTEGER NOT NULL, at INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (game, idx))',
    );
    this.insertGame = this.db.prepare('INSERT INTO games (game, protocol, created) VALUES (?, ?, ?)');
    this.insertLine = this.db.prepare('INSERT INTO lines (game, line, text, receipt) VALUES (?, ?, ?, ?)');
    this.selectLines = this.db.prepare('SELECT line, text, receipt FROM lines WHERE game = ? AND line >= ? ORDER BY line LIMIT ?');
    this.countLines = this.db.prepare('SELECT count(*) AS n FROM lines WHERE game = ?');
    this.appendAll = this.db.transaction((lines: readonly LineToStore[]) => {
      for (const l of lines) this.insertLine.run(l.game, l.line, l.text, JSON.stringify(l.receipt));
    });
  }

  createGame(game: string, protocol: string, setup: LineToStore): Promise<boolean> {
    const create = this.db.transaction((): boolean => {
      if (this.countLines.get(game)!.n > 0) return false;
      this.insertGame.run(game, protocol, setup.receipt.time);
      this.insertLine.run(game, 0, setup.text, JSON.stringify(setup.receipt));
      return true;
    });
    // IMMEDIATE: the write lock is taken first, waiting (the busy timeout) while the writing thread holds it
    // for a commit. A transaction that reads first and then writes is refused SQLITE_BUSY at once when
    // another connection holds the lock: SQLite does not wait for a lock to turn a read into a write.
    return Promise.resolve(create.immediate());
  }

  append(lines: readonly LineToStore[]): Promise<void> {
    try {
      this.appendAll(lines);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  readLines(game: string, from: number, limit: number): Promise<StoredLine[]> {
    const rows = this.selectLines.all(game, from, limit);
    return Promise.resolve(rows.map((r) => ({ line: r.line, text: r.text, receipt: JSON.parse(r.receipt) as Receipt })));
  }

  readPage(game: string, from: number, limit: number, maxBytes: number): Promise<StoredLine[]> {
    const out: StoredLine[] = [];
    let bytes = 0;
    // Row by row, so that no more than the page is read out of the database.
    for (const r of this.selectLines.iterate(game, from, limit)) {
      bytes += r.text.length + r.receipt.length;
      if (out.length > 0 && bytes > maxBytes) break;
      out.push({ line: r.line, text: r.text, receipt: JSON.parse(r.receipt) as Receipt });
    }
    return Promise.resolve(out);
  }

  lineCount(game: string): Promise<number> {
    return Promise.resolve(this.countLines.get(game)!.n);
  }

  listGames(): Promise<GameSummary[]> {
    return Promise.resolve(this.db.prepare('SELECT game, protocol, created FROM games ORDER BY created, game').all() as GameSummary[]);
  }

  hold(game: string, held: HeldLine): Promise<void> {
    this.db
      .prepare('INSERT OR IGNORE INTO held (game, hash, text, receipt) VALUES (?, ?, ?, ?)')
      .run(game, held.receipt.hash, held.text, JSON.stringify(held.receipt));
    return Promise.resolve();
  }

  readHeld(game: string): Promise<HeldLine[]> {
    const rows = this.db.prepare('SELECT text, receipt FROM held WHERE game = ? ORDER BY hash').all(game) as { text: string; receipt: string }[];
    return Promise.resolve(rows.map((r) => ({ text: r.text, receipt: JSON.parse(r.receipt) as HoldingReceipt })));
  }

  unhold(game: string, hashes: readonly string[]): Promise<void> {
    const del = this.db.prepare('DELETE FROM held WHERE game = ? AND hash = ?');
    this.db.transaction(() => {
      for (const h of hashes) del.run(game, h);
    })();
    return Promise.resolve();
  }

  gamesHolding(): Promise<string[]> {
    return Promise.resolve((this.db.prepare('SELECT DISTINCT game FROM held ORDER BY game').all() as { game: string }[]).map((r) => r.game));
  }

  saveLobby(lobby: StoredLobby): Promise<void> {
    try {
      this.db.prepare('INSERT OR REPLACE INTO lobbies (id, created, body) VALUES (?, ?, ?)').run(lobby.id, lobby.created, lobby.body);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  deleteLobby(id: string): Promise<void> {
    this.db.prepare('DELETE FROM lobbies WHERE id = ?').run(id);
    return Promise.resolve();
  }

  listLobbies(): Promise<StoredLobby[]> {
    return Promise.resolve(this.db.prepare('SELECT id, created, body FROM lobbies ORDER BY created, id').all() as StoredLobby[]);
  }

  appendTalk(game: string, at: number, text: string): Promise<number> {
    try {
      const row = this.db
        .prepare('INSERT INTO talk (game, idx, at, text) VALUES (?, (SELECT coalesce(max(idx) + 1, 0) FROM talk WHERE game = ?), ?, ?) RETURNING idx')
        .get(game, game, at, text) as { idx: number };
      return Promise.resolve(row.idx);
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  readTalk(game: string, from: number, limit: number): Promise<StoredTalk[]> {
    const rows = this.db.prepare('SELECT idx AS "index", at, text FROM talk WHERE game = ? AND idx >= ? ORDER BY idx LIMIT ?').all(game, from, limit);
    return Promise.resolve(rows as StoredTalk[]);
  }

  talkUsage(game: string): Promise<{ count: number; bytes: number }> {
    const row = this.db.prepare('SELECT count(*) AS count, coalesce(sum(length(CAST(text AS BLOB))), 0) AS bytes FROM talk WHERE game = ?').get(game) as {
      count: number;
      bytes: number;
    };
    return Promise.resolve(row);
  }

  relayKey(): Promise<Uint8Array> {
    const path = join(this.dir, 'relay-key.json');
    if (existsSync(path)) {
      const file = JSON.parse(readFileSync(path, 'utf8')) as { secretKey?: unknown };
      if (!isHex(file.secretKey, 32)) throw new FairtableError('bad_key_file', `${path}: secretKey must be 64 hex digits`, { field: 'secretKey' });
      return Promise.resolve(fromHex(file.secretKey));
    }
    const secretKey = randomBytes(32);
    // Written whole then renamed: a crash leaves either no key or the whole key, never half of one.
    const tmp = `${path}.tmp`;
    writeFileSync(tmp, JSON.stringify({ v: 1, secretKey: toHex(secretKey) }) + '\n', { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
    return Promise.resolve(secretKey);
  }

  close(): Promise<void> {
    if (this.db.open) this.db.close();
    return Promise.resolve();
  }
}
