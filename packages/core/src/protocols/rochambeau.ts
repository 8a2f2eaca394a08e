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
import { FairtableError } from '../errors.js';
import { deal, randomScalar, reconstruct, sealShares, secretCommitment, verifyShare, type SealedShare } from '../escrow/vss.js';
import { ESCROW_MAX_M, revealOfSecret, rochambeauShareContext, secretOfReveal } from '../rochambeau/escrow.js';
import { ristretto255 } from '@noble/curves/ed25519.js';
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
  phase: 'commit' | 'check' | 'answer' | 'reveal' | 'open' | 'done';
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
  mine: { attempt: number; reveal: string; shares?: Record<string, string> } | null;
  claimed: string | null;
  /** The escrow threshold k, or null without escrow (docs/spec/rochambeau.md §11). */
  escrowK?: number | null;
  /** Escrow: each player's public keys, for sealing shares. */
  keys?: Record<string, string>;
  /** Escrow: the players of this attempt as it started; the seats of every dealing. */
  roster?: string[];
  dealings?: Record<string, { commitments: string[]; shares: SealedShare[] }>;
  checked?: string[];
  /** Escrow: dealer → the complainants it has not answered yet. */
  pending?: Record<string, string[]>;
  /** Escrow: shares published and checked, dealer → holder → share (answers to complaints, openings). */
  valid?: Record<string, Record<string, string>>;
  /** Escrow: the shares dealt to the local player that it checked, by dealer (never published unless asked). */
  held?: Record<string, string>;
  /** Escrow: players named after the commit set was fixed; their committed Reveal plays all the same. */
  named?: { player: string; code: ViolationCode }[];
  /** Escrow: the dealers whose Reveal is being opened. */
  opening?: string[];
  /** Escrow: the Reveals opened from shares, by player. */
  opened?: string[];
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
  const c: RochambeauState = {
    ...s,
    players: [...s.players],
    commits: { ...s.commits },
    arrival: [...s.arrival],
    reveals: { ...s.reveals },
    out: [...s.out],
    forfeits: [...s.forfeits],
  };
  if (s.escrowK === null || s.escrowK === undefined) return c;
  return {
    ...c,
    roster: [...s.roster!],
    dealings: { ...s.dealings },
    checked: [...s.checked!],
    pending: Object.fromEntries(Object.entries(s.pending!).map(([k, v]) => [k, [...v]])),
    valid: Object.fromEntries(Object.entries(s.valid!).map(([k, v]) => [k, { ...v }])),
    held: { ...s.held },
    named: [...s.named!],
    opening: [...s.opening!],
    opened: [...s.opened!],
  };
}

const escrowOn = (s: RochambeauState): boolean => s.escrowK !== null && s.escrowK !== undefined;
/** The threshold of this attempt: k, or every other player when fewer are left. */
const threshold = (s: RochambeauState): number => Math.max(1, Math.min(s.escrowK ?? 1, s.roster!.length - 1));
const othersOf = (s: RochambeauState, dealer: string): string[] => s.roster!.filter((p) => p !== dealer);
const seatOf = (s: RochambeauState, dealer: string, holder: string): number => othersOf(s, dealer).indexOf(holder) + 1;
const isNamed = (s: RochambeauState, p: string): boolean => s.named!.some((n) => n.player === p);
/** Escrow: the commit set is fixed and nobody leaves the attempt any more. */
const settled = (s: RochambeauState): boolean => escrowOn(s) && s.phase !== 'commit';
const Fn = ristretto255.Point.Fn;

/** The escrow parameter: `{scheme: "vss", threshold: k}` (k ≥ 1) or absent. */
function escrowParam(params: { readonly [key: string]: JsonValue }, N: string): number | null {
  const e = params.escrow;
  if (e === undefined || e === null) return null;
  if (typeof e !== 'object' || Array.isArray(e) || e.scheme !== 'vss' || Object.keys(e).some((k) => k !== 'scheme' && k !== 'threshold')) {
    throw new FairtableError('bad_input', 'escrow: expected {"scheme": "vss", "threshold": k}', { field: 'escrow' });
  }
  if (gameSize(N).m > ESCROW_MAX_M) throw new FairtableError('bad_input', `escrow: N needs ${gameSize(N).m} octets; at most ${ESCROW_MAX_M} can be escrowed`, { field: 'escrow' });
  return intParam(e, 'threshold', 0, 1, 1000);
}

/** Why a published dealing cannot be used (wrong size, a commitment that is not a point), or null. */
function dealingProblem(s: RochambeauState, dealer: string, d: JsonValue | undefined): string | null {
  const x = d as { commitments?: unknown; shares?: unknown } | undefined;
  if (x === undefined || !Array.isArray(x.commitments) || !Array.isArray(x.shares)) return `${dealer}'s Commit carries no sharing, and this game escrows every Reveal`;
  if (x.commitments.length !== threshold(s)) return `${dealer}'s sharing has ${x.commitments.length} commitments, the threshold is ${threshold(s)}`;
  if (x.shares.length !== s.roster!.length - 1) return `${dealer}'s sharing seals ${x.shares.length} shares for ${s.roster!.length - 1} other players`;
  for (const c of x.commitments) {
    try {
      ristretto255.Point.fromHex(c as string);
    } catch {
      return `${dealer}'s sharing commits to a value that is not a ristretto255 point`;
    }
  }
  for (const sh of x.shares) if (typeof sh !== 'object' || sh === null || typeof (sh as SealedShare).ephemeral !== 'string' || typeof (sh as SealedShare).box !== 'string') return `${dealer}'s sealed shares are not {ephemeral, box}`;
  return null;
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
  if (escrowOn(s)) {
    s.roster = active(s);
    s.dealings = {};
    s.checked = [];
    s.pending = {};
    s.valid = {};
    s.held = {};
    s.named = [];
    s.opening = [];
    s.opened = [];
  }
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

/** Every Commit is in (or out): with escrow every player checks its shares first, else everyone reveals. */
function commitsDone(s: RochambeauState, st: Stepper, ctx: Ctx, time: number): void {
  if (escrowOn(s) && members(s).length >= 2) openCheck(s, st, ctx, time);
  else openReveals(s, st, time);
}

/** The players of the attempt: those whose Commit stands, and who are not out. */
function members(s: RochambeauState): string[] {
  return s.arrival.filter((p) => !s.out.includes(p));
}

/** Escrow: each player opens the shares sealed to it, checks them, and complains of the dealers whose share is bad. */
function openCheck(s: RochambeauState, st: Stepper, ctx: Ctx, time: number): void {
  s.phase = 'check';
  s.phaseStart = time;
  s.claimed = null;
  const me = s.me;
  if (me === null || !members(s).includes(me)) return;
  const complaints: string[] = [];
  for (const dealer of members(s)) {
    if (dealer === me) continue;
    const d = s.dealings![dealer]!;
    const seat = seatOf(s, dealer, me);
    let share: string | null = null;
    try {
      if (ctx.openShare !== undefined) share = ctx.openShare(d.shares[seat - 1]!, rochambeauShareContext(s.gameId, s.attempt, dealer, me));
    } catch {
      share = null;
    }
    if (share !== null && verifyShare(seat, share, d.commitments)) s.held![dealer] = share;
    else complaints.push(dealer);
  }
  st.send({ type: 'check', attempt: s.attempt, complaints });
}

/** Escrow: the named players' Reveals are opened; every other member publishes its share of each. */
function openEscrow(s: RochambeauState, st: Stepper, time: number, at: Accepted | { line: number }): void {
  s.phase = 'open';
  s.phaseStart = time;
  s.claimed = null;
  const me = s.me;
  if (me !== null && holders(s).includes(me)) {
    for (const dealer of s.opening!) {
      const share = s.held![dealer] ?? s.valid![dealer]?.[me];
      if (share !== undefined) st.send({ type: 'share', attempt: s.attempt, dealer, seat: me, share });
    }
  }
  settleOpening(s, st, time, at, false);
}

/** Escrow: who is asked for shares: the members whose own Reveal is not being opened. */
function holders(s: RochambeauState): string[] {
  return members(s).filter((p) => !s.opening!.includes(p));
}

/**
 * Escrow: opens each named player's Reveal once k valid shares of it are public. `final` (the deadline has
 * named the holders still missing): a Reveal with fewer than k valid shares stays withheld and the judge
 * leaves it out, as without escrow.
 */
function settleOpening(s: RochambeauState, st: Stepper, time: number, at: Accepted | { line: number }, final: boolean): void {
  const k = threshold(s);
  const m = gameSize(s.N).m;
  for (const dealer of s.opening!) {
    if (s.opened!.includes(dealer)) continue;
    const got = Object.entries(s.valid![dealer] ?? {});
    if (got.length < k) continue;
    const secret = reconstruct(got.slice(0, k).map(([holder, share]) => ({ seat: seatOf(s, dealer, holder), share })));
    s.opened!.push(dealer);
    const reveal = revealOfSecret(secret, m, s.gameId, dealer);
    st.emit({ type: 'escrow-opened', attempt: s.attempt, player: dealer });
    if (reveal !== null) s.reveals[dealer] = { payload: toHex(reveal), line: at.line, hash: 'hash' in at ? at.hash : '' };
  }
  if (s.opening!.every((d) => s.opened!.includes(d)) || final) judgeAttempt(s, st, time, at);
}

/** Escrow: a player named once the commit set is fixed keeps its committed Reveal in the attempt. */
function nameUnderEscrow(s: RochambeauState, player: string, code: ViolationCode): void {
  if (!isNamed(s, player)) s.named!.push({ player, code });
  if (s.phase === 'reveal' && s.reveals[player] === undefined && !s.opening!.includes(player)) s.opening!.push(player);
}

/** Escrow: what follows a change in the check, answer, reveal or open phase. */
function escrowProgress(s: RochambeauState, st: Stepper, time: number, at: Accepted | { line: number }): void {
  if (missing(s).length > 0) {
    if (s.phase === 'open') settleOpening(s, st, time, at, false);
    return;
  }
  if (s.phase === 'check') {
    if (Object.values(s.pending!).some((c) => c.length > 0)) {
      s.phase = 'answer';
      s.phaseStart = time;
      s.claimed = null;
    } else openReveals(s, st, time);
  } else if (s.phase === 'answer') openReveals(s, st, time);
  else if (s.phase === 'reveal') {
    if (s.opening!.length === 0) judgeAttempt(s, st, time, at);
    else openEscrow(s, st, time, at);
  } else if (s.phase === 'open') settleOpening(s, st, time, at, true);
}

/** Escrow: a dealer whose sharing is shown bad before any Reveal leaves the attempt (nothing is public yet). */
function disqualifyDealer(s: RochambeauState, st: Stepper, dealer: string, code: ViolationCode): void {
  if (s.out.includes(dealer)) return;
  s.out.push(dealer);
  s.forfeits.push({ player: dealer, code });
  st.emit({ type: 'forfeit', player: dealer, code });
  delete s.pending![dealer];
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
  if (s.phase === 'reveal') return members(s).filter((p) => s.reveals[p] === undefined && !(escrowOn(s) && s.opening!.includes(p)));
  if (s.phase === 'check') return members(s).filter((p) => !s.checked!.includes(p));
  if (s.phase === 'answer') return members(s).filter((p) => (s.pending![p] ?? []).length > 0);
  if (s.phase === 'open') {
    const unopened = s.opening!.filter((d) => !s.opened!.includes(d));
    // A holder named for a wrong share has shown what it holds: it is asked no more.
    const spent = (p: string): boolean => s.named!.some((n) => n.player === p && n.code === 'bad_share');
    return holders(s).filter((p) => !spent(p) && unopened.some((d) => d !== p && s.valid![d]?.[p] === undefined));
  }
  return [];
}

/** Escrow: whether a Reveal payload is the one `from`'s sharing escrows (its secret times G is C_0). */
function escrowedReveal(s: RochambeauState, from: string, payload: string): boolean {
  const secret = secretOfReveal(fromHex(payload), gameSize(s.N).m, s.gameId, from);
  if (secret === null || secret >= Fn.ORDER) return false;
  return secret !== 0n && secretCommitment(secret) === s.dealings![from]!.commitments[0];
}

function stepCheck(s: RochambeauState, st: Stepper, msg: Accepted): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  if (body.attempt !== s.attempt) {
    st.violation('unexpected_message', from, msg, `${from}'s share check is for attempt ${String(body.attempt)}, the game is in attempt ${s.attempt}`);
    return;
  }
  if (s.phase !== 'check' || s.checked!.includes(from) || !members(s).includes(from)) {
    st.violation('out_of_turn', from, msg, `${from} sent a share check outside the check phase, or twice`);
    return;
  }
  const complaints = body.complaints as string[];
  const bad = complaints.filter((d) => d === from || !members(s).includes(d) || complaints.indexOf(d) !== complaints.lastIndexOf(d));
  s.checked!.push(from);
  if (bad.length > 0) {
    // Named, and its check counts as none: the complaints it could make stand unmade.
    st.violation('unexpected_message', from, msg, `${from} complained of [${bad.join(', ')}], who dealt it nothing in this attempt (or twice)`);
    nameUnderEscrow(s, from, 'unexpected_message');
  } else {
    for (const dealer of complaints) {
      (s.pending![dealer] ??= []).push(from);
      // A dealer complained of answers in the clear: the complainant's share, checkable by anyone.
      if (dealer === s.me && s.mine?.attempt === s.attempt && s.mine.shares !== undefined) {
        st.send({ type: 'share', attempt: s.attempt, dealer, seat: from, share: s.mine.shares[from]! });
      }
    }
  }
  escrowProgress(s, st, msg.time, msg);
}

function stepShare(s: RochambeauState, st: Stepper, msg: Accepted): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  const dealer = body.dealer as string;
  const seat = body.seat as string;
  const share = body.share as string;
  if (body.attempt !== s.attempt) {
    st.violation('unexpected_message', from, msg, `${from}'s share is for attempt ${String(body.attempt)}, the game is in attempt ${s.attempt}`);
    return;
  }
  const d = s.dealings![dealer];
  if ((s.phase === 'check' || s.phase === 'answer') && dealer === from && (s.pending![from] ?? []).includes(seat)) {
    // The dealer's answer to a complaint.
    s.pending![from] = s.pending![from]!.filter((p) => p !== seat);
    if (!verifyShare(seatOf(s, from, seat), share, d!.commitments)) {
      st.violation('bad_share', from, msg, `${from}'s share for ${seat}, published to answer its complaint, does not fit ${from}'s commitments`);
      disqualifyDealer(s, st, from, 'bad_share');
    } else {
      (s.valid![from] ??= {})[seat] = share;
      if (seat === s.me) s.held![from] = share;
    }
    escrowProgress(s, st, msg.time, msg);
    return;
  }
  if (s.phase === 'open' && seat === from && d !== undefined && s.opening!.includes(dealer) && holders(s).includes(from) && from !== dealer) {
    if (s.valid![dealer]?.[from] !== undefined || s.opened!.includes(dealer)) return; // a resend, or opened already
    if (!verifyShare(seatOf(s, dealer, from), share, d.commitments)) {
      st.violation('bad_share', from, msg, `${from}'s share of ${dealer}'s Reveal does not fit ${dealer}'s commitments (${from} checked it before the Reveals)`);
      nameUnderEscrow(s, from, 'bad_share');
    } else (s.valid![dealer] ??= {})[from] = share;
    escrowProgress(s, st, msg.time, msg);
    return;
  }
  if (s.phase === 'done') return;
  st.violation('out_of_turn', from, msg, `${from} published a share of ${dealer}'s Reveal for ${seat}, which nobody asked for (${s.phase})`);
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
      // The sharing's secret is the Reveal itself (rochambeau/escrow.ts): C_0 = s·G binds the two.
      const me = s.me!;
      const secret = secretOfReveal(move.reveal, gameSize(s.N).m, s.gameId, me)!;
      const others = othersOf(s, me);
      const d = deal(secret, threshold(s), others.length, ctx.random);
      const sealed = sealShares(
        d.shares,
        others.map((p) => fromHex(s.keys![p]!, 'key', 32)),
        others.map((p) => rochambeauShareContext(s.gameId, s.attempt, me, p)),
        ctx.random,
      );
      s.mine.shares = Object.fromEntries(others.map((p, i) => [p, d.shares[i]!]));
      st.send({
        type: 'commit',
        attempt: s.attempt,
        payload: toHex(move.commit),
        escrow: { commitments: [...d.commitments], shares: sealed.map((x) => ({ ephemeral: x.ephemeral, box: x.box })) },
      });
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
        st.violation('commit_mismatch', from, msg, `${from}'s Reveal is not the one its sharing escrows (its secret times G is not ${from}'s C_0): it is opened from the shares`);
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
          st.violation('withheld', p, msg, `${p} sent no ${what} before the deadline; ${then} (claimed by ${from})`);
          if (s.phase === 'answer') disqualifyDealer(s, st, p, 'withheld');
          else nameUnderEscrow(s, p, 'withheld');
        }
        if (s.phase === 'check') for (const p of late) s.checked!.push(p);
        if (s.phase === 'open') settleOpening(s, st, msg.time, msg, true);
        else escrowProgress(s, st, msg.time, msg);
        return st.result(s);
      }
      for (const p of late) {
        st.violation('withheld', p, msg, `${p} sent no ${s.phase === 'commit' ? 'Commit' : 'Reveal'} before the deadline; disqualified (claimed by ${from})`);
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
