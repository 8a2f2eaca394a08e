/**
 * The shape every protocol machine has (docs/SPEC.md §7).
 *
 * A machine is pure: `step(state, accepted, ctx)` returns the next state, the
 * message bodies the local player should send (`out`), what happened
 * (`events`) and any rule broken (`violations`). It never touches a socket, a
 * timer, Date.now() or Math.random(): the caller passes `ctx = {now, random}`.
 * The same machine runs in three seats: as a player (with `me` and its secrets
 * in the state), as an observer, and inside the auditor, which never ticks.
 */
import type { Body } from '../envelope.js';
import { FairtableError, type Violation, type Evidence, type ViolationCode } from '../errors.js';
import type { JsonValue } from '../jcs.js';
import type { GameSetup } from '../setup.js';
import type { Accepted } from '../transcript.js';
import type { MessageSchemas } from './messages.js';
import type { SealedShare } from '../escrow/vss.js';
import type { Exchange } from '../escrow/dleq.js';
import type { ProvedOnce } from '../deck/proved-once.js';

export interface Ctx {
  /** Milliseconds; the caller's clock (simulated in tests). */
  readonly now: number;
  /** A CSPRNG in production, a seeded stream in simulations. */
  readonly random: (length: number) => Uint8Array;
  /** The local player's unique-signature prover, when it holds one (the Signidice house). */
  readonly prover?: (alpha: Uint8Array) => Uint8Array;
  /**
   * Opens an escrow share sealed to the local player's key (docs/spec/escrow.md §1), without handing the
   * machine the key itself; throws FairtableError('bad_share') when the box does not open. Seats provide it.
   */
  readonly openShare?: (sealed: SealedShare, context: string) => string;
  /**
   * The local player's Diffie–Hellman value a·E for a layer's ephemeral point, with its Chaum–Pedersen proof
   * (docs/spec/escrow.md §3.2): how a seat peels a layer sealed to it without handing the machine its key.
   */
  readonly exchange?: (ephemeral: string, context: string) => Exchange;
  /**
   * A simulation's keeper of deck proofs (deck/proved-once.ts): a shuffle or decryption share made again from the
   * same inputs and random bytes is read back. Only simulations give one; in play every proof is made afresh.
   */
  readonly provedOnce?: ProvedOnce;
}

export interface GameEvent {
  readonly type: string;
  readonly [key: string]: JsonValue;
}

export interface Outcome {
  readonly winners: readonly string[];
  readonly forfeits: readonly { readonly player: string; readonly code: ViolationCode }[];
  readonly summary: JsonValue;
}

export interface StepResult<S> {
  readonly state: S;
  readonly out: Body[];
  readonly events: GameEvent[];
  readonly violations: Violation[];
}

/**
 * The legal answers to a decision, as data a user interface can render and a
 * strategy can draw from (docs/SPEC.md §7.5). Integers are decimal strings so
 * that ranges beyond 2^53 (a Rochambeau game with a huge N) stay exact.
 */
export type Choices =
  | { readonly type: 'integer'; readonly min: string; readonly max: string }
  | { readonly type: 'one-of'; readonly values: readonly JsonValue[] }
  /**
   * One answer per field; an `optional` member may be left out (a Diplomacy power's vote for an agreed
   * ending beside its orders). An automatic player leaves optional members out.
   */
  | { readonly type: 'record'; readonly fields: { readonly [name: string]: Choices }; readonly optional?: { readonly [name: string]: Choices } }
  | { readonly type: 'any-of'; readonly options: readonly Choices[] }
  /**
   * Free text matching `pattern` (anchored), at most `maxLength` characters: what no list can hold (a
   * Diplomacy preference list). `examples` are legal answers a strategy may draw from; the machine may
   * check the text further in `decide`.
   */
  | { readonly type: 'text'; readonly pattern: string; readonly maxLength: number; readonly examples: readonly string[] }
  /** Up to `max` distinct answers to `of` (a trade's deeds and cards). */
  | { readonly type: 'list'; readonly of: Choices; readonly max: number };

/** What the local player must decide before its machine can go on (docs/SPEC.md §7.5). */
export interface Decision {
  /** What is decided, in the players' language: 'hand', 'bet', 'move'. */
  readonly kind: string;
  /** One sentence for a person. */
  readonly prompt: string;
  readonly choices: Choices;
  /** The local clock time (ms) after which the others may claim the deadline. */
  readonly deadline: number;
  /** What the player sees of the game as it decides (a decision game's state), for interfaces and automatic players. */
  readonly view?: JsonValue;
}

export interface Machine<S> {
  readonly protocol: string;
  /** One schema per message type (messages.ts): the referee refuses a body that does not fit before `step`. */
  readonly messages?: MessageSchemas;
  /**
   * Message types a seat sends on input from outside the game's log (Diplomacy's mail carried for a player
   * with only gpg): a resumed seat meets them in the log without its journal producing them, as it meets
   * its deadline claims.
   */
  readonly carried?: readonly string[];
  /** What the local player must decide now, or null when the machine waits for nobody local. */
  decision(state: S): Decision | null;
  /**
   * Applies the local player's answer to `decision(state)`: the bodies to send are in `out`.
   * Throws FairtableError('illegal_choice') when there is no decision or the answer is not one of its choices.
   */
  decide(state: S, choice: JsonValue, ctx: Ctx): StepResult<S>;
  /**
   * The local player's answer that made it send `body`, read back from `body` itself (an answer the machine
   * sealed to the player's own key, opened with `ctx.openShare`), or null: how a seat rebuilt from its key
   * and the log recovers an answer no list of choices holds (docs/SPEC.md §10.2, "A seat follows its key").
   */
  readBack?(state: S, body: Body, ctx: Ctx): JsonValue | null;
  init(setup: GameSetup, gameId: string, me: string | null, ctx: Ctx): StepResult<S>;
  step(state: S, msg: Accepted, ctx: Ctx): StepResult<S>;
  /** Deadlines: what the local player should send now that time has passed. Observers get nothing. */
  tick(state: S, ctx: Ctx): StepResult<S>;
  /**
   * Whom the game waits for now and until when (the players a deadline claim would name once it passed, and
   * that deadline), or null when it waits for nobody: what a page shows as "waiting for bob". Any seat's view,
   * an observer's included.
   */
  awaiting?(state: S): Awaiting | null;
  outcome(state: S): Outcome | null;
  /**
   * A rule broken at the envelope layer (equivocation, a replay, a bad
   * signature…) by `player`: the machine applies the game's penalty, forfeit.
   */
  penalize(state: S, player: string, code: ViolationCode, line: number, ctx: Ctx, time: number): StepResult<S>;
  /**
   * The state as JSON, for a seat that keeps a snapshot instead of replaying its log (docs/spec/mail.md §2);
   * a machine without it is always replayed. `loadState(saveState(s))` must behave exactly as `s`.
   */
  saveState?(state: S): JsonValue;
  loadState?(saved: JsonValue, setup: GameSetup, gameId: string, me: string | null): S;
}

/** Collects the parts of a StepResult while a step runs. */
export class Stepper {
  readonly out: Body[] = [];
  readonly events: GameEvent[] = [];
  readonly violations: Violation[] = [];
  send(body: Body): void {
    this.out.push(body);
  }
  emit(event: GameEvent): void {
    this.events.push(event);
  }
  violation(code: ViolationCode, player: string | null, msg: Accepted | { line: number }, message: string, evidence: Evidence[] = []): void {
    const self: Evidence[] = 'envelope' in msg ? [{ line: msg.line, hash: msg.hash, envelope: msg.envelope }] : [];
    this.violations.push({ code, player, seq: msg.line, message, evidence: [...self, ...evidence] });
  }
  /**
   * `player` missed a deadline where going silent steered nothing (docs/SPEC.md §7.4): a `withheld` finding
   * of kind `absence`, "timed out", which a verdict keeps apart from a rule broken.
   */
  absent(player: string, msg: Accepted | { line: number }, message: string, evidence: Evidence[] = []): void {
    this.violation('withheld', player, msg, message, evidence);
    const v = this.violations[this.violations.length - 1]!;
    this.violations[this.violations.length - 1] = { ...v, kind: 'absence' };
  }
  /** A missed deadline: rule broken when `steered` (a reveal withheld by one who saw what it decides), else an absence. */
  withheld(player: string, steered: boolean, msg: Accepted | { line: number }, message: string): void {
    if (steered) this.violation('withheld', player, msg, message);
    else this.absent(player, msg, message);
  }
  result<S>(state: S): StepResult<S> {
    return { state, out: this.out, events: this.events, violations: this.violations };
  }
}

/** A deadline claim: `missing` had not sent what `phase` asks for when the claimant's clock passed the deadline. */
export interface DeadlineBody extends Body {
  readonly type: 'deadline';
  readonly phase: string;
  readonly round: number;
  readonly missing: readonly string[];
}

export function isDeadlineBody(body: Body): body is DeadlineBody {
  return (
    body.type === 'deadline' &&
    typeof body.phase === 'string' &&
    Number.isSafeInteger(body.round) &&
    Array.isArray(body.missing) &&
    body.missing.every((m) => typeof m === 'string')
  );
}

export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const s = new Set(a);
  return b.every((x) => s.has(x)) && s.size === a.length;
}

/** Numeric parameter from a setup, with a default and bounds; throws a coded error on a bad value. */
export function intParam(params: { readonly [key: string]: JsonValue }, name: string, fallback: number, min: number, max: number): number {
  const value = params[name] ?? fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new FairtableError('out_of_range', `parameter ${name} must be an integer in [${min}, ${max}]`, { field: name });
  }
  return value;
}

/** Whom a game waits for and the deadline (local clock, ms) after which the others may claim it. */
export interface Awaiting {
  readonly players: readonly string[];
  readonly deadline: number;
}

/** `awaiting` from a deadline state and the players it misses: null when nobody is missing or the game is over. */
export function awaitingOf(state: DeadlineState, players: readonly string[]): Awaiting | null {
  return state.phase === 'done' || players.length === 0 ? null : { players, deadline: state.phaseStart + state.timeoutMs };
}

/** What deadlines need of a machine's state (docs/SPEC.md §7.4). */
export interface DeadlineState {
  readonly phase: string;
  readonly phaseStart: number;
  readonly timeoutMs: number;
  claimed: string | null;
}

/**
 * Every machine's `tick`: once the phase's deadline has passed on the local
 * clock, a seated player who is not itself late sends one deadline claim per
 * phase naming everyone who is.
 */
export function deadlineTick<S extends DeadlineState>(
  state: S,
  ctx: Ctx,
  view: { readonly me: string | null; readonly seated: boolean; readonly round: number; readonly missing: () => string[] },
  copy: (state: S) => S,
): StepResult<S> {
  const st = new Stepper();
  if (view.me === null || !view.seated || state.phase === 'done') return st.result(state);
  const key = `${state.phase}/${view.round}`;
  // An honest claimant waits half a timeout past the deadline before claiming: a message delayed by a lossy
  // network then lands first, and the claim, were it sent, would be stale (docs/SPEC.md §7.4).
  if (ctx.now < state.phaseStart + state.timeoutMs + Math.floor(state.timeoutMs / 2) || state.claimed === key) return st.result(state);
  const late = view.missing();
  if (late.length === 0 || late.includes(view.me)) return st.result(state);
  const s = copy(state);
  s.claimed = key;
  st.send({ type: 'deadline', phase: state.phase, round: view.round, missing: late });
  return st.result(s);
}

/**
 * How a deadline claim stands against the transcript (docs/SPEC.md §7.4):
 * - `stale` when the claim no longer bites: another claim or a restart
 *   overtook it, or everyone it names has since sent what was missing (an
 *   honest race between a late message and the claim: never held against the
 *   claimant);
 * - `false` when the transcript contradicts it: it was made before the
 *   deadline, or it leaves out a player who is still missing (an honest
 *   claimant names everyone missing on its view, and nobody who is missing now
 *   was present then);
 * - `valid` otherwise: every player still missing is named, and only those
 *   are penalised.
 */
export function judgeClaim(
  body: DeadlineBody,
  time: number,
  state: DeadlineState,
  view: { readonly round: number; readonly late: readonly string[]; readonly isOut: (player: string) => boolean },
): 'stale' | 'false' | 'valid' {
  if (body.phase !== state.phase || body.round !== view.round) return 'stale';
  if (body.missing.some(view.isOut)) return 'stale';
  if (time < state.phaseStart + state.timeoutMs) return 'false';
  const named = new Set(body.missing);
  if (view.late.some((p) => !named.has(p))) return 'false';
  if (view.late.length === 0) return 'stale';
  return 'valid';
}

/**
 * Every machine's handling of a deadline claim (docs/SPEC.md §7.4): judges it, names a false claimant, and
 * returns the players the claim validly names (every one still missing), or null when it changes nothing.
 * What a valid claim does to them (forfeit, a round sat out) is the machine's.
 */
export function settleClaim(
  st: Stepper,
  msg: Accepted,
  body: DeadlineBody,
  state: DeadlineState,
  view: { readonly round: number; readonly late: readonly string[]; readonly isOut: (player: string) => boolean },
): readonly string[] | null {
  const verdict = judgeClaim(body, msg.time, state, view);
  if (verdict === 'stale') return null;
  const from = msg.envelope.from;
  if (verdict === 'false') {
    st.violation(
      'false_deadline_claim',
      from,
      msg,
      `${from} claimed [${body.missing.join(', ')}] missed the ${state.phase} deadline (round ${view.round}); still missing were [${view.late.join(', ')}], the deadline ${state.phaseStart + state.timeoutMs}, the claim's time ${msg.time}`,
    );
    return null;
  }
  return view.late;
}

/** A decision's answer checked against its choices; throws FairtableError('illegal_choice'). */
export function checkChoice(choices: Choices, value: JsonValue, field = 'choice'): void {
  const bad = (why: string): never => {
    throw new FairtableError('illegal_choice', `${field}: ${why}`, { field });
  };
  switch (choices.type) {
    case 'integer': {
      const text =
        typeof value === 'number' && Number.isSafeInteger(value)
          ? String(value)
          : typeof value === 'string' && /^(0|-?[1-9][0-9]*)$/.test(value)
            ? value
            : null;
      if (text === null) bad('expected an integer');
      const n = BigInt(text!);
      if (n < BigInt(choices.min) || n > BigInt(choices.max)) bad(`must be from ${choices.min} to ${choices.max}`);
      return;
    }
    case 'one-of': {
      const key = JSON.stringify(value);
      if (!choices.values.some((v) => JSON.stringify(v) === key)) bad(`must be one of ${choices.values.map((v) => JSON.stringify(v)).join(', ')}`);
      return;
    }
    case 'record': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return bad('expected an object');
      const names = Object.keys(choices.fields);
      const optional = choices.optional ?? {};
      for (const k of Object.keys(value)) if (!names.includes(k) && !Object.hasOwn(optional, k)) bad(`unknown member "${k}"`);
      for (const [k, c] of Object.entries(optional)) if (Object.hasOwn(value, k) && !names.includes(k)) checkChoice(c, value[k]!, `${field}.${k}`);
      for (const k of names) {
        const member = Object.hasOwn(value, k) ? value[k] : undefined;
        if (member === undefined) bad(`missing member "${k}"`);
        checkChoice(choices.fields[k]!, member!, `${field}.${k}`);
      }
      return;
    }
    case 'list': {
      if (!Array.isArray(value)) return bad('expected a list');
      if (value.length > choices.max) bad(`at most ${choices.max} items`);
      if (new Set(value.map((v) => JSON.stringify(v))).size !== value.length) bad('an item twice');
      value.forEach((v, i) => checkChoice(choices.of, v, `${field}[${i}]`));
      return;
    }
    case 'any-of': {
      const reasons: string[] = [];
      for (const option of choices.options) {
        try {
          checkChoice(option, value, field);
          return;
        } catch (e) {
          if (!(e instanceof FairtableError)) throw e;
          reasons.push(e.message);
        }
      }
      bad(`matches none of the allowed forms (${reasons.join('; ')})`);
      return;
    }
    case 'text': {
      if (typeof value !== 'string') return bad('expected text');
      if (value.length > choices.maxLength) bad(`longer than ${choices.maxLength} characters`);
      if (!new RegExp(`^(?:${choices.pattern})$`).test(value)) bad(`does not match ${choices.pattern}`);
      return;
    }
  }
}

/**
 * Every machine's `decide`: checks the answer against the pending decision's choices (`illegal_choice`
 * when there is none, or the answer is not one of them), then lets `apply` send on a copy of the state.
 */
export function decideBy<S>(
  state: S,
  decision: (s: S) => Decision | null,
  choice: JsonValue,
  copy: (s: S) => S,
  apply: (s: S, st: Stepper, choice: JsonValue) => void,
): StepResult<S> {
  const d = decision(state);
  if (d === null) return refuseDecision();
  checkChoice(d.choices, choice, d.kind);
  const s = copy(state);
  const st = new Stepper();
  apply(s, st, choice);
  return st.result(s);
}

/** For machines that never ask the local player anything. */
export function noDecision(): null {
  return null;
}

export function refuseDecision(): never {
  throw new FairtableError('illegal_choice', 'this game is not waiting for a decision of yours');
}
