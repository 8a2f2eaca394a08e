/**
 * Rochambeau with threshold escrow (docs/spec/rochambeau.md §11): each Commit carries a Feldman sharing of
 * the scalar its Reveal is a function of (rochambeau/escrow.ts); every player checks the shares dealt to it
 * and complains of bad ones, which their dealer answers in the clear, before anyone reveals; from then on
 * nobody leaves the attempt, and a Reveal withheld (or not the sharing's) is opened from k shares. So the
 * verdict is fixed when the commit set is, whatever the last revealer does.
 */
import { ristretto255 } from '@noble/curves/ed25519.js';
import { fromHex, toHex } from '../bytes.js';
import { FairtableError, type ViolationCode } from '../errors.js';
import type { JsonValue } from '../jcs.js';
import type { Accepted } from '../transcript.js';
import { deal, reconstruct, sealShares, secretCommitment, verifyShare, type SealedShare } from '../escrow/vss.js';
import { gameSize } from '../rochambeau/codec.js';
import { ESCROW_MAX_M, revealOfSecret, rochambeauShareContext, secretOfReveal } from '../rochambeau/escrow.js';
import { intParam, type Ctx, type Stepper } from './machine.js';
import {
  escrowOn,
  holders,
  isNamed,
  judgeAttempt,
  members,
  missing,
  openReveals,
  othersOf,
  seatOf,
  threshold,
  type RochambeauState,
} from './rochambeau-attempt.js';

const Fn = ristretto255.Point.Fn;

/** The escrow parameter: `{scheme: "vss", threshold: k}` (k ≥ 1) or absent. */
export function escrowParam(params: { readonly [key: string]: JsonValue }, N: string): number | null {
  const e = params.escrow;
  if (e === undefined || e === null) return null;
  if (typeof e !== 'object' || Array.isArray(e) || e.scheme !== 'vss' || Object.keys(e).some((k) => k !== 'scheme' && k !== 'threshold')) {
    throw new FairtableError('bad_input', 'escrow: expected {"scheme": "vss", "threshold": k}', { field: 'escrow' });
  }
  if (gameSize(N).m > ESCROW_MAX_M)
    throw new FairtableError('bad_input', `escrow: N needs ${gameSize(N).m} octets; at most ${ESCROW_MAX_M} can be escrowed`, { field: 'escrow' });
  return intParam(e, 'threshold', 0, 1, 1000);
}

/** Why a published dealing cannot be used (wrong size, a commitment that is not a point), or null. */
export function dealingProblem(s: RochambeauState, dealer: string, d: JsonValue | undefined): string | null {
  const x = d as { commitments?: unknown; shares?: unknown } | undefined;
  if (x === undefined || !Array.isArray(x.commitments) || !Array.isArray(x.shares))
    return `${dealer}'s Commit carries no sharing, and this game escrows every Reveal`;
  if (x.commitments.length !== threshold(s)) return `${dealer}'s sharing has ${x.commitments.length} commitments, the threshold is ${threshold(s)}`;
  if (x.shares.length !== s.roster!.length - 1) return `${dealer}'s sharing seals ${x.shares.length} shares for ${s.roster!.length - 1} other players`;
  for (const c of x.commitments) {
    try {
      ristretto255.Point.fromHex(c as string);
    } catch {
      return `${dealer}'s sharing commits to a value that is not a ristretto255 point`;
    }
  }
  for (const sh of x.shares)
    if (typeof sh !== 'object' || sh === null || typeof (sh as SealedShare).ephemeral !== 'string' || typeof (sh as SealedShare).box !== 'string')
      return `${dealer}'s sealed shares are not {ephemeral, box}`;
  return null;
}

/** Every Commit is in (or out): with escrow every player checks its shares first, else everyone reveals. */
export function commitsDone(s: RochambeauState, st: Stepper, ctx: Ctx, time: number): void {
  if (escrowOn(s) && members(s).length >= 2) openCheck(s, st, ctx, time);
  else openReveals(s, st, time);
}

/** Escrow: each player opens the shares sealed to it, checks them, and complains of the dealers whose share is bad. */
export function openCheck(s: RochambeauState, st: Stepper, ctx: Ctx, time: number): void {
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
export function openEscrow(s: RochambeauState, st: Stepper, time: number, at: Accepted | { line: number }): void {
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

/**
 * Escrow: opens each named player's Reveal once k valid shares of it are public. `final` (the deadline has
 * named the holders still missing): a Reveal with fewer than k valid shares stays withheld and the judge
 * leaves it out, as without escrow.
 */
export function settleOpening(s: RochambeauState, st: Stepper, time: number, at: Accepted | { line: number }, final: boolean): void {
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
export function nameUnderEscrow(s: RochambeauState, player: string, code: ViolationCode): void {
  if (!isNamed(s, player)) s.named!.push({ player, code });
  if (s.phase === 'reveal' && s.reveals[player] === undefined && !s.opening!.includes(player)) s.opening!.push(player);
}

/** Escrow: what follows a change in the check, answer, reveal or open phase. */
export function escrowProgress(s: RochambeauState, st: Stepper, time: number, at: Accepted | { line: number }): void {
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
export function disqualifyDealer(s: RochambeauState, st: Stepper, dealer: string, code: ViolationCode): void {
  if (s.out.includes(dealer)) return;
  s.out.push(dealer);
  s.forfeits.push({ player: dealer, code });
  st.emit({ type: 'forfeit', player: dealer, code });
  delete s.pending![dealer];
}

/** Escrow: whether a Reveal payload is the one `from`'s sharing escrows (its secret times G is C_0). */
export function escrowedReveal(s: RochambeauState, from: string, payload: string): boolean {
  const secret = secretOfReveal(fromHex(payload), gameSize(s.N).m, s.gameId, from);
  if (secret === null || secret >= Fn.ORDER) return false;
  return secret !== 0n && secretCommitment(secret) === s.dealings![from]!.commitments[0];
}

export function stepCheck(s: RochambeauState, st: Stepper, msg: Accepted): void {
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

export function stepShare(s: RochambeauState, st: Stepper, msg: Accepted): void {
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
      st.violation(
        'bad_share',
        from,
        msg,
        `${from}'s share of ${dealer}'s Reveal does not fit ${dealer}'s commitments (${from} checked it before the Reveals)`,
      );
      nameUnderEscrow(s, from, 'bad_share');
    } else (s.valid![dealer] ??= {})[from] = share;
    escrowProgress(s, st, msg.time, msg);
    return;
  }
  if (s.phase === 'done') return;
  st.violation('out_of_turn', from, msg, `${from} published a share of ${dealer}'s Reveal for ${seat}, which nobody asked for (${s.phase})`);
}

/** Escrow: the Commit of the local player's move, with its sharing dealt to the others and sealed to each. */
export function escrowedCommit(s: RochambeauState, move: { commit: Uint8Array; reveal: Uint8Array }, ctx: Ctx): JsonValue {
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
  s.mine!.shares = Object.fromEntries(others.map((p, i) => [p, d.shares[i]!]));
  return {
    type: 'commit',
    attempt: s.attempt,
    payload: toHex(move.commit),
    escrow: { commitments: [...d.commitments], shares: sealed.map((x) => ({ ephemeral: x.ephemeral, box: x.box })) },
  };
}
