/**
 * The `diplomacy` machine's state (docs/spec/diplomacy.md §10): its fields, the helpers that read it (who must
 * commit, who is missing, the phase's label) and the step transitions every part of the machine shares.
 */
import type { Opening } from '@fairtable/core/commitment.js';
import { type ViolationCode } from '@fairtable/core/errors.js';
import { hashJsonHex } from '@fairtable/core/hash.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { type Contest } from '../assign.js';
import type { GameMap } from '../map.js';
import { type Position } from '../position.js';
import { standardMap } from '../standard.js';
import { type CarriedCommit } from './gpg.js';
import { type OnionHead, type Peel } from '@fairtable/core/escrow/layers.js';
import { askedToPeel, type EscrowBody } from './escrow.js';
import { type Ending } from './endings.js';
import type { Handover } from './handover.js';

/** `peel/<depth>`: each layer of a withheld onion is a step of its own, so a deadline claim on one is stale on the next. */
export type Step = 'commit' | 'claim' | 'reveal' | 'open' | `peel/${number}` | 'sign' | 'done';
export const isPeel = (s: DiplomacyState): boolean => s.phase.startsWith('peel/');

/** A withheld reveal being peeled: its power, and the peel (docs/spec/escrow.md §3.4). */
export interface DiplomacyPeel extends Peel {
  readonly power: string;
}
export type { EscrowBody } from './escrow.js';
export type AssignMethod = 'fixed' | 'weighted' | 'serial';
export type TypoRule = 'ignore-unit-letter' | 'strict';

/** The longest orders file or preference value a reveal may carry (characters of its canonical JSON). */
export const MAX_VALUE_CHARS = 16_384;

export interface DiplomacyState {
  readonly gameId: string;
  /** The current step's deadline length: the phase type's for a commit step (§10.13), else `stepMs`. */
  timeoutMs: number;
  /** The deadline of every step but a phase's commit (claim, reveal, escrow, sign): the setup's `timeoutMs`. */
  readonly stepMs: number;
  /** The commit step's deadline by phase type (`movement`, `retreat`, `adjustment`) and for `preferences` (§10.13). */
  readonly deadlines: Readonly<Record<string, number>>;
  /** Phases in a row a player may miss its orders before its power is handed on (a reserve, else civil disorder); 0: never (§10.13). */
  readonly absentAfter: number;
  /** Phases in a row each player has missed its orders. */
  missed: Record<string, number>;
  readonly method: AssignMethod;
  readonly typos: TypoRule;
  /** Game years played before the game ends in a draw among the powers left; null: until a solo or an agreed ending (§10.12). */
  readonly years: number | null;
  /** The ending the powers agreed in this round's orders files, once adjudicated (§10.12); the game ends when the position is signed. */
  ending: Ending | null;
  /** A pause the powers agreed in this round (§10.12): the next round starts with no deadline. */
  pauseNext: boolean;
  /** This round's commit step has no deadline until the first commitment comes (§10.12). */
  paused: boolean;
  /** Threshold escrow of every orders commitment: k of the other players open a withheld reveal; null when off. */
  readonly escrow: { readonly k: number } | null;
  /** Seed 003's layered escrow of every orders commitment (docs/spec/escrow.md §3.4). */
  readonly layered: boolean;
  /** Each player's fairtable public key (hex), to seal escrow shares to; a seated newcomer's joins it (§10.15). */
  keys: Readonly<Record<string, string>>;
  /**
   * The players in seat order (the setup's, then the gpg-only ones, then newcomers as they are seated: §10.15); a
   * player's number in the preference notation is its seat + 1.
   */
  players: readonly string[];
  /** Ids the log's `newcomer` lines made authors (docs/SPEC.md §4.6), with their keys (§10.15). */
  introduced: Record<string, string>;
  /** Open proposals of a newcomer for an absent power, by proposal hash (§10.15). */
  handovers: Record<string, Handover>;
  /** Proposals seated or lapsed: a late approval of one is a race, not a fault. */
  closed: string[];
  /** The player who last held each power now in civil disorder (§10.15: the departed key). */
  vacated: Record<string, string>;
  /** The line at which a newcomer was seated, by power: a proposal written before it saw that line raced it. */
  seatedAt: Record<string, number>;
  /** Departed players whose power a newcomer took: the power, the newcomer, the round it took effect. */
  replaced: Record<string, { power: string; by: string; round: number }>;
  /** Gpg-only players' armored OpenPGP public keys, by player (§11). */
  readonly gpgKeys: Readonly<Record<string, string>>;
  /** How far before its round's start a gpg-only player's commitment may be dated. */
  readonly pgpSkewMs: number;
  /** This round's carried commitments of gpg-only players. */
  pgpCommits: Record<string, CarriedCommit>;
  /** This round: gpg-only players for whom a file that is not the one they committed to was carried (line of the first). */
  pgpRefused: Record<string, number>;
  /** Every digest each gpg-only player has committed to in the game, so no older signature is carried again. */
  pgpUsed: Record<string, string[]>;
  active: string[];
  stage: 'assign' | 'play' | 'done';
  phase: Step;
  /** One counter for every round of commitments, assignment reruns included; deadline claims name it. */
  round: number;
  phaseStart: number;
  claimed: string | null;
  /** Power by player. */
  powers: Record<string, string>;
  /** Reserve players' lists (seed 003's `%`), by player, for powers that fall vacant. */
  reserves: Record<string, string[]>;
  position: Position;
  /** The position the revealed orders give, once adjudicated, and its hash. */
  next: { position: Position; hash: string } | null;
  commits: Record<string, string>;
  commitSet: string | null;
  claims: Record<string, true>;
  /** Checked values by player: orders as lines (an empty list for orders that did not open), or an assignment value. */
  reveals: Record<string, JsonValue>;
  /** The revealed orders by power, as they stand when revealed (a later forfeit does not take them back). */
  orders: Record<string, string[]>;
  /** Players who take no further part in this round's commit, claim and reveal (named for missing a step). */
  excused: Record<string, true>;
  signs: Record<string, string>;
  /** This round's escrows, by committer. */
  escrows: Record<string, EscrowBody>;
  /** Withheld reveals being opened: by dealer, its power, the valid shares by opener, and who has answered. */
  opening: Record<string, { power: string; shares: Record<string, string>; answered: string[] }>;
  /** Layers: this round's outer layers by committer, with their commits' log lines. */
  onions: Record<string, { head: OnionHead; line: number }>;
  /** Layers: withheld reveals being peeled, by owner. */
  peeling: Record<string, DiplomacyPeel>;
  /** Layers: members named this round for a refused or wrong peel; they are asked no more (one timeout each, not one a layer). */
  unwilling: string[];
  contests: Contest[];
  forfeits: { player: string; code: ViolationCode }[];
  /** Orders may be committed again until they are final or the deadline comes (§10.14). */
  readonly revisable: boolean;
  /** This round: players whose current commitment is a draft (§10.14). */
  drafts: Record<string, true>;
  me: string | null;
  /**
   * The local player's latest commitment this round, its opening (and layers seed); with `revisable`, its
   * commitment, the answer it came from, whether it is a draft, and the openings of the ones it replaced.
   */
  mine: {
    round: number;
    opening: Opening;
    seed?: string;
    commitment?: string;
    answer?: JsonValue;
    draft?: boolean;
    earlier?: Record<string, { opening: Opening; seed?: string }>;
  } | null;
}

export const map: GameMap = standardMap;

export function copy(s: DiplomacyState): DiplomacyState {
  return {
    ...s,
    active: [...s.active],
    powers: { ...s.powers },
    reserves: { ...s.reserves },
    commits: { ...s.commits },
    claims: { ...s.claims },
    reveals: { ...s.reveals },
    orders: { ...s.orders },
    excused: { ...s.excused },
    drafts: { ...s.drafts },
    signs: { ...s.signs },
    escrows: { ...s.escrows },
    pgpCommits: { ...s.pgpCommits },
    pgpRefused: { ...s.pgpRefused },
    pgpUsed: { ...s.pgpUsed },
    missed: { ...s.missed },
    introduced: { ...s.introduced },
    handovers: Object.fromEntries(Object.entries(s.handovers).map(([k, h]) => [k, { ...h, approvals: [...h.approvals] }])),
    closed: [...s.closed],
    vacated: { ...s.vacated },
    replaced: { ...s.replaced },
    seatedAt: { ...s.seatedAt },
    opening: Object.fromEntries(Object.entries(s.opening).map(([d, o]) => [d, { ...o, shares: { ...o.shares }, answered: [...o.answered] }])),
    contests: [...s.contests],
    forfeits: [...s.forfeits],
    onions: { ...s.onions },
    peeling: Object.fromEntries(
      Object.entries(s.peeling).map(([k, v]) => [k, { ...v, shared: { ...v.shared }, waiting: [...v.waiting], faults: [...v.faults] }]),
    ),
    unwilling: [...s.unwilling],
  };
}

/** The phase's short name, as players write it: S1901M, F1901R, W1901A. */
export function phaseLabel(position: Position): string {
  const { season, year, type } = position.phase;
  return type === 'adjustment' ? `W${year}A` : `${season === 'spring' ? 'S' : 'F'}${year}${type === 'movement' ? 'M' : 'R'}`;
}

/** The canonical orders file a player commits to: one canonical order a line. */
export function ordersFile(orders: readonly string[]): string {
  return orders.join('\n');
}

/** The orders in a revealed file: one a line, blank lines and `#` comments skipped. */
export function ordersIn(file: string): string[] {
  return file
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** A power is in the game while it has a unit, a unit to retreat or a centre. */
export function alive(position: Position, power: string): boolean {
  return (
    position.units.some((u) => u.power === power) ||
    position.dislodged.some((d) => d.power === power) ||
    position.supplyCenterOwners.some((o) => o.power === power)
  );
}

/** Who must commit this round (a mail folder asks it, to know whom to write to). */
export function committers(s: DiplomacyState): string[] {
  return required(s);
}

/** Who must commit this round. */
export function required(s: DiplomacyState): string[] {
  if (s.stage === 'assign') return s.active;
  return s.active.filter((p) => s.powers[p] !== undefined && alive(s.position, s.powers[p]!));
}

export function missing(s: DiplomacyState): string[] {
  switch (s.phase) {
    case 'commit':
      // A draft is not yet orders: the step waits for it to be made final, or for the deadline (§10.14).
      return required(s).filter((p) => (s.commits[p] === undefined || s.drafts[p] === true) && !s.excused[p]);
    case 'claim':
      return s.active.filter((p) => s.commits[p] !== undefined && s.claims[p] === undefined && !s.excused[p]);
    case 'reveal':
      return s.active.filter((p) => s.claims[p] !== undefined && s.reveals[p] === undefined && !s.excused[p]);
    case 'open':
      return s.active.filter((p) =>
        Object.entries(s.opening).some(([dealer, o]) => p !== dealer && !o.answered.includes(p) && Object.keys(o.shares).length < s.escrow!.k),
      );
    case 'sign':
      // A gpg-only player adjudicates by hand if at all, and signs no position (§11.4).
      // Nor does a player whose orders the others opened from escrow this round: it may have left after committing.
      return s.active.filter((p) => s.signs[p] === undefined && s.gpgKeys[p] === undefined && s.opening[p] === undefined && s.peeling[p] === undefined);
    default:
      if (isPeel(s)) {
        const late = new Set(Object.keys(s.peeling).flatMap((o) => askedToPeel(s, o)));
        return s.active.filter((p) => late.has(p));
      }
      return [];
  }
}

export function commitSetHash(gameId: string, round: number, commits: Record<string, string>): string {
  return hashJsonHex('commit-set', {
    game: gameId,
    round,
    commits: Object.keys(commits)
      .sort()
      .map((p) => [p, commits[p]!]),
  });
}

/** The commit step's deadline length: the phase type's (or the preferences') from `deadlines`, else `stepMs`. */
export function commitMs(s: DiplomacyState): number {
  const kind = s.stage === 'assign' ? 'preferences' : s.position.phase.type;
  return s.deadlines[kind] ?? s.stepMs;
}

export function startRound(s: DiplomacyState, time: number): void {
  s.phase = 'commit';
  s.phaseStart = time;
  s.timeoutMs = commitMs(s);
  s.paused = s.pauseNext;
  s.pauseNext = false;
  // Paused: no deadline a claim could reach (2^40 ms, about 34 years, past the step's start).
  if (s.paused) s.timeoutMs = 2 ** 40;
  s.claimed = null;
  s.commits = {};
  s.commitSet = null;
  s.claims = {};
  s.reveals = {};
  s.orders = {};
  s.excused = {};
  s.drafts = {};
  s.signs = {};
  s.escrows = {};
  s.opening = {};
  s.pgpCommits = {};
  s.pgpRefused = {};
  s.onions = {};
  s.peeling = {};
  s.unwilling = [];
  s.next = null;
}

export function enter(s: DiplomacyState, phase: Step, time: number): void {
  s.phase = phase;
  s.phaseStart = time;
  s.timeoutMs = s.stepMs;
  s.claimed = null;
}
