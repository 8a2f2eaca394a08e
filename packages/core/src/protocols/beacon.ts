/**
 * N-party joint random number: the beacon (docs/SPEC.md §7.1; seeds 003 and 004).
 *
 * Round r: every active player commits to 32 random bytes (purpose
 * "beacon/r"); once every commitment is in, the commit set is fixed and each
 * player reveals, naming the commit set's hash so that all agree on it; the
 * round's seed is H("beacon", JCS({game, round, players, values})). No player
 * can bias the seed without the others' values, which are hidden until all
 * are committed. A player who does not reveal by the deadline is named
 * (`withheld`) and forfeits; because the others' values are then public, the
 * round is not finished without them (that would let the last revealer choose
 * between two seeds) but run again among the remaining players.
 */
import { toHex } from '../bytes.js';
import { commit, opens, type Opening } from '../commitment.js';
import { hashJson, hashJsonHex } from '../hash.js';
import type { GameSetup } from '../setup.js';
import type { JsonValue } from '../jcs.js';
import type { Accepted } from '../transcript.js';
import {
  deadlineTick,
  intParam,
  noDecision,
  refuseDecision,
  isDeadlineBody,
  settleClaim,
  Stepper,
  type Ctx,
  type Machine,
  type Outcome,
  type StepResult,
} from './machine.js';
import type { ViolationCode } from '../errors.js';
import { BEACON_MESSAGES } from './messages.js';

export interface BeaconState {
  readonly gameId: string;
  readonly timeoutMs: number;
  /** How many seeds the game wants. */
  readonly wanted: number;
  active: string[];
  round: number;
  phase: 'commit' | 'reveal' | 'done';
  phaseStart: number;
  lastTime: number;
  commits: Record<string, string>;
  commitSet: string | null;
  values: Record<string, string>;
  seeds: { round: number; seed: string; players: string[] }[];
  forfeits: { player: string; code: ViolationCode }[];
  me: string | null;
  mine: { round: number; opening: Opening } | null;
  claimed: string | null;
}

export function commitSetHash(gameId: string, round: number, active: readonly string[], commits: Record<string, string>): string {
  return hashJsonHex('commit-set', { game: gameId, round, commits: active.map((p) => [p, commits[p] ?? null]) });
}

export function beaconSeed(gameId: string, round: number, players: readonly string[], values: Record<string, string>): string {
  return toHex(hashJson('beacon', { game: gameId, round, players, values: players.map((p) => values[p] ?? null) }));
}

const purpose = (round: number): string => `beacon/${round}`;

/** A copy deep enough for a step (containers copied; openings and seeds are never mutated). */
function copy(s: BeaconState): BeaconState {
  return { ...s, active: [...s.active], commits: { ...s.commits }, values: { ...s.values }, seeds: [...s.seeds], forfeits: [...s.forfeits] };
}

function startRound(s: BeaconState, st: Stepper, ctx: Ctx, time: number): void {
  s.phase = 'commit';
  s.phaseStart = time;
  s.commits = {};
  s.values = {};
  s.commitSet = null;
  s.claimed = null;
  if (s.me !== null && s.active.includes(s.me)) {
    const c = commit({ game: s.gameId, player: s.me, purpose: purpose(s.round) }, toHex(ctx.random(32)), ctx.random);
    s.mine = { round: s.round, opening: c.opening };
    st.send({ type: 'commit', round: s.round, commitment: c.commitment });
  }
}

function openReveal(s: BeaconState, st: Stepper, time: number): void {
  s.phase = 'reveal';
  s.phaseStart = time;
  s.claimed = null;
  s.commitSet = commitSetHash(s.gameId, s.round, s.active, s.commits);
  if (s.me !== null && s.active.includes(s.me) && s.mine !== null && s.mine.round === s.round) {
    st.send({ type: 'reveal', round: s.round, commitSet: s.commitSet, opening: s.mine.opening });
  }
}

function forfeit(s: BeaconState, st: Stepper, player: string, code: ViolationCode): void {
  if (!s.active.includes(player)) return;
  s.active = s.active.filter((p) => p !== player);
  s.forfeits.push({ player, code });
  st.emit({ type: 'forfeit', player, code });
}

function finishRoundIfComplete(s: BeaconState, st: Stepper, ctx: Ctx, time: number): void {
  if (s.phase === 'commit' && s.active.every((p) => s.commits[p] !== undefined)) {
    if (s.active.length === 0) {
      s.phase = 'done';
      return;
    }
    openReveal(s, st, time);
  } else if (s.phase === 'reveal' && s.active.every((p) => s.values[p] !== undefined)) {
    const seed = beaconSeed(s.gameId, s.round, s.active, s.values);
    s.seeds.push({ round: s.round, seed, players: [...s.active] });
    st.emit({ type: 'beacon', round: s.round, seed, players: [...s.active] });
    s.round++;
    if (s.seeds.length >= s.wanted || s.active.length === 0) s.phase = 'done';
    else startRound(s, st, ctx, time);
  }
}

function missing(s: BeaconState): string[] {
  if (s.phase === 'commit') return s.active.filter((p) => s.commits[p] === undefined);
  if (s.phase === 'reveal') return s.active.filter((p) => s.values[p] === undefined);
  return [];
}

export const beacon: Machine<BeaconState> = {
  protocol: 'beacon',
  messages: BEACON_MESSAGES,
  // The beacon asks nothing of a person: each value is drawn from ctx.random.
  decision: noDecision,
  decide: refuseDecision,

  // The state is data through and through: saved as it is (docs/spec/mail.md §2.1).
  saveState(s: BeaconState): JsonValue {
    return s as unknown as JsonValue;
  },

  loadState(saved: JsonValue): BeaconState {
    return copy(saved as unknown as BeaconState);
  },

  init(setup: GameSetup, gameId: string, me: string | null, ctx: Ctx): StepResult<BeaconState> {
    const s: BeaconState = {
      gameId,
      timeoutMs: intParam(setup.params, 'timeoutMs', 30_000, 1, 2 ** 40),
      wanted: intParam(setup.params, 'rounds', 1, 1, 1_000_000),
      active: setup.players.map((p) => p.id),
      round: 1,
      phase: 'commit',
      phaseStart: setup.created,
      lastTime: setup.created,
      commits: {},
      commitSet: null,
      values: {},
      seeds: [],
      forfeits: [],
      me,
      mine: null,
      claimed: null,
    };
    const st = new Stepper();
    startRound(s, st, ctx, setup.created);
    return st.result(s);
  },

  step(state: BeaconState, msg: Accepted, ctx: Ctx): StepResult<BeaconState> {
    const s = copy(state);
    const st = new Stepper();
    const { envelope } = msg;
    const from = envelope.from;
    const body = envelope.body;
    s.lastTime = Math.max(s.lastTime, msg.time);
    if (body.type === 'setup') return st.result(s);
    if (!s.active.includes(from)) {
      // Forfeited players' late messages change nothing; a forfeit is final.
      return st.result(s);
    }
    if (typeof body.round === 'number' && body.round < s.round) return st.result(s); // overtaken by a restart: stale, not a fault
    if (s.phase === 'done') {
      // Players race to the end; what arrives after it changes nothing and is held against no one.
      return st.result(s);
    }
    if (body.type === 'commit') {
      if (body.round !== s.round || typeof body.commitment !== 'string') {
        st.violation('unexpected_message', from, msg, `${from}'s commit is for round ${String(body.round)}, the beacon is in round ${s.round}`);
      } else if (s.phase !== 'commit') {
        st.violation('out_of_turn', from, msg, `${from} committed after the commit set of round ${s.round} was fixed`);
      } else if (s.commits[from] !== undefined) {
        st.violation('duplicate_commit', from, msg, `${from} committed twice in round ${s.round}`);
      } else if (Object.values(s.commits).includes(body.commitment)) {
        const owner = Object.keys(s.commits).find((p) => s.commits[p] === body.commitment)!;
        st.violation('copied_commitment', from, msg, `${from} copied ${owner}'s commitment in round ${s.round}`);
        forfeit(s, st, from, 'copied_commitment');
        finishRoundIfComplete(s, st, ctx, msg.time);
      } else {
        s.commits[from] = body.commitment;
        finishRoundIfComplete(s, st, ctx, msg.time);
      }
    } else if (body.type === 'reveal') {
      if (body.round !== s.round) {
        st.violation('unexpected_message', from, msg, `${from}'s reveal is for round ${String(body.round)}, the beacon is in round ${s.round}`);
      } else if (s.phase !== 'reveal') {
        st.violation('out_of_turn', from, msg, `${from} revealed before every commitment of round ${s.round} was in`);
      } else if (s.values[from] !== undefined) {
        st.violation('unexpected_message', from, msg, `${from} revealed twice in round ${s.round}`);
      } else if (body.commitSet !== s.commitSet) {
        st.violation('commit_set_mismatch', from, msg, `${from} revealed on commit set ${String(body.commitSet)}, the agreed set is ${s.commitSet}`);
        forfeit(s, st, from, 'commit_set_mismatch');
        restartAfterLoss(s, st, ctx, msg.time);
      } else if (
        !opens({ game: s.gameId, player: from, purpose: purpose(s.round) }, s.commits[from]!, body.opening) ||
        typeof (body.opening as { value: unknown }).value !== 'string' ||
        !/^[0-9a-f]{64}$/.test((body.opening as { value: string }).value)
      ) {
        st.violation('commit_mismatch', from, msg, `${from}'s reveal does not open its commitment ${s.commits[from]} of round ${s.round}`);
        forfeit(s, st, from, 'commit_mismatch');
        restartAfterLoss(s, st, ctx, msg.time);
      } else {
        s.values[from] = (body.opening as Opening).value as string;
        finishRoundIfComplete(s, st, ctx, msg.time);
      }
    } else if (isDeadlineBody(body)) {
      const late = settleClaim(st, msg, body, s, { round: s.round, late: missing(s), isOut: (p) => !s.active.includes(p) });
      if (late === null) return st.result(s);
      for (const p of late) {
        st.violation('withheld', p, msg, `${p} did not ${s.phase} in round ${s.round} before the deadline (${s.phaseStart + s.timeoutMs}); claimed by ${from}`);
        forfeit(s, st, p, 'withheld');
      }
      if (s.phase === 'commit') finishRoundIfComplete(s, st, ctx, msg.time);
      else restartAfterLoss(s, st, ctx, msg.time);
    } else {
      st.violation('unexpected_message', from, msg, `${from} sent a "${body.type}", which the beacon does not know`);
    }
    return st.result(s);
  },

  tick(state: BeaconState, ctx: Ctx): StepResult<BeaconState> {
    return deadlineTick(
      state,
      ctx,
      { me: state.me, seated: state.me !== null && state.active.includes(state.me), round: state.round, missing: () => missing(state) },
      copy,
    );
  },

  penalize(state: BeaconState, player: string, code: ViolationCode, _line: number, ctx: Ctx, time: number): StepResult<BeaconState> {
    const st = new Stepper();
    if (!state.active.includes(player) || state.phase === 'done') return st.result(state);
    const s = copy(state);
    forfeit(s, st, player, code);
    if (s.phase === 'reveal' && Object.keys(s.values).length > 0) restartAfterLoss(s, st, ctx, time);
    else if (s.phase === 'reveal') {
      // Nobody has revealed yet: the commit set shrinks and everybody reveals on the new one.
      openReveal(s, st, time);
      finishRoundIfComplete(s, st, ctx, time);
    } else finishRoundIfComplete(s, st, ctx, time);
    return st.result(s);
  },

  outcome(state: BeaconState): Outcome | null {
    if (state.phase !== 'done') return null;
    return { winners: [...state.active], forfeits: state.forfeits, summary: { seeds: state.seeds } };
  },
};

/** Values already revealed in this round are public now: the round starts over among those left. */
function restartAfterLoss(s: BeaconState, st: Stepper, ctx: Ctx, time: number): void {
  if (s.active.length === 0) {
    s.phase = 'done';
    return;
  }
  s.round++;
  startRound(s, st, ctx, time);
}
