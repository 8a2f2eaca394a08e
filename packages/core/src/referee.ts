/**
 * The referee: one game followed line by line (docs/SPEC.md §9).
 *
 * It joins the envelope-layer checks (TranscriptChecker) to the game's
 * protocol machine and is the one piece of logic shared by every seat: each
 * simulated or real player runs it over the transcript it receives, and the
 * auditor runs it over a transcript file, so a player and an auditor cannot
 * disagree about what happened. An envelope-layer violation by a named player
 * is passed to the machine as a penalty (forfeit by default).
 */
import type { Body } from './envelope.js';
import type { Violation } from './errors.js';
import { prepareLine, TranscriptChecker, type CheckerOptions, type PreparedLine, type VerifyFn } from './transcript.js';
import type { Ctx, GameEvent, Machine, Outcome } from './protocols/machine.js';
import { beacon } from './protocols/beacon.js';
import { chain } from './protocols/chain.js';
import { keyedStream } from './protocols/keyed-stream.js';
import { signidice } from './signidice/arbiter.js';
import { rochambeauMachine } from './protocols/rochambeau.js';
import { FairtableError } from './errors.js';
import type { GameSetup } from './setup.js';

export const MACHINES: Readonly<Record<string, Machine<unknown>>> = {
  beacon: beacon as Machine<unknown>,
  chain: chain as Machine<unknown>,
  'keyed-stream': keyedStream as Machine<unknown>,
  signidice: signidice as Machine<unknown>,
  rochambeau: rochambeauMachine as Machine<unknown>,
};

export function machineFor(setup: GameSetup): Machine<unknown> {
  // Own members only: "__proto__" or "toString" is an unknown protocol, not a prototype's member.
  const m = Object.hasOwn(MACHINES, setup.protocol) ? MACHINES[setup.protocol] : undefined;
  if (m === undefined) throw new FairtableError('unknown_protocol', `unknown protocol "${setup.protocol}" (known: ${Object.keys(MACHINES).join(', ')})`);
  return m;
}

/** A Ctx for seats that must never act (observers, the auditor): any use of randomness is a bug. */
export const OBSERVER_CTX: Ctx = {
  now: 0,
  random: () => {
    throw new Error('an observer drew randomness');
  },
};

export interface FeedResult {
  readonly out: Body[];
  readonly events: GameEvent[];
  readonly violations: Violation[];
}

const PENALIZED = new Set(['bad_signature', 'wrong_game', 'bad_position', 'equivocation']);

export class Referee {
  readonly checker: TranscriptChecker;
  readonly machine: Machine<unknown>;
  state: unknown;
  readonly violations: Violation[] = [];
  /** Every event so far, when the referee was asked to keep them (a long audit does not: it would grow without bound). */
  readonly events: GameEvent[] = [];
  private readonly keepEvents: boolean;
  private readonly verifyFn: VerifyFn | undefined;
  private pendingOut: Body[];

  constructor(setupLine: string, readonly me: string | null, ctx: Ctx = OBSERVER_CTX, options: CheckerOptions & { verify?: VerifyFn; keepEvents?: boolean } = {}) {
    this.checker = new TranscriptChecker(setupLine, options);
    this.keepEvents = options.keepEvents ?? false;
    this.verifyFn = options.verify;
    this.machine = machineFor(this.checker.setup);
    const init = this.machine.init(this.checker.setup, this.checker.gameId, me, ctx);
    this.state = init.state;
    this.pendingOut = init.out;
    if (this.keepEvents) this.events.push(...init.events);
    // Line 0 goes through the checker like any other line.
    this.feed(this.prepare(0, setupLine), ctx);
  }

  /** What the local player must send as the game starts (its first commitment, say). */
  takeInitialOut(): Body[] {
    const out = this.pendingOut;
    this.pendingOut = [];
    return out;
  }

  prepare(line: number, text: string): PreparedLine {
    return prepareLine(line, text, this.checker.keys, this.verifyFn);
  }

  feed(prepared: PreparedLine, ctx: Ctx): FeedResult {
    const checked = this.checker.check(prepared);
    const out: Body[] = [];
    const events: GameEvent[] = [];
    const violations: Violation[] = [...checked.violations];
    const time = prepared.envelope?.time ?? 0;
    for (const v of checked.violations) {
      if (v.player !== null && PENALIZED.has(v.code) && this.checker.keys.has(v.player)) {
        const r = this.machine.penalize(this.state, v.player, v.code, v.seq, ctx, time);
        this.state = r.state;
        out.push(...r.out);
        events.push(...r.events);
        violations.push(...r.violations);
      }
    }
    if (checked.accepted !== null) {
      const r = this.machine.step(this.state, checked.accepted, ctx);
      this.state = r.state;
      out.push(...r.out);
      events.push(...r.events);
      violations.push(...r.violations);
    }
    this.violations.push(...violations);
    if (this.keepEvents) this.events.push(...events);
    return { out, events, violations };
  }

  feedText(line: number, text: string, ctx: Ctx = OBSERVER_CTX): FeedResult {
    return this.feed(this.prepare(line, text), ctx);
  }

  tick(ctx: Ctx): Body[] {
    const r = this.machine.tick(this.state, ctx);
    this.state = r.state;
    return r.out;
  }

  outcome(): Outcome | null {
    return this.machine.outcome(this.state);
  }
}
