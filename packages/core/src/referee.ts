/**
 * The referee: one game followed line by line (docs/SPEC.md §9).
 *
 * It joins the envelope-layer checks (TranscriptChecker) to the game's
 * protocol machine and is the one piece of logic shared by every seat: each
 * player's seat runs it over the transcript it receives, and the auditor runs
 * it over a transcript file, so a player and an auditor cannot disagree about
 * what happened. An equivocation (two envelopes signed for one position) is
 * passed to the machine as a penalty (forfeit). A line that shows the log was
 * altered (docs/SPEC.md §4.4) stops the game's judging: from there on the
 * machine takes no more lines, so no player is penalised on the strength of
 * the altered part.
 */
import type { Body } from './envelope.js';
import { FairtableError, type Violation } from './errors.js';
import type { JsonValue } from './jcs.js';
import { prepareLine, TranscriptChecker, type CheckerOptions, type CheckerSnapshot, type PreparedLine, type VerifyFn } from './transcript.js';
import type { Ctx, Decision, GameEvent, Machine, Outcome, StepResult } from './protocols/machine.js';
import { DEFAULT_REGISTRY, machineFor, type Registry } from './registry.js';
import { bodyProblem } from './protocols/messages.js';
import { holdsClaims, isExtensionBody, judgeUnderExtension, NO_EXTENSION, takeExtension, type ExtensionState } from './protocols/extension.js';
import { Stepper } from './protocols/machine.js';
import { firstPhaseStart } from './time/rules.js';

/** A Ctx for seats that must never act (observers, the auditor): any use of randomness is a bug. */
export const OBSERVER_CTX: Ctx = {
  now: 0,
  random: () => {
    throw new FairtableError('bad_input', 'an observer drew randomness');
  },
};

export interface FeedResult {
  readonly out: Body[];
  readonly events: GameEvent[];
  readonly violations: Violation[];
}

export interface RefereeOptions extends CheckerOptions {
  readonly verify?: VerifyFn;
  /** Keep every event (a long audit does not: it would grow without bound). */
  readonly keepEvents?: boolean;
  /** The machines to run; the built-ins by default (registry.ts). */
  readonly registry?: Registry;
  /**
   * The time of a line as the rules judge it, when the game is judged on an orderer's receipts (docs/SPEC.md
   * §7.4); undefined for a line without one, which keeps its author's own claim.
   */
  readonly timeOf?: (line: number) => number | undefined;
}

/** A referee as JSON: restored by passing it as the constructor's `from`. */
export interface RefereeSnapshot {
  readonly checker: CheckerSnapshot;
  readonly state: JsonValue;
  readonly alteredAt: number | null;
  readonly violations: readonly Violation[];
  /** The agreed deadline extension (docs/SPEC.md §7.4.1), and the seats out of the game, when there are. */
  readonly extension?: ExtensionState;
  readonly out?: readonly string[];
}

/** Only what signatures alone prove is penalised at the envelope layer (docs/SPEC.md §4.4). */
const PENALIZED = new Set(['equivocation']);

export class Referee<S = unknown> {
  readonly checker: TranscriptChecker;
  readonly machine: Machine<S>;
  state: S;
  readonly violations: Violation[] = [];
  /** Every event so far, when the referee was asked to keep them. */
  readonly events: GameEvent[] = [];
  /** The first line that showed the log was altered, or null. */
  alteredAt: number | null = null;
  private readonly keepEvents: boolean;
  private readonly verifyFn: VerifyFn | undefined;
  private readonly timeOf: ((line: number) => number | undefined) | undefined;
  private pendingOut: Body[];
  /** Agreed deadline extensions, the same for every machine (docs/SPEC.md §7.4.1). */
  extension: ExtensionState = NO_EXTENSION;
  /** Seats a machine has put out of the game (its `forfeit` events): they need not sign an extension. */
  private readonly out = new Set<string>();

  constructor(
    setupLine: string,
    readonly me: string | null,
    ctx: Ctx = OBSERVER_CTX,
    options: RefereeOptions = {},
    /** Goes on from a snapshot (`save`) instead of starting the game: nothing is drawn or sent. */
    from?: RefereeSnapshot,
  ) {
    this.checker = from === undefined ? new TranscriptChecker(setupLine, options) : TranscriptChecker.restore(setupLine, from.checker, options);
    this.keepEvents = options.keepEvents ?? false;
    this.verifyFn = options.verify;
    this.timeOf = options.timeOf;
    this.machine = machineFor(this.checker.setup.protocol, options.registry ?? DEFAULT_REGISTRY) as Machine<S>;
    if (from !== undefined) {
      if (this.machine.loadState === undefined)
        throw new FairtableError('bad_input', `the ${this.machine.protocol} machine cannot load a saved state`, { field: 'snapshot' });
      this.state = this.machine.loadState(from.state, this.checker.setup, this.checker.gameId, me);
      this.pendingOut = [];
      this.alteredAt = from.alteredAt;
      this.violations.push(...from.violations);
      this.extension = from.extension ?? NO_EXTENSION;
      for (const p of from.out ?? []) this.out.add(p);
      return;
    }
    // On receipt times the first phase starts when line 0 was received, not before (docs/spec/time.md §4).
    const setup = this.checker.setup;
    const init = this.machine.init({ ...setup, created: firstPhaseStart(setup.created, this.timeOf?.(0)) }, this.checker.gameId, me, ctx);
    this.state = init.state;
    this.pendingOut = init.out;
    if (this.keepEvents) this.events.push(...init.events);
    // Line 0 goes through the checker like any other line.
    this.feed(this.prepare(0, setupLine), ctx);
  }

  /**
   * The referee's whole state as JSON (the checker's, the machine's, what was found), or null when its
   * machine cannot save its state. Events are not kept.
   */
  save(): RefereeSnapshot | null {
    if (this.machine.saveState === undefined) return null;
    return {
      checker: this.checker.save(),
      state: this.machine.saveState(this.state),
      alteredAt: this.alteredAt,
      violations: [...this.violations],
      ...(this.extension === NO_EXTENSION ? {} : { extension: this.extension }),
      ...(this.out.size === 0 ? {} : { out: [...this.out] }),
    };
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

  /** True once the log has shown it was altered: the game is no longer judged on it. */
  get stopped(): boolean {
    return this.alteredAt !== null;
  }

  feed(prepared: PreparedLine, ctx: Ctx): FeedResult {
    const checked = this.checker.check(prepared);
    const out: Body[] = [];
    const events: GameEvent[] = [];
    const violations: Violation[] = [...checked.violations];
    if (checked.altered && this.alteredAt === null) {
      this.alteredAt = prepared.line;
      events.push({ type: 'log-altered', line: prepared.line });
    }
    if (!this.stopped) {
      const time = this.timeOf?.(prepared.line) ?? prepared.envelope?.time ?? 0;
      for (const v of checked.violations) {
        if (v.player !== null && PENALIZED.has(v.code) && this.checker.keys.has(v.player)) {
          this.apply(this.machine.penalize(this.state, v.player, v.code, v.seq, ctx, time), out, events, violations);
        }
      }
      const problem = checked.accepted === null ? null : bodyProblem(this.machine.messages, checked.accepted.envelope.body);
      if (checked.accepted !== null && problem !== null) {
        const { line, hash, envelope } = checked.accepted;
        violations.push({
          code: 'unexpected_message',
          player: envelope.from,
          seq: line,
          message: `line ${line}: ${envelope.from}'s "${envelope.body.type}" does not have the shape the ${this.machine.protocol} rules give it: ${problem}`,
          evidence: [{ line, hash, envelope }],
        });
      } else if (checked.accepted !== null && isExtensionBody(checked.accepted.envelope.body)) {
        const st = new Stepper();
        const active = this.checker.setup.players.map((p) => p.id).filter((p) => !this.out.has(p));
        this.extension = takeExtension(this.extension, { ...checked.accepted, time }, this.state, active, st);
        this.apply(st.result(this.state), out, events, violations);
      } else if (checked.accepted !== null) {
        const accepted = { ...checked.accepted, time };
        const st = new Stepper();
        if (judgeUnderExtension(this.extension, accepted, this.state, st) !== 'pass') this.apply(st.result(this.state), out, events, violations);
        else
          this.apply(
            this.guard(accepted.envelope.from, prepared.line, () => this.machine.step(this.state, accepted, ctx)),
            out,
            events,
            violations,
          );
      }
    }
    this.violations.push(...violations);
    if (this.keepEvents) this.events.push(...events);
    return { out, events, violations };
  }

  feedText(line: number, text: string, ctx: Ctx = OBSERVER_CTX): FeedResult {
    return this.feed(this.prepare(line, text), ctx);
  }

  tick(ctx: Ctx): Body[] {
    if (this.stopped || holdsClaims(this.extension, this.state, ctx.now)) return [];
    const r = this.machine.tick(this.state, ctx);
    this.state = r.state;
    return r.out;
  }

  /** What the local player must decide now (docs/SPEC.md §7.5), or null. */
  decision(): Decision | null {
    return this.stopped ? null : this.machine.decision(this.state);
  }

  /** Applies the local player's decision; returns the bodies to send. Throws FairtableError('illegal_choice'). */
  decide(choice: JsonValue, ctx: Ctx): Body[] {
    if (this.stopped) throw new FairtableError('illegal_choice', `the log was altered at line ${this.alteredAt}: the game is no longer played on it`);
    const r = this.machine.decide(this.state, choice, ctx);
    this.state = r.state;
    return r.out;
  }

  outcome(): Outcome | null {
    return this.stopped ? null : this.machine.outcome(this.state);
  }

  private apply(r: StepResult<S>, out: Body[], events: GameEvent[], violations: Violation[]): void {
    this.state = r.state;
    out.push(...r.out);
    events.push(...r.events);
    for (const e of r.events) if (e.type === 'forfeit' && typeof e.player === 'string') this.out.add(e.player);
    violations.push(...r.violations);
  }

  /**
   * A machine meets a signed body it cannot read (a member of the wrong type, say) by naming its author
   * `unexpected_message` with the state unchanged; a seat never crashes on what another player signed.
   */
  private guard(author: string, line: number, run: () => StepResult<S>): StepResult<S> {
    try {
      return run();
    } catch (e) {
      if (!(e instanceof FairtableError) && !(e instanceof TypeError) && !(e instanceof RangeError) && !(e instanceof SyntaxError)) throw e;
      return {
        state: this.state,
        out: [],
        events: [],
        violations: [
          {
            code: 'unexpected_message',
            player: author,
            seq: line,
            message: `line ${line}: ${author}'s message cannot be read by the ${this.machine.protocol} rules: ${e.message}`,
            evidence: [{ line }],
          },
        ],
      };
    }
  }
}
