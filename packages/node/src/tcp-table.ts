/**
 * The table over TCP on one machine or a LAN (docs/SPEC.md §10.4): an
 * untrusted orderer behind newline-delimited JSON on a socket, and a client
 * link for the same player code. A connection proves which player it speaks
 * for by signing the server's challenge:
 *
 *   sig = Ed25519(secret, utf8("fairtable/table-hello/v1") ‖ 0x00 ‖ game id ‖ challenge)
 *
 * Messages: server → client `{kind: "challenge", nonce, setup}`, then `entry`,
 * `status`, `refused` and `error` lines; client → server `{kind: "hello", id,
 * sig}`, then `submit` and `sync`.
 *
 * The server is built to face hostile clients (§10.4 "Limits"): every line is
 * read with a length cap, every message is checked before it is used, each
 * connection has a hello deadline, a message rate and a bound on what waits to
 * be written to it, and a submitted envelope enters the log only through the
 * door (`admitLine`): well-formed, canonical, of this game, signed by the
 * connection's own player, and next in that player's sequence. A client that
 * breaks a limit is disconnected with a coded error and named in the server's
 * events; nothing a client sends can throw out of the server.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { fromHex, isHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { FairtableError, type ErrorCode } from '@fairtable/core/errors.js';
import { isPlayerId, type Envelope } from '@fairtable/core/envelope.js';
import { helloBytes } from '@fairtable/core/order/hello.js';
import { prepareLine, readSetupLine, TranscriptChecker, type PreparedLine, type VerifyFn } from '@fairtable/core/transcript.js';
import type { Link, NetNode } from '@fairtable/core/testing';
import { BoundedLineReader } from './line-reader.js';
import { nativeSign, nativeVerify } from './native-verify.js';

/** The longest line either side reads: an envelope is far smaller; anything longer closes the connection. */
export const MAX_LINE_BYTES = 1 << 20;
/** How many entries one `sync` answer carries at most, and about how many bytes (at least one entry). */
const SYNC_BATCH = 64;
const SYNC_BATCH_BYTES = 256 * 1024;

// ---------------------------------------------------------------------------
// The door: what a submitted line must be to enter the log.
// ---------------------------------------------------------------------------

/** Why the door refuses a line: the violation codes of the transcript checker (docs/SPEC.md §4.2, §10.1). */
export type RefusalCode = 'malformed' | 'wrong_sender' | 'unknown_player' | 'wrong_game' | 'bad_signature' | 'equivocation' | 'bad_position' | 'broken_chain';

export type Admission =
  | { readonly kind: 'admit'; readonly envelope: Envelope; readonly hash: string; readonly prepared: PreparedLine }
  /** The very line is already in the log: an honest resend, dropped without a word. */
  | { readonly kind: 'duplicate'; readonly line: number }
  | { readonly kind: 'refuse'; readonly code: RefusalCode; readonly message: string; readonly player: string | null; readonly line?: number };

interface AuthorState {
  /** Lines of this author's envelopes in the log, by seq. */
  readonly lines: number[];
  lastHash: string;
}

/**
 * The log as the door sees it: the texts, their hashes and each author's sequence, for answering `sync`
 * and resuming; the rules themselves are the core transcript checker's (`checker.judge`), the same that
 * every reader of the log applies, so what this table records is exactly what they accept.
 */
export interface Door {
  readonly gameId: string;
  readonly keys: ReadonlyMap<string, Uint8Array>;
  readonly checker: TranscriptChecker;
  readonly log: string[];
  readonly hashes: string[];
  readonly index: Map<string, number>;
  readonly authors: Map<string, AuthorState>;
}

export function createDoor(setupLine: string, verifyFn: VerifyFn = nativeVerify): Door {
  const checker = new TranscriptChecker(setupLine);
  const first = prepareLine(0, setupLine, checker.keys, verifyFn);
  if (first.hash === null || !first.sigOk) throw new FairtableError('bad_input', 'line 0: the setup envelope is not signed by its creator');
  checker.admit(first);
  const door: Door = {
    gameId: checker.gameId,
    keys: checker.keys,
    checker,
    log: [setupLine],
    hashes: [first.hash],
    index: new Map([[setupLine, 0]]),
    authors: new Map(),
  };
  door.authors.set(first.envelope!.from, { lines: [0], lastHash: first.hash });
  return door;
}

/**
 * The door's check of one line submitted over `sender`'s connection (docs/SPEC.md §10.1, §10.4): the
 * transcript checker's rules applied to the line as the log's next, plus "a connection speaks only for its
 * own player". It changes nothing; `enterLine` records an admitted line.
 */
export function admitLine(door: Door, sender: string, text: string, verifyFn: VerifyFn = nativeVerify): Admission {
  const known = door.index.get(text);
  if (known !== undefined) return { kind: 'duplicate', line: known };
  const refuse = (code: RefusalCode, message: string, player: string | null = sender, line?: number): Admission =>
    line === undefined ? { kind: 'refuse', code, message, player } : { kind: 'refuse', code, message, player, line };
  const prepared = prepareLine(door.log.length, text, door.keys, verifyFn);
  if (prepared.envelope === null) return refuse('malformed', prepared.shapeError ?? 'not an envelope');
  const env = prepared.envelope;
  if (env.from !== sender) return refuse('wrong_sender', `from is "${env.from}" but this connection speaks for "${sender}"`);
  const judgement = door.checker.judge(prepared);
  switch (judgement.kind) {
    case 'accept':
      return judgement.brokenChain === null
        ? { kind: 'admit', envelope: env, hash: prepared.hash!, prepared }
        : refuse('broken_chain', judgement.brokenChain.message);
    case 'duplicate':
      return { kind: 'duplicate', line: judgement.line };
    case 'equivocation':
      return refuse('equivocation', judgement.violation.message, sender, door.authors.get(sender)?.lines[env.seq]);
    case 'refuse':
      // A `head` that names another line is the submitter's false reference here, not an altered log.
      return refuse(judgement.headMismatch ? 'broken_chain' : (judgement.violation.code as RefusalCode), judgement.violation.message);
  }
}

/** Records a line the door admitted; returns its line number. */
export function enterLine(door: Door, text: string, admitted: Extract<Admission, { kind: 'admit' }>): number {
  const line = door.log.length;
  door.checker.admit(admitted.prepared);
  door.log.push(text);
  door.hashes.push(admitted.hash);
  door.index.set(text, line);
  const from = admitted.envelope.from;
  const author = door.authors.get(from);
  if (author === undefined) door.authors.set(from, { lines: [line], lastHash: admitted.hash });
  else {
    author.lines.push(line);
    author.lastHash = admitted.hash;
  }
  return line;
}

/**
 * Rebuilds a door from a transcript the table wrote (for `--resume`): every
 * line must pass the door again, in order, under its own author. A last line
 * cut short by a crash (no newline at the end of the file) is dropped.
 */
export function reopenDoor(journal: string, verifyFn: VerifyFn = nativeVerify): Door {
  const lines = journal.split('\n');
  // The text after the last newline is either empty or a line whose write was cut short.
  lines.pop();
  if (lines.length === 0) throw new FairtableError('bad_journal', 'the transcript is empty: nothing to resume');
  const door = createDoor(lines[0]!, verifyFn);
  for (let i = 1; i < lines.length; i++) {
    const text = lines[i]!;
    let from: unknown;
    try {
      from = (JSON.parse(text) as { from?: unknown }).from;
    } catch {
      from = undefined;
    }
    const a = isPlayerId(from) ? admitLine(door, from, text, verifyFn) : null;
    if (a === null || a.kind !== 'admit') {
      throw new FairtableError(
        'bad_journal',
        `line ${i} of the transcript does not pass the table's door${a !== null && a.kind === 'refuse' ? ` (${a.code}: ${a.message})` : ''}: not a transcript this table wrote`,
      );
    }
    enterLine(door, text, a);
  }
  return door;
}

// ---------------------------------------------------------------------------
// The server.
// ---------------------------------------------------------------------------

export interface TableLimits {
  /** Longest line read from a client (bytes). */
  readonly maxLineBytes: number;
  /** Time a new connection has to send a valid hello. */
  readonly helloTimeoutMs: number;
  /** Open connections at once, authenticated or not; when full, the oldest without a hello gives way to a new one. */
  readonly maxConnections: number;
  /** Sustained messages a second from one connection. */
  readonly messagesPerSecond: number;
  /** Messages one connection may send in a burst above the sustained rate. */
  readonly messageBurst: number;
  /** Output waiting for a client above which the server stops reading from it. */
  readonly pauseOutputBytes: number;
  /** Output waiting for a client above which it is disconnected. */
  readonly maxOutputBytes: number;
  /** How long a client may leave its output above `pauseOutputBytes` before it is disconnected. */
  readonly stallMs: number;
}

export const DEFAULT_LIMITS: TableLimits = {
  maxLineBytes: MAX_LINE_BYTES,
  helloTimeoutMs: 10_000,
  maxConnections: 64,
  messagesPerSecond: 100,
  messageBurst: 400,
  pauseOutputBytes: 1 << 20,
  maxOutputBytes: 8 << 20,
  stallMs: 10_000,
};

/** What the server did about its clients, for its log: a refused line or a dropped connection, with the player named. */
export type TableEvent =
  | { readonly type: 'accepted'; readonly line: number; readonly player: string }
  | { readonly type: 'refused'; readonly player: string; readonly code: RefusalCode; readonly message: string }
  | { readonly type: 'disconnected'; readonly player: string | null; readonly code: ErrorCode; readonly message: string }
  | { readonly type: 'journal_failed'; readonly message: string };

export interface TableServerOptions {
  readonly host?: string;
  readonly port?: number;
  readonly limits?: Partial<TableLimits>;
  /** Appends every accepted line to this file as it is accepted (line 0 written at start unless resuming). */
  readonly journal?: string;
  /** fsync the journal after each line (default true): a line the table answered for survives a crash. */
  readonly fsync?: boolean;
  /** Continue a game from a door rebuilt by `reopenDoor`, instead of starting from `setupLine`. */
  readonly resume?: Door;
  readonly onEvent?: (event: TableEvent) => void;
  readonly verify?: VerifyFn;
}

export interface TableServer {
  readonly port: number;
  /** The lines the table recorded, line 0 the setup. */
  readonly log: readonly string[];
  /** Open connections (authenticated or not). */
  readonly connections: number;
  close(): Promise<void>;
}

interface Connection {
  readonly socket: Socket;
  readonly reader: BoundedLineReader;
  who: string | null;
  tokens: number;
  refilledAt: number;
  pausedSince: number | null;
  helloTimer: NodeJS.Timeout | null;
  closed: boolean;
}

function openFile(path: string, flags: 'w' | 'a', what: string): number {
  try {
    return openSync(path, flags);
  } catch (e) {
    throw new FairtableError('bad_input', `cannot open ${what} ${path}: ${(e as Error).message}`, { cause: e });
  }
}

function plainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Serves a table for the game whose setup line is given (port 0: any free port). */
export function serveTable(setupLine: string, options: TableServerOptions = {}): Promise<TableServer> {
  const limits: TableLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const verifyFn = options.verify ?? nativeVerify;
  const door = options.resume ?? createDoor(setupLine, verifyFn);
  if (door.log[0] !== setupLine) throw new FairtableError('bad_journal', 'the transcript to resume is of another game than the setup given');
  const emit = options.onEvent ?? (() => {});
  const sync = options.fsync ?? true;
  let journal: number | null = null;
  if (options.journal !== undefined) {
    journal = openFile(options.journal, options.resume === undefined ? 'w' : 'a', 'the transcript');
    if (options.resume === undefined) appendJournal(setupLine);
  }
  function appendJournal(text: string): void {
    if (journal === null) return;
    writeSync(journal, text + '\n');
    if (sync) fdatasyncSync(journal);
  }

  const players = new Map<string, Connection>();
  const open = new Set<Connection>();
  // Every socket until it closes, those being closed included: close() must end them all, since a paused
  // socket does not keep the process alive and server.close() waits for it.
  const sockets = new Set<Socket>();

  function drop(c: Connection, code: ErrorCode, message: string): void {
    if (c.closed) return;
    emit({ type: 'disconnected', player: c.who, code, message });
    send(c, { kind: 'error', code, message, ...(c.who === null ? {} : { player: c.who }) }, true);
    end(c);
  }

  function end(c: Connection): void {
    if (c.closed) return;
    c.closed = true;
    c.reader.stop();
    if (c.helloTimer !== null) clearTimeout(c.helloTimer);
    open.delete(c);
    if (c.who !== null && players.get(c.who) === c) players.delete(c.who);
    // end() flushes the error line when the client reads; nothing more is read (a 600 MB line is not
    // read past at full speed); the socket is destroyed after a grace period either way.
    c.socket.pause();
    c.socket.end();
    setTimeout(() => c.socket.destroy(), 1000).unref();
  }

  /** Writes one message; keeps the output to a client bounded. */
  function send(c: Connection, value: unknown, last = false): void {
    if (c.socket.destroyed || (c.closed && !last)) return;
    c.socket.write(JSON.stringify(value) + '\n');
    if (last) return;
    const waiting = c.socket.writableLength;
    if (waiting > limits.maxOutputBytes) {
      drop(c, 'slow_reader', `${waiting} bytes wait to be written to this connection; it does not read what it asks for`);
    } else if (waiting > limits.pauseOutputBytes && c.pausedSince === null) {
      c.pausedSince = Date.now();
      c.socket.pause();
    }
  }

  function broadcast(line: number, text: string): void {
    for (const c of players.values()) send(c, { kind: 'entry', index: line, text });
  }

  function onLine(c: Connection, text: string): void {
    if (c.closed) return;
    const now = Date.now();
    c.tokens = Math.min(limits.messageBurst, c.tokens + ((now - c.refilledAt) * limits.messagesPerSecond) / 1000);
    c.refilledAt = now;
    if (c.tokens < 1) {
      drop(c, 'rate_limited', `more than ${limits.messagesPerSecond} messages a second (burst ${limits.messageBurst})`);
      return;
    }
    c.tokens -= 1;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      drop(c, 'bad_message', 'a line that is not JSON');
      return;
    }
    if (!plainObject(msg) || typeof msg.kind !== 'string') {
      drop(c, 'bad_message', 'every message is a JSON object with a string "kind"');
      return;
    }
    if (c.who === null) {
      hello(c, msg);
      return;
    }
    if (msg.kind === 'submit' && typeof msg.text === 'string') {
      const a = admitLine(door, c.who, msg.text, verifyFn);
      if (a.kind === 'duplicate') return;
      if (a.kind === 'refuse') {
        emit({ type: 'refused', player: c.who, code: a.code, message: a.message });
        send(c, { kind: 'refused', code: a.code, message: a.message, ...(a.line === undefined ? {} : { line: a.line }) });
        return;
      }
      try {
        appendJournal(msg.text);
      } catch (e) {
        // Not on disk, so not in the log: the client resends, and the line goes in once the journal takes it.
        emit({ type: 'journal_failed', message: (e as Error).message });
        return;
      }
      const line = enterLine(door, msg.text, a);
      emit({ type: 'accepted', line, player: c.who });
      broadcast(line, msg.text);
    } else if (msg.kind === 'sync' && typeof msg.from === 'number' && Number.isSafeInteger(msg.from) && msg.from >= 0) {
      // A sync is asked again when it goes unanswered (every 200 ms), so one that finds the client's
      // output already backed up is dropped: what waits for a client stays near pauseOutputBytes.
      if (c.socket.writableLength > limits.pauseOutputBytes) return;
      const stop = Math.min(door.log.length, msg.from + SYNC_BATCH);
      if (msg.from >= stop) send(c, { kind: 'status', length: door.log.length });
      let bytes = 0;
      for (let i = msg.from; i < stop && !c.closed && bytes < SYNC_BATCH_BYTES; i++) {
        bytes += door.log[i]!.length;
        send(c, { kind: 'entry', index: i, text: door.log[i]! });
      }
    } else {
      drop(c, 'bad_message', 'after hello, a client sends {kind: "submit", text} or {kind: "sync", from}');
    }
  }

  function hello(c: Connection, msg: Record<string, unknown>): void {
    if (msg.kind !== 'hello') {
      drop(c, 'bad_message', 'the first message is {kind: "hello", id, sig}');
      return;
    }
    const id = msg.id;
    // A Map lookup: an id such as "__proto__" finds nothing.
    const key = typeof id === 'string' ? door.keys.get(id) : undefined;
    const ok = key !== undefined && isHex(msg.sig, 64) && verifyFn(fromHex(msg.sig), helloBytes(door.gameId, nonces.get(c)!), key);
    if (!ok) {
      drop(c, 'bad_hello', 'hello: not signed by a player of this game');
      return;
    }
    if (c.helloTimer !== null) clearTimeout(c.helloTimer);
    c.helloTimer = null;
    c.who = id as string;
    const before = players.get(c.who);
    // A player's new connection replaces its old one (a reconnect after a network fault).
    if (before !== undefined) end(before);
    players.set(c.who, c);
  }

  const nonces = new WeakMap<Connection, string>();

  const server: Server = createServer((socket) => {
    const c: Connection = {
      socket,
      reader: new BoundedLineReader(limits.maxLineBytes, {
        line: (text) => {
          try {
            onLine(c, text);
          } catch (e) {
            // Nothing a client sends may throw out of the server; a fault here ends only this connection.
            drop(c, 'bad_message', `the table could not process this message (${(e as Error).message})`);
          }
        },
        tooLong: (bytes) => drop(c, 'line_too_long', `a line of more than ${limits.maxLineBytes} bytes (${bytes} so far)`),
      }),
      who: null,
      tokens: limits.messageBurst,
      refilledAt: Date.now(),
      pausedSince: null,
      helloTimer: null,
      closed: false,
    };
    sockets.add(socket);
    socket.on('error', () => end(c));
    socket.on('close', () => {
      sockets.delete(socket);
      end(c);
    });
    if (open.size >= limits.maxConnections) {
      // The oldest connection still without a hello makes room: idle connections cannot keep a player
      // out, they only make each other short-lived. With none to evict, the newcomer is refused.
      for (const other of open) {
        if (other.who === null) {
          drop(other, 'too_many_connections', `the table serves at most ${limits.maxConnections} connections; the oldest one without a hello gives way`);
          break;
        }
      }
    }
    if (open.size >= limits.maxConnections) {
      c.closed = true;
      emit({ type: 'disconnected', player: null, code: 'too_many_connections', message: `${open.size} connections are open` });
      socket.end(
        JSON.stringify({ kind: 'error', code: 'too_many_connections', message: `the table serves at most ${limits.maxConnections} connections` }) + '\n',
      );
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    open.add(c);
    const nonce = toHex(randomBytes(32));
    nonces.set(c, nonce);
    c.helloTimer = setTimeout(() => drop(c, 'hello_timeout', `no valid hello within ${limits.helloTimeoutMs} ms`), limits.helloTimeoutMs);
    socket.on('data', (chunk: Buffer) => c.reader.push(chunk));
    socket.on('drain', () => {
      if (c.pausedSince !== null && !c.closed) {
        c.pausedSince = null;
        socket.resume();
      }
    });
    send(c, { kind: 'challenge', nonce, setup: door.log[0]! });
  });
  // A stalled reader holds at most pauseOutputBytes, and only for stallMs.
  const stallCheck = setInterval(
    () => {
      const now = Date.now();
      for (const c of open) {
        if (c.pausedSince !== null && now - c.pausedSince > limits.stallMs) drop(c, 'slow_reader', `has not read its output for ${limits.stallMs} ms`);
      }
    },
    Math.min(1000, limits.stallMs),
  );
  stallCheck.unref();
  // Errors on the listening socket after it is up (EMFILE, say) are reported, never thrown.
  const onServerError = (e: Error): void => emit({ type: 'disconnected', player: null, code: 'connection_failed', message: e.message });

  return new Promise((resolve, reject) => {
    server.once('error', (e) => {
      clearInterval(stallCheck);
      if (journal !== null) closeSync(journal);
      reject(new FairtableError('connection_failed', `cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 0}: ${e.message}`, { cause: e }));
    });
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.removeAllListeners('error');
      server.on('error', onServerError);
      const address = server.address();
      const actual = typeof address === 'object' && address !== null ? address.port : (options.port ?? 0);
      resolve({
        port: actual,
        log: door.log,
        get connections() {
          return open.size;
        },
        close: () =>
          new Promise<void>((done) => {
            clearInterval(stallCheck);
            for (const c of [...open]) end(c);
            for (const socket of [...sockets]) socket.destroy();
            if (journal !== null) {
              closeSync(journal);
              journal = null;
            }
            server.close(() => done());
          }),
      });
    });
  });
}

// ---------------------------------------------------------------------------
// The client.
// ---------------------------------------------------------------------------

export interface TableClientOptions {
  readonly maxLineBytes?: number;
  /** Time to wait for the server's challenge, and for the first connection. */
  readonly connectTimeoutMs?: number;
  /** The table counts as gone when nothing arrives from it for this long (it answers every sync). */
  readonly silenceMs?: number;
  /** After the connection drops, keep trying to reconnect for this long (0: give up at once). */
  readonly reconnectMs?: number;
  /** Append every line of the log here, in order, as it arrives: the player's own copy of the transcript. */
  readonly copyTo?: string;
  readonly fsync?: boolean;
  /** Lines the table refused (the client's own submissions), for the player's log. */
  readonly onRefused?: (code: string, message: string) => void;
}

export interface TableConnection {
  readonly setupLine: string;
  readonly link: Link;
  /** Starts delivering table lines to `node` and ticking it every `tickMs`. */
  attach(node: NetNode, tickMs?: number): void;
  /** Settles when the connection gives up (closed for good, silent, refused): a coded error. Never settles after close(). */
  readonly failed: Promise<FairtableError>;
  close(): void;
}

interface Challenge {
  readonly nonce: string;
  readonly setup: string;
  readonly gameId: string;
}

function readChallenge(text: string, id: string): Challenge {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    throw new FairtableError('bad_challenge', 'the server did not answer with JSON: is it a fairtable table?');
  }
  if (!plainObject(msg)) throw new FairtableError('bad_challenge', 'the server answered with something other than a challenge');
  if (msg.kind === 'error') throw new FairtableError('connection_failed', `the table refused the connection: ${String(msg.code)}: ${String(msg.message)}`);
  if (msg.kind !== 'challenge' || !isHex(msg.nonce, 32) || typeof msg.setup !== 'string') {
    throw new FairtableError('bad_challenge', 'expected {kind: "challenge", nonce: 64 hex digits, setup}');
  }
  let parsed: ReturnType<typeof readSetupLine>;
  try {
    parsed = readSetupLine(msg.setup);
  } catch (e) {
    throw new FairtableError('bad_challenge', `the table's setup line is unusable: ${(e as Error).message}`);
  }
  if (!parsed.setup.players.some((p) => p.id === id)) throw new FairtableError('bad_challenge', `"${id}" is not a player of the table's game`);
  return { nonce: msg.nonce, setup: msg.setup, gameId: parsed.gameId };
}

function connectError(e: NodeJS.ErrnoException, host: string, port: number): FairtableError {
  if (e.code === 'ECONNREFUSED') return new FairtableError('connection_refused', `nothing listens on ${host}:${port}`, { cause: e });
  return new FairtableError('connection_failed', `${host}:${port}: ${e.code ?? e.message}`, { cause: e });
}

/**
 * One socket through challenge and hello: resolves with the open socket and
 * its reader, or rejects with a coded error. Lines after the challenge go to
 * `onLine`; the caller attaches close handling.
 */
function openSession(
  host: string,
  port: number,
  id: string,
  secretKey: Uint8Array,
  maxLineBytes: number,
  timeoutMs: number,
  onLine: (text: string) => void,
): Promise<{ socket: Socket; challenge: Challenge }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    let challenge: Challenge | null = null;
    const fail = (e: FairtableError): void => {
      clearTimeout(timer);
      reader.stop();
      socket.destroy();
      reject(e);
    };
    const timer = setTimeout(() => fail(new FairtableError('table_silent', `no challenge from ${host}:${port} within ${timeoutMs} ms`)), timeoutMs);
    const reader = new BoundedLineReader(maxLineBytes, {
      line(text) {
        if (challenge !== null) {
          onLine(text);
          return;
        }
        try {
          challenge = readChallenge(text, id);
        } catch (e) {
          fail(e as FairtableError);
          return;
        }
        clearTimeout(timer);
        socket.write(JSON.stringify({ kind: 'hello', id, sig: toHex(nativeSign(helloBytes(challenge.gameId, challenge.nonce), secretKey)) }) + '\n');
        resolve({ socket, challenge });
      },
      tooLong: (bytes) => fail(new FairtableError('line_too_long', `the table sent a line of more than ${maxLineBytes} bytes (${bytes})`)),
    });
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      if (challenge === null) fail(connectError(e, host, port));
    });
    socket.on('close', () => {
      if (challenge === null) fail(new FairtableError('connection_closed', `${host}:${port} closed the connection before its challenge`));
    });
  });
}

/**
 * Connects to a table as `id`, proving it with `secretKey`; resolves once the
 * table has sent the setup, or rejects with a coded error. The connection then
 * survives a restart of the table (it reconnects for `reconnectMs`, to the
 * same game only) and reports, through `failed`, a table that is gone.
 */
export async function connectTable(host: string, port: number, id: string, secretKey: Uint8Array, options: TableClientOptions = {}): Promise<TableConnection> {
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const silenceMs = options.silenceMs ?? 15_000;
  const reconnectMs = options.reconnectMs ?? 0;
  let node: NetNode | null = null;
  let ticker: NodeJS.Timeout | null = null;
  let watchdog: NodeJS.Timeout | null = null;
  let socket: Socket | null = null;
  let closed = false;
  let lastHeard = Date.now();
  let reportFailure: (e: FairtableError) => void = () => {};
  const failed = new Promise<FairtableError>((resolve) => (reportFailure = resolve));

  // The player's own copy: line i is written once lines 0..i-1 are.
  let copy: number | null = options.copyTo === undefined ? null : openFile(options.copyTo, 'w', "the player's copy");
  let copied = 0;
  const early = new Map<number, string>();
  const copyLine = (index: number, text: string): void => {
    if (copy === null || index < copied) return;
    if (index > copied) {
      // Far-ahead lines are asked for again by sync; keep only a bounded window of them.
      if (index - copied < 4096) early.set(index, text);
      return;
    }
    let next: string | undefined = text;
    while (next !== undefined) {
      writeSync(copy, next + '\n');
      early.delete(copied);
      copied++;
      next = early.get(copied);
    }
    if (options.fsync ?? true) fdatasyncSync(copy);
  };

  const link: Link = {
    get now() {
      return Date.now();
    },
    send(_from, _to, payload) {
      if (socket !== null && !socket.destroyed) socket.write(JSON.stringify(payload) + '\n');
    },
  };

  const giveUp = (e: FairtableError): void => {
    if (closed) return;
    shutdown();
    reportFailure(e);
  };

  function shutdown(): void {
    closed = true;
    if (ticker !== null) clearInterval(ticker);
    if (watchdog !== null) clearInterval(watchdog);
    socket?.destroy();
    if (copy !== null) {
      closeSync(copy);
      copy = null;
    }
  }

  const onLine = (text: string): void => {
    lastHeard = Date.now();
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      giveUp(new FairtableError('bad_message', 'the table sent a line that is not JSON'));
      return;
    }
    if (!plainObject(msg)) return;
    if (msg.kind === 'entry') {
      if (typeof msg.index !== 'number' || !Number.isSafeInteger(msg.index) || msg.index < 0 || typeof msg.text !== 'string') return;
      copyLine(msg.index, msg.text);
      node?.receive('table', { kind: 'entry', index: msg.index, text: msg.text }, link);
    } else if (msg.kind === 'refused') {
      options.onRefused?.(String(msg.code), String(msg.message));
    } else if (msg.kind === 'error') {
      giveUp(new FairtableError('connection_closed', `the table closed the connection: ${String(msg.code)}: ${String(msg.message)}`));
    }
  };

  const first = await openSession(host, port, id, secretKey, maxLineBytes, connectTimeoutMs, onLine).catch((e: unknown) => {
    shutdown();
    throw e;
  });
  const setupLine = first.challenge.setup;
  copyLine(0, setupLine);

  function adopt(s: Socket): void {
    socket = s;
    lastHeard = Date.now();
    s.on('close', () => {
      if (closed || socket !== s) return;
      socket = null;
      void reconnect();
    });
  }

  async function reconnect(): Promise<void> {
    const deadline = Date.now() + reconnectMs;
    let last: FairtableError = new FairtableError('connection_closed', `${host}:${port} closed the connection before the game ended`);
    while (!closed && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      if (closed) return;
      try {
        const again = await openSession(host, port, id, secretKey, maxLineBytes, Math.max(1, Math.min(connectTimeoutMs, deadline - Date.now())), onLine);
        if (closed) {
          again.socket.destroy();
          return;
        }
        if (again.challenge.setup !== setupLine) {
          again.socket.destroy();
          giveUp(new FairtableError('wrong_table', `${host}:${port} now serves another game`));
          return;
        }
        adopt(again.socket);
        return;
      } catch (e) {
        last = e instanceof FairtableError ? e : new FairtableError('connection_failed', String(e));
      }
    }
    giveUp(reconnectMs > 0 ? new FairtableError(last.code, `${last.message} (gave up reconnecting after ${reconnectMs} ms)`) : last);
  }

  adopt(first.socket);
  watchdog = setInterval(
    () => {
      if (socket !== null && Date.now() - lastHeard > silenceMs)
        giveUp(new FairtableError('table_silent', `nothing from the table at ${host}:${port} for ${silenceMs} ms`));
    },
    Math.min(1000, silenceMs),
  );

  return {
    setupLine,
    link,
    failed,
    attach(n, tickMs = 50) {
      node = n;
      ticker = setInterval(() => n.tick?.(link), tickMs);
    },
    close() {
      if (!closed) shutdown();
    },
  };
}
