/**
 * The seat: what a real player runs (docs/SPEC.md §10.2). It follows the
 * orderer's log in order (asking again for what it missed), runs the referee
 * over every line, asks its player for decisions, signs what the machine says
 * to send one envelope at a time, and resends it until it shows up in the
 * log. The transport to the orderer is injected (the in-memory table, a TCP
 * table, a relay over WebSocket), as is the clock, so the same seat plays in
 * simulation and for real.
 *
 * Resuming: a seat is rebuilt from its own copy of the log, its random source
 * and its journal of decisions. With a deterministic random source (a stream
 * keyed by a secret the player keeps, `seatRandom`), replaying the log and the
 * journal reproduces every secret and every body exactly, and the bodies whose
 * envelopes already stand in the log are not sent again, so a restart never
 * makes an honest player equivocate.
 */
import type { Body } from '../envelope.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '../envelope.js';
import { FairtableError, type Violation } from '../errors.js';
import { canonicalize, type JsonValue } from '../jcs.js';
import type { KeyPair } from '../identity.js';
import { hashJson } from '../hash.js';
import { RandomStream } from '../stream.js';
import { toHex } from '../bytes.js';
import { Referee, type RefereeSnapshot } from '../referee.js';
import type { Registry } from '../registry.js';
import { openShare as openSealedShare, type SealedShare } from '../escrow/vss.js';
import { exchange as layerExchange, type Exchange } from '../escrow/dleq.js';
import type { Ctx, Decision, GameEvent, Outcome } from '../protocols/machine.js';
import { prepareLine, type VerifyFn } from '../transcript.js';
import { isExtensionBody } from '../protocols/extension.js';

/** How a seat reaches the orderer. */
export interface SeatTransport {
  /** Sends one signed envelope line to the orderer. */
  submit(text: string): void;
  /** Asks the orderer for its log from line `from` on. */
  sync(from: number): void;
}

export type SignFn = (message: Uint8Array, secretKey: Uint8Array) => Uint8Array;

/**
 * What a seat is about to sign, for the simulator's cheats (@fairtable/core/testing): it may change the
 * body, drop it (null), or sign extra envelopes. Honest seats have none.
 */
export interface OutgoingHook {
  body(body: Body, seat: Seat): Body | null;
  /** Called with each signed envelope before it is submitted; returns what to submit instead (default: it). */
  envelope?(envelope: Envelope, seat: Seat): Envelope[];
}

export interface SeatOptions {
  readonly id: string;
  readonly keys: KeyPair;
  readonly setupLine: string;
  readonly transport: SeatTransport;
  readonly clock: () => number;
  /** Randomness for the player's secrets; deterministic (`seatRandom`) when the seat must be resumable. */
  readonly random: (length: number) => Uint8Array;
  readonly registry?: Registry;
  readonly verify?: VerifyFn;
  readonly sign?: SignFn;
  /** The Signidice house's unique-signature prover. */
  readonly prover?: (alpha: Uint8Array) => Uint8Array;
  /** How long an unconfirmed envelope waits before it is submitted again (ms). */
  readonly resendMs?: number;
  /** How long the seat waits for news before asking the orderer for the log again (ms). */
  readonly syncMs?: number;
  readonly outgoing?: OutgoingHook;
  /** Each line as it is accepted into this seat's copy of the log (for a durable copy). */
  readonly onLine?: (line: number, text: string) => void;
  readonly onEvent?: (event: GameEvent) => void;
  readonly onViolation?: (violation: Violation) => void;
  /** Each decision as it is taken, for a durable journal. */
  readonly onDecision?: (entry: JournalEntry) => void;
  /** Each envelope as it is first submitted, before it goes out: keep it to resubmit after a crash. */
  readonly onSubmit?: (text: string) => void;
  /** Starts held (see `hold`): a seat resumed before its orderer has said how long the log is signs nothing yet. */
  readonly held?: boolean;
}

/** A decision as the journal keeps it: the answer, and how many lines of the log the seat held when it was given. */
export interface JournalEntry {
  readonly lines: number;
  readonly choice: JsonValue;
}

/** A seat as JSON (its log apart): restored with `Seat.restore`. Times that never were are null. */
export interface SeatSnapshot {
  readonly referee: RefereeSnapshot;
  readonly journal: readonly JournalEntry[];
  readonly buffer: readonly (readonly [number, string])[];
  readonly queue: readonly Body[];
  readonly unasked: readonly Body[];
  readonly current: { readonly text: string; readonly hash: string; readonly sentAt: number | null } | null;
  readonly lastProgress: number | null;
  readonly lastSync: number | null;
  readonly held: boolean;
}

/** A deterministic random source for a seat: a stream keyed by a secret the player keeps (and the game). */
export function seatRandom(secret: Uint8Array, gameId: string): (length: number) => Uint8Array {
  const stream = new RandomStream(hashJson('seat-random', { game: gameId, secret: toHex(secret) }), 'seat');
  return (length) => stream.bytes(length);
}

const trustOwn = (): boolean => true;

export class Seat {
  readonly id: string;
  readonly referee: Referee;
  /** This seat's copy of the log, line by line. */
  readonly lines: string[] = [];
  /** The decisions taken so far, in order, each with the length of the log it was taken on. */
  readonly journal: JournalEntry[] = [];
  private readonly options: SeatOptions;
  private readonly buffer = new Map<number, string>();
  private readonly queue: Body[] = [];
  private readonly unasked: Body[] = [];
  private current: { text: string; hash: string; sentAt: number } | null = null;
  /** When this seat's copy of the log last grew, and when it last asked the orderer for more. */
  private lastProgress = -Infinity;
  private lastSync = -Infinity;
  /** While a resumed seat replays its past it sends and reports nothing. */
  private replaying = false;
  private held = false;

  constructor(options: SeatOptions, from?: { readonly lines: readonly string[]; readonly snapshot: SeatSnapshot }) {
    this.options = options;
    this.id = options.id;
    const refereeOptions = {
      ...(options.verify === undefined ? {} : { verify: options.verify }),
      ...(options.registry === undefined ? {} : { registry: options.registry }),
    };
    if (from !== undefined) {
      const s = from.snapshot;
      this.referee = new Referee(options.setupLine, options.id, this.ctx(), refereeOptions, s.referee);
      if (from.lines.length !== this.referee.checker.lines || from.lines[0] !== options.setupLine)
        throw new FairtableError('bad_input', `seat snapshot: taken on ${this.referee.checker.lines} lines, restored on ${from.lines.length}`, {
          field: 'snapshot',
        });
      this.lines.push(...from.lines);
      this.journal.push(...s.journal);
      for (const [i, t] of s.buffer) this.buffer.set(i, t);
      this.queue.push(...s.queue);
      this.unasked.push(...s.unasked);
      this.current = s.current === null ? null : { text: s.current.text, hash: s.current.hash, sentAt: s.current.sentAt ?? -Infinity };
      this.lastProgress = s.lastProgress ?? -Infinity;
      this.lastSync = s.lastSync ?? -Infinity;
      this.held = s.held;
      return;
    }
    this.held = options.held ?? false;
    this.referee = new Referee(options.setupLine, options.id, this.ctx(), refereeOptions);
    this.lines.push(options.setupLine);
    this.enqueue(this.referee.takeInitialOut());
  }

  /**
   * A seat that goes on from `snapshot` (`save`) on its copy of the log, instead of replaying it
   * (docs/spec/mail.md §2): the random source in `options` must be where it stood when the snapshot was
   * taken. The snapshot is trusted as this seat's own past: its keeper must make sure it is.
   */
  static restore(options: SeatOptions, lines: readonly string[], snapshot: SeatSnapshot): Seat {
    const seat = new Seat(options, { lines, snapshot });
    seat.pump();
    return seat;
  }

  /**
   * The seat's whole state as JSON, or null when its machine cannot save its state (it is then replayed).
   * It may share objects with the live state: serialize it before the seat goes on.
   */
  save(): SeatSnapshot | null {
    const referee = this.referee.save();
    if (referee === null) return null;
    const time = (t: number): number | null => (Number.isFinite(t) ? t : null);
    return {
      referee,
      journal: [...this.journal],
      buffer: [...this.buffer],
      queue: [...this.queue],
      unasked: [...this.unasked],
      current: this.current === null ? null : { text: this.current.text, hash: this.current.hash, sentAt: time(this.current.sentAt) },
      lastProgress: time(this.lastProgress),
      lastSync: time(this.lastSync),
      held: this.held,
    };
  }

  /**
   * Rebuilds a seat from its own copy of the log and its journal (docs/SPEC.md §10.2): the same random
   * source must be passed in `options`. Nothing already in the log is sent again.
   */
  static resume(options: SeatOptions, lines: readonly string[], journal: readonly JournalEntry[], inFlight: string | null = null): Seat {
    const seat = new Seat(options);
    seat.replaying = true;
    let next = 0;
    // Each decision is replayed on the very log it was taken on, so the seat's random draws come in the
    // same order as the first time and every secret comes out the same.
    const answer = (): void => {
      while (next < journal.length && journal[next]!.lines === seat.lines.length && seat.referee.decision() !== null) seat.decide(journal[next++]!.choice);
    };
    answer();
    for (let i = 1; i < lines.length; i++) {
      seat.accept(i, lines[i]!);
      answer();
    }
    if (next < journal.length)
      throw new FairtableError('bad_input', `resume: the journal holds ${journal.length} decisions, the log asked for ${next}`, { field: 'journal' });
    seat.replaying = false;
    // The envelope that was on its way when the seat stopped goes out again, byte for byte: the orderer
    // keeps it once, and a new envelope at its position would be an equivocation.
    if (inFlight !== null) {
      const e = JSON.parse(inFlight) as Envelope;
      if (e.seq >= seat.referee.checker.authorPosition(seat.id)!.count) {
        seat.current = { text: inFlight, hash: envelopeHash(e), sentAt: -Infinity };
        if (seat.queue.length > 0 && canonicalize(seat.queue[0]!) === canonicalize(e.body)) seat.queue.shift();
      }
    }
    seat.pump();
    return seat;
  }

  private ctx(): Ctx {
    const now = this.options.clock();
    const openShare = (sealed: SealedShare, context: string): string => openSealedShare(sealed, this.options.keys.secretKey, context);
    const exchange = (ephemeral: string, context: string): Exchange => layerExchange(ephemeral, this.options.keys.secretKey, context);
    return this.options.prover === undefined
      ? { now, random: this.options.random, openShare, exchange }
      : { now, random: this.options.random, prover: this.options.prover, openShare, exchange };
  }

  get gameId(): string {
    return this.referee.checker.gameId;
  }

  /** What the player must decide now, or null. */
  decision(): Decision | null {
    return this.referee.decision();
  }

  /** The player's answer to the current decision; throws FairtableError('illegal_choice') for an answer that is not allowed. */
  decide(choice: JsonValue): void {
    const out = this.referee.decide(choice, this.ctx());
    const entry = { lines: this.lines.length, choice };
    this.journal.push(entry);
    if (!this.replaying) this.options.onDecision?.(entry);
    this.enqueue(out);
    this.pump();
  }

  outcome(): Outcome | null {
    return this.referee.outcome();
  }

  /**
   * Sends a body the machine did not ask for, ahead of anything queued: for tools and the simulator's
   * cheats. An honest app never needs it, and a seat that uses it cannot be resumed from its journal.
   */
  sendUnasked(body: Body): void {
    this.unasked.push(body);
    this.pump();
  }

  /**
   * Proposes moving the deadline of the phase now running to `until` (ms, docs/SPEC.md §7.4.1); it moves once
   * every active seat has accepted. Throws FairtableError('illegal_choice') when this game has no phase to extend.
   */
  proposeExtension(until: number): void {
    const phase = (this.referee.state as { phase?: unknown } | null)?.phase;
    if (typeof phase !== 'string' || !Number.isSafeInteger(until))
      throw new FairtableError('illegal_choice', 'there is no phase to extend now, or the new deadline is not a whole number of ms');
    this.unasked.push({ type: 'extend', phase, until });
    this.pump();
  }

  /** Accepts the extension proposed and not yet agreed; throws FairtableError('illegal_choice') when there is none. */
  acceptExtension(): void {
    const open = this.referee.extension.open;
    if (open === null || open.signed.includes(this.id)) throw new FairtableError('illegal_choice', 'there is no extension waiting for this seat to accept');
    this.unasked.push({ type: 'extend-accept', phase: open.phase, until: open.until });
    this.pump();
  }

  /** While held, nothing is signed or sent (queued bodies wait): lets a tool order what it sends. */
  hold(on: boolean): void {
    this.held = on;
    if (!on) this.pump();
  }

  /** True when nothing is waiting to be sent or confirmed. */
  get idle(): boolean {
    return this.current === null && this.queue.length === 0;
  }

  /** A line of the log from the orderer (in any order, repeated or not). */
  receive(index: number, text: string): void {
    if (index < this.lines.length) return;
    this.buffer.set(index, text);
    if (this.buffer.has(this.lines.length)) this.lastProgress = this.options.clock();
    while (this.buffer.has(this.lines.length)) {
      const line = this.lines.length;
      const t = this.buffer.get(line)!;
      this.buffer.delete(line);
      this.accept(line, t);
    }
    this.pump();
  }

  /** Time passed: resend what is unconfirmed, ask for news, and let the machine claim deadlines. */
  tick(): void {
    const now = this.options.clock();
    if (this.current !== null && now - this.current.sentAt >= (this.options.resendMs ?? 100)) {
      this.current.sentAt = now;
      this.options.transport.submit(this.current.text);
    }
    // Ask for the log again when a line is missing (later ones arrived first), when its own envelope waits
    // for confirmation, or when nothing has come for a while: news that was lost is never waited for.
    const resendMs = this.options.resendMs ?? 100;
    const waiting = this.buffer.size > 0 || this.current !== null;
    if ((waiting && now - this.lastSync >= resendMs) || (now - this.lastProgress >= (this.options.syncMs ?? 200) && now - this.lastSync >= resendMs)) {
      this.lastSync = now;
      this.options.transport.sync(this.lines.length);
    }
    this.enqueue(this.referee.tick(this.ctx()));
    this.pump();
  }

  private accept(line: number, text: string): void {
    const own = this.current !== null && text === this.current.text;
    // A seat need not check its own signature on what it just signed.
    const prepared = own ? prepareLine(line, text, this.referee.checker.keys, trustOwn) : this.referee.prepare(line, text);
    const result = this.referee.feed(prepared, this.ctx());
    this.lines.push(text);
    if (this.current !== null && prepared.hash === this.current.hash) this.current = null;
    // One of its own envelopes that it is not waiting for: sent by an earlier life of this seat (a resumed
    // seat replaying its copy, or catching up on what it sent before it stopped).
    else if (line > 0 && prepared.envelope?.from === this.id) this.replayed(line, prepared.envelope.body, prepared.envelope.seq);
    this.enqueue(result.out);
    if (this.replaying) return;
    this.options.onLine?.(line, text);
    for (const e of result.events) this.options.onEvent?.(e);
    for (const v of result.violations) this.options.onViolation?.(v);
  }

  /**
   * The seat meets one of its own envelopes that an earlier life of it sent: the body its replay has queued
   * first was sent then, and leaves the queue. A deadline claim came from the clock (ticks are not
   * replayed) and was never queued, nor was a message the machine lists as carried. Anything else, while replaying, means the replay does not reproduce the
   * past: another random source or journal, and sending on would contradict what this seat signed.
   */
  private replayed(line: number, body: Body, seq: number): void {
    // The envelope waiting for confirmation was signed again after a restart that lost it from the copy
    // (the earlier life's stands in the log at its position): the logged one wins, and sending the new one
    // on would be an equivocation. The body signed again is dropped with it: the machine goes on from the
    // logged one. (While replaying nothing is waiting: a copy's own lines are checked below.)
    if (this.current !== null && (JSON.parse(this.current.text) as Envelope).seq === seq) {
      this.current = null;
      return;
    }
    const head = this.queue[0];
    if (head !== undefined && canonicalize(head) === canonicalize(body)) this.queue.shift();
    else if (this.replaying && body.type !== 'deadline' && !isExtensionBody(body) && this.referee.machine.carried?.includes(body.type) !== true) {
      throw new FairtableError(
        'bad_input',
        `resume: ${this.id}'s envelope at line ${line} is not what replaying its journal produces (another random source or journal?)`,
        {
          field: 'journal',
        },
      );
    }
  }

  private enqueue(bodies: readonly Body[]): void {
    for (const b of bodies) this.queue.push(b);
  }

  /** Signs and submits the next body once the previous one stands in the log. */
  private pump(): void {
    while (this.current === null && (this.queue.length > 0 || this.unasked.length > 0) && !this.referee.stopped && !this.replaying && !this.held) {
      const honest = this.unasked.shift() ?? this.queue.shift()!;
      const body = this.options.outgoing === undefined ? honest : this.options.outgoing.body(honest, this);
      if (body === null) continue;
      const envelope = this.sign(body);
      const sends = this.options.outgoing?.envelope?.(envelope, this) ?? [envelope];
      for (const e of sends) {
        const text = envelopeLine(e);
        if (e === sends[sends.length - 1]) this.current = { text, hash: envelopeHash(e), sentAt: this.options.clock() };
        this.options.onSubmit?.(text);
        this.options.transport.submit(text);
      }
    }
  }

  /** Signs a body as this seat's next envelope on its current view of the log. */
  sign(body: Body, overrides: { readonly game?: string; readonly seq?: number } = {}): Envelope {
    const at = this.lines.length;
    const position = this.referee.checker.authorPosition(this.id)!;
    return signEnvelope(
      {
        v: 1,
        game: overrides.game ?? this.gameId,
        from: this.id,
        seq: overrides.seq ?? position.count,
        prev: position.lastHash,
        at,
        head: this.referee.checker.hashOfLine(at - 1)!,
        time: this.options.clock(),
        body,
      },
      this.options.keys.secretKey,
      this.options.sign,
    );
  }
}
