/**
 * The seat's options and saved forms (docs/SPEC.md §10.2): how it reaches the orderer, what it is given, its
 * journal and its snapshot. Re-exported by seat.ts.
 */
import type { ProvedOnce } from '../deck/proved-once.js';
import type { Body, Envelope } from '../envelope.js';
import type { Violation } from '../errors.js';
import type { JsonValue } from '../jcs.js';
import type { KeyPair } from '../identity.js';
import type { RefereeSnapshot } from '../referee.js';
import type { Registry } from '../registry.js';
import type { GameEvent } from '../protocols/machine.js';
import type { VerifyFn } from '../transcript.js';
import type { Seat } from './seat.js';

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
  /**
   * Randomness for the player's secrets. Left out, every secret is derived from the player's key, the game
   * and the step that draws it (derive.ts), and the seat follows its key: another device with the key and
   * the log alone continues it (`Seat.follow`), and two devices open at once never contradict each other.
   */
  readonly random?: (length: number) => Uint8Array;
  readonly registry?: Registry;
  readonly verify?: VerifyFn;
  readonly sign?: SignFn;
  /** The Signidice house's unique-signature prover. */
  readonly prover?: (alpha: Uint8Array) => Uint8Array;
  /** A simulation's keeper of deck proofs (deck/proved-once.ts); never in play. */
  readonly provedOnce?: ProvedOnce;
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
