/**
 * The transcript and its envelope-layer checks (docs/SPEC.md §4.2–4.4).
 *
 * A transcript is a JSON Lines file: line 0 the setup envelope, then every
 * envelope in the order the recorder (the relay, or the in-memory table) took
 * it. `TranscriptChecker` reads it one line at a time, keeping only a bounded
 * window of line hashes and a few bytes per envelope, so a million-line
 * transcript is checked in constant memory per player. It checks what any
 * envelope must satisfy whatever the protocol; protocol rules come after, in
 * the protocol machines.
 *
 * Who is named (docs/SPEC.md §4.4): a signer answers for what it signed (two
 * different envelopes at one position, two histories); an orderer answers for
 * its log. An orderer checks every envelope at its door (`admit`, the same
 * rules), so a line it should have refused (not an envelope, a bad signature,
 * another game, a gap, a repeat, an impossible view, a `head` that contradicts the log)
 * means the log was altered after the fact: it names nobody, and the referee
 * stops judging the game on such a log.
 */
import { FairtableError, TranscriptError, type ErrorCode, type Evidence, type Violation, type ViolationCode } from './errors.js';
import { concatBytes, fromHex, hexInto, isHex, toHex, utf8 } from './bytes.js';
import { domainPrefix } from './hash.js';
import { canonicalize, jsonProblem, MAX_DEPTH, parseCanonical } from './jcs.js';
import { canonicalUnsigned, envelopeHashFromParts, envelopeShapeError, isPlayerId, ZERO_HASH, type Envelope } from './envelope.js';
import { isStrictPublicKey, verify } from './identity.js';
import { MAX_LINE_BYTES, overLimit } from './lines.js';
import { gameIdOf, setupError, type GameSetup, type SetupBody } from './setup.js';
import { HashRing } from './hash-ring.js';
import { signedLine } from './signed-line.js';
import { RecordBlocks } from './record-blocks.js';

/** An envelope that passed every envelope-layer check, ready for its protocol. */
export interface Accepted {
  readonly line: number;
  readonly hash: string;
  readonly envelope: Envelope;
  /**
   * The time the rules judge this line by (docs/SPEC.md §7.4): its author's own claim (`envelope.time`),
   * or the time in the orderer's signed receipt when the game is judged on receipts.
   */
  readonly time: number;
}

/** What the (possibly parallel) preparation stage computes for one line. */
export interface PreparedLine {
  readonly line: number;
  readonly text: string;
  readonly envelope: Envelope | null;
  readonly shapeError: string | null;
  /** Envelope hash, hex; null when the line is not an envelope. */
  readonly hash: string | null;
  /** Signature valid under the claimed author's key from the setup; false when the author is unknown. */
  readonly sigOk: boolean;
}

export type VerifyFn = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;

/** Defined beside FairtableError, so that a caller can know it without loading the checker. */
export { TranscriptError };

/**
 * Parses and checks line 0 (docs/SPEC.md §4.1). Throws TranscriptError when the
 * transcript has no usable setup: its text must be the canonical form of a
 * setup envelope whose id fits its setup, signed by a player of that setup at
 * its first position (seq 0, prev the game id, at 0, head zeros).
 */
export function readSetupLine(text: string, verifyFn: VerifyFn = verify): { envelope: Envelope<SetupBody>; setup: GameSetup; gameId: string } {
  const bad = (code: ErrorCode, field: string, why: string): TranscriptError => new TranscriptError(code, `line 0: ${why}`, { field });
  let value: unknown;
  try {
    value = parseCanonical(text, 'line 0');
  } catch (cause) {
    const why = cause instanceof FairtableError ? cause.message : String(cause);
    throw new TranscriptError('bad_json', `${why}: a transcript starts with its setup envelope, as canonical JSON`, { field: 'line 0', cause });
  }
  const shape = envelopeShapeError(value);
  if (shape !== null) throw bad('bad_input', 'line 0', `not a setup envelope: ${shape}`);
  const envelope = value as Envelope<SetupBody>;
  if (envelope.body.type !== 'setup') throw bad('bad_input', 'body.type', 'must have body.type "setup"');
  const problem = setupError(envelope.body.setup);
  if (problem !== null) throw bad('bad_input', 'body.setup', problem);
  const setup = envelope.body.setup;
  const gameId = gameIdOf(setup);
  if (envelope.game !== gameId) {
    throw bad('bad_setup', 'game', `the setup hashes to game ${gameId}, but the envelope says ${envelope.game}: the setup was altered`);
  }
  const creator = setup.players.find((p) => p.id === envelope.from);
  if (creator === undefined) throw bad('bad_setup', 'from', `the setup is signed by ${envelope.from}, who is not one of its players`);
  if (envelope.seq !== 0) throw bad('bad_setup', 'seq', `the setup must be its creator's first envelope (seq 0), not seq ${envelope.seq}`);
  if (envelope.prev !== gameId) throw bad('bad_setup', 'prev', "the setup's prev must be the game id");
  if (envelope.at !== 0) throw bad('bad_setup', 'at', `the setup is written on an empty transcript (at 0), not at ${envelope.at}`);
  if (envelope.head !== ZERO_HASH) throw bad('bad_setup', 'head', "the setup's head must be zeros");
  const signed = concatBytes(domainPrefix('envelope-sig'), utf8(canonicalUnsigned(envelope)));
  if (!verifyFn(fromHex(envelope.sig, 'sig', 64), signed, fromHex(creator.key, 'key', 32))) {
    throw bad('bad_setup', 'sig', `the setup's signature does not verify under ${envelope.from}'s key: the setup was altered`);
  }
  return { envelope, setup, gameId };
}

/** A line that cannot be read at all (too long, not UTF-8: docs/SPEC.md §4.5), prepared as a malformed line. */
export function unreadableLine(line: number, note: string, problem: string): PreparedLine {
  return { line, text: note, envelope: null, shapeError: problem, hash: null, sigOk: false };
}

/** Why `text`, which is not its value's canonical form, is refused: the strict reader's reason, or plain non-canonical form. */
function whyNotCanonical(text: string): string {
  try {
    return jsonProblem(text, 'line') ?? 'not in canonical form (RFC 8785): a signed line is written exactly as its canonical JSON';
  } catch (e) {
    return e instanceof FairtableError ? e.message : 'not JSON';
  }
}

/** Characters a JSON text can begin with (after white space): a line starting otherwise is not JSON, unparsed. */
const JSON_START = /^[\s{["\-0-9tfn]/;

/**
 * Parses one line, computes its hash and checks its signature against the setup's keys.
 *
 * The line must be exactly the canonical JSON of an envelope (docs/SPEC.md §4.2
 * check 1): so a duplicate member, -0, a number or string the canonical form
 * cannot hold, nesting deeper than MAX_DEPTH or any other spelling of the same
 * value makes the line malformed, naming nobody, and two readers can never see
 * two values in one signed line. Never throws: any line is either prepared or
 * malformed. The fast path is the native JSON.parse, and for a line that is
 * plainly canonical its signed bytes cut from its own text (signed-line.ts);
 * otherwise a comparison with the canonical text built from the envelope. The
 * strict reader runs only to say why a line was refused.
 */
export function prepareLine(line: number, text: string, keys: ReadonlyMap<string, Uint8Array>, verifyFn: VerifyFn = verify): PreparedLine {
  const malformed = (why: string): PreparedLine => ({ line, text, envelope: null, shapeError: why, hash: null, sigOk: false });
  // A seat handed an oversized line directly (not through lines.ts) refuses it by the same rule, unread (§4.5).
  if (overLimit(text)) return unreadableLine(line, text.slice(0, 200), `longer than ${MAX_LINE_BYTES} bytes`);
  try {
    let value: unknown;
    // A junk line is refused without the exception JSON.parse would build for it (a file can hold millions).
    if (!JSON_START.test(text)) return malformed(whyNotCanonical(text));
    try {
      value = JSON.parse(text);
    } catch {
      return malformed(whyNotCanonical(text));
    }
    const shapeError = envelopeShapeError(value);
    if (shapeError !== null) return malformed(shapeError);
    return prepareEnvelope(line, text, value as Envelope, keys, verifyFn);
  } catch (e) {
    return malformed(`unreadable (${e instanceof Error ? e.message : String(e)})`);
  }
}

/**
 * `prepareLine` for a line its caller has already parsed, with `JSON.parse`, into `envelope`, whose shape
 * `envelopeShapeError` passed (a relay's verifying thread looks at the envelope before paying for its
 * signature): the same answer `prepareLine` gives for `text`, without a second parse.
 */
export function prepareEnvelope(
  line: number,
  text: string,
  envelope: Envelope,
  keys: ReadonlyMap<string, Uint8Array>,
  verifyFn: VerifyFn = verify,
): PreparedLine {
  const malformed = (why: string): PreparedLine => ({ line, text, envelope: null, shapeError: why, hash: null, sigOk: false });
  if (overLimit(text)) return unreadableLine(line, text.slice(0, 200), `longer than ${MAX_LINE_BYTES} bytes`);
  try {
    const signed = signedLine(text, envelope);
    if (signed !== null) {
      const key = keys.get(envelope.from);
      return { line, text, envelope, shapeError: null, hash: signed.hash, sigOk: key !== undefined && verifyFn(signed.sig, signed.message, key) };
    }
    let body: string;
    try {
      // The envelope is one level; its body has the rest.
      body = canonicalize(envelope.body, MAX_DEPTH - 1);
    } catch {
      return malformed(whyNotCanonical(text));
    }
    const before = `{"at":${envelope.at},"body":${body},"from":"${envelope.from}","game":"${envelope.game}","head":"${envelope.head}","prev":"${envelope.prev}","seq":${envelope.seq}`;
    const after = `,"time":${envelope.time},"v":1}`;
    if (text !== `${before},"sig":"${envelope.sig}"${after}`) return malformed(whyNotCanonical(text));
    const canonical = utf8(before + after);
    const sigBytes = fromHex(envelope.sig, 'sig', 64);
    const hash = toHex(envelopeHashFromParts(canonical, sigBytes));
    const key = keys.get(envelope.from);
    const sigOk = key !== undefined && verifyFn(sigBytes, concatBytes(domainPrefix('envelope-sig'), canonical), key);
    return { line, text, envelope, shapeError: null, hash, sigOk };
  } catch (e) {
    return malformed(`unreadable (${e instanceof Error ? e.message : String(e)})`);
  }
}

const SEQ_HASH_BYTES = 16;
/** An author record's entry for one envelope: 16 bytes of its hash and its line (4 bytes). */
const AUTHOR_RECORD_BYTES = SEQ_HASH_BYTES + 4;

function writeLine(block: Uint8Array, at: number, line: number): void {
  block[at] = line & 0xff;
  block[at + 1] = (line >>> 8) & 0xff;
  block[at + 2] = (line >>> 16) & 0xff;
  block[at + 3] = line >>> 24;
}

function readLine(block: Uint8Array, at: number): number {
  return block[at]! | (block[at + 1]! << 8) | (block[at + 2]! << 16) | (block[at + 3]! << 24);
}

/**
 * Per-author memory: 16 bytes of hash and the line of each envelope, a 20-byte record each in blocks added
 * as envelopes come (record-blocks.ts: growing copies nothing and leaves nothing behind), and the hash of
 * the last one as bytes (hex only when read: a string kept until the author's next envelope would be one
 * more object a line for V8 to move to the old generation and drop there; docs/spec/relay.md, "The pipeline").
 */
class AuthorRecord {
  count = 0;
  lastLine = -1;
  private readonly last: Uint8Array;
  /** Per envelope: 16 bytes of its hash, then its line (4 bytes, little-endian). */
  private readonly records = new RecordBlocks(AUTHOR_RECORD_BYTES);
  constructor(gameId: string) {
    this.last = fromHex(gameId, 'game id', 32);
  }
  /** The hash of the author's last envelope; the game id before its first. */
  get lastHash(): string {
    return toHex(this.last);
  }
  add(hash: string, line: number): void {
    // Checked before anything is written, so that a bad hash leaves the record as it was.
    if (!isHex(hash, 32)) throw new FairtableError('bad_hex', 'hash: expected 64 lowercase hex digits', { field: 'hash' });
    hexInto(hash, this.last, 0, 'hash');
    const block = this.records.block(this.count);
    const at = this.records.offset(this.count);
    block.set(this.last.subarray(0, SEQ_HASH_BYTES), at);
    writeLine(block, at + SEQ_HASH_BYTES, line);
    this.count++;
    this.lastLine = line;
  }
  hashPrefixAt(seq: number): string {
    const at = this.records.offset(seq);
    return toHex(this.records.block(seq).subarray(at, at + SEQ_HASH_BYTES));
  }
  lineAt(seq: number): number {
    return readLine(this.records.block(seq), this.records.offset(seq) + SEQ_HASH_BYTES);
  }
  save(): AuthorSnapshot {
    const hashes: string[] = [];
    const lines: number[] = [];
    for (let seq = 0; seq < this.count; seq++) {
      hashes.push(this.hashPrefixAt(seq));
      lines.push(this.lineAt(seq));
    }
    return { count: this.count, lastHash: this.lastHash, lastLine: this.lastLine, hashes: hashes.join(''), lines };
  }
  load(a: AuthorSnapshot): void {
    const bad = (why: string): FairtableError => new FairtableError('bad_input', `checker snapshot: ${why}`, { field: 'authors' });
    if (!Number.isSafeInteger(a.count) || a.count < 0 || a.lines.length !== a.count || a.hashes.length !== a.count * SEQ_HASH_BYTES * 2)
      throw bad('an author record whose counts disagree');
    if (!isHex(a.lastHash, 32)) throw bad('an author record whose last hash is not a line hash');
    const prefixes = fromHex(a.hashes, 'hashes');
    for (let seq = 0; seq < a.count; seq++) {
      const line = a.lines[seq];
      if (!Number.isSafeInteger(line) || line! < 0 || line! > 0x7fffffff) throw bad('an author record with a line that is not a line number');
      const block = this.records.block(seq);
      const at = this.records.offset(seq);
      block.set(prefixes.subarray(seq * SEQ_HASH_BYTES, (seq + 1) * SEQ_HASH_BYTES), at);
      writeLine(block, at + SEQ_HASH_BYTES, line!);
    }
    this.count = a.count;
    this.last.set(fromHex(a.lastHash, 'lastHash', 32));
    this.lastLine = a.lastLine;
  }
}

/** One author's record in a checker snapshot: its count, last envelope, and 16 bytes of hash and the line of each envelope. */
export interface AuthorSnapshot {
  readonly count: number;
  readonly lastHash: string;
  readonly lastLine: number;
  readonly hashes: string;
  readonly lines: readonly number[];
}

/**
 * What a checker holds after some lines, as JSON (docs/spec/mail.md §2): restoring it continues the checks
 * exactly where they stopped. A snapshot is only as trustworthy as whoever kept it: its keeper must make sure
 * it is its own (a game folder seals it with a MAC).
 */
export interface CheckerSnapshot {
  readonly lines: number;
  readonly window: number;
  readonly ring: readonly (string | null)[];
  readonly authors: { readonly [player: string]: AuthorSnapshot };
  /** Authors a `newcomer` line introduced (docs/SPEC.md §4.6): their keys, hex, by id. */
  readonly newcomers?: { readonly [id: string]: string };
}

/** The body type that introduces a new author of a game (docs/SPEC.md §4.6). */
export const NEWCOMER_TYPE = 'newcomer';
/** The most authors `newcomer` lines introduce in one game; later ones introduce nobody. */
export const MAX_NEWCOMERS = 64;

/** The id and key a body introduces as a new author, when it is a well-formed `newcomer` body (docs/SPEC.md §4.6). */
export function newcomerIn(body: { readonly type: string; readonly [key: string]: unknown }): { id: string; key: string } | null {
  if (body.type !== NEWCOMER_TYPE) return null;
  const n = body.newcomer as { id?: unknown; key?: unknown } | null | undefined;
  if (n === null || typeof n !== 'object' || !isPlayerId(n.id) || !isHex(n.key, 32)) return null;
  return isStrictPublicKey(fromHex(n.key)) ? { id: n.id, key: n.key } : null;
}

export interface CheckResult {
  readonly accepted: Accepted | null;
  readonly violations: Violation[];
  /** True when the line repeats an envelope already in the transcript: also `altered`, as no checking orderer records it twice. */
  readonly duplicate: boolean;
  /**
   * True when the line shows the log itself was altered after signing (docs/SPEC.md §4.4): a line a
   * checking orderer never records (not an envelope, a bad signature, another game, a gap in its
   * author's sequence, a repeat of a recorded envelope, an impossible view) or a `head` that contradicts the log.
   */
  readonly altered: boolean;
}

export interface CheckerOptions {
  /** How many recent line hashes are kept to check `head` references. */
  readonly window?: number;
  /** Checks the setup line's signature (identity.verify by default). */
  readonly verify?: VerifyFn;
}

/**
 * The verdict of the envelope-layer rules on one line at one position, before anything is recorded.
 * - `accept`: the envelope takes its position; `brokenChain` when its `prev` is not its author's
 *   previous envelope (the author signed two histories: its own signatures prove it).
 * - `duplicate`: the very envelope already stands in the log.
 * - `equivocation`: the author signed two different envelopes for one position.
 * - `refuse`: anything else; a checking orderer refuses it at its door, so in a log it means the
 *   log was altered (`headMismatch` for a `head` that names another line than the one there).
 */
export type LineJudgement =
  | { readonly kind: 'accept'; readonly brokenChain: Violation | null }
  | { readonly kind: 'duplicate'; readonly line: number }
  | { readonly kind: 'equivocation'; readonly violation: Violation }
  | { readonly kind: 'refuse'; readonly violation: Violation; readonly headMismatch: boolean };

export class TranscriptChecker {
  readonly setup: GameSetup;
  readonly gameId: string;
  /** Each author's key: the setup's players, then the newcomers lines introduced (the same map, grown in place). */
  readonly keys: ReadonlyMap<string, Uint8Array>;
  private readonly keyMap: Map<string, Uint8Array>;
  private readonly newcomers = new Map<string, string>();
  private readonly window: number;
  private readonly ring: HashRing;
  private readonly authors = new Map<string, AuthorRecord>();
  private nextLine = 0;

  constructor(setupLine: string, options: CheckerOptions = {}) {
    const { setup, gameId } = readSetupLine(setupLine, options.verify);
    this.setup = setup;
    this.gameId = gameId;
    this.keyMap = new Map(setup.players.map((p) => [p.id, fromHex(p.key, `key of ${p.id}`, 32)]));
    this.keys = this.keyMap;
    this.window = options.window ?? 65536;
    // The last `window` line hashes, as bytes (hash-ring.ts): a short game costs a few slots, not the whole window.
    this.ring = new HashRing(this.window);
    for (const p of setup.players) this.authors.set(p.id, new AuthorRecord(gameId));
  }

  /** A checker that goes on from `snapshot` (taken by `save` on a checker of the same setup). */
  static restore(setupLine: string, snapshot: CheckerSnapshot, options: CheckerOptions = {}): TranscriptChecker {
    const c = new TranscriptChecker(setupLine, { ...options, window: snapshot.window });
    const bad = (why: string): FairtableError => new FairtableError('bad_input', `checker snapshot: ${why}`, { field: 'snapshot' });
    if (!Number.isSafeInteger(snapshot.lines) || snapshot.lines < 1) throw bad('a line count that is not a positive integer');
    if (snapshot.ring.length !== Math.min(snapshot.lines, c.window)) throw bad('a ring of line hashes of the wrong length');
    for (const [id, key] of Object.entries(snapshot.newcomers ?? {})) {
      if (!c.introduce({ type: NEWCOMER_TYPE, newcomer: { id, key } })) throw bad(`a newcomer ${id} that cannot be one`);
    }
    const players = Object.keys(snapshot.authors);
    if (players.length !== c.authors.size || !players.every((p) => c.authors.has(p))) throw bad('authors that are not the players of this setup');
    for (const p of players) c.authors.get(p)!.load(snapshot.authors[p]!);
    snapshot.ring.forEach((hash, slot) => {
      if (hash !== null && !isHex(hash, 32)) throw bad(`a ring slot ${slot} that is neither a line hash nor null`);
      c.ring.set(slot, hash);
    });
    c.nextLine = snapshot.lines;
    return c;
  }

  /** The checker's whole state as JSON, for `restore`. */
  save(): CheckerSnapshot {
    const authors: { [player: string]: AuthorSnapshot } = {};
    for (const [p, a] of this.authors) authors[p] = a.save();
    return {
      lines: this.nextLine,
      window: this.window,
      ring: this.ring.toArray(),
      authors,
      ...(this.newcomers.size === 0 ? {} : { newcomers: Object.fromEntries(this.newcomers) }),
    };
  }

  /**
   * A `newcomer` body makes its id an author with its key, from the next line on (docs/SPEC.md §4.6): an id
   * that is no author yet, a usable key, at most MAX_NEWCOMERS a game. What the newcomer may do is its
   * protocol's to judge; this layer only lets its signed lines be read.
   */
  private introduce(body: { readonly type: string; readonly [key: string]: unknown }): boolean {
    const n = newcomerIn(body);
    if (n === null || this.authors.has(n.id) || this.newcomers.size >= MAX_NEWCOMERS) return false;
    this.keyMap.set(n.id, fromHex(n.key, 'newcomer key', 32));
    this.authors.set(n.id, new AuthorRecord(this.gameId));
    this.newcomers.set(n.id, n.key);
    return true;
  }

  /** The number of lines checked so far. */
  get lines(): number {
    return this.nextLine;
  }

  hashOfLine(line: number): string | null {
    if (line < 0 || line >= this.nextLine || line < this.nextLine - this.window) return null;
    return this.ring.get(line);
  }

  /** How many envelopes `player` has in the log so far, and the hash of its last one (the game id before its first). */
  authorPosition(player: string): { readonly count: number; readonly lastHash: string } | null {
    const a = this.authors.get(player);
    return a === undefined ? null : { count: a.count, lastHash: a.lastHash };
  }

  /**
   * Judges `prepared` as if it were the next line, recording nothing: the one rule set shared by the log
   * reader (`check`) and by an orderer's door (door.ts), so that what a checking orderer accepts is exactly
   * what every reader of its log accepts (docs/SPEC.md §4.2, §10.1).
   */
  judge(prepared: PreparedLine): LineJudgement {
    const line = this.nextLine;
    const refuse = (code: ViolationCode, player: string | null, message: string, evidence: Evidence[], headMismatch = false): LineJudgement => ({
      kind: 'refuse',
      violation: { code, player, seq: line, message, evidence },
      headMismatch,
    });
    const env = prepared.envelope;
    if (env === null) {
      return refuse('malformed', null, `line ${line} is not an envelope: ${prepared.shapeError ?? 'unknown'}`, [{ line, note: prepared.text.slice(0, 200) }]);
    }
    const self: Evidence = { line, hash: prepared.hash!, envelope: env };
    const author = this.authors.get(env.from);
    if (author === undefined) return refuse('unknown_player', env.from, `line ${line}: ${env.from} is not a player of this game`, [self]);
    if (!prepared.sigOk) {
      return refuse(
        'bad_signature',
        env.from,
        `line ${line}: the signature does not verify under ${env.from}'s key (the envelope claims to come from ${env.from})`,
        [self],
      );
    }
    if (line === 0) return { kind: 'accept', brokenChain: null };
    if (env.game !== this.gameId) {
      return refuse('wrong_game', env.from, `line ${line}: ${env.from} signed this envelope for game ${env.game}, not this game (${this.gameId})`, [self]);
    }
    if (env.seq < author.count) {
      const earlierLine = author.lineAt(env.seq);
      if (author.hashPrefixAt(env.seq) === prepared.hash!.slice(0, SEQ_HASH_BYTES * 2)) return { kind: 'duplicate', line: earlierLine };
      return {
        kind: 'equivocation',
        violation: {
          code: 'equivocation',
          player: env.from,
          seq: line,
          message: `line ${line}: ${env.from} signed two different envelopes as its envelope #${env.seq} (lines ${earlierLine} and ${line})`,
          evidence: [{ line: earlierLine }, self],
        },
      };
    }
    if (env.seq > author.count) {
      return refuse('bad_position', env.from, `line ${line}: ${env.from}'s envelope #${env.seq} comes before its envelope #${author.count}`, [self]);
    }
    if (env.at > line || env.at <= author.lastLine || env.at < 1) {
      return refuse(
        'bad_position',
        env.from,
        `line ${line}: ${env.from} claims to have seen ${env.at} lines, which is impossible here (its previous envelope is line ${author.lastLine})`,
        [self],
      );
    }
    if (env.at < line - this.window) {
      return refuse(
        'bad_position',
        env.from,
        `line ${line}: ${env.from} wrote on a view ${line - env.at} lines old, beyond the checked window of ${this.window}`,
        [self],
      );
    }
    const seen = this.ring.get(env.at - 1);
    if (seen !== env.head) {
      return refuse(
        'altered_log',
        null,
        `line ${line}: ${env.from} vouches that line ${env.at - 1} hashes to ${env.head}, but it hashes to ${seen ?? 'nothing (not an envelope)'}: the log was altered at or before line ${env.at - 1}`,
        [{ line: env.at - 1, hash: seen ?? '' }, self],
        true,
      );
    }
    if (env.prev !== author.lastHash) {
      // The author signed two histories. Its envelope is still its own signed word at this position, so it
      // stays in the game and its content meets the protocol's rules like any other (docs/SPEC.md §4.4).
      return {
        kind: 'accept',
        brokenChain: {
          code: 'broken_chain',
          player: env.from,
          seq: line,
          message: `line ${line}: ${env.from}'s envelope #${env.seq} names as its previous envelope one that is not its envelope #${env.seq - 1} in this transcript: ${env.from} signed two histories`,
          evidence: [...(author.lastLine >= 0 ? [{ line: author.lastLine, hash: author.lastHash }] : []), self],
        },
      };
    }
    return { kind: 'accept', brokenChain: null };
  }

  /** Records an accepted envelope as the next line (after `judge` said `accept`). */
  private record(prepared: PreparedLine): void {
    this.authors.get(prepared.envelope!.from)!.add(prepared.hash!, prepared.line);
    if (prepared.line > 0) this.introduce(prepared.envelope!.body);
  }

  /**
   * Checks the next line of a log. Lines must come in order, starting with line 0 (the setup). Who is
   * named (docs/SPEC.md §4.4): a signer for what its signatures prove (equivocation, two histories);
   * nobody for what a checking orderer would have refused, because such a line in a log means the log
   * was altered, and the line is reported with where it stands.
   */
  check(prepared: PreparedLine): CheckResult {
    const line = prepared.line;
    if (line !== this.nextLine) throw new FairtableError('bad_input', `lines must be checked in order: expected ${this.nextLine}, got ${line}`);
    const judgement = this.judge(prepared);
    this.nextLine++;
    this.ring.set(line, prepared.hash);
    switch (judgement.kind) {
      case 'accept':
        this.record(prepared);
        return {
          accepted: { line, hash: prepared.hash!, envelope: prepared.envelope!, time: prepared.envelope!.time },
          violations: judgement.brokenChain === null ? [] : [judgement.brokenChain],
          duplicate: false,
          altered: false,
        };
      case 'duplicate': {
        // A checking orderer records an envelope once (an identical resend gets its line back), so a repeat
        // in a log was put there afterwards. It is no harmless no-op: it takes a line number, which can make
        // another author's `head` fit a log reordered around it (docs/SPEC.md §4.4).
        const env = prepared.envelope!;
        const violation: Violation = {
          code: 'bad_position',
          player: null,
          seq: line,
          message: `line ${line} repeats line ${judgement.line} (${env.from}'s envelope #${env.seq}); a checking orderer records an envelope once, so the log was altered here and ${env.from} is not held to it`,
          evidence: [{ line: judgement.line }, { line, hash: prepared.hash!, envelope: env }],
        };
        return { accepted: null, violations: [violation], duplicate: true, altered: true };
      }
      case 'equivocation':
        return { accepted: null, violations: [judgement.violation], duplicate: false, altered: false };
      case 'refuse': {
        const v = judgement.violation;
        const claimed = v.player;
        // In a log, the orderer answers for a line it should have refused: the claimed author is not named.
        const message =
          judgement.headMismatch || claimed === null
            ? v.message
            : `${v.message}; a checking orderer refuses such a line, so the log was altered here and ${claimed} is not held to it`;
        return { accepted: null, violations: [{ ...v, player: null, message }], duplicate: false, altered: true };
      }
    }
  }

  /** The door's append: judge, and record only an accepted line (docs/SPEC.md §10.1). */
  admit(prepared: PreparedLine): LineJudgement {
    if (prepared.line !== this.nextLine) throw new FairtableError('bad_input', `the next line is ${this.nextLine}, not ${prepared.line}`);
    const judgement = this.judge(prepared);
    if (judgement.kind === 'accept' && judgement.brokenChain === null) {
      this.nextLine++;
      this.ring.set(prepared.line, prepared.hash);
      this.record(prepared);
    }
    return judgement;
  }
}
