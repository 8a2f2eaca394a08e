/**
 * Hold'em on the cryptographic deck (docs/spec/holdem.md §11): the protocol's state, plain JSON, and the
 * positions each hand's cards take in the shuffled deck.
 */
import type { ViolationCode } from '../../errors.js';
import type { JsonValue } from '../../jcs.js';
import type { Ciphertext } from '../../deck/elgamal.js';
import type { KeyBackup, StandInShare } from '../../deck/threshold.js';
import type { DeckTable } from '../../deck/group.js';
import type { TableState } from '../../games/holdem/table.js';

export const DECK_SIZE = 52;

/** A deal step: the hole cards, then the board's three streets. */
export type Step = 'hole' | 'flop' | 'turn' | 'river';

export interface HoldemState {
  readonly gameId: string;
  /** Every player, in seat order: the deck's table. */
  readonly players: readonly string[];
  /** Each player's fairtable key, hex (backups are sealed to them). */
  readonly keys: Readonly<Record<string, string>>;
  readonly threshold: number;
  readonly timeoutMs: number;
  readonly me: string | null;
  /** The local player's key share secret, scalar hex (a seat's state only). */
  secret: string | null;
  phase: 'keys' | 'shuffle' | 'deal' | 'act' | 'show' | 'done';
  phaseStart: number;
  /** Counts phases, so that a deadline claim names the phase it is about. */
  round: number;
  claimed: string | null;
  /** Valid key shares (points, hex) and backups by player. */
  keyShares: Record<string, string>;
  backups: Record<string, KeyBackup>;
  jointKey: string | null;
  /** Players who left or were named: stood in for, dealt no more hands, their chips forfeited. */
  gone: string[];
  forfeits: { player: string; code: ViolationCode }[];
  table: TableState;
  /** The hand in play, 1-based. */
  hand: number;
  deck: Ciphertext[];
  /** Who shuffled this hand's deck (or was skipped as gone), in order. */
  shuffled: string[];
  /** Shuffles accepted this hand. */
  shuffles: number;
  step: Step | null;
  /** Players whose shares for this step are in and valid. */
  sent: string[];
  /** Stand-in shares for a gone player this step, by leaver then holder (each checked on arrival). */
  standins: Record<string, Record<string, StandInShare[]>>;
  /** Public decryption share points, hex, by deck position (the owner's own share never among a hole card's). */
  parts: Record<string, string[]>;
  /** The local player's hole cards once opened. */
  mine: number[] | null;
  /** Hole cards shown at the showdown, by player. */
  shown: Record<string, number[]>;
  /** What the local seat has sent this hand (`shares/<step>`, `standin/<step>/<leaver>`, `act/<n>`), never twice. */
  outbox: string[];
  /** Each finished hand: the board, the hands shown, the chips won. */
  results: JsonValue[];
  /** Why the game ended early, if it did. */
  ended: string | null;
  /** The rules' event count when the current wait for an action began (a new action, a new deadline). */
  actAt: number;
}

export const deckTable = (s: HoldemState): DeckTable => ({ game: s.gameId, players: s.players });

export const copy = (s: HoldemState): HoldemState => JSON.parse(JSON.stringify(s)) as HoldemState;

/** Players still taking part in the deck: every player not gone (a busted one still holds its key share). */
export const present = (s: HoldemState): string[] => s.players.filter((p) => !s.gone.includes(p));

/** The hand's seats (the rules' order) and their hole positions: the i-th seat holds positions 2i and 2i+1. */
export function holePositions(s: HoldemState): Record<string, number[]> {
  const seats = s.table.hand?.seats ?? [];
  return Object.fromEntries(seats.map((p, i) => [p, [2 * i, 2 * i + 1]]));
}

/** The board's positions for a street: after every hole card, the flop's three, the turn, the river (no burns). */
export function boardPositions(s: HoldemState, step: Exclude<Step, 'hole'>): number[] {
  const base = 2 * (s.table.hand?.seats.length ?? 0);
  return step === 'flop' ? [base, base + 1, base + 2] : step === 'turn' ? [base + 3] : [base + 4];
}

/** The positions `player` publishes shares for at `step`: every hole card but its own, or the street's board cards. */
export function sharePositions(s: HoldemState, step: Step, player: string): number[] {
  if (step !== 'hole') return boardPositions(s, step);
  const holes = holePositions(s);
  return Object.entries(holes)
    .filter(([owner]) => owner !== player)
    .flatMap(([, ps]) => ps);
}

/** Gone players whose shares for this step the others must stand in for. */
export const needStandIn = (s: HoldemState): string[] => s.gone.filter((p) => !s.sent.includes(p));

/** Who the deal step still waits for: shares from present players, then stand-ins from present holders. */
export function stepMissing(s: HoldemState): string[] {
  const late = new Set(present(s).filter((p) => !s.sent.includes(p)));
  for (const leaver of needStandIn(s)) {
    const got = s.standins[leaver] ?? {};
    if (Object.keys(got).length >= s.threshold) continue;
    for (const p of present(s)) if (got[p] === undefined) late.add(p);
  }
  return s.players.filter((p) => late.has(p));
}

/** The current shuffler, or null when every present player has shuffled. */
export const shuffler = (s: HoldemState): string | null => present(s).find((p) => !s.shuffled.includes(p)) ?? null;
