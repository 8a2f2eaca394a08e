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
import { FairtableError } from '../errors.js';
import { canonicalize, type JsonValue } from '../jcs.js';
import { hashJson } from '../hash.js';
import { RandomStream } from '../stream.js';
import { toHex } from '../bytes.js';
import { Referee } from '../referee.js';
import { openShare as openSealedShare, type SealedShare } from '../escrow/vss.js';
import { exchange as layerExchange, type Exchange } from '../escrow/dleq.js';
import type { Ctx, Decision, Outcome } from '../protocols/machine.js';
import { prepareLine } from '../transcript.js';
import type { JournalEntry, SeatOptions, SeatSnapshot } from './options.js';
export type { JournalEntry, OutgoingHook, SeatOptions, SeatSnapshot, SeatTransport, SignFn } from './options.js';
import { seatSecretSource, type SeatStep } from './derive.js';
import { recoverChoice } from './recover.js';
import { isExtensionBody } from '../protocols/extension.js';

/** A deterministic random source for a seat: a stream keyed by a secret the player keeps (and the game). */
export function seatRandom(secret: Uint8Array, gameId: string): (length: number) => Uint8Array {
  const stream = new RandomStream(hashJson('seat-random', { game: gameId, secret: toHex(secret) }), 'seat');
  return (length) => stream.bytes(length);
}

const trustOwn = (): boolean => true;
const NO_STAMP = { at: 0, time: 0 };

/** The view and time a body is signed on, fixed when the machine produced it (a seat that follows its key). */
interface Stamp {
  readonly at: number;
  readonly time: number;
}

export class Seat {
  readonly id: string;
  private ref: Referee;
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
  /** While a decision another device took is answered again here, nothing is signed. */
  private adopting = false;
  private held = false;
  /** What the seat is doing, for the secrets derived from the key; and, per queued body, its stamp. */
  private step: SeatStep = { kind: 'start' };
  private tickSource: { lines: number; draw: (length: number) => Uint8Array } | null = null;
  private stamps: (Stamp | null)[] = [];
  private lastOwnLine = 0;

  constructor(options: SeatOptions, from?: { readonly lines: readonly string[]; readonly snapshot: SeatSnapshot }) {
    this.options = options;
    this.id = options.id;
    const refereeOptions = {
      ...(options.verify === undefined ? {} : { verify: options.verify }),
      ...(options.registry === undefined ? {} : { registry: options.registry }),
    };
    if (from !== undefined) {
      const s = from.snapshot;
      this.ref = new Referee(options.setupLine, options.id, this.ctx(), refereeOptions, s.referee);
      if (from.lines.length !== this.referee.checker.lines || from.lines[0] !== options.setupLine)
        throw new FairtableError('bad_input', `seat snapshot: taken on ${this.referee.checker.lines} lines, restored on ${from.lines.length}`, {
          field: 'snapshot',
        });
      this.lines.push(...from.lines);
      this.journal.push(...s.journal);
      for (const [i, t] of s.buffer) this.buffer.set(i, t);
      this.queue.push(...s.queue);
      this.stamps = s.queue.map(() => null);
      this.unasked.push(...s.unasked);
      if (options.random === undefined)
        from.lines.forEach((t, i) => {
          if (i > 0 && t.includes(`"from":${JSON.stringify(options.id)}`) && (JSON.parse(t) as Envelope).from === options.id) this.lastOwnLine = i;
        });
      this.current = s.current === null ? null : { text: s.current.text, hash: s.current.hash, sentAt: s.current.sentAt ?? -Infinity };
      this.lastProgress = s.lastProgress ?? -Infinity;
      this.lastSync = s.lastSync ?? -Infinity;
      this.held = s.held;
      return;
    }
    this.held = options.held ?? false;
    this.ref = new Referee(options.setupLine, options.id, this.ctx(), refereeOptions);
    this.lines.push(options.setupLine);
    this.enqueue(this.referee.takeInitialOut(), { at: 1, time: this.referee.checker.setup.created });
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
    if (inFlight !== null) seat.takeInFlight(inFlight);
    seat.pump();
    return seat;
  }

  /**
   * Rebuilds a seat that follows its key (no `random` in `options`) from the key and the log alone, with no
   * journal and no state of its own (docs/SPEC.md §10.2, "A seat follows its key"): every secret is derived
   * again, and each decision its player took is read back from the envelope it produced (recover.ts). A
   * decision whose answer cannot be read back (free text) throws FairtableError('bad_input'); the seat then
   * cannot go on from this log without its journal (`Seat.resume`). Nothing already in the log is sent again;
   * `inFlight` as in `resume`.
   */
  static follow(options: SeatOptions, lines: readonly string[], inFlight: string | null = null): Seat {
    if (options.random !== undefined)
      throw new FairtableError('bad_input', 'follow: a seat given its own random source cannot follow its key', { field: 'random' });
    const seat = Seat.replayFollowing(options, lines);
    if (inFlight !== null) seat.takeInFlight(inFlight);
    seat.pump();
    return seat;
  }

  /** The replay of `follow`, nothing sent. */
  private static replayFollowing(options: SeatOptions, lines: readonly string[]): Seat {
    const seat = new Seat({ ...options, held: options.held ?? false });
    seat.replaying = true;
    const own: { line: number; envelope: Envelope }[] = [];
    const needle = `"from":${JSON.stringify(options.id)}`;
    for (let i = 1; i < lines.length; i++) {
      if (!lines[i]!.includes(needle)) continue;
      try {
        const e = JSON.parse(lines[i]!) as Envelope;
        if (e.from === options.id) own.push({ line: i, envelope: e });
      } catch {
        // A malformed line is the referee's to report.
      }
    }
    let next = 0;
    for (let i = 1; i < lines.length; i++) {
      while (next < own.length && own[next]!.line < i) next++;
      const o = own[next];
      // The player's decision is taken back on the view its envelope was signed on, or at the latest just
      // before the envelope itself.
      if (o !== undefined && i >= Math.min(o.envelope.at, o.line)) seat.adoptAt(i, o.envelope);
      seat.accept(i, lines[i]!);
    }
    seat.replaying = false;
    return seat;
  }

  /** `resume`'s envelope in flight: goes out again byte for byte unless its position is taken. */
  private takeInFlight(inFlight: string): void {
    const e = JSON.parse(inFlight) as Envelope;
    if (e.seq >= this.referee.checker.authorPosition(this.id)!.count) {
      // A seat that follows its key has no journal: the answer that produced the envelope is read back from it.
      if (this.followsKey) this.adoptAt(this.lines.length, e);
      this.current = { text: inFlight, hash: envelopeHash(e), sentAt: -Infinity };
      if (this.queue.length > 0 && canonicalize(this.queue[0]!) === canonicalize(e.body)) {
        this.queue.shift();
        this.stamps.shift();
      }
    }
  }

  /** True when this seat already accounts for `e`, one of its own envelopes in the log. */
  private explains(e: Envelope): boolean {
    const body = canonicalize(e.body);
    if (e.body.type === 'deadline' || this.referee.machine.carried?.includes(e.body.type) === true) return true;
    if (this.current !== null) {
      const waiting = JSON.parse(this.current.text) as Envelope;
      return waiting.seq === e.seq && canonicalize(waiting.body) === body;
    }
    return this.queue.length > 0 && canonicalize(this.queue[0]!) === body;
  }

  /**
   * Before reading line `line`: when the player's decision is pending and the log's next envelope of its
   * own, `e`, answers it, the seat answers it the same way (the answer is read back by trying the choices).
   */
  private adoptAt(line: number, e: Envelope): void {
    const decision = this.referee.decision();
    if (decision === null || this.current !== null || this.queue.length > 0 || line !== this.lines.length) return;
    const n = this.journal.length;
    const found = recoverChoice(this.referee.machine, this.referee.state, decision, e.body, () => {
      this.step = { kind: 'decision', n };
      return this.ctx();
    });
    if (found === null) return;
    this.adopting = true;
    try {
      this.decide(found.choice);
    } finally {
      this.adopting = false;
    }
  }

  /**
   * Another device signed an envelope of this seat that this one would not have: the seat is rebuilt from
   * the key and the log with that line (`follow`), and goes on as that device played. When the log cannot be
   * followed (a decision whose answer cannot be read back), this device only watches from now on.
   */
  private rebuildWith(line: number, text: string): void {
    const { onLine, onEvent, onViolation, onDecision, onSubmit, ...rest } = this.options;
    void onViolation;
    void onDecision;
    void onSubmit;
    let fresh: Seat | null = null;
    try {
      fresh = Seat.replayFollowing({ ...rest, transport: { submit: () => undefined, sync: () => undefined } }, [...this.lines, text]);
    } catch (e) {
      if (!(e instanceof FairtableError)) throw e;
    }
    if (fresh === null) {
      // Watching: the line is read as any other, and nothing is signed again on this device.
      this.held = true;
      this.step = { kind: 'line', line };
      const result = this.referee.feed(this.referee.prepare(line, text), this.ctx());
      this.lines.push(text);
      this.current = null;
      onLine?.(line, text);
      onEvent?.({ type: 'seat-watching', line });
      for (const ev of result.events) onEvent?.(ev);
      return;
    }
    this.ref = fresh.ref;
    this.lines.push(text);
    this.journal.splice(0, this.journal.length, ...fresh.journal);
    const waitingText = this.current?.text ?? null;
    const waiting = waitingText === null ? null : (JSON.parse(waitingText) as Envelope);
    this.queue.splice(0, this.queue.length, ...fresh.queue);
    this.stamps = [...fresh.stamps];
    this.unasked.length = 0;
    this.lastOwnLine = fresh.lastOwnLine;
    this.current = null;
    // What this device was waiting for still goes out when the rebuilt seat would send the same body there.
    if (waitingText !== null && waiting !== null && waiting.seq >= this.referee.checker.authorPosition(this.id)!.count && this.queue.length > 0) {
      if (canonicalize(this.queue[0]!) === canonicalize(waiting.body)) {
        this.current = { text: waitingText, hash: envelopeHash(waiting), sentAt: this.options.clock() };
        this.queue.shift();
        this.stamps.shift();
      }
    }
    onLine?.(line, text);
    onEvent?.({ type: 'seat-adopted', line });
  }

  private ctx(): Ctx {
    const now = this.options.clock();
    const openShare = (sealed: SealedShare, context: string): string => openSealedShare(sealed, this.options.keys.secretKey, context);
    const exchange = (ephemeral: string, context: string): Exchange => layerExchange(ephemeral, this.options.keys.secretKey, context);
    const random = this.options.random ?? this.derivedRandom();
    return {
      now,
      random,
      openShare,
      exchange,
      ...(this.options.prover === undefined ? {} : { prover: this.options.prover }),
      ...(this.options.provedOnce === undefined ? {} : { provedOnce: this.options.provedOnce }),
    };
  }

  /** True when the seat's secrets come from its player's key (no `random` given): it follows its key. */
  get followsKey(): boolean {
    return this.options.random === undefined;
  }

  /** The current step's draws, derived from the key (derive.ts). A tick's source lasts while the log keeps its length. */
  private derivedRandom(): (length: number) => Uint8Array {
    const game = (JSON.parse(this.options.setupLine) as Envelope).game;
    const step = this.step;
    if (step.kind !== 'tick') return seatSecretSource(this.options.keys.secretKey, game, this.id, step);
    if (this.tickSource?.lines !== step.lines)
      this.tickSource = { lines: step.lines, draw: seatSecretSource(this.options.keys.secretKey, game, this.id, step) };
    return this.tickSource.draw;
  }

  /** The referee over this seat's copy of the log. */
  get referee(): Referee {
    return this.ref;
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
    this.step = { kind: 'decision', n: this.journal.length };
    const out = this.referee.decide(choice, this.ctx());
    const entry = { lines: this.lines.length, choice };
    this.journal.push(entry);
    if (!this.replaying) this.options.onDecision?.(entry);
    this.enqueue(out, this.followsKey ? { at: this.lines.length, time: this.viewTime(this.lines.length) } : NO_STAMP);
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
    this.step = { kind: 'tick', lines: this.lines.length };
    this.enqueue(this.referee.tick(this.ctx()), { at: this.lines.length, time: now });
    this.pump();
  }

  private accept(line: number, text: string): void {
    const own = this.current !== null && text === this.current.text;
    // A seat need not check its own signature on what it just signed.
    const prepared = own ? prepareLine(line, text, this.referee.checker.keys, trustOwn) : this.referee.prepare(line, text);
    const mine = line > 0 && prepared.envelope?.from === this.id && !own;
    // A seat that follows its key meets an envelope of its own that another device signed: it answers its
    // pending decision as that device did (recover.ts), or, when what the log holds is not what it would
    // have sent, rebuilds itself from the key and the log.
    if (mine && this.followsKey && !this.replaying && !this.explains(prepared.envelope!)) {
      this.adoptAt(line, prepared.envelope!);
      if (!this.explains(prepared.envelope!)) return this.rebuildWith(line, text);
    }
    this.step = { kind: 'line', line };
    const result = this.referee.feed(prepared, this.ctx());
    this.lines.push(text);
    if (prepared.envelope?.from === this.id) this.lastOwnLine = line;
    if (this.current !== null && prepared.hash === this.current.hash) this.current = null;
    // One of its own envelopes that it is not waiting for: sent by an earlier life of this seat (a resumed
    // seat replaying its copy, or catching up on what it sent before it stopped), or by another device.
    else if (mine) this.replayed(line, prepared.envelope!.body, prepared.envelope!.seq);
    this.enqueue(result.out, this.followsKey ? { at: line + 1, time: this.viewTime(line + 1) } : NO_STAMP);
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
      const waiting = (JSON.parse(this.current.text) as Envelope).body;
      this.current = null;
      // Another device of a seat that follows its key took the position with a claim or a carried message:
      // the body this device signed there is still owed, and goes out at the next position.
      if (this.followsKey && canonicalize(waiting) !== canonicalize(body)) {
        this.queue.unshift(waiting);
        this.stamps.unshift(null);
      }
      return;
    }
    const head = this.queue[0];
    if (head !== undefined && canonicalize(head) === canonicalize(body)) {
      this.queue.shift();
      this.stamps.shift();
    } else if (this.replaying && body.type !== 'deadline' && !isExtensionBody(body) && this.referee.machine.carried?.includes(body.type) !== true) {
      throw new FairtableError(
        'bad_input',
        `resume: ${this.id}'s envelope at line ${line} is not what replaying its journal produces (another random source or journal?)`,
        {
          field: 'journal',
        },
      );
    }
  }

  private enqueue(bodies: readonly Body[], stamp: Stamp): void {
    for (const b of bodies) {
      this.queue.push(b);
      this.stamps.push(this.followsKey ? stamp : null);
    }
  }

  /** Signs and submits the next body once the previous one stands in the log. */
  private pump(): void {
    while (
      this.current === null &&
      (this.queue.length > 0 || this.unasked.length > 0) &&
      !this.referee.stopped &&
      !this.replaying &&
      !this.held &&
      !this.adopting
    ) {
      const fromQueue = this.unasked.length === 0;
      const honest = this.unasked.shift() ?? this.queue.shift()!;
      const stamp = fromQueue ? (this.stamps.shift() ?? null) : null;
      const body = this.options.outgoing === undefined ? honest : this.options.outgoing.body(honest, this);
      if (body === null) continue;
      const envelope = this.sign(body, stamp === null ? {} : this.stampFor(stamp));
      const sends = this.options.outgoing?.envelope?.(envelope, this) ?? [envelope];
      for (const e of sends) {
        const text = envelopeLine(e);
        if (e === sends[sends.length - 1]) this.current = { text, hash: envelopeHash(e), sentAt: this.options.clock() };
        this.options.onSubmit?.(text);
        this.options.transport.submit(text);
      }
    }
  }

  /**
   * A seat that follows its key signs a body on the view it was produced on (the line it answers, or the log
   * its player decided on), with the time of that view's last line: every device holding the key and the log
   * signs the same envelope for the same body on the same view, byte for byte, and the orderer keeps it once.
   * Deadline claims keep the clock's time (a claim must stand after the deadline). The view moves up to just after the seat's own
   * last envelope when that stands later (an author always signs after its last envelope).
   */
  private stampFor(stamp: Stamp): { at: number; time: number } {
    if (stamp.at > this.lastOwnLine) return stamp;
    const at = this.lastOwnLine + 1;
    return { at, time: Math.max(stamp.time, this.viewTime(at)) };
  }

  /** The time of the last line of the view `at` (its envelope's claim; a malformed line has none, the one before it counts). */
  private viewTime(at: number): number {
    for (let i = at - 1; i >= 0; i--) {
      try {
        const t = (JSON.parse(this.lines[i]!) as Envelope).time;
        if (typeof t === 'number') return t;
      } catch {
        // a malformed line: the one before it
      }
    }
    return 0;
  }

  /** Signs a body as this seat's next envelope on its current view of the log (or the view `at`, at `time`). */
  sign(body: Body, overrides: { readonly game?: string; readonly seq?: number; readonly at?: number; readonly time?: number } = {}): Envelope {
    const at = overrides.at ?? this.lines.length;
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
        time: overrides.time ?? this.options.clock(),
        body,
      },
      this.options.keys.secretKey,
      this.options.sign,
    );
  }
}
