/**
 * Orders a player may revise until the deadline, and the `ready` signal (docs/spec/diplomacy.md §10.14).
 *
 * With the setup's `revisable: true`, a commit whose body says `ready: false` is a draft: its author may commit
 * again, and the new commitment (with its own escrow, onion and own-answer box) replaces the old one; the last
 * one counts. A commit without `ready: false` is final, and so is a draft its author confirms with
 * `{type: "ready", round, commitment}`. The commit step waits while a required player has no commitment or
 * only a draft, so it ends as soon as every active power is ready; at the deadline a draft becomes final and
 * its author is not absent.
 */
import { FairtableError } from '@fairtable/core/errors.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { Stepper, type Choices, type Ctx, type StepResult } from '@fairtable/core/protocols/machine.js';
import type { Accepted } from '@fairtable/core/transcript.js';
import type { Opening } from '@fairtable/core/commitment.js';
import { missing, type DiplomacyState } from './state.js';

/** The orders decision's optional member: `false` commits a draft; absent or `true`, final orders. */
export const READY_CHOICE: Choices = { type: 'one-of', values: [true, false] };

/** The orders decision's `ready` member, in a revisable game. */
export const readyMember = (s: DiplomacyState): { ready?: Choices } => (s.revisable ? { ready: READY_CHOICE } : {});

/** The setup's `revisable`: false unless given; refused with sealed commitments (§10.14: why). */
export function revisableParam(params: Readonly<Record<string, JsonValue>>): boolean {
  const given = params.revisable ?? false;
  if (typeof given !== 'boolean') throw new FairtableError('bad_input', 'parameter revisable must be true or false', { field: 'revisable' });
  const sealed = params.sealed;
  const types = sealed !== null && typeof sealed === 'object' && !Array.isArray(sealed) ? sealed.types : undefined;
  if (given && Array.isArray(types) && (types.includes('commit') || types.includes('ready')))
    throw new FairtableError(
      'bad_input',
      'parameter revisable cannot be used with sealed commits: a sealed orderer holds one commitment per player until all are in, so a revision could not be sent before then',
      { field: 'revisable' },
    );
  return given;
}

/** Whether `player`'s current commitment this round is a draft it may still replace. */
export const isDraft = (s: DiplomacyState, player: string): boolean => s.drafts[player] === true;

/** The local player's commitment is a draft, in the log, and not yet confirmed: it is offered the orders again. */
export function mayRevise(s: DiplomacyState): boolean {
  if (s.me === null || !s.revisable || s.phase !== 'commit' || !isDraft(s, s.me) || s.mine === null || s.mine.round !== s.round) return false;
  return s.mine.draft === true && s.mine.commitment === s.commits[s.me];
}

/** What is wrong with a commit's `ready` member, or null. Only `false` (a draft) may be written, and only in a revisable game's phase. */
export function readyProblem(s: DiplomacyState, body: { readonly [key: string]: unknown }): string | null {
  if (body.ready === undefined) return null;
  if (body.ready !== false) return 'a commit says ready only as false (a draft); final orders leave it out';
  if (!s.revisable || s.stage !== 'play') return `${s.stage === 'play' ? 'this game' : 'the assignment round'} takes no drafts: every commitment is final`;
  return null;
}

/** A commit accepted: a draft or final; a replaced draft is announced (its orders stay hidden, that it was revised does not). */
export function recordCommit(s: DiplomacyState, st: Stepper, from: string, body: { readonly [key: string]: unknown }): void {
  if (s.commits[from] !== undefined) st.emit({ type: 'orders-revised', player: from, round: s.round });
  if (body.ready === false) s.drafts[from] = true;
  else delete s.drafts[from];
}

/**
 * A commit or `ready` of the current round that lands after the commit step ended, from a player who had a
 * commitment in it: a race with the deadline, held against nobody; the commitment the set was fixed on counts.
 */
export function lateRevision(s: DiplomacyState, msg: Accepted): boolean {
  const body = msg.envelope.body;
  const from = msg.envelope.from;
  return s.revisable && body.round === s.round && s.phase !== 'commit' && s.commits[from] !== undefined && (body.type === 'ready' || body.type === 'commit');
}

/** `{type: "ready", round, commitment}`: the author's current draft is final. */
export function stepReady(s: DiplomacyState, st: Stepper, msg: Accepted): boolean {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  if (!s.revisable || s.stage !== 'play') {
    st.violation('unexpected_message', from, msg, `${from} sent a ready, and ${s.stage === 'play' ? 'this game' : 'the assignment round'} takes no drafts`);
    return false;
  }
  if (s.phase !== 'commit') {
    st.violation('out_of_turn', from, msg, `${from} sent a ready in the ${s.phase} step of round ${s.round}, having no commitment in it`);
    return false;
  }
  if (s.commits[from] === undefined || body.commitment !== s.commits[from]) {
    st.violation(
      'unexpected_message',
      from,
      msg,
      `${from}'s ready names commitment ${String(body.commitment)}; its current commitment in round ${s.round} is ${s.commits[from] ?? 'none'}`,
    );
    return false;
  }
  if (!isDraft(s, from)) {
    st.violation('unexpected_message', from, msg, `${from} sent a ready for commitment ${s.commits[from]}, which is final already`);
    return false;
  }
  delete s.drafts[from];
  st.emit({ type: 'ready', player: from, round: s.round });
  return true;
}

/**
 * A valid commit-deadline claim: a named player with a draft is not absent, its draft is final now (§10.14);
 * the others are returned, absent as before.
 */
export function settleDrafts(s: DiplomacyState, st: Stepper, step: string, late: readonly string[]): string[] {
  if (step !== 'commit') return [...late];
  const drafted = late.filter((p) => s.commits[p] !== undefined && isDraft(s, p));
  for (const p of drafted) {
    delete s.drafts[p];
    st.emit({ type: 'draft-final', player: p, round: s.round });
  }
  return late.filter((p) => !drafted.includes(p));
}

/**
 * The deadline claim of a seat whose own orders are a draft: the core's tick claims only for a seat that is
 * not missing itself, so a seat holding a draft claims here, naming itself among the missing (its draft then
 * becomes final, as anyone's does). Null when the core's tick applies.
 */
export function draftTick(state: DiplomacyState, ctx: Ctx, copy: (s: DiplomacyState) => DiplomacyState): StepResult<DiplomacyState> | null {
  const me = state.me;
  if (me === null || state.phase !== 'commit' || !state.active.includes(me) || !isDraft(state, me)) return null;
  const st = new Stepper();
  const key = `${state.phase}/${state.round}`;
  // The same wait as the core's (half a timeout past the deadline), so a delayed message lands first.
  if (ctx.now < state.phaseStart + state.timeoutMs + Math.floor(state.timeoutMs / 2) || state.claimed === key) return st.result(state);
  const s = copy(state);
  s.claimed = key;
  st.send({ type: 'deadline', phase: state.phase, round: state.round, missing: missing(state) });
  return st.result(s);
}

/**
 * An answer whose orders file is the current draft's, not itself a draft: sends a ready instead of a new
 * commitment (true), and the seat is not offered the orders again.
 */
export function confirmDraft(s: DiplomacyState, st: Stepper, value: JsonValue, draft: boolean): boolean {
  if (draft || !mayRevise(s) || s.mine!.opening.value !== value) return false;
  s.mine = { ...s.mine!, draft: false };
  st.send({ type: 'ready', round: s.round, commitment: s.mine.commitment! });
  return true;
}

/** The local player's `mine` after a new commitment (with `revisable`: what a later revision or ready needs). */
export function mineAfter(
  s: DiplomacyState,
  c: { commitment: string; opening: Opening },
  answer: JsonValue,
  draft: boolean,
): NonNullable<DiplomacyState['mine']> {
  if (!s.revisable) return { round: s.round, opening: c.opening };
  return { round: s.round, opening: c.opening, commitment: c.commitment, answer, draft, earlier: keepEarlier(s) };
}

/** The answer a `ready` of the local player's stands for: its draft's, with `ready: true` (a seat rebuilt from its key reads it back). */
export function readyAnswer(s: DiplomacyState): JsonValue | null {
  const answer = s.mine?.answer;
  if (answer === undefined || answer === null || typeof answer !== 'object' || Array.isArray(answer)) return null;
  return { ...answer, ready: true };
}

/** The opening of the local player's commitment the set was fixed on (a revision that came too late does not count). */
export function myOpening(s: DiplomacyState): { opening: Opening; seed?: string } | null {
  if (s.me === null || s.mine === null || s.mine.round !== s.round) return null;
  const current = s.commits[s.me];
  if (s.mine.commitment === undefined || current === undefined || s.mine.commitment === current) return s.mine;
  return s.mine.earlier?.[current] ?? s.mine;
}

/** The local player's new commitment this round, keeping the openings of the ones it may replace. */
export function keepEarlier(s: DiplomacyState): Record<string, { opening: Opening; seed?: string }> {
  const m = s.mine;
  if (m === null || m.round !== s.round || m.commitment === undefined) return {};
  return { ...m.earlier, [m.commitment]: { opening: m.opening, ...(m.seed === undefined ? {} : { seed: m.seed }) } };
}
