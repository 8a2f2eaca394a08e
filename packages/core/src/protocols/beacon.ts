/**
 * N-party joint random number: the beacon (docs/SPEC.md §7.1; seeds 003 and 004), with optional threshold
 * escrow (docs/spec/escrow.md §2).
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
 *
 * With `escrow: {scheme: "vss", threshold: k}` the value is a ristretto255 scalar s, dealt with its
 * commitment as a Feldman sharing (C_0 = s·G binds it) with a share sealed to each other player; every
 * player checks its shares (and complains, the dealer answering in the clear) before anyone reveals. A
 * player who reveals a value that is not its sharing's is named; one who then withholds (or checks nothing)
 * is not: withholding gains nothing, as its value is opened from k shares, counts, and it stays in the game.
 * Only when fewer than k valid shares come does the round end as without escrow, the withholder named an
 * absence and out. The same holds for a value peeled from the layers.
 *
 * With `escrow: {scheme: "layers"}` (docs/spec/escrow.md §3.3) each commitment carries seed 003's onion of
 * the opening; each reveal carries the onion's seeds, and everyone checks that the onion held the revealed
 * value (the seed's background check, on every reveal). A withholder's onion is peeled, one layer per
 * broadcast round, by published exchanges with their proofs; whoever shows garbage or refuses is named.
 */
import { fromHex, toHex } from '../bytes.js';
import { commit, opens, type Opening } from '../commitment.js';
import { hashJson, hashJsonHex } from '../hash.js';
import type { GameSetup } from '../setup.js';
import type { JsonValue } from '../jcs.js';
import type { Accepted } from '../transcript.js';
import type { Body } from '../envelope.js';
import { FairtableError } from '../errors.js';
import { deal, randomScalar, reconstruct, sealShares, secretCommitment, verifyShare, type SealedShare } from '../escrow/vss.js';
import { ristretto255 } from '@noble/curves/ed25519.js';
import { exchangeContext, headProblem, layerPlan, onionProblem, peelOn, recordExchange, startPeel, wrap, type OnionHead, type Peel } from '../escrow/layers.js';
import { canonicalize } from '../jcs.js';
import { fromUtf8, utf8 } from '../bytes.js';
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

/** A player's published sharing: Feldman commitments C_0..C_{k−1} and one sealed share per other roster player. */
export interface BeaconDealing {
  readonly commitments: readonly string[];
  readonly shares: readonly SealedShare[];
}

/** `peel/<depth>`: each layer is a phase of its own, so a deadline claim on one layer is stale on the next. */
export type BeaconPhase = 'commit' | 'check' | 'answer' | 'reveal' | 'open' | `peel/${number}` | 'done';
const isPeel = (s: BeaconState): boolean => s.phase.startsWith('peel/');

export interface BeaconState {
  readonly gameId: string;
  readonly timeoutMs: number;
  /** How many seeds the game wants. */
  readonly wanted: number;
  /** The escrow threshold k, or null without threshold escrow. */
  readonly escrowK: number | null;
  /** Seed 003's layered escrow (docs/spec/escrow.md §3.3). */
  readonly layered: boolean;
  /** Each player's fairtable key (hex), to seal shares to. */
  readonly keys: Readonly<Record<string, string>>;
  active: string[];
  /** The round's players as it started: the seats of every dealing of the round. */
  roster: string[];
  round: number;
  phase: BeaconPhase;
  phaseStart: number;
  lastTime: number;
  commits: Record<string, string>;
  commitSet: string | null;
  values: Record<string, string>;
  seeds: { round: number; seed: string; players: string[]; opened: string[] }[];
  forfeits: { player: string; code: ViolationCode }[];
  me: string | null;
  mine: { round: number; opening: Opening; shares: Record<string, string>; seed?: string } | null;
  claimed: string | null;
  // Escrow (empty without it).
  dealings: Record<string, BeaconDealing>;
  checked: string[];
  /** Complaints not yet answered: dealer → complainants. */
  pending: Record<string, string[]>;
  /** The shares dealt to this seat, checked: dealer → share (local; never published unless asked). */
  held: Record<string, string>;
  /**
   * Players whose value escrow opens: they withheld or revealed a value that is not their sharing's. `line`:
   * a reveal withheld under escrow, named by nobody (the claim on that line) unless escrow cannot open it.
   */
  failed: { player: string; code: ViolationCode; line?: number }[];
  /** Named during reveal or opening but with their value in the round: they leave when it ends. */
  leaving: { player: string; code: ViolationCode }[];
  /** Valid shares published for each failed dealer: dealer → holder → share. */
  opened: Record<string, Record<string, string>>;
  /** Layers: each committer's onion head and the log line of its commit. */
  onions: Record<string, { head: OnionHead; line: number }>;
  /** Layers: the withheld values being peeled, by owner. */
  peeling: Record<string, Peel>;
}

export function commitSetHash(gameId: string, round: number, active: readonly string[], commits: Record<string, string>): string {
  return hashJsonHex('commit-set', { game: gameId, round, commits: active.map((p) => [p, commits[p] ?? null]) });
}

export function beaconSeed(gameId: string, round: number, players: readonly string[], values: Record<string, string>): string {
  return toHex(hashJson('beacon', { game: gameId, round, players, values: players.map((p) => values[p] ?? null) }));
}

/** The context a share of `dealer` for `holder` is sealed under (docs/spec/escrow.md §2). */
export function beaconShareContext(gameId: string, round: number, dealer: string, holder: string): string {
  return `fairtable/beacon-share/${gameId}/${round}/${dealer}/${holder}`;
}

const purpose = (round: number): string => `beacon/${round}`;
const Fn = ristretto255.Point.Fn;
const scalarHex = (x: bigint): string => toHex(Fn.toBytes(x));

/** The escrow parameter: `{scheme: "vss", threshold: k}` (k ≥ 1), `{scheme: "layers"}`, or absent. */
function escrowParam(params: { readonly [key: string]: JsonValue }): { k: number | null; layered: boolean } {
  const e = params.escrow;
  if (e === undefined || e === null) return { k: null, layered: false };
  if (typeof e === 'object' && !Array.isArray(e) && e.scheme === 'layers' && Object.keys(e).length === 1) return { k: null, layered: true };
  if (typeof e !== 'object' || Array.isArray(e) || e.scheme !== 'vss') {
    throw new FairtableError('bad_input', 'escrow: expected {"scheme": "vss", "threshold": k} or {"scheme": "layers"}', { field: 'escrow' });
  }
  return { k: intParam(e, 'threshold', 0, 1, 1000), layered: false };
}

/** The context an owner's onion is bound to (docs/spec/escrow.md §3.3). */
export function beaconLayerContext(gameId: string, round: number, owner: string): string {
  return `beacon/${gameId}/${round}/${owner}`;
}

/** Either escrow: a player named after the commit set is fixed has its value opened, not the round rerun. */
const escrowOn = (s: BeaconState): boolean => (s.escrowK !== null || s.layered) && s.roster.length >= 2;
const vssOn = (s: BeaconState): boolean => s.escrowK !== null && s.roster.length >= 2;
const layersOn = (s: BeaconState): boolean => s.layered && s.roster.length >= 2;
/** The threshold of this round: k, or every other player when fewer are left (docs/spec/escrow.md §2). */
const threshold = (s: BeaconState): number => Math.min(s.escrowK ?? 1, s.roster.length - 1);
const othersOf = (s: BeaconState, dealer: string): string[] => s.roster.filter((p) => p !== dealer);
const seatOf = (s: BeaconState, dealer: string, holder: string): number => othersOf(s, dealer).indexOf(holder) + 1;
const isFailed = (s: BeaconState, p: string): boolean => s.failed.some((f) => f.player === p);
const isLeaving = (s: BeaconState, p: string): boolean => s.leaving.some((f) => f.player === p);
/** Who must publish a share of `dealer`'s withheld value: the active players who revealed, but the dealer. */
const holdersOf = (s: BeaconState, dealer: string): string[] =>
  s.active.filter((p) => p !== dealer && s.roster.includes(p) && !isFailed(s, p) && !isLeaving(s, p));

/** A copy deep enough for a step (containers copied; openings and seeds are never mutated). */
function copy(s: BeaconState): BeaconState {
  return {
    ...s,
    active: [...s.active],
    roster: [...s.roster],
    commits: { ...s.commits },
    values: { ...s.values },
    seeds: [...s.seeds],
    forfeits: [...s.forfeits],
    dealings: { ...s.dealings },
    checked: [...s.checked],
    pending: Object.fromEntries(Object.entries(s.pending).map(([k, v]) => [k, [...v]])),
    held: { ...s.held },
    failed: [...s.failed],
    leaving: [...s.leaving],
    opened: Object.fromEntries(Object.entries(s.opened).map(([k, v]) => [k, { ...v }])),
    onions: { ...s.onions },
    peeling: Object.fromEntries(
      Object.entries(s.peeling).map(([k, v]) => [k, { ...v, shared: { ...v.shared }, waiting: [...v.waiting], faults: [...v.faults] }]),
    ),
  };
}

function startRound(s: BeaconState, st: Stepper, ctx: Ctx, time: number): void {
  s.phase = 'commit';
  s.phaseStart = time;
  s.commits = {};
  s.values = {};
  s.commitSet = null;
  s.claimed = null;
  s.roster = [...s.active];
  s.dealings = {};
  s.checked = [];
  s.pending = {};
  s.held = {};
  s.failed = [];
  s.leaving = [];
  s.opened = {};
  s.onions = {};
  s.peeling = {};
  if (s.me !== null && s.active.includes(s.me)) {
    const me = s.me;
    const binding = { game: s.gameId, player: me, purpose: purpose(s.round) };
    if (layersOn(s)) {
      const c = commit(binding, toHex(ctx.random(32)), ctx.random);
      const others = othersOf(s, me);
      const onion = wrap(utf8(canonicalize(c.opening)), others, {
        context: beaconLayerContext(s.gameId, s.round, me),
        keys: Object.fromEntries(others.map((p) => [p, s.keys[p]!])),
        random: ctx.random,
      });
      s.mine = { round: s.round, opening: c.opening, shares: {}, seed: onion.seed };
      st.send({ type: 'commit', round: s.round, commitment: c.commitment, onion: onion.head as unknown as JsonValue });
      return;
    }
    if (!escrowOn(s)) {
      const c = commit(binding, toHex(ctx.random(32)), ctx.random);
      s.mine = { round: s.round, opening: c.opening, shares: {} };
      st.send({ type: 'commit', round: s.round, commitment: c.commitment });
      return;
    }
    // The value is the sharing's secret: C_0 = s·G binds it as firmly as the hash commitment does.
    const secret = randomScalar(ctx.random);
    const c = commit(binding, scalarHex(secret), ctx.random);
    const others = othersOf(s, me);
    const d = deal(secret, threshold(s), others.length, ctx.random);
    const shares: Record<string, string> = Object.fromEntries(others.map((p, i) => [p, d.shares[i]!]));
    const sealed = sealShares(
      d.shares,
      others.map((p) => fromHex(s.keys[p]!, 'key', 32)),
      others.map((p) => beaconShareContext(s.gameId, s.round, me, p)),
      ctx.random,
    );
    s.mine = { round: s.round, opening: c.opening, shares };
    st.send({
      type: 'commit',
      round: s.round,
      commitment: c.commitment,
      escrow: { commitments: [...d.commitments], shares: sealed.map((x) => ({ ephemeral: x.ephemeral, box: x.box })) },
    });
  }
}

/** Why a published dealing cannot be used (wrong size, a commitment that is not a point), or null. */
function dealingProblem(s: BeaconState, dealer: string, d: BeaconDealing | undefined): string | null {
  if (d === undefined) return `${dealer}'s commitment carries no sharing, and this beacon escrows every value`;
  if (d.commitments.length !== threshold(s)) return `${dealer}'s sharing has ${d.commitments.length} commitments, the threshold is ${threshold(s)}`;
  if (d.shares.length !== s.roster.length - 1) return `${dealer}'s sharing seals ${d.shares.length} shares for ${s.roster.length - 1} other players`;
  for (const c of d.commitments) {
    try {
      ristretto255.Point.fromHex(c);
    } catch {
      return `${dealer}'s sharing commits to ${c.slice(0, 16)}…, which is not a ristretto255 point`;
    }
  }
  return null;
}

function openReveal(s: BeaconState, st: Stepper, time: number): void {
  s.phase = 'reveal';
  s.phaseStart = time;
  s.claimed = null;
  s.commitSet = commitSetHash(s.gameId, s.round, s.active, s.commits);
  if (s.me !== null && s.active.includes(s.me) && s.mine !== null && s.mine.round === s.round) {
    const seed = layersOn(s) && s.mine.seed !== undefined ? { seed: s.mine.seed } : {};
    st.send({ type: 'reveal', round: s.round, commitSet: s.commitSet, opening: s.mine.opening, ...seed });
  }
}

/** Escrow: every player checks the shares dealt to it and says so (complaining of those that do not open or fit). */
function openCheck(s: BeaconState, st: Stepper, ctx: Ctx, time: number): void {
  s.phase = 'check';
  s.phaseStart = time;
  s.claimed = null;
  s.commitSet = commitSetHash(s.gameId, s.round, s.active, s.commits);
  const me = s.me;
  if (me === null || !s.active.includes(me)) return;
  const complaints: string[] = [];
  for (const dealer of s.active) {
    if (dealer === me) continue;
    const d = s.dealings[dealer]!;
    const seat = seatOf(s, dealer, me);
    let share: string | null = null;
    try {
      if (ctx.openShare !== undefined) share = ctx.openShare(d.shares[seat - 1]!, beaconShareContext(s.gameId, s.round, dealer, me));
    } catch {
      share = null;
    }
    if (share !== null && verifyShare(seat, share, d.commitments)) s.held[dealer] = share;
    else complaints.push(dealer);
  }
  st.send({ type: 'check', round: s.round, commitSet: s.commitSet, complaints });
}

/** Escrow: the players named in the reveal phase have their values opened; each holder publishes its shares. */
function openEscrow(s: BeaconState, st: Stepper, time: number): void {
  s.phase = 'open';
  s.phaseStart = time;
  s.claimed = null;
  for (const f of s.failed) s.opened[f.player] = {};
  const me = s.me;
  if (me === null) return;
  for (const f of s.failed) {
    const share = s.held[f.player];
    if (holdersOf(s, f.player).includes(me) && share !== undefined) {
      st.send({ type: 'share', round: s.round, dealer: f.player, seat: me, share });
    }
  }
}

function forfeit(s: BeaconState, st: Stepper, player: string, code: ViolationCode): void {
  if (!s.active.includes(player)) return;
  s.active = s.active.filter((p) => p !== player);
  s.forfeits.push({ player, code });
  st.emit({ type: 'forfeit', player, code });
}

/** The round's seed from every value, the named players leaving afterwards. */
function finishRound(s: BeaconState, st: Stepper, ctx: Ctx, time: number): void {
  const seed = beaconSeed(s.gameId, s.round, s.active, s.values);
  const opened = s.failed.map((f) => f.player);
  s.seeds.push({ round: s.round, seed, players: [...s.active], opened });
  st.emit({ type: 'beacon', round: s.round, seed, players: [...s.active], opened });
  // A value opened from escrow counts, and its owner stays: withholding it gained nothing (docs/SPEC.md §7.4).
  for (const f of [...s.failed.filter((x) => x.line === undefined), ...s.leaving]) forfeit(s, st, f.player, f.code);
  s.round++;
  if (s.seeds.length >= s.wanted || s.active.length === 0) s.phase = 'done';
  else startRound(s, st, ctx, time);
}

function finishRoundIfComplete(s: BeaconState, st: Stepper, ctx: Ctx, time: number): void {
  if (s.phase === 'commit' && s.active.every((p) => s.commits[p] !== undefined)) {
    if (s.active.length === 0) {
      s.phase = 'done';
      return;
    }
    if (vssOn(s) && s.active.length >= 2) openCheck(s, st, ctx, time);
    else openReveal(s, st, time);
  } else if (s.phase === 'check' && s.active.every((p) => s.checked.includes(p))) {
    if (Object.values(s.pending).some((c) => c.length > 0)) {
      // The dealers complained of get a full timeout to answer from the last check on.
      s.phase = 'answer';
      s.phaseStart = time;
      s.claimed = null;
    } else openReveal(s, st, time);
  } else if (s.phase === 'answer' && Object.values(s.pending).every((c) => c.length === 0)) {
    openReveal(s, st, time);
  } else if (s.phase === 'reveal' && s.active.every((p) => s.values[p] !== undefined || isFailed(s, p))) {
    if (s.failed.length === 0) finishRound(s, st, ctx, time);
    else if (layersOn(s)) openPeel(s, st, ctx, time);
    else {
      openEscrow(s, st, time);
      settleOpening(s, st, ctx, time);
    }
  }
}

/**
 * Once every holder has published its shares (or been named), opens each failed dealer's value from k valid
 * shares. Waiting for all of them, not the first k, means every share is checked and every liar named. When a
 * value has fewer than k valid shares, the round ends as without escrow: the named players forfeit and it
 * starts over.
 */
function settleOpening(s: BeaconState, st: Stepper, ctx: Ctx, time: number): void {
  if (s.phase !== 'open') return;
  const k = threshold(s);
  const shut = s.failed.filter((f) => s.values[f.player] === undefined);
  if (shut.some((f) => holdersOf(s, f.player).some((p) => s.opened[f.player]?.[p] === undefined))) return;
  for (const f of shut) {
    const got = s.opened[f.player] ?? {};
    const seats = Object.keys(got);
    if (seats.length < k) {
      escrowFailed(s, st);
      restartAfterLoss(s, st, ctx, time);
      return;
    }
    const secret = reconstruct(seats.slice(0, k).map((p) => ({ seat: seatOf(s, f.player, p), share: got[p]! })));
    s.values[f.player] = scalarHex(secret);
    st.emit({ type: 'escrow-opened', round: s.round, player: f.player });
  }
  finishRound(s, st, ctx, time);
}

function missing(s: BeaconState): string[] {
  if (isPeel(s)) {
    const late = new Set<string>();
    for (const owner of Object.keys(s.peeling)) for (const p of askedToPeel(s, owner)) late.add(p);
    return s.active.filter((p) => late.has(p));
  }
  switch (s.phase) {
    case 'commit':
      return s.active.filter((p) => s.commits[p] === undefined);
    case 'check':
      return s.active.filter((p) => !s.checked.includes(p));
    case 'answer':
      return s.active.filter((p) => (s.pending[p] ?? []).length > 0);
    case 'reveal':
      return s.active.filter((p) => s.values[p] === undefined && !isFailed(s, p));
    case 'open': {
      const late = new Set<string>();
      for (const f of s.failed) {
        if (s.values[f.player] !== undefined) continue;
        for (const p of holdersOf(s, f.player)) if (s.opened[f.player]?.[p] === undefined) late.add(p);
      }
      return s.active.filter((p) => late.has(p));
    }
    default:
      return [];
  }
}

/**
 * A player named during reveal or opening under escrow: its value is opened (or kept, if revealed) and it leaves
 * with the round. `line`: a reveal withheld, claimed on that line: its value is opened, it stays, nobody is named.
 */
function nameUnderEscrow(s: BeaconState, player: string, code: ViolationCode, line?: number): void {
  if (isFailed(s, player) || isLeaving(s, player)) return;
  if (s.phase === 'reveal' && s.values[player] === undefined) s.failed.push(line === undefined ? { player, code } : { player, code, line });
  else s.leaving.push({ player, code });
}

/** An owner whose onion holds garbage broke a rule: it leaves with the round (bad_layer), opened or not. */
function brokeEscrow(s: BeaconState, owner: string): void {
  s.failed = s.failed.map((f) => (f.player === owner ? { player: owner, code: 'bad_layer' } : f));
}

/**
 * Escrow could not open every withheld value (too few valid shares, an onion nobody can peel further): the round
 * ends as without escrow. The named players forfeit; a withholder escrow was to open is named now, an absence.
 */
function escrowFailed(s: BeaconState, st: Stepper): void {
  for (const f of s.failed) {
    if (f.line !== undefined)
      st.absent(f.player, { line: f.line }, `${f.player} did not reveal in round ${s.round} before the deadline, and escrow could not open its value`, [
        { line: f.line, note: 'the deadline claim that found its reveal missing' },
      ]);
  }
  for (const x of [...s.failed, ...s.leaving]) forfeit(s, st, x.player, x.code);
}

function stepCheck(s: BeaconState, st: Stepper, msg: Accepted, body: Body, ctx: Ctx): void {
  const from = msg.envelope.from;
  if (body.round !== s.round) {
    st.violation('unexpected_message', from, msg, `${from}'s check is for round ${String(body.round)}, the beacon is in round ${s.round}`);
  } else if (s.phase !== 'check' || s.checked.includes(from)) {
    st.violation('out_of_turn', from, msg, `${from} sent a share check in round ${s.round} outside the check phase, or twice`);
  } else if (body.commitSet !== s.commitSet) {
    st.violation('commit_set_mismatch', from, msg, `${from} checked shares on commit set ${String(body.commitSet)}, the agreed set is ${s.commitSet}`);
    forfeit(s, st, from, 'commit_set_mismatch');
    restartAfterLoss(s, st, ctx, msg.time);
  } else {
    const complaints = body.complaints as string[];
    const bad = complaints.filter((d) => d === from || !s.active.includes(d) || complaints.indexOf(d) !== complaints.lastIndexOf(d));
    if (bad.length > 0) {
      st.violation('unexpected_message', from, msg, `${from} complained of [${bad.join(', ')}], who dealt it nothing this round (or twice)`);
      forfeit(s, st, from, 'unexpected_message');
      restartAfterLoss(s, st, ctx, msg.time);
      return;
    }
    s.checked.push(from);
    for (const dealer of complaints) {
      (s.pending[dealer] ??= []).push(from);
      // A dealer complained of answers in the clear: the complainant's share, checkable by anyone.
      if (dealer === s.me && s.mine !== null && s.mine.round === s.round) {
        st.send({ type: 'share', round: s.round, dealer, seat: from, share: s.mine.shares[from]! });
      }
    }
    finishRoundIfComplete(s, st, ctx, msg.time);
  }
}

function stepShare(s: BeaconState, st: Stepper, msg: Accepted, body: Body, ctx: Ctx): void {
  const from = msg.envelope.from;
  const dealer = body.dealer as string;
  const seat = body.seat as string;
  const share = body.share as string;
  if (body.round !== s.round) {
    st.violation('unexpected_message', from, msg, `${from}'s share is for round ${String(body.round)}, the beacon is in round ${s.round}`);
    return;
  }
  if ((s.phase === 'check' || s.phase === 'answer') && dealer === from && (s.pending[from] ?? []).includes(seat)) {
    // The dealer's answer to a complaint.
    if (!verifyShare(seatOf(s, from, seat), share, s.dealings[from]!.commitments)) {
      st.violation('bad_share', from, msg, `${from}'s share for ${seat}, published to answer its complaint, does not fit ${from}'s commitments`);
      forfeit(s, st, from, 'bad_share');
      restartAfterLoss(s, st, ctx, msg.time);
      return;
    }
    s.pending[from] = s.pending[from]!.filter((p) => p !== seat);
    if (seat === s.me) s.held[from] = share;
    finishRoundIfComplete(s, st, ctx, msg.time);
    return;
  }
  if (s.phase === 'open' && seat === from && s.opened[dealer] !== undefined && s.values[dealer] === undefined && holdersOf(s, dealer).includes(from)) {
    if (s.opened[dealer][from] !== undefined) return; // a resend
    if (!verifyShare(seatOf(s, dealer, from), share, s.dealings[dealer]!.commitments)) {
      st.violation(
        'bad_share',
        from,
        msg,
        `${from}'s share of ${dealer}'s value does not fit ${dealer}'s commitments (${from} checked and accepted it before the reveals)`,
      );
      nameUnderEscrow(s, from, 'bad_share');
    } else s.opened[dealer][from] = share;
    settleOpening(s, st, ctx, msg.time);
    return;
  }
  st.violation('out_of_turn', from, msg, `${from} published a share of ${dealer}'s value for ${seat}, which nobody asked for in round ${s.round} (${s.phase})`);
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
    const escrow = escrowParam(setup.params);
    const s: BeaconState = {
      gameId,
      timeoutMs: intParam(setup.params, 'timeoutMs', 30_000, 1, 2 ** 40),
      wanted: intParam(setup.params, 'rounds', 1, 1, 1_000_000),
      escrowK: escrow.k,
      layered: escrow.layered,
      keys: Object.fromEntries(setup.players.map((p) => [p.id, p.key])),
      active: setup.players.map((p) => p.id),
      roster: [],
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
      dealings: {},
      checked: [],
      pending: {},
      held: {},
      failed: [],
      leaving: [],
      opened: {},
      onions: {},
      peeling: {},
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
      const dealing = body.escrow as BeaconDealing | undefined;
      const problem =
        body.round !== s.round || s.phase !== 'commit'
          ? null
          : vssOn(s)
            ? dealingProblem(s, from, dealing)
            : layersOn(s)
              ? onionAtCommit(s, from, body.onion)
              : null;
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
      } else if (problem !== null) {
        const code = layersOn(s) ? 'bad_layer' : 'bad_share';
        st.violation(code, from, msg, problem);
        forfeit(s, st, from, code);
        finishRoundIfComplete(s, st, ctx, msg.time);
      } else {
        s.commits[from] = body.commitment;
        if (dealing !== undefined && vssOn(s)) s.dealings[from] = dealing;
        if (layersOn(s)) s.onions[from] = { head: body.onion as unknown as OnionHead, line: msg.line };
        finishRoundIfComplete(s, st, ctx, msg.time);
      }
    } else if (body.type === 'check') {
      stepCheck(s, st, msg, body, ctx);
    } else if (body.type === 'share') {
      stepShare(s, st, msg, body, ctx);
    } else if (body.type === 'peel') {
      stepPeel(s, st, msg, body, ctx);
    } else if (body.type === 'reveal') {
      const escrowed = escrowOn(s) && (s.dealings[from] !== undefined || s.onions[from] !== undefined);
      if (body.round !== s.round) {
        st.violation('unexpected_message', from, msg, `${from}'s reveal is for round ${String(body.round)}, the beacon is in round ${s.round}`);
      } else if (escrowed && isFailed(s, from)) {
        // Named already: escrow opens its value; a late reveal changes nothing.
      } else if (s.phase !== 'reveal') {
        st.violation('out_of_turn', from, msg, `${from} revealed in round ${s.round} before the reveal phase (${s.phase})`);
      } else if (s.values[from] !== undefined) {
        st.violation('unexpected_message', from, msg, `${from} revealed twice in round ${s.round}`);
      } else if (body.commitSet !== s.commitSet) {
        st.violation('commit_set_mismatch', from, msg, `${from} revealed on commit set ${String(body.commitSet)}, the agreed set is ${s.commitSet}`);
        if (escrowed) {
          nameUnderEscrow(s, from, 'commit_set_mismatch');
          finishRoundIfComplete(s, st, ctx, msg.time);
        } else {
          forfeit(s, st, from, 'commit_set_mismatch');
          restartAfterLoss(s, st, ctx, msg.time);
        }
      } else if (!revealOpens(s, from, body.opening)) {
        st.violation(
          'commit_mismatch',
          from,
          msg,
          `${from}'s reveal does not open its commitment ${s.commits[from]} of round ${s.round}${escrowed ? ' to the secret of its sharing' : ''}`,
        );
        if (escrowed) {
          nameUnderEscrow(s, from, 'commit_mismatch');
          finishRoundIfComplete(s, st, ctx, msg.time);
        } else {
          forfeit(s, st, from, 'commit_mismatch');
          restartAfterLoss(s, st, ctx, msg.time);
        }
      } else {
        s.values[from] = (body.opening as Opening).value as string;
        if (layersOn(s) && escrowed) backgroundCheck(s, st, msg, from, body);
        finishRoundIfComplete(s, st, ctx, msg.time);
      }
    } else if (isDeadlineBody(body)) {
      const late = settleClaim(st, msg, body, s, { round: s.round, late: missing(s), isOut: (p) => !s.active.includes(p) });
      if (late === null) return st.result(s);
      const what =
        s.phase === 'open'
          ? 'publish its shares'
          : isPeel(s)
            ? 'peel the layers sealed to it'
            : s.phase === 'answer'
              ? 'answer the complaints against it'
              : s.phase;
      // Only a reveal withheld by the one seat still missing, with no escrow to open it, could steer the round:
      // its author had seen every other value. Anything else is an absence (docs/SPEC.md §7.4).
      const steered = s.phase === 'reveal' && !escrowOn(s) && late.length === 1 && Object.keys(s.values).length > 0;
      // Under escrow a missing check or reveal costs nobody anything: the value is dealt, escrow opens it, and
      // its owner is named only if escrow cannot (escrowFailed). A missing commitment or share stays an absence.
      const quiet = (s.phase === 'reveal' && escrowOn(s)) || (s.phase === 'check' && vssOn(s));
      if (!quiet) {
        for (const p of late) {
          st.withheld(p, steered, msg, `${p} did not ${what} in round ${s.round} before the deadline (${s.phaseStart + s.timeoutMs}); claimed by ${from}`);
        }
      }
      if (s.phase === 'check' && quiet) {
        // It checked nothing: it complains of nobody, and its own value stays dealt.
        for (const p of late) if (!s.checked.includes(p)) s.checked.push(p);
        finishRoundIfComplete(s, st, ctx, msg.time);
      } else if (s.phase === 'commit') {
        for (const p of late) forfeit(s, st, p, 'withheld');
        finishRoundIfComplete(s, st, ctx, msg.time);
      } else if ((s.phase === 'reveal' || s.phase === 'open' || isPeel(s)) && escrowOn(s)) {
        for (const p of late) nameUnderEscrow(s, p, 'withheld', s.phase === 'reveal' ? msg.line : undefined);
        if (s.phase === 'reveal') finishRoundIfComplete(s, st, ctx, msg.time);
        else if (isPeel(s)) {
          settlePeel(s, st, ctx, msg);
        } else settleOpening(s, st, ctx, msg.time);
      } else {
        for (const p of late) forfeit(s, st, p, 'withheld');
        restartAfterLoss(s, st, ctx, msg.time);
      }
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

  penalize(state: BeaconState, player: string, code: ViolationCode, line: number, ctx: Ctx, time: number): StepResult<BeaconState> {
    const st = new Stepper();
    if (!state.active.includes(player) || state.phase === 'done') return st.result(state);
    const s = copy(state);
    if (escrowOn(s) && (s.phase === 'reveal' || s.phase === 'open' || isPeel(s))) {
      // Under escrow no penalty reruns a round whose values are public: the player's value is opened or kept.
      nameUnderEscrow(s, player, code);
      if (s.phase === 'reveal') finishRoundIfComplete(s, st, ctx, time);
      else if (isPeel(s)) settlePeel(s, st, ctx, { line }, time);
      else settleOpening(s, st, ctx, time);
      return st.result(s);
    }
    forfeit(s, st, player, code);
    if (s.phase === 'check' || s.phase === 'answer') restartAfterLoss(s, st, ctx, time);
    else if (s.phase === 'reveal' && Object.keys(s.values).length > 0) restartAfterLoss(s, st, ctx, time);
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

/** Whether a reveal opens `from`'s commitment to a 32-byte value (under escrow: the secret whose s·G is C_0). */
function revealOpens(s: BeaconState, from: string, opening: unknown): boolean {
  if (!opens({ game: s.gameId, player: from, purpose: purpose(s.round) }, s.commits[from]!, opening as Opening)) return false;
  const value = (opening as { value: unknown }).value;
  if (typeof value !== 'string' || !/^[0-9a-f]{64}$/.test(value)) return false;
  const d = s.dealings[from];
  if (!escrowOn(s) || d === undefined) return true;
  try {
    return secretCommitment(Fn.fromBytes(fromHex(value, 'value', 32))) === d.commitments[0];
  } catch {
    return false;
  }
}

/** Values already revealed in this round are public now: the round starts over among those left. */
function restartAfterLoss(s: BeaconState, st: Stepper, ctx: Ctx, time: number): void {
  if (s.active.length === 0) {
    s.phase = 'done';
    return;
  }
  s.round++;
  startRound(s, st, ctx, time);
}

// Seed 003's layers (docs/spec/escrow.md §3.3).

/** Why a commit's onion cannot be used (checked by everyone as the commit arrives), or null. */
function onionAtCommit(s: BeaconState, owner: string, onion: unknown): string | null {
  if (onion === undefined) return `${owner}'s commitment carries no onion, and this beacon escrows every value in layers`;
  const problem = headProblem(onion, layerPlan(othersOf(s, owner)), beaconLayerContext(s.gameId, s.round, owner));
  return problem === null ? null : `${owner}'s onion: ${problem}`;
}

/** The seed's background check, on every reveal: the seed opens every box and layer, and the core is the opening revealed. */
function backgroundCheck(s: BeaconState, st: Stepper, msg: Accepted, owner: string, body: Body): void {
  const o = body.opening as Opening;
  const problem = onionProblem(
    s.onions[owner]!.head,
    body.seed,
    othersOf(s, owner),
    s.keys,
    beaconLayerContext(s.gameId, s.round, owner),
    utf8(canonicalize({ nonce: o.nonce, value: o.value })),
  );
  if (problem === null) return;
  st.violation('bad_layer', owner, msg, `${owner}'s onion of round ${s.round} fails the background check: ${problem}`, [
    { line: s.onions[owner]!.line, note: `${owner}'s commit, with the onion; the reveal publishes its seed` },
  ]);
  // The value it revealed opens its commitment and stays in the round; it leaves when the round ends.
  nameUnderEscrow(s, owner, 'bad_layer');
}

/** The members asked to peel `owner`'s onion who have not answered. */
function askedToPeel(s: BeaconState, owner: string): string[] {
  const p = s.peeling[owner];
  if (p === undefined || p.shut || p.value !== null) return [];
  const holders = holdersOf(s, owner);
  return p.waiting.filter((m) => holders.includes(m));
}

/** The local player's exchange for every onion it is asked to peel now. */
function sendPeels(s: BeaconState, st: Stepper, ctx: Ctx): void {
  const me = s.me;
  if (me === null || ctx.exchange === undefined) return;
  for (const owner of Object.keys(s.peeling)) {
    if (!askedToPeel(s, owner).includes(me)) continue;
    const x = ctx.exchange(s.onions[owner]!.head.ephemeral, exchangeContext(beaconLayerContext(s.gameId, s.round, owner), me));
    st.send({ type: 'peel', round: s.round, owner, shared: x.shared, proof: x.proof });
  }
}

function openPeel(s: BeaconState, st: Stepper, ctx: Ctx, time: number): void {
  s.phase = 'peel/0';
  s.phaseStart = time;
  s.claimed = null;
  for (const f of s.failed) {
    const onion = s.onions[f.player];
    if (onion !== undefined) s.peeling[f.player] = startPeel(onion.head);
  }
  settlePeel(s, st, ctx, { line: -1 }, time);
}

function stepPeel(s: BeaconState, st: Stepper, msg: Accepted, body: Body, ctx: Ctx): void {
  const from = msg.envelope.from;
  const owner = String(body.owner);
  const p = s.peeling[owner];
  if (body.round !== s.round) {
    st.violation('unexpected_message', from, msg, `${from}'s peel is for round ${String(body.round)}, the beacon is in round ${s.round}`);
    return;
  }
  // A resend, a member already named, or an onion already opened: changes nothing.
  if (p !== undefined && (p.shared[from] !== undefined || isLeaving(s, from) || isFailed(s, from) || p.value !== null || p.shut)) return;
  if (!isPeel(s) || p === undefined || !askedToPeel(s, owner).includes(from)) {
    st.violation('out_of_turn', from, msg, `${from} peeled ${owner}'s onion, which nobody asked of it in round ${s.round} (${s.phase})`);
    return;
  }
  const context = beaconLayerContext(s.gameId, s.round, owner);
  if (!recordExchange(p, s.onions[owner]!.head, from, s.keys[from]!, { shared: String(body.shared), proof: String(body.proof) }, context, msg.line)) {
    st.violation('bad_share', from, msg, `${from}'s exchange for ${owner}'s onion is not a·E for its key (the proof fails)`);
    nameUnderEscrow(s, from, 'bad_share');
  }
  settlePeel(s, st, ctx, msg);
}

/**
 * Once every member asked has answered (or been named), each onion is opened as far as the exchanges allow
 * and the members of the layer it stops at are asked; a core must open the owner's commitment. An onion
 * nobody can open any further ends the round as the threshold scheme's too few shares do: the named players
 * forfeit and the round starts over among the rest.
 */
function settlePeel(s: BeaconState, st: Stepper, ctx: Ctx, msg: Accepted | { line: number }, at?: number): void {
  if (!isPeel(s)) return;
  const time = at ?? ('time' in msg ? msg.time : s.lastTime);
  const open = Object.keys(s.peeling).filter((o) => s.values[o] === undefined && !s.peeling[o]!.shut);
  if (open.some((o) => askedToPeel(s, o).length > 0)) return;
  let asking = false;
  for (const owner of open) {
    const p = s.peeling[owner]!;
    const holders = holdersOf(s, owner);
    p.waiting = p.waiting.filter((m) => holders.includes(m));
    const known = p.faults.length;
    const ask = peelOn(p, layerPlan(othersOf(s, owner)), beaconLayerContext(s.gameId, s.round, owner), (m) => holders.includes(m));
    if (p.faults.length > known) brokeEscrow(s, owner);
    for (const f of p.faults.slice(known)) {
      // Anyone can open the box with the member's proven exchange and see the owner sealed garbage.
      st.violation('bad_layer', owner, msg, `${owner} sealed garbage in its onion of round ${s.round}: ${f.why}`, [
        { line: f.line, note: 'the proven exchange that shows it' },
        { line: s.onions[owner]!.line, note: `${owner}'s commit, with the onion` },
      ]);
    }
    if (p.value !== null) {
      const opening = readOpening(p.value);
      if (opening !== null && revealOpens(s, owner, opening)) {
        s.values[owner] = opening.value as string;
        st.emit({ type: 'escrow-opened', round: s.round, player: owner });
      } else {
        brokeEscrow(s, owner);
        st.violation('bad_layer', owner, msg, `the core of ${owner}'s onion of round ${s.round} does not open its commitment ${s.commits[owner]}`, [
          { line: s.onions[owner]!.line, note: `${owner}'s commit, with the onion` },
        ]);
        p.shut = true;
      }
    }
    if (ask.length > 0) asking = true;
  }
  if (asking) {
    s.phase = `peel/${Number(s.phase.slice(5)) + 1}`;
    s.phaseStart = time;
    s.claimed = null;
    sendPeels(s, st, ctx);
    return;
  }
  if (Object.keys(s.peeling).some((o) => s.values[o] === undefined)) {
    escrowFailed(s, st);
    restartAfterLoss(s, st, ctx, time);
    return;
  }
  finishRound(s, st, ctx, time);
}

function readOpening(hex: string): Opening | null {
  try {
    const o = JSON.parse(fromUtf8(fromHex(hex, 'core'))) as unknown;
    return o !== null && typeof o === 'object' && !Array.isArray(o) ? (o as Opening) : null;
  } catch {
    return null;
  }
}
