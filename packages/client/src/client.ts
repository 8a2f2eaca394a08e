/**
 * The relay client (docs/spec/relay.md §3 and "The client"): plays one seat of a game through an untrusted relay, in
 * the browser or in Node. It runs the core's production seat (docs/SPEC.md §10.2) over a WebSocket the
 * caller supplies (the browser's `WebSocket`, or the `ws` package's), proves its player with the hello,
 * checks every line's receipt as it arrives (receipts.ts), judges deadlines on the relay's receipt times,
 * reconnects with back-off and resumes from the lines it holds. A relay caught lying ends the game for this
 * seat with a `relay_lied` finding whose evidence is the relay's own signed receipts.
 *
 * Isomorphic: no `node:` import; WebSocket, fetch and the clock are injected or taken from globalThis.
 */
import { fromHex, isHex } from '@fairtable/core/bytes.js';
import { FairtableError, type Violation } from '@fairtable/core/errors.js';
import type { KeyPair } from '@fairtable/core/identity.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { signHello } from '@fairtable/core/order/hello.js';
import { checkSetupWitnesses } from '@fairtable/core/order/witness-url.js';
import { holdingReceiptError, lostHeldProof, type HoldingReceipt } from '@fairtable/core/order/holding.js';
import type { Receipt } from '@fairtable/core/order/receipt.js';
import type { Decision, GameEvent, Outcome } from '@fairtable/core/protocols/machine.js';
import { deadlineInForce, extensionInForce, extensionOpen, type ExtensionState } from '@fairtable/core/protocols/extension.js';
import { DEFAULT_REGISTRY, type Registry } from '@fairtable/core/registry.js';
import { Seat, type JournalEntry, type OutgoingHook, type SeatOptions, type SignFn } from '@fairtable/core/seat/seat.js';
import { gameIdOf } from '@fairtable/core/setup.js';
import { readSetupLine, type VerifyFn } from '@fairtable/core/transcript.js';
import { Auditor, type Verdict } from '@fairtable/core/audit.js';
import { ReceiptChain, lineHash, type RelayLie } from './receipts.js';
import { boundRelayOf, witnessesOf, type EvidenceRecord } from '@fairtable/core/order/censorship.js';
import { WitnessPublisher, type WitnessRelay } from './witnesses.js';
import { SeatClock, createdError, type TimeFault } from '@fairtable/core/time/index.js';
import {
  ClientError,
  OPEN,
  gameSocketUrl,
  parseFrame,
  type Frame,
  isUnknownGameClose,
  unknownGameError,
  type FetchLike,
  type SocketConstructor,
  type SocketLike,
} from './relay-http.js';
import { receiptTimedRegistry } from './receipt-timed.js';

export type ClientStatus = 'connecting' | 'ready' | 'disconnected' | 'finished' | 'stopped';

export interface ClientEvents {
  line: { readonly line: number; readonly text: string; readonly receipt: Receipt };
  event: GameEvent;
  violation: Violation;
  decision: Decision;
  relay_lied: RelayLie;
  refused: { readonly code: string; readonly message: string };
  /** The relay holds this seat's sealed envelope until its set is complete (docs/spec/sealed.md). */
  held: HoldingReceipt;
  status: { readonly status: ClientStatus; readonly attempt: number; readonly reason?: string };
  outcome: Outcome;
  /**
   * This seat's envelope has gone unacknowledged by the ordering relay for `waitedMs` (docs/spec/time.md §6):
   * the relay may be dropping it. `witnessed` counts the witness receipts held for it, the evidence that it
   * was sent in time should it be claimed missing. Emitted once per envelope.
   */
  unacknowledged: { readonly hash: string; readonly text: string; readonly waitedMs: number; readonly witnessed: number };
  /** A table talk message the relay pushed (docs/spec/press.md §6), unchecked: `TableTalk.take` reads it. */
  talk: { readonly index: number; readonly at: number; readonly text: string };
}

export interface JoinOptions {
  readonly relayUrl: string;
  readonly gameId: string;
  readonly id: string;
  readonly keys: KeyPair;
  /**
   * Randomness for the player's secrets. Left out, they are derived from the player's key (the seat follows
   * its key, docs/SPEC.md §10.2): the seat resumes from the log alone, on any device holding the key.
   */
  readonly random?: (length: number) => Uint8Array;
  readonly WebSocket: SocketConstructor;
  /** The relay's key, when known (from `createGame`, or a copy kept on disk): a relay showing another is refused. */
  readonly relayKey?: string;
  readonly clock?: () => number;
  readonly registry?: Registry;
  readonly verify?: VerifyFn;
  readonly sign?: SignFn;
  readonly prover?: (alpha: Uint8Array) => Uint8Array;
  /** Answers every decision automatically (an automatic player); without it the app calls `decide`. */
  readonly strategy?: (decision: Decision) => JsonValue;
  /** How often the seat looks at the time (deadlines, resends), ms. */
  readonly tickMs?: number;
  /** First and largest wait before reconnecting, ms (doubling in between). */
  readonly backoffMs?: { readonly min: number; readonly max: number };
  /** Gives up (`connection_closed`) after this long without a connection the relay welcomed, ms; never by default. */
  readonly giveUpMs?: number;
  /** A copy kept from an earlier run: the lines, their receipts, the journal of decisions, the envelope in flight. */
  readonly resume?: {
    readonly lines: readonly string[];
    readonly receipts: readonly unknown[];
    readonly journal?: readonly JournalEntry[];
    readonly inFlight?: string | null;
  };
  /** Persistence hooks: each line with its receipt as it is verified; each decision; each envelope as it first goes out. */
  readonly onLine?: (line: number, text: string, receipt: Receipt) => void;
  readonly onDecision?: (entry: JournalEntry) => void;
  readonly onSubmit?: (text: string) => void;
  /**
   * The witness relays to publish every envelope to (docs/spec/relay.md §8); by default the ones the setup
   * names (`params.witnesses`). Each receipt they sign, and each receipt the ordering relay gives for this
   * seat's own envelopes, is kept in `evidence` and given to `onEvidence`.
   */
  readonly witnesses?: readonly WitnessRelay[];
  /**
   * Hosts the setup's witnesses may be reached on over plain `http:` besides this machine (relay.md §8,
   * "Which URLs"). A setup naming any other witness URL is refused (`bad_witness_url`) before the seat plays.
   */
  readonly httpWitnessHosts?: readonly string[];
  readonly onEvidence?: (record: EvidenceRecord) => void;
  /** For publishing to witnesses; the platform's by default. */
  readonly fetch?: FetchLike;
  /** A hook on what the seat signs and sends (the simulator's cheats, for demonstrations and tests). */
  readonly outgoing?: OutgoingHook;
  /**
   * This seat is a newcomer (docs/SPEC.md §4.6): its id is not among the setup's players, and a `newcomer`
   * line in the log made it an author. The relay welcomes it only from that line on.
   */
  readonly newcomer?: boolean;
}

type Listener<K extends keyof ClientEvents> = (value: ClientEvents[K]) => void;

/** How long an envelope may wait for the relay's acknowledgement before the player is told (at most; half a timeout when shorter). */
const UNACKNOWLEDGED_MS = 5000;

/** How long a finished seat waits for its witnesses to take its last envelopes (relay.md §8). */
const WITNESS_DRAIN_MS = 5000;

/** A seat playing through a relay. Created by `joinGame`. */
export class RelayGame {
  readonly gameId: string;
  readonly id: string;
  /** The finding against the relay that stopped this seat, or null. */
  lie: RelayLie | null = null;
  /** The relay's key, once known. */
  relayKey: string | null;
  /** The seat, once the setup line is known. */
  seat: Seat | null = null;
  /** Resolves with the outcome once the game is over and this seat has nothing left to send; rejects on a lie or a fatal error. */
  readonly finished: Promise<Outcome>;
  /**
   * The seat's clock (docs/spec/time.md §2): the local one, moved back to the relay's when the relay is behind,
   * forward by at most 2 s; every receipt time is checked against it.
   */
  private readonly seatClock: SeatClock;
  status: ClientStatus = 'connecting';
  private chain: ReceiptChain | null = null;
  /** Signed receipts for this seat's own envelopes, from the ordering relay and from the witnesses (relay.md §9). */
  readonly evidence: EvidenceRecord[] = [];
  private publisher: WitnessPublisher | null = null;
  /** This seat's envelopes by hash, to pair each `accepted` receipt with the envelope it is for. */
  private readonly mine = new Map<string, string>();
  /** This seat's envelopes not yet acknowledged (accepted, held or in the log), by hash: the text, when first sent, whether told. */
  private readonly unacked = new Map<string, { text: string; at: number; told: boolean }>();
  private readonly options: JoinOptions;
  private readonly listeners = new Map<keyof ClientEvents, Set<(v: never) => void>>();
  private socket: SocketLike | null = null;
  private ready = false;
  private attempt = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly pending = new Map<number, { text: string; receipt: unknown }>();
  /** Holding receipts of this seat's sealed envelopes not yet in the log, by envelope hash. */
  private readonly holdings = new Map<string, HoldingReceipt>();
  /** The hash of every line held, in order (what a `lost_sealed` finding is checked against). */
  private readonly lineHashes: string[] = [];
  private lastDecision: string | null = null;
  /** When the relay last welcomed this client (or when it started). */
  private lastWelcome = 0;
  /** How long the relay's log is, as far as this client has heard (welcome, entries). */
  private known = 0;
  /** The last catch-up request: from which line, and when. */
  private asked: { from: number; at: number } | null = null;
  private doneSince: number | null = null;
  private resolve!: (o: Outcome) => void;
  private reject!: (e: Error) => void;
  private readonly localClock: () => number;

  constructor(options: JoinOptions) {
    this.options = options;
    this.gameId = options.gameId;
    this.id = options.id;
    this.relayKey = options.relayKey ?? null;
    this.localClock = options.clock ?? Date.now;
    this.seatClock = new SeatClock(this.localClock);
    this.finished = new Promise<Outcome>((res, rej) => {
      this.resolve = res;
      this.reject = rej;
    });
    // A caller that only watches events must not see an unhandled rejection.
    this.finished.catch(() => undefined);
    if (options.resume !== undefined) this.resumeFrom(options.resume);
  }

  on<K extends keyof ClientEvents>(type: K, listener: Listener<K>): () => void {
    let set = this.listeners.get(type);
    if (set === undefined) this.listeners.set(type, (set = new Set()));
    set.add(listener as (v: never) => void);
    return () => set.delete(listener as (v: never) => void);
  }

  private emit<K extends keyof ClientEvents>(type: K, value: ClientEvents[K]): void {
    for (const l of this.listeners.get(type) ?? []) (l as Listener<K>)(value);
  }

  /** The lines this seat holds, verified. */
  get lines(): readonly string[] {
    return this.seat?.lines ?? [];
  }

  /** The relay's receipt for each line held. */
  get receipts(): readonly Receipt[] {
    return this.chain?.receipts ?? [];
  }

  decision(): Decision | null {
    // Nothing is asked while the log is still coming in: the answer may stand further on (another device's).
    return this.lie === null && this.seat !== null && this.seat.lines.length >= this.known ? this.seat.decision() : null;
  }

  /** Answers the current decision; throws FairtableError('illegal_choice') for an answer that is not allowed. */
  decide(choice: JsonValue): void {
    if (this.seat === null || this.lie !== null) throw new FairtableError('illegal_choice', 'there is nothing to decide: the game is not being played');
    this.seat.decide(choice);
    this.afterChange();
  }

  outcome(): Outcome | null {
    return this.seat?.outcome() ?? null;
  }

  /**
   * Agreed deadline extensions (docs/SPEC.md §7.4.1) on the phase now running: the proposal waiting for
   * signatures (`open`, with who has signed), the agreed one in force (`agreed`), and the deadline in force.
   */
  extension(): { readonly open: ExtensionState['open']; readonly agreed: ExtensionState['agreed']; readonly deadline: number | null } {
    const r = this.seat?.referee;
    if (r === undefined) return { open: null, agreed: null, deadline: null };
    return { open: extensionOpen(r.extension, r.state), agreed: extensionInForce(r.extension, r.state), deadline: deadlineInForce(r.extension, r.state) };
  }

  /** Proposes moving the deadline of the phase now running to `until` (ms, on the seat's clock); FairtableError('illegal_choice') when it cannot. */
  proposeExtension(until: number): void {
    if (this.seat === null || this.lie !== null) throw new FairtableError('illegal_choice', 'there is no deadline to move: the game is not being played');
    this.seat.proposeExtension(until);
    this.afterChange();
  }

  /** Accepts the extension another seat proposed; FairtableError('illegal_choice') when none waits for this seat. */
  acceptExtension(): void {
    if (this.seat === null || this.lie !== null) throw new FairtableError('illegal_choice', 'there is no extension to accept: the game is not being played');
    this.seat.acceptExtension();
    this.afterChange();
  }

  /** The seat's clock now (ms): the clock deadlines are judged on, as this seat estimates it. */
  now(): number {
    return this.clock();
  }

  /** The violations this seat's referee found, in order. */
  get violations(): readonly Violation[] {
    return this.seat?.referee.violations ?? [];
  }

  /**
   * Audits this seat's copy of the log as a third party would, deadlines judged on the relay's receipt
   * times. The receipts were checked line by line as they came; `lie` says whether they held.
   */
  audit(): Verdict & { readonly relay: string | null; readonly receipts: number; readonly lie: RelayLie | null } {
    const lines = this.lines;
    if (lines.length === 0) throw new FairtableError('bad_input', 'nothing to audit yet: the setup line has not arrived');
    const auditor = new Auditor(lines[0]!, {
      timeOf: (line) => this.receipts[line]?.time,
      ...(this.options.registry === undefined ? {} : { registry: this.options.registry }),
      ...(this.options.verify === undefined ? {} : { verify: this.options.verify }),
    });
    for (let i = 1; i < lines.length; i++) auditor.add(lines[i]!);
    return { ...auditor.verdict(), relay: this.relayKey, receipts: this.receipts.length, lie: this.lie };
  }

  /** Starts playing: connects, and keeps the seat's time running. */
  start(): this {
    this.lastWelcome = this.localClock();
    this.connect();
    this.timer = setInterval(() => this.tick(), this.options.tickMs ?? 100);
    return this;
  }

  /** Stops: closes the connection and the timers. The copy of the log is kept. */
  close(): void {
    this.stop('stopped', 'closed by the player');
  }

  private stop(status: ClientStatus, reason: string): void {
    if (this.timer !== null) clearInterval(this.timer);
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.timer = null;
    this.reconnectTimer = null;
    this.publisher?.close();
    this.ready = false;
    const s = this.socket;
    this.socket = null;
    if (s !== null) {
      s.onclose = null;
      s.onmessage = null;
      s.onerror = () => undefined;
      try {
        s.close(1000, reason.slice(0, 100));
      } catch {
        // already closing
      }
    }
    if (this.status !== 'finished' && this.status !== 'stopped') {
      this.status = status;
      this.emit('status', { status, attempt: this.attempt, reason });
    }
  }

  private fail(error: ClientError | FairtableError): void {
    this.stop('stopped', error.message);
    this.reject(error);
  }

  /** The relay lied: report it with its receipts and stop playing on its log. */
  private caught(lie: RelayLie): void {
    if (this.lie !== null) return;
    this.lie = lie;
    this.emit('relay_lied', lie);
    this.fail(new ClientError('relay_lied', `the relay lied (${lie.kind}) at line ${lie.line}: ${lie.message}`, lie));
  }

  /** How far the seat's clock is moved from the local one (ms): negative while the relay is behind, at most 2000 ahead. */
  get clockOffset(): number {
    return this.seatClock.offset;
  }

  /** The seat's clock: what its claims wait for and its envelopes are timed by (docs/spec/time.md §2). */
  private clock = (): number => this.seatClock.now();

  /**
   * A receipt time checked against the seat's clock (docs/spec/time.md §2): a fault is a relay lie, with the
   * receipts (and for `clock_before_signed` the seat's own envelope) as evidence; the seat then plays no more
   * on that relay's times. `live` is false for a copy replayed from disk, whose receipts came long ago.
   */
  private checkTime(r: Receipt, text: string, live: boolean): RelayLie | null {
    let signed: number | undefined;
    try {
      const e = JSON.parse(text) as { from?: unknown; time?: unknown };
      if (e.from === this.id && typeof e.time === 'number') signed = e.time;
    } catch {
      // not an envelope: the chain already refused it
    }
    const fault: TimeFault | null = live
      ? this.seatClock.observe({ line: r.line, time: r.time, ...(signed === undefined ? {} : { signed }) })
      : this.seatClock.observeKept({ line: r.line, time: r.time, ...(signed === undefined ? {} : { signed }) });
    if (fault === null) return null;
    const earlier = fault.earlier === undefined ? undefined : this.chain?.receipts[fault.earlier];
    return {
      code: 'relay_lied',
      kind: fault.kind,
      line: fault.line,
      message: fault.message,
      receipts: earlier === undefined ? [r] : [earlier, r],
      lines: [{ line: r.line, text }],
      relay: this.relayKey ?? '',
    };
  }

  private connect(): void {
    if (this.status === 'stopped' || this.status === 'finished') return;
    this.ready = false;
    this.status = 'connecting';
    this.emit('status', { status: 'connecting', attempt: this.attempt });
    let ws: SocketLike;
    try {
      ws = new this.options.WebSocket(gameSocketUrl(this.options.relayUrl, this.gameId));
    } catch (e) {
      this.fail(new ClientError('bad_input', `cannot open the relay's WebSocket: ${(e as Error).message}`));
      return;
    }
    this.socket = ws;
    ws.onmessage = (ev: { data: unknown }) => {
      if (this.socket !== ws) return;
      const frame = parseFrame(ev.data);
      if (frame === null) return this.drop(`the relay sent a frame that is not a message`);
      try {
        this.onFrame(frame);
      } catch (e) {
        if (e instanceof ClientError) this.fail(e);
        else this.drop(`a frame could not be read: ${(e as Error).message}`);
      }
    };
    ws.onclose = (ev: unknown) => {
      if (this.socket !== ws) return;
      // The relay holds no such game: asking again would get the same answer.
      if (isUnknownGameClose(ev)) return this.fail(unknownGameError(this.gameId));
      this.lost('the connection closed');
    };
    ws.onerror = () => {
      if (this.socket === ws) this.lost('the connection failed');
    };
  }

  /** Closes the current connection and tries again later. */
  private drop(reason: string): void {
    const s = this.socket;
    if (s !== null) {
      s.onclose = null;
      try {
        s.close(1002, reason.slice(0, 100));
      } catch {
        // already closing
      }
    }
    this.lost(reason);
  }

  private lost(reason: string): void {
    this.socket = null;
    this.ready = false;
    if (this.status === 'stopped' || this.status === 'finished') return;
    const giveUp = this.options.giveUpMs;
    if (giveUp !== undefined && this.localClock() - this.lastWelcome >= giveUp)
      return this.fail(new ClientError('connection_closed', `no connection to the relay for ${giveUp} ms (${reason})`));
    this.status = 'disconnected';
    this.emit('status', { status: 'disconnected', attempt: this.attempt, reason });
    const { min, max } = this.options.backoffMs ?? { min: 250, max: 10_000 };
    const wait = Math.min(max, min * 2 ** Math.min(this.attempt, 20));
    this.attempt++;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, wait);
  }

  private send(message: Record<string, JsonValue>): void {
    if (this.socket !== null && this.ready && this.socket.readyState === OPEN) this.socket.send(JSON.stringify(message));
  }

  private onFrame(m: Frame): void {
    switch (m.kind) {
      case 'challenge': {
        if (!isHex(m.nonce, 32) || !isHex(m.relay, 32)) return this.drop('the challenge is not {nonce, relay} in hex');
        if (this.relayKey !== null && m.relay !== this.relayKey) {
          // Receipts under two keys cannot be held against one relay: refuse to play on.
          const lie: RelayLie = {
            code: 'relay_lied',
            kind: 'key_changed',
            line: this.chain?.length ?? 0,
            message: `the relay introduced itself with key ${m.relay}, but its receipts so far are signed by ${this.relayKey}`,
            receipts: this.receipts.slice(-1),
            lines: [],
            relay: this.relayKey,
          };
          return this.caught(lie);
        }
        this.relayKey = m.relay;
        this.chain ??= new ReceiptChain(this.gameId, m.relay, this.options.verify);
        this.socket?.send(JSON.stringify({ kind: 'hello', id: this.id, sig: signHello(this.gameId, m.nonce, this.options.keys.secretKey, this.options.sign) }));
        return;
      }
      case 'welcome': {
        if (typeof m.lines !== 'number' || !Number.isSafeInteger(m.lines) || m.lines < 1) return this.drop('the welcome does not say how long the log is');
        const lie = this.chain!.claimLength(m.lines);
        if (lie !== null) return this.caught(lie);
        this.ready = true;
        this.attempt = 0;
        this.lastWelcome = this.localClock();
        this.status = 'ready';
        this.emit('status', { status: 'ready', attempt: 0 });
        this.known = Math.max(this.known, m.lines);
        this.asked = null;
        this.catchUp();
        return;
      }
      case 'entry':
        return this.onEntry(m.line, m.text, m.receipt);
      case 'accepted': {
        if (typeof m.line !== 'number' || !Number.isSafeInteger(m.line) || m.line < 0) return;
        const lie = this.chain?.promise(m.line, m.receipt) ?? null;
        const hash = (m.receipt as Partial<Receipt> | null)?.hash;
        if (typeof hash === 'string' && lie === null) this.unacked.delete(hash);
        const text = typeof hash === 'string' ? this.mine.get(hash) : undefined;
        if (text !== undefined && this.relayKey !== null) {
          // Kept once per line, even when it shows a lie (then it is the evidence): the orderer's word that
          // this envelope is line `m.line` of its log. The audit sets aside one that does not verify.
          this.mine.delete(hash!);
          this.keep({ relay: this.relayKey, text, receipt: m.receipt as Receipt });
        }
        if (lie !== null) this.caught(lie);
        return;
      }
      case 'refused':
        this.emit('refused', { code: String(m.code), message: String(m.message) });
        return;
      case 'held':
        return this.onHeld(m.receipt);
      case 'talk':
        if (typeof m.index === 'number' && typeof m.at === 'number' && typeof m.text === 'string')
          this.emit('talk', { index: m.index, at: m.at, text: m.text });
        return;
      case 'error': {
        const code = typeof m.code === 'string' ? m.code : 'connection_failed';
        const message = `the relay closed the connection: [${code}] ${String(m.message)}`;
        // A relay that will never let this player in is not worth asking again.
        if (!this.ready && ['bad_hello', 'not_a_player', 'unknown_player', 'unknown_game', 'not_found'].includes(code))
          return this.fail(new ClientError(code, message));
        return this.drop(message);
      }
      default:
        return;
    }
  }

  private held(): number {
    return this.chain?.length ?? 0;
  }

  /**
   * Asks for the next batch while the relay holds lines this client has not seen: as soon as the previous
   * batch (at most 64 lines) is in, or after half a second, so a long log loads at the speed of the network
   * rather than of the seat's periodic sync.
   */
  private catchUp(): void {
    const held = this.held();
    // While behind, the seat signs nothing: an envelope signed on a stale view could take a position its
    // own earlier envelope (further on in the log) already holds.
    this.seat?.hold(held < this.known);
    if (held >= this.known || !this.ready) return;
    const now = this.localClock();
    if (this.asked !== null && held < this.asked.from + 64 && now - this.asked.at < 500) return;
    this.asked = { from: held, at: now };
    this.send({ kind: 'sync', from: held });
  }

  private onEntry(line: unknown, text: unknown, receipt: unknown): void {
    if (typeof line !== 'number' || !Number.isSafeInteger(line) || line < 0 || typeof text !== 'string')
      return this.drop('an entry without a line number and text');
    const chain = this.chain!;
    this.known = Math.max(this.known, line + 1);
    if (line < chain.length) {
      const lie = chain.again(line, text, receipt);
      if (lie !== null) this.caught(lie);
      return;
    }
    if (line > chain.length) {
      // Ahead of what is held (a gap a later sync fills): kept, bounded.
      if (this.pending.size < 4096) this.pending.set(line, { text, receipt });
      this.catchUp();
      return;
    }
    this.take(text, receipt);
    for (let next = this.pending.get(chain.length); next !== undefined && this.lie === null; next = this.pending.get(chain.length)) {
      this.pending.delete(chain.length);
      this.take(next.text, next.receipt);
    }
    this.catchUp();
    this.afterChange();
  }

  /**
   * A holding receipt for a sealed envelope (docs/spec/sealed.md §3): kept until the envelope shows in the
   * log. One that does not verify is not the relay's word, and the connection is dropped.
   */
  private onHeld(value: unknown): void {
    if (this.relayKey === null) return;
    const why = holdingReceiptError(value, fromHex(this.relayKey), this.options.verify);
    if (why !== null) return this.drop(`a holding receipt that is not one: ${why}`);
    const r = value as HoldingReceipt;
    if (r.game !== this.gameId) return this.drop(`a holding receipt for game ${r.game}`);
    if (this.lineHashes.includes(r.hash) || this.holdings.has(r.hash)) return;
    this.unacked.delete(r.hash);
    this.holdings.set(r.hash, r);
    this.emit('held', r);
  }

  /** A line receipted after a holding receipt's `until` on a log without its envelope: the relay lost it. */
  private checkHoldings(r: Receipt, text: string): void {
    for (const h of this.holdings.values()) {
      const proof = lostHeldProof(h, r, this.lineHashes);
      if (proof === null) continue;
      return this.caught({
        code: 'relay_lied',
        kind: 'lost_sealed',
        line: r.line,
        message: proof,
        receipts: [r],
        lines: [{ line: r.line, text }],
        relay: this.relayKey ?? '',
        holding: [h],
      });
    }
  }

  /** The next line of the log with its receipt: verified, then played. */
  private take(text: string, receipt: unknown): void {
    const chain = this.chain!;
    const line = chain.length;
    const lie = chain.next(text, receipt);
    if (lie !== null) return this.caught(lie);
    const r = chain.receipts[line]!;
    const hash = r.hash;
    this.lineHashes.push(hash);
    this.unacked.delete(hash);
    // A sealed envelope of this seat goes to the witnesses once it stands in the log (sealed.md §8).
    this.publisher?.logged(hash);
    this.holdings.delete(hash);
    if (this.holdings.size > 0) {
      this.checkHoldings(r, text);
      if (this.lie !== null) return;
    }
    const timeLie = this.checkTime(r, text, true);
    if (timeLie !== null) return this.caught(timeLie);
    if (line === 0) {
      let setup: ReturnType<typeof readSetupLine>;
      try {
        setup = readSetupLine(text, this.options.verify);
      } catch (e) {
        return this.caught({
          code: 'relay_lied',
          kind: 'admitted_bad_line',
          line: 0,
          message: `the relay receipted a line 0 that is not a setup: ${(e as Error).message}`,
          receipts: [r],
          lines: [{ line: 0, text }],
          relay: chain.relay,
        });
      }
      if (setup.gameId !== this.gameId || gameIdOf(setup.setup) !== this.gameId)
        return this.caught({
          code: 'relay_lied',
          kind: 'admitted_bad_line',
          line: 0,
          message: `the relay serves, as game ${this.gameId}, the setup of game ${setup.gameId}`,
          receipts: [r],
          lines: [{ line: 0, text }],
          relay: chain.relay,
        });
      if (this.options.newcomer !== true && !setup.setup.players.some((p) => p.id === this.id))
        return this.fail(new ClientError('bad_challenge', `${this.id} is not a player of game ${this.gameId}`));
      // Before the seat or any witness post: a creator may not turn the players into its HTTP clients.
      try {
        checkSetupWitnesses(setup.setup.params, { httpHosts: this.options.httpWitnessHosts ?? [] });
      } catch (e) {
        return this.fail(e as FairtableError);
      }
      // A game bound to its orderer is played only through it (docs/spec/time.md §5).
      const bound = boundRelayOf(setup.setup.params);
      if (bound !== null && bound !== chain.relay)
        return this.fail(new ClientError('foreign_relay', `game ${this.gameId} is bound to relay ${bound}, and this relay signs with ${chain.relay}`));
      // Refused before the seat joins (docs/spec/time.md §4): a `created` far from the receipt or from this clock.
      const late = createdError(setup.setup.created, this.localClock(), r.time);
      if (late !== null) return this.fail(new ClientError('bad_created', `game ${this.gameId}: ${late}`));
      this.options.onLine?.(0, text, r);
      this.emit('line', { line: 0, text, receipt: r });
      // Before the seat: its first envelope may go out as it is built.
      this.startPublishing(text, setup.setup.params);
      this.seat = new Seat(this.seatOptions(text));
      this.seat.hold(this.held() < this.known);
      return;
    }
    this.options.onLine?.(line, text, r);
    this.emit('line', { line, text, receipt: r });
    this.seat!.receive(line, text);
  }

  private seatOptions(setupLine: string): SeatOptions {
    const o = this.options;
    return {
      id: this.id,
      keys: o.keys,
      setupLine,
      clock: this.clock,
      ...(o.random === undefined ? {} : { random: o.random }),
      // The relay is reliable while connected: resends matter only after a reconnection.
      resendMs: 1000,
      syncMs: 1000,
      registry: receiptTimedRegistry(o.registry ?? DEFAULT_REGISTRY, (line) => this.chain?.receipts[line]?.time),
      transport: {
        submit: (text) => this.send({ kind: 'submit', text }),
        sync: (from) => this.send({ kind: 'sync', from: Math.max(from, this.held()) }),
      },
      onEvent: (event) => {
        this.emit('event', event);
        // The relay signed a receipt for a line no door admits (docs/SPEC.md §4.4): its own signature convicts it.
        if (event.type === 'log-altered' && typeof event.line === 'number') {
          const at = event.line;
          const r = this.chain?.receipts[at];
          this.caught({
            code: 'relay_lied',
            kind: 'admitted_bad_line',
            line: at,
            message: `the relay receipted line ${at}, which no door admits: the log it serves was altered there`,
            receipts: r === undefined ? [] : [r],
            lines: [{ line: at, text: this.seat?.lines[at] ?? '' }],
            relay: this.relayKey ?? '',
          });
        }
      },
      onViolation: (v) => this.emit('violation', v),
      ...(o.verify === undefined ? {} : { verify: o.verify }),
      ...(o.sign === undefined ? {} : { sign: o.sign }),
      ...(o.prover === undefined ? {} : { prover: o.prover }),
      ...(o.outgoing === undefined ? {} : { outgoing: o.outgoing }),
      ...(o.onDecision === undefined ? {} : { onDecision: o.onDecision }),
      onSubmit: (text) => {
        const hash = lineHash(text);
        if (hash !== null) this.mine.set(hash, text);
        if (hash !== null && !this.unacked.has(hash) && !this.lineHashes.includes(hash)) this.unacked.set(hash, { text, at: this.localClock(), told: false });
        this.publisher?.publish(text);
        o.onSubmit?.(text);
      },
    };
  }

  private keep(record: EvidenceRecord): void {
    this.evidence.push(record);
    this.options.onEvidence?.(record);
  }

  /** Opens the game at its witnesses with the setup line; every envelope then follows it there. */
  private startPublishing(setupLine: string, params: { readonly [key: string]: unknown }): void {
    const witnesses = this.options.witnesses ?? witnessesOf(params);
    if (witnesses.length === 0 || this.publisher !== null) return;
    const f = this.options.fetch ?? (globalThis as { fetch?: FetchLike }).fetch;
    if (f === undefined) return;
    this.publisher = new WitnessPublisher(
      this.gameId,
      witnesses,
      (url, init) => f(url, init),
      (record) => this.keep(record),
      (_w, message) => this.emit('refused', { code: 'witness_refused', message }),
    );
    this.publisher.publish(setupLine, true);
  }

  private resumeFrom(r: NonNullable<JoinOptions['resume']>): void {
    if (this.relayKey === null) throw new FairtableError('bad_input', "resuming needs the relay's key the receipts were checked under", { field: 'relayKey' });
    if (r.lines.length === 0 || r.receipts.length < r.lines.length)
      throw new FairtableError('bad_input', 'resuming needs the lines held and a receipt for each', { field: 'resume' });
    const { chain, lie } = ReceiptChain.replay(this.gameId, this.relayKey, r.lines, r.receipts, this.options.verify);
    if (lie !== null) throw new ClientError('relay_lied', `the copy kept on disk shows the relay lied: ${lie.message}`, lie);
    this.chain = chain;
    for (let i = 0; i < chain.length; i++) {
      const timeLie = this.checkTime(chain.receipts[i]!, r.lines[i]!, false);
      if (timeLie !== null) throw new ClientError('relay_lied', `the copy kept on disk shows the relay lied: ${timeLie.message}`, timeLie);
    }
    const { gameId, setup } = readSetupLine(r.lines[0]!);
    if (gameId !== this.gameId) throw new FairtableError('bad_input', `the copy is of game ${gameId}, not ${this.gameId}`, { field: 'resume' });
    checkSetupWitnesses(setup.params, { httpHosts: this.options.httpWitnessHosts ?? [] });
    for (const receipt of chain.receipts) this.lineHashes.push(receipt.hash);
    this.startPublishing(r.lines[0]!, readSetupLine(r.lines[0]!).setup.params);
    // Held until the relay's welcome says how long the log is: what the copy lacks may hold envelopes of this
    // seat's earlier life, and one signed again on the copy's view would take their positions.
    const options = { ...this.seatOptions(r.lines[0]!), held: true };
    this.seat = options.random === undefined ? followOrResume(options, r) : Seat.resume(options, r.lines, r.journal ?? [], r.inFlight ?? null);
  }

  private tick(): void {
    if (this.seat === null || this.lie !== null || this.status === 'stopped' || this.status === 'finished') return;
    this.seat.tick();
    this.tellUnacknowledged();
    this.afterChange();
  }

  /** Tells the player of each envelope the relay has not acknowledged in time (docs/spec/time.md §6). */
  private tellUnacknowledged(): void {
    if (this.unacked.size === 0) return;
    const timeout = this.seat?.referee.checker.setup.params.timeoutMs;
    const wait = Math.min(UNACKNOWLEDGED_MS, typeof timeout === 'number' && timeout > 0 ? Math.floor(timeout / 2) : UNACKNOWLEDGED_MS);
    const now = this.localClock();
    for (const [hash, u] of this.unacked) {
      if (u.told || now - u.at < wait) continue;
      u.told = true;
      const witnessed = this.evidence.filter((e) => e.text === u.text && e.relay !== this.relayKey).length;
      this.emit('unacknowledged', { hash, text: u.text, waitedMs: now - u.at, witnessed });
    }
  }

  /** Answers or announces decisions, and notices the end of the game. */
  private afterChange(): void {
    const seat = this.seat;
    if (seat === null || this.lie !== null) return;
    for (let d = seat.lines.length < this.known ? null : seat.decision(); d !== null; d = seat.decision()) {
      const key = JSON.stringify([seat.lines.length, d]);
      if (this.options.strategy !== undefined) {
        seat.decide(this.options.strategy(d));
        continue;
      }
      if (key !== this.lastDecision) {
        this.lastDecision = key;
        this.emit('decision', d);
      }
      break;
    }
    const outcome = seat.outcome();
    if (outcome === null || !seat.idle) {
      this.doneSince = null;
      return;
    }
    // Lines still on their way (another seat's last words) land before the seat lets go.
    const now = this.localClock();
    this.doneSince ??= now;
    if (now - this.doneSince < 300) return;
    // The witnesses get the seat's last envelopes before it lets go (at most WITNESS_DRAIN_MS more).
    if ((this.publisher?.waiting ?? 0) > 0 && now - this.doneSince < WITNESS_DRAIN_MS) return;
    this.emit('outcome', outcome);
    this.stop('finished', 'the game is over');
    this.resolve(outcome);
  }
}

/**
 * A seat that follows its key needs no journal: its player's decisions are read back from the log (Seat.follow).
 * An answer that cannot be read back (free text, a Monopoly trade) is taken from the journal, when one was kept.
 */
function followOrResume(options: SeatOptions, r: NonNullable<JoinOptions['resume']>): Seat {
  try {
    return Seat.follow(options, r.lines, r.inFlight ?? null);
  } catch (e) {
    if (!(e instanceof FairtableError) || r.journal === undefined) throw e;
    return Seat.resume(options, r.lines, r.journal, r.inFlight ?? null);
  }
}

/** Joins a game on a relay and starts playing its seat. */
export function joinGame(options: JoinOptions): RelayGame {
  return new RelayGame(options).start();
}
