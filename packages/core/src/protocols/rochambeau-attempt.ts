/**
 * The state of a Rochambeau game played for real and the steps every variant shares (docs/spec/rochambeau.md
 * §10, §11): the attempt's members, who is missing in each phase, the reveal phase and the judge. The machine
 * is `rochambeau.ts`; the threshold escrow's phases are `rochambeau-escrow.ts`.
 */
import { fromHex } from '../bytes.js';
import type { ViolationCode } from '../errors.js';
import type { Accepted } from '../transcript.js';
import type { SealedShare } from '../escrow/vss.js';
import type { HashName } from '../rochambeau/hashes.js';
import { judge, type PlayerSubmission } from '../rochambeau/judge.js';
import type { Stepper } from './machine.js';

export interface Sent {
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

export const JUDGE_CODES: Readonly<Record<string, ViolationCode>> = {
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

export function copy(s: RochambeauState): RochambeauState {
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

export const escrowOn = (s: RochambeauState): boolean => s.escrowK !== null && s.escrowK !== undefined;

/** The threshold of this attempt: k, or every other player when fewer are left. */
export const threshold = (s: RochambeauState): number => Math.max(1, Math.min(s.escrowK ?? 1, s.roster!.length - 1));

export const othersOf = (s: RochambeauState, dealer: string): string[] => s.roster!.filter((p) => p !== dealer);

export const seatOf = (s: RochambeauState, dealer: string, holder: string): number => othersOf(s, dealer).indexOf(holder) + 1;

export const isNamed = (s: RochambeauState, p: string): boolean => s.named!.some((n) => n.player === p);

/** Escrow: the commit set is fixed and nobody leaves the attempt any more. */
export const settled = (s: RochambeauState): boolean => escrowOn(s) && s.phase !== 'commit';

export function active(s: RochambeauState): string[] {
  return s.players.filter((p) => !s.out.includes(p));
}

/** The players of the attempt: those whose Commit stands, and who are not out. */
export function members(s: RochambeauState): string[] {
  return s.arrival.filter((p) => !s.out.includes(p));
}

/** Escrow: who is asked for shares: the members whose own Reveal is not being opened. */
export function holders(s: RochambeauState): string[] {
  return members(s).filter((p) => !s.opening!.includes(p));
}

export function startAttempt(s: RochambeauState, time: number): void {
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

export function openReveals(s: RochambeauState, st: Stepper, time: number): void {
  s.phase = 'reveal';
  s.phaseStart = time;
  s.claimed = null;
  if (s.me !== null && s.mine !== null && s.mine.attempt === s.attempt && s.commits[s.me] !== undefined) {
    st.send({ type: 'reveal', attempt: s.attempt, payload: s.mine.reveal });
  }
}

/** Judges the attempt; names every disqualified player with the envelope that disqualified it. */
export function judgeAttempt(s: RochambeauState, st: Stepper, time: number, at: Accepted | { line: number }): void {
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

export function missing(s: RochambeauState): string[] {
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
