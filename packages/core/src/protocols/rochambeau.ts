/**
 * Rochambeau played for real (docs/spec/rochambeau.md; seed 001): the draft's
 * Commit and Reveal payloads, byte for byte, each carried in a signed envelope
 * as `{type: "commit" | "reveal", attempt, payload: hex}`. Everyone commits;
 * once every Commit is in, everyone reveals; the judge of
 * `rochambeau/judge.ts` names the winner from the payloads in the order the
 * Commits stand in the transcript, with fairtable's nonce binding on
 * (resolution 11). A Reveal before every Commit is in is `out_of_turn`; a
 * player who does not reveal by the deadline is named (`withheld`) and, as the
 * draft says, disqualified. A judge's "no winner" (round 255 still tied)
 * starts a fresh attempt with fresh Commits. The state (the hand) is the local
 * player's decision (`decision`/`decide`, docs/SPEC.md §7.5); the machine
 * draws only the nonce.
 */
import { fromHex, isHex, toHex } from '../bytes.js';
import type { ViolationCode } from '../errors.js';
import type { GameSetup } from '../setup.js';
import type { Accepted } from '../transcript.js';
import type { JsonValue } from '../jcs.js';
import { ROCHAMBEAU_MESSAGES } from './messages.js';
import { checkHashName, type HashName } from '../rochambeau/hashes.js';
import { gameSize } from '../rochambeau/codec.js';
import { prepareMove } from '../rochambeau/player.js';
import { judge, type PlayerSubmission } from '../rochambeau/judge.js';
import {
  decideBy,
  deadlineTick,
  intParam,
  type Decision,
  isDeadlineBody,
  settleClaim,
  Stepper,
  type Ctx,
  type Machine,
  type Outcome,
  type StepResult,
} from './machine.js';

interface Sent {
  payload: string;
  line: number;
  hash: string;
}

export interface RochambeauState {
  readonly gameId: string;
  readonly N: string;
  readonly hash: HashName;
  readonly timeoutMs: number;
  players: string[];
  attempt: number;
  phase: 'commit' | 'reveal' | 'done';
  phaseStart: number;
  commits: Record<string, Sent>;
  /** Players in the order their Commits arrived: the judge's order. */
  arrival: string[];
  reveals: Record<string, Sent>;
  out: string[];
  winner: string | null;
  rounds: number;
  forfeits: { player: string; code: ViolationCode }[];
  me: string | null;
  mine: { attempt: number; reveal: string } | null;
  claimed: string | null;
}

const JUDGE_CODES: Readonly<Record<string, ViolationCode>> = {
  no_commit: 'withheld',
  no_reveal: 'withheld',
  commit_mismatch: 'commit_mismatch',
  copied_commit: 'copied_commitment',
  foreign_nonce: 'copied_commitment',
  bad_payload_type: 'bad_payload',
  bad_length: 'bad_payload',
  trailing_bytes: 'bad_payload',
  short_nonce: 'bad_payload',
  state_out_of_range: 'bad_payload',
};

function copy(s: RochambeauState): RochambeauState {
  return {
    ...s,
    players: [...s.players],
    commits: { ...s.commits },
    arrival: [...s.arrival],
    reveals: { ...s.reveals },
    out: [...s.out],
    forfeits: [...s.forfeits],
  };
}

function active(s: RochambeauState): string[] {
  return s.players.filter((p) => !s.out.includes(p));
}

function startAttempt(s: RochambeauState, time: number): void {
  s.phase = 'commit';
  s.phaseStart = time;
  s.commits = {};
  s.arrival = [];
  s.reveals = {};
  s.claimed = null;
  // The local player's Commit waits for its hand (handDecision).
}

function handDecision(s: RochambeauState): Decision | null {
  if (s.me === null || s.phase !== 'commit' || !active(s).includes(s.me) || s.commits[s.me] !== undefined) return null;
  if (s.mine !== null && s.mine.attempt === s.attempt) return null;
  return {
    kind: 'hand',
    prompt: `Choose your state, 1 to ${(BigInt(s.N) - 1n).toString()} (attempt ${s.attempt})`,
    choices: { type: 'integer', min: '1', max: (BigInt(s.N) - 1n).toString() },
    deadline: s.phaseStart + s.timeoutMs,
  };
}

function openReveals(s: RochambeauState, st: Stepper, time: number): void {
  s.phase = 'reveal';
  s.phaseStart = time;
  s.claimed = null;
  if (s.me !== null && s.mine !== null && s.mine.attempt === s.attempt && s.commits[s.me] !== undefined) {
    st.send({ type: 'reveal', attempt: s.attempt, payload: s.mine.reveal });
  }
}

/** Judges the attempt; names every disqualified player with the envelope that disqualified it. */
function judgeAttempt(s: RochambeauState, st: Stepper, time: number, at: Accepted | { line: number }): void {
  const players: PlayerSubmission[] = s.arrival.map((id) => ({
    id,
    commit: fromHex(s.commits[id]!.payload),
    reveal: s.reveals[id] === undefined ? null : fromHex(s.reveals[id]!.payload),
  }));
  const verdict = judge({ N: s.N, hash: s.hash, gameId: s.gameId, players });
  for (const d of verdict.disqualified) {
    const sent = s.reveals[d.id] ?? s.commits[d.id];
    const code = JUDGE_CODES[d.code] ?? 'bad_payload';
    if (code !== 'withheld') {
      st.violation(
        code,
        d.id,
        sent === undefined ? at : { line: sent.line },
        `${d.id} is disqualified: ${d.code}: ${d.detail}`,
        sent === undefined ? [] : [{ line: sent.line, hash: sent.hash }],
      );
    }
    if (!s.out.includes(d.id)) {
      s.out.push(d.id);
      s.forfeits.push({ player: d.id, code });
      st.emit({ type: 'forfeit', player: d.id, code });
    }
  }
  s.rounds = verdict.rounds.length;
  if (verdict.outcome === 'no_winner') {
    st.emit({ type: 'no-winner', attempt: s.attempt });
    s.attempt++;
    startAttempt(s, time);
    return;
  }
  s.winner = verdict.winner;
  s.phase = 'done';
  st.emit({ type: 'game-over', winners: verdict.winner === null ? [] : [verdict.winner], rounds: verdict.rounds.length });
}

function missing(s: RochambeauState): string[] {
  if (s.phase === 'commit') return active(s).filter((p) => s.commits[p] === undefined);
  if (s.phase === 'reveal') return s.arrival.filter((p) => !s.out.includes(p) && s.reveals[p] === undefined);
  return [];
}

export const rochambeauMachine: Machine<RochambeauState> = {
  protocol: 'rochambeau',
  messages: ROCHAMBEAU_MESSAGES,

  init(setup: GameSetup, gameId: string, me: string | null, _ctx: Ctx): StepResult<RochambeauState> {
    const N = String(setup.params.N ?? 3);
    gameSize(N); // refuses an even N or N < 3 with a coded error
    const s: RochambeauState = {
      gameId,
      N,
      hash: checkHashName(setup.params.hash ?? 'sha-256'),
      timeoutMs: intParam(setup.params, 'timeoutMs', 30_000, 1, 2 ** 40),
      players: setup.players.map((p) => p.id),
      attempt: 1,
      phase: 'commit',
      phaseStart: setup.created,
      commits: {},
      arrival: [],
      reveals: {},
      out: [],
      winner: null,
      rounds: 0,
      forfeits: [],
      me,
      mine: null,
      claimed: null,
    };
    const st = new Stepper();
    startAttempt(s, setup.created);
    return st.result(s);
  },

  decision: handDecision,

  decide(state: RochambeauState, choice: JsonValue, ctx: Ctx): StepResult<RochambeauState> {
    return decideBy(state, handDecision, choice, copy, (s, st, hand) => {
      const move = prepareMove({
        N: s.N,
        hash: s.hash,
        binding: { gameId: s.gameId, playerId: s.me! },
        state: BigInt(hand as string | number),
        random: ctx.random,
      });
      s.mine = { attempt: s.attempt, reveal: toHex(move.reveal) };
      st.send({ type: 'commit', attempt: s.attempt, payload: toHex(move.commit) });
    });
  },

  step(state: RochambeauState, msg: Accepted, ctx: Ctx): StepResult<RochambeauState> {
    const st = new Stepper();
    const { envelope } = msg;
    const from = envelope.from;
    const body = envelope.body;
    if (body.type === 'setup' || state.out.includes(from) || state.phase === 'done') return st.result(state);
    if (typeof body.attempt === 'number' && body.attempt < state.attempt) return st.result(state);
    const s = copy(state);
    const sent: Sent | null = typeof body.payload === 'string' && isHex(body.payload) ? { payload: body.payload, line: msg.line, hash: msg.hash } : null;
    if (body.type === 'commit') {
      if (body.attempt !== s.attempt || sent === null)
        st.violation('unexpected_message', from, msg, `${from}'s Commit is not a hex payload of attempt ${s.attempt}`);
      else if (s.phase !== 'commit') st.violation('out_of_turn', from, msg, `${from} committed after every Commit was in`);
      else if (s.commits[from] !== undefined) st.violation('duplicate_commit', from, msg, `${from} committed twice`);
      else {
        s.commits[from] = sent;
        s.arrival.push(from);
        if (missing(s).length === 0) openReveals(s, st, msg.time);
      }
    } else if (body.type === 'reveal') {
      if (body.attempt !== s.attempt || sent === null)
        st.violation('unexpected_message', from, msg, `${from}'s Reveal is not a hex payload of attempt ${s.attempt}`);
      else if (s.phase !== 'reveal') st.violation('out_of_turn', from, msg, `${from} revealed before every Commit was in`);
      else if (s.commits[from] === undefined || s.reveals[from] !== undefined)
        st.violation('unexpected_message', from, msg, `${from} revealed twice, or without a Commit`);
      else {
        s.reveals[from] = sent;
        if (missing(s).length === 0) judgeAttempt(s, st, msg.time, msg);
      }
    } else if (isDeadlineBody(body)) {
      const late = settleClaim(st, msg, body, s, { round: s.attempt, late: missing(s), isOut: (p) => s.out.includes(p) });
      if (late === null) return st.result(s);
      // The one Reveal still missing when others are in was withheld by one who saw them: a rule broken; a missing
      // Commit, or Reveals missing from several, steer nothing (docs/SPEC.md §7.4).
      const steered = s.phase === 'reveal' && late.length === 1 && Object.keys(s.reveals).length > 0;
      for (const p of late) {
        st.withheld(p, steered, msg, `${p} sent no ${s.phase === 'commit' ? 'Commit' : 'Reveal'} before the deadline; disqualified (claimed by ${from})`);
      }
      if (s.phase === 'commit') {
        for (const p of late) {
          s.out.push(p);
          s.forfeits.push({ player: p, code: 'withheld' });
          st.emit({ type: 'forfeit', player: p, code: 'withheld' });
        }
        openReveals(s, st, msg.time);
      } else judgeAttempt(s, st, msg.time, msg);
    } else {
      st.violation('unexpected_message', from, msg, `${from} sent a "${body.type}", which Rochambeau does not know`);
    }
    return st.result(s);
  },

  tick(state: RochambeauState, ctx: Ctx): StepResult<RochambeauState> {
    return deadlineTick(
      state,
      ctx,
      { me: state.me, seated: state.me !== null && !state.out.includes(state.me), round: state.attempt, missing: () => missing(state) },
      copy,
    );
  },

  penalize(state: RochambeauState, player: string, code: ViolationCode, line: number, ctx: Ctx, time: number): StepResult<RochambeauState> {
    const st = new Stepper();
    if (state.phase === 'done' || state.out.includes(player)) return st.result(state);
    const s = copy(state);
    s.out.push(player);
    s.forfeits.push({ player, code });
    st.emit({ type: 'forfeit', player, code });
    // Its Commit stays in the tweaks only if it reveals; a player out before judging simply has no Reveal.
    if (s.phase === 'commit' && missing(s).length === 0 && s.arrival.length > 0) openReveals(s, st, time);
    else if (s.phase === 'reveal' && missing(s).length === 0) judgeAttempt(s, st, time, { line });
    return st.result(s);
  },

  outcome(state: RochambeauState): Outcome | null {
    if (state.phase !== 'done') return null;
    return {
      winners: state.winner === null ? [] : [state.winner],
      forfeits: state.forfeits,
      summary: { winner: state.winner, attempts: state.attempt, rounds: state.rounds, N: state.N, hash: state.hash } as JsonValue,
    };
  },
};
