/**
 * Decisions between rolls (docs/SPEC.md §7.7), shared by the chain and
 * keyed-stream machines when their game is a `DecisionGame` (Monopoly).
 *
 * The game names who must answer now and whether the answers are sealed.
 * Open answers are `answer` messages. Sealed ones (auction bids) come in two
 * rounds: every named player sends a `seal` (a commitment to its answer,
 * purpose `sealed/<turn>`), and once all are in, or the deadline has passed,
 * each opens it with an `unseal`; nobody's answer is seen before every
 * answer is fixed. When the answers are complete the game applies them all at
 * once. Each round has the decision deadline (`decisionMs`, by default the
 * protocol's `timeoutMs`): a valid deadline claim does not forfeit anybody, it
 * gives the late players the question's safe default (a seal never sent is a
 * pass). A seal not opened in time is also a default, and the player is named
 * `withheld`: it could otherwise choose, after seeing the others' bids,
 * between its bid and a pass. An opening that does not open the seal is
 * `commit_mismatch` and forfeits; an answer the game refuses is
 * `illegal_answer` and counts as the default.
 */
import { commit, opens, type Opening } from '../commitment.js';
import { FairtableError, type ViolationCode } from '../errors.js';
import type { JsonValue } from '../jcs.js';
import type { Accepted } from '../transcript.js';
import type { DecisionGame } from '../games/game.js';
import { deadlineTick, settleClaim, Stepper, type Ctx, type Decision, type DeadlineBody } from './machine.js';

export interface Ask {
  readonly turn: number;
  /** Open answers, and sealed answers once opened. */
  readonly answers: Readonly<Record<string, JsonValue>>;
  readonly seals: Readonly<Record<string, string>>;
  /** Players past the deadline: their answer is the default. */
  readonly excused: readonly string[];
  readonly revealing: boolean;
}

export interface AskingState {
  readonly gameId: string;
  readonly decisionMs: number;
  /** Deadlines by question kind (`turn`, `buy`, `bid`…), overriding `decisionMs`. */
  readonly deadlines: Readonly<Record<string, number>>;
  game: unknown;
  active: string[];
  turn: number;
  claimed: string | null;
  ask: Ask | null;
  me: string | null;
  /** The local player's opening for its seal on `turn`, until it sent the unseal. */
  mySeal: { readonly turn: number; readonly opening: Opening; readonly opened: boolean } | null;
  /** When the current round started (the time its deadline counts from). */
  phaseStart: number;
  /** The turn for which the local player has sent its answer or seal (-1: none). */
  answered: number;
}

export const ASK_PHASES = ['answer', 'seal', 'unseal'] as const;
export type AskPhase = (typeof ASK_PHASES)[number];

const sealPurpose = (turn: number): string => `sealed/${turn}`;

/** The setup's `deadlines`: milliseconds by question kind, each an integer from 1 to 2^40. */
export function deadlinesParam(params: { readonly [key: string]: JsonValue }): Record<string, number> {
  const v = params.deadlines ?? {};
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new FairtableError('out_of_range', 'parameter deadlines must be an object of milliseconds by decision kind', { field: 'deadlines' });
  const out: Record<string, number> = {};
  for (const [kind, ms] of Object.entries(v)) {
    if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 1 || ms > 2 ** 40)
      throw new FairtableError('out_of_range', `parameter deadlines.${kind} must be an integer in [1, 2^40]`, { field: `deadlines.${kind}` });
    out[kind] = ms;
  }
  return out;
}

/** The current round's deadline length: its question kind's, else `decisionMs`. */
function roundMs(rules: DecisionGame<unknown>, s: AskingState): number {
  const a = asked(rules, s);
  const first = a?.players[0];
  const kind = first === undefined ? null : (rules.question(s.game, first)?.kind ?? null);
  return (kind !== null && Object.hasOwn(s.deadlines, kind) ? s.deadlines[kind] : undefined) ?? s.decisionMs;
}

/** Who is asked now (players still in), or null when the game waits for a roll or is over. */
export function asked(rules: DecisionGame<unknown>, s: AskingState): { players: string[]; sealed: boolean } | null {
  const w = rules.waiting(s.game);
  if (w.kind !== 'decide') return null;
  return { players: w.players.filter((p) => s.active.includes(p)), sealed: w.sealed };
}

function askOf(s: AskingState): Ask {
  return s.ask !== null && s.ask.turn === s.turn ? s.ask : { turn: s.turn, answers: {}, seals: {}, excused: [], revealing: false };
}

export function askPhase(rules: DecisionGame<unknown>, s: AskingState): AskPhase | null {
  const a = asked(rules, s);
  if (a === null) return null;
  if (!a.sealed) return 'answer';
  return askOf(s).revealing ? 'unseal' : 'seal';
}

export function askMissing(rules: DecisionGame<unknown>, s: AskingState): string[] {
  const a = asked(rules, s);
  if (a === null) return [];
  const k = askOf(s);
  const done = (p: string): boolean => k.excused.includes(p) || k.answers[p] !== undefined;
  if (!a.sealed) return a.players.filter((p) => !done(p));
  if (!k.revealing) return a.players.filter((p) => k.seals[p] === undefined && !k.excused.includes(p));
  return a.players.filter((p) => k.seals[p] !== undefined && !done(p));
}

/** Who the current ask round waits for and its deadline, or null when nobody is asked. */
export function askAwaiting(rules: DecisionGame<unknown>, s: AskingState): { players: string[]; deadline: number } | null {
  const players = askMissing(rules, s);
  return players.length === 0 ? null : { players, deadline: s.phaseStart + roundMs(rules, s) };
}

/** The local player's pending question, as a machine's Decision. */
export function askDecision(rules: DecisionGame<unknown>, s: AskingState, timeoutMs: number): Decision | null {
  const phase = askPhase(rules, s);
  if (s.me === null || phase === null || phase === 'unseal' || !askMissing(rules, s).includes(s.me)) return null;
  if (s.answered === s.turn) return null;
  const q = rules.question(s.game, s.me);
  if (q === null) return null;
  return { kind: q.kind, prompt: q.prompt, choices: q.choices, deadline: s.phaseStart + roundMs(rules, s), view: s.game as JsonValue };
}

/** The local player answers: an `answer`, or a `seal` whose opening it keeps until every seal is in. */
export function askDecide(rules: DecisionGame<unknown>, s: AskingState, st: Stepper, choice: JsonValue, ctx: Ctx, extra: Record<string, JsonValue>): void {
  const why = rules.whyIllegal(s.game, s.me!, choice);
  if (why !== null) throw new FairtableError('illegal_choice', why, { field: 'choice' });
  if (askPhase(rules, s) === 'seal') {
    const c = commit({ game: s.gameId, player: s.me!, purpose: sealPurpose(s.turn) }, choice, ctx.random);
    s.mySeal = { turn: s.turn, opening: c.opening, opened: false };
    st.send({ type: 'seal', turn: s.turn, commitment: c.commitment, ...extra });
  } else {
    st.send({ type: 'answer', turn: s.turn, choice, ...extra });
  }
  s.answered = s.turn;
}

export interface AskHooks {
  /** Removes a player who broke the rules (the machine's forfeit). */
  forfeit(player: string, code: ViolationCode): void;
  /** A message of the round was taken (before the round may complete): the machine records what else it carries. */
  accepted(from: string, msg: Accepted): void;
  /** The game moved on: the machine's next steps (automatic sends, the end). */
  resolved(time: number): void;
}

/** Applies the round's answers once nobody is missing (also after a forfeit removed the last one missing). */
export function completeAsk(rules: DecisionGame<unknown>, s: AskingState, st: Stepper, time: number, hooks: AskHooks): void {
  if (askPhase(rules, s) === null) return;
  if (askMissing(rules, s).length > 0) return;
  const k = askOf(s);
  const a = asked(rules, s)!;
  if (a.sealed && !k.revealing && Object.keys(k.seals).length > 0) {
    s.ask = { ...k, revealing: true };
    s.phaseStart = time;
    s.claimed = null;
    return;
  }
  const answers: Record<string, JsonValue> = {};
  for (const p of a.players) if (k.answers[p] !== undefined && !k.excused.includes(p)) answers[p] = k.answers[p];
  const result = rules.answer(s.game, answers);
  s.game = result.state;
  st.emit({ type: 'decided', turn: s.turn, answers, summary: result.summary });
  s.turn++;
  s.ask = null;
  s.phaseStart = time;
  s.claimed = null;
  hooks.resolved(time);
}

/** Handles an `answer`, `seal` or `unseal`; false when the body is none of these. */
export function onAskMessage(rules: DecisionGame<unknown>, s: AskingState, st: Stepper, msg: Accepted, hooks: AskHooks): boolean {
  const body = msg.envelope.body;
  const from = msg.envelope.from;
  if (body.type !== 'answer' && body.type !== 'seal' && body.type !== 'unseal') return false;
  const phase = askPhase(rules, s);
  const wanted = body.type === 'answer' ? 'answer' : body.type;
  if (phase !== wanted || body.turn !== s.turn || !askMissing(rules, s).includes(from)) {
    st.violation(
      'out_of_turn',
      from,
      msg,
      `${from} sent an ${body.type} for turn ${String(body.turn)}, but the game waits for ${phase === null ? 'a roll' : `${phase} (turn ${s.turn}) from [${askMissing(rules, s).join(', ')}]`}`,
    );
    return true;
  }
  const k = askOf(s);
  hooks.accepted(from, msg);
  if (body.type === 'answer') {
    const why = rules.whyIllegal(s.game, from, body.choice as JsonValue);
    if (why !== null) st.violation('illegal_answer', from, msg, `${from}'s answer is not legal (${why}): it counts as the default`);
    s.ask = { ...k, answers: { ...k.answers, [from]: body.choice as JsonValue } };
  } else if (body.type === 'seal') {
    if (typeof body.commitment !== 'string' || !/^[0-9a-f]{64}$/.test(body.commitment)) {
      st.violation('unexpected_message', from, msg, `${from}'s seal carries no commitment`);
      return true;
    }
    s.ask = { ...k, seals: { ...k.seals, [from]: body.commitment } };
  } else {
    if (!opens({ game: s.gameId, player: from, purpose: sealPurpose(s.turn) }, k.seals[from]!, body.opening)) {
      st.violation('commit_mismatch', from, msg, `${from}'s unseal does not open its seal ${k.seals[from]!} (turn ${s.turn})`);
      s.ask = { ...k, excused: [...k.excused, from] };
      hooks.forfeit(from, 'commit_mismatch');
    } else {
      const value = (body.opening as Opening).value;
      const why = rules.whyIllegal(s.game, from, value);
      if (why !== null) st.violation('illegal_answer', from, msg, `${from}'s sealed answer is not legal (${why}): it counts as the default`);
      s.ask = { ...askOf(s), answers: { ...askOf(s).answers, [from]: value } };
    }
  }
  completeAsk(rules, s, st, msg.time, hooks);
  return true;
}

/** A deadline claim on an ask round: the late players take the default (a seal not opened is also `withheld`). */
export function onAskDeadline(
  rules: DecisionGame<unknown>,
  s: AskingState,
  st: Stepper,
  msg: Accepted,
  body: DeadlineBody,
  timeoutMs: number,
  hooks: AskHooks,
): void {
  const phase = askPhase(rules, s);
  if (phase === null) return;
  const view = { phase, phaseStart: s.phaseStart, timeoutMs: roundMs(rules, s), claimed: s.claimed };
  const late = settleClaim(st, msg, body, view, { round: s.turn, late: askMissing(rules, s), isOut: (p) => !s.active.includes(p) });
  if (late === null) return;
  // The last sealed answer left unopened, when others were opened, was withheld by one who saw them: a rule
  // broken. Otherwise the default steps in for an absence (docs/SPEC.md §7.4).
  const k0 = askOf(s);
  const steered = late.length === 1 && Object.keys(k0.seals).length > 1;
  for (const p of late) {
    if (phase === 'unseal') st.withheld(p, steered, msg, `${p} did not open its sealed answer of turn ${s.turn} before the deadline; it counts as the default`);
    else st.emit({ type: 'default', turn: s.turn, player: p, phase });
  }
  const k = askOf(s);
  s.ask = { ...k, excused: [...k.excused, ...late] };
  completeAsk(rules, s, st, msg.time, hooks);
}

/** Sends the local player's unseal once every seal is in. */
export function autoUnseal(rules: DecisionGame<unknown>, s: AskingState, st: Stepper): void {
  if (s.me === null || askPhase(rules, s) !== 'unseal' || s.mySeal === null || s.mySeal.turn !== s.turn || s.mySeal.opened) return;
  if (!askMissing(rules, s).includes(s.me)) return;
  st.send({ type: 'unseal', turn: s.turn, opening: s.mySeal.opening });
  s.mySeal = { ...s.mySeal, opened: true };
}

/** A deadline claim on the current ask round, when it is due on the local clock. */
export function askTick(rules: DecisionGame<unknown>, s: AskingState, ctx: Ctx, timeoutMs: number): { claim: DeadlineBody | null; key: string | null } {
  const phase = askPhase(rules, s);
  if (phase === null || s.me === null || !s.active.includes(s.me)) return { claim: null, key: null };
  const view = { phase, phaseStart: s.phaseStart, timeoutMs: roundMs(rules, s), claimed: s.claimed };
  const r = deadlineTick(view, ctx, { me: s.me, seated: true, round: s.turn, missing: () => askMissing(rules, s) }, (v) => ({ ...v }));
  const claim = (r.out[0] as DeadlineBody | undefined) ?? null;
  return { claim, key: claim === null ? null : `${phase}/${s.turn}` };
}
