/**
 * The relay's storage (docs/spec/relay.md §4): games, their lines in log order and the receipt of each
 * line, and the relay's own key. The relay's logic sees only this interface, so a Postgres store can
 * take SQLite's place without touching it. Every method may complete asynchronously; a line counts as
 * stored (and may be acknowledged) only once the promise of the `append` that carried it has resolved.
 */
import type { HoldingReceipt } from '@fairtable/core/order/holding.js';
import type { Receipt, UnsignedReceipt } from '@fairtable/core/order/receipt.js';

export interface StoredLine {
  readonly line: number;
  readonly text: string;
  readonly receipt: Receipt;
}

/** One line to append: the `line`-th line of `game`, with its receipt. */
export interface LineToStore extends StoredLine {
  readonly game: string;
}

/**
 * What `appendSigning` resolves with (docs/spec/relay.md §2): the batch's one receipt signature, and each
 * line's inclusion proof (hex hashes), in the order of the lines. Line i's receipt is version 2 with
 * `batch: {index: i, size: lines.length, path: paths[i]}`.
 */
export interface BatchSignature {
  readonly sig: string;
  readonly paths: readonly (readonly string[])[];
}

/** One line to append whose receipt is not signed yet (`Store.appendSigning`). */
export interface LineToSign {
  readonly game: string;
  readonly line: number;
  readonly text: string;
  readonly receipt: UnsignedReceipt;
}

export interface GameSummary {
  readonly game: string;
  readonly protocol: string;
  readonly created: number;
}

/** A sealed envelope held out of the log (docs/spec/sealed.md §4), with the holding receipt its author was given. */
export interface HeldLine {
  readonly text: string;
  readonly receipt: HoldingReceipt;
}

/** A lobby as a store keeps it (docs/spec/web.md §2): the store reads only its id and opening time; `body` is JSON. */
export interface StoredLobby {
  readonly id: string;
  readonly created: number;
  readonly body: string;
}

/** A talk message as a store keeps it (docs/spec/press.md §6): its place in the game's talk, the relay's time, its text. */
export interface StoredTalk {
  readonly index: number;
  readonly at: number;
  readonly text: string;
}

export interface Store {
  /** Stores a new game with its setup line as line 0; false (and nothing written) when the game exists. */
  createGame(game: string, protocol: string, setup: LineToStore): Promise<boolean>;
  /**
   * Appends lines, of any games, all or none (one transaction) on one database; a `ShardedStore` (several
   * databases) is all or none for each game, each database's part its own transaction. Lines of one game
   * come in log order.
   */
  append(lines: readonly LineToStore[]): Promise<void>;
  /** Lines of `game` from line `from` on, at most `limit` of them, in order. */
  readLines(game: string, from: number, limit: number): Promise<StoredLine[]>;
  /**
   * `readLines` bounded in bytes too: stops before the line that would take the text and receipts read past
   * `maxBytes` (the first line is always read). A store without it is read a few lines at a time.
   */
  readPage?(game: string, from: number, limit: number, maxBytes: number): Promise<StoredLine[]>;
  /** The number of lines stored for `game`; 0 for a game the store does not hold. */
  lineCount(game: string): Promise<number>;
  /** Every game held, oldest first. */
  listGames(): Promise<GameSummary[]>;
  /**
   * Sealed mode (docs/spec/sealed.md §4): keep a held envelope (durably, before its holding receipt is
   * given), read a game's held envelopes, forget released ones, and list the games holding any. A store
   * without these hosts no sealed game.
   */
  hold?(game: string, held: HeldLine): Promise<void>;
  readHeld?(game: string): Promise<HeldLine[]>;
  unhold?(game: string, hashes: readonly string[]): Promise<void>;
  gamesHolding?(): Promise<string[]>;
  /**
   * Lobbies (docs/spec/web.md §2), kept so that a restart does not lose them: save (insert or replace) a lobby
   * before a change to it is answered, delete one that expired or gave way, list them all at start. A store
   * without these keeps lobbies in memory only.
   */
  saveLobby?(lobby: StoredLobby): Promise<void>;
  deleteLobby?(id: string): Promise<void>;
  listLobbies?(): Promise<StoredLobby[]>;
  /**
   * Lobbies shared by the processes of a service (relay.md §4, "Clients on any process"): one read on demand,
   * and a change written only over the body it was read as (false when another process changed it meanwhile).
   */
  readLobby?(id: string): Promise<StoredLobby | null>;
  replaceLobby?(lobby: StoredLobby, was: string): Promise<boolean>;
  /**
   * `append` for lines whose receipts the store signs with `secretKey`, all with one signature (as
   * `signReceiptBatch` does), before storing them, off the relay's event loop (docs/spec/relay.md, "The
   * pipeline"): resolves, once committed, with the signature and each line's inclusion proof. A store
   * without it gets signed receipts through `append`.
   */
  appendSigning?(lines: readonly LineToSign[], secretKey: Uint8Array): Promise<BatchSignature>;
  /**
   * Table talk (docs/spec/press.md §6), kept beside a game's lines and never among them: append one message
   * (resolves with its index, 0 first), read from an index on, and what a game's talk holds. A store without
   * these hosts no talk.
   */
  appendTalk?(game: string, at: number, text: string): Promise<number>;
  readTalk?(game: string, from: number, limit: number): Promise<StoredTalk[]>;
  talkUsage?(game: string): Promise<{ readonly count: number; readonly bytes: number }>;
  /** The relay's Ed25519 secret key (32 bytes), created on first use and kept from then on. */
  relayKey(): Promise<Uint8Array>;
  close(): Promise<void>;
}
