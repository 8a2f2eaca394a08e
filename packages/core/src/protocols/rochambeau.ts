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
 *
 * With `escrow: {scheme: "vss", threshold: k}` (docs/spec/rochambeau.md §11) each Commit carries a Feldman
 * sharing of the scalar its Reveal is a function of (rochambeau/escrow.ts); every player checks the shares
 * dealt to it before anyone reveals, and from then on nobody leaves the attempt: a Reveal withheld, or one
 * that is not its sharing's, is named and opened from k shares, so the verdict is the one every committed
 * Reveal gives, whatever the last revealer does.
 */
import { isHex, toHex } from '../bytes.js';
import type { Body } from '../envelope.js';
import type { SealedShare } from '../escrow/vss.js';
import type { ViolationCode } from '../errors.js';
import type { GameSetup } from '../setup.js';
import type { Accepted } from '../transcript.js';
import type { JsonValue } from '../jcs.js';
import { ROCHAMBEAU_MESSAGES } from './messages.js';
import { checkHashName } from '../rochambeau/hashes.js';
import { gameSize } from '../rochambeau/codec.js';
import { prepareMove } from '../rochambeau/player.js';
import {
  decideBy,
  awaitingOf,
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
import { active, copy, escrowOn, judgeAttempt, missing, settled, startAttempt, type RochambeauState, type Sent } from './rochambeau-attempt.js';
import {
  commitsDone,
  dealingProblem,
  disqualifyDealer,
  escrowedCommit,
  escrowedReveal,
  escrowParam,
  escrowProgress,
  nameUnderEscrow,
  settleOpening,
  stepCheck,
  stepShare,
} from './rochambeau-escrow.js';

export type { RochambeauState } from './rochambeau-attempt.js';

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
    const k = escrowParam(setup.params, N);
    if (k !== null) {
      s.escrowK = k;
      s.keys = Object.fromEntries(setup.players.map((p) => [p.id, p.key]));
    }
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
      if (!escrowOn(s)) {
        st.send({ type: 'commit', attempt: s.attempt, payload: toHex(move.commit) });
        return;
      }
      st.send(escrowedCommit(s, move, ctx) as Body);
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
      else if (escrowOn(s) && dealingProblem(s, from, body.escrow as JsonValue | undefined) !== null) {
        st.violation('bad_share', from, msg, dealingProblem(s, from, body.escrow as JsonValue | undefined)!);
        disqualifyDealer(s, st, from, 'bad_share');
        if (missing(s).length === 0 && s.arrival.length > 0) commitsDone(s, st, ctx, msg.time);
      } else {
        s.commits[from] = sent;
        s.arrival.push(from);
        if (escrowOn(s)) s.dealings![from] = body.escrow as unknown as { commitments: string[]; shares: SealedShare[] };
        if (missing(s).length === 0) commitsDone(s, st, ctx, msg.time);
      }
    } else if (body.type === 'reveal') {
      if (body.attempt !== s.attempt || sent === null)
        st.violation('unexpected_message', from, msg, `${from}'s Reveal is not a hex payload of attempt ${s.attempt}`);
      else if (escrowOn(s) && s.opening!.includes(from)) {
        // Named already: escrow opens its Reveal; a late one changes nothing.
      } else if (s.phase !== 'reveal')
        st.violation('out_of_turn', from, msg, `${from} revealed before ${escrowOn(s) ? 'every share was checked' : 'every Commit was in'}`);
      else if (s.commits[from] === undefined || s.reveals[from] !== undefined)
        st.violation('unexpected_message', from, msg, `${from} revealed twice, or without a Commit`);
      else if (escrowOn(s) && !escrowedReveal(s, from, sent.payload)) {
        st.violation(
          'commit_mismatch',
          from,
          msg,
          `${from}'s Reveal is not the one its sharing escrows (its secret times G is not ${from}'s C_0): it is opened from the shares`,
        );
        nameUnderEscrow(s, from, 'commit_mismatch');
        escrowProgress(s, st, msg.time, msg);
      } else {
        s.reveals[from] = sent;
        if (escrowOn(s)) escrowProgress(s, st, msg.time, msg);
        else if (missing(s).length === 0) judgeAttempt(s, st, msg.time, msg);
      }
    } else if (body.type === 'check' && escrowOn(s)) {
      stepCheck(s, st, msg);
    } else if (body.type === 'share' && escrowOn(s)) {
      stepShare(s, st, msg);
    } else if (isDeadlineBody(body)) {
      const late = settleClaim(st, msg, body, s, { round: s.attempt, late: missing(s), isOut: (p) => s.out.includes(p) });
      if (late === null) return st.result(s);
      if (settled(s)) {
        const what = { check: 'share check', answer: 'answer to a complaint', reveal: 'Reveal', open: 'share of a withheld Reveal' }[s.phase as 'check'];
        for (const p of late) {
          const then = s.phase === 'answer' ? 'disqualified' : s.phase === 'reveal' ? 'its Reveal is opened from the shares' : 'named';
          // Under escrow a missing message steers nothing: a Reveal is opened, a dealer who does not answer is dropped.
          st.withheld(p, false, msg, `${p} sent no ${what} before the deadline; ${then} (claimed by ${from})`);
          if (s.phase === 'answer') disqualifyDealer(s, st, p, 'withheld');
          else nameUnderEscrow(s, p, 'withheld');
        }
        if (s.phase === 'check') for (const p of late) s.checked!.push(p);
        if (s.phase === 'open') settleOpening(s, st, msg.time, msg, true);
        else escrowProgress(s, st, msg.time, msg);
        return st.result(s);
      }
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
        commitsDone(s, st, ctx, msg.time);
      } else judgeAttempt(s, st, msg.time, msg);
    } else {
      st.violation('unexpected_message', from, msg, `${from} sent a "${body.type}", which Rochambeau does not know`);
    }
    return st.result(s);
  },

  awaiting: (state: RochambeauState) => awaitingOf(state, missing(state)),

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
    if (settled(s)) {
      // Once the commit set is fixed nobody leaves: the player is named and its committed Reveal plays.
      nameUnderEscrow(s, player, code);
      escrowProgress(s, st, time, { line });
      return st.result(s);
    }
    s.out.push(player);
    s.forfeits.push({ player, code });
    st.emit({ type: 'forfeit', player, code });
    // Its Commit stays in the tweaks only if it reveals; a player out before judging simply has no Reveal.
    if (s.phase === 'commit' && missing(s).length === 0 && s.arrival.length > 0) commitsDone(s, st, ctx, time);
    else if (s.phase === 'reveal' && missing(s).length === 0) judgeAttempt(s, st, time, { line });
    return st.result(s);
  },

  outcome(state: RochambeauState): Outcome | null {
    if (state.phase !== 'done') return null;
    return {
      winners: state.winner === null ? [] : [state.winner],
      forfeits: state.forfeits,
      summary: {
        winner: state.winner,
        attempts: state.attempt,
        rounds: state.rounds,
        N: state.N,
        hash: state.hash,
        ...(escrowOn(state) ? { named: state.named!.map((n) => ({ ...n })), opened: [...state.opened!] } : {}),
      } as JsonValue,
    };
  },
};
