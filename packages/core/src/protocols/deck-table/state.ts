/**
 * A table's deck as a game protocol carries it (docs/spec/deck.md, "Games on the deck"): the part of a card
 * game's state that the deck's steps read and write, whatever the game. A game's own state extends it.
 *
 * One deck per game: key shares with backups, then every present seat shuffles in seat order, then cards are
 * opened in *openings*: a numbered set of positions, each dealt to one player (its owner adds its own share
 * privately) or turned face up (owner null). A card is played from a hand with the owner's own share.
 */
import type { ViolationCode } from '../../errors.js';
import type { Ciphertext } from '../../deck/elgamal.js';
import type { DeckTable } from '../../deck/group.js';
import type { KeyBackup, StandInShare } from '../../deck/threshold.js';

/** A position an opening opens: to its owner alone, or face up (owner null). */
export interface OpenedCard {
  readonly position: number;
  readonly owner: string | null;
}

export interface DeckTableState {
  readonly gameId: string;
  /** Every player, in seat order: the deck's table. */
  readonly players: readonly string[];
  /** Each player's fairtable key, hex (backups are sealed to them). */
  readonly keys: Readonly<Record<string, string>>;
  /** Holders of a backup that together stand in for a player who left. */
  readonly threshold: number;
  /** Cards in the deck. */
  readonly size: number;
  readonly me: string | null;
  /** The game's phase; the deck's own are `keys`, `shuffle` and `open`. */
  phase: string;
  /** The local player's key share secret, scalar hex (a seat's state only). */
  secret: string | null;
  keyShares: Record<string, string>;
  backups: Record<string, KeyBackup>;
  jointKey: string | null;
  /** Players who left or were named: stood in for, out of the game from then on. */
  gone: string[];
  forfeits: { player: string; code: ViolationCode }[];
  deck: Ciphertext[];
  /** Who shuffled (or was skipped as gone), in order. */
  shuffled: string[];
  shuffles: number;
  /** The opening in progress, numbered from 1 across the game. */
  opening: { n: number; cards: OpenedCard[] } | null;
  /** The last opening's number (the next one is one more). */
  openings: number;
  /** Players whose shares for the opening are in and valid. */
  sent: string[];
  /** Stand-in shares for a gone player in this opening, by leaver then holder. */
  standins: Record<string, Record<string, StandInShare[]>>;
  /** Public decryption share points, hex, by deck position (an owner's own share never among its private cards'). */
  parts: Record<string, string[]>;
  /** What the local seat has sent, never twice (`shuffle/<i>`, `shares/<n>`, `standin/<n>/<leaver>`, the game's own). */
  outbox: string[];
}

export const deckTable = (s: DeckTableState): DeckTable => ({ game: s.gameId, players: s.players });

/** Players still taking part: every player not gone. */
export const present = (s: DeckTableState): string[] => s.players.filter((p) => !s.gone.includes(p));

/** The positions `player` publishes shares for in the opening: every card not dealt to it. */
export const sharePositions = (s: DeckTableState, player: string): number[] =>
  (s.opening?.cards ?? []).filter((c) => c.owner !== player).map((c) => c.position);

/** Gone players whose shares for this opening the others must stand in for. */
export const needStandIn = (s: DeckTableState): string[] => s.gone.filter((p) => !s.sent.includes(p));

/** Who the opening still waits for: shares from present players, then stand-ins from present holders. */
export function openingMissing(s: DeckTableState): string[] {
  const late = new Set(present(s).filter((p) => !s.sent.includes(p)));
  for (const leaver of needStandIn(s)) {
    const got = s.standins[leaver] ?? {};
    if (Object.keys(got).length >= s.threshold) continue;
    for (const p of present(s)) if (got[p] === undefined) late.add(p);
  }
  return s.players.filter((p) => late.has(p));
}

/** The current shuffler, or null when every present player has shuffled. */
export const shuffler = (s: DeckTableState): string | null => present(s).find((p) => !s.shuffled.includes(p)) ?? null;

/** The fields a deck table starts with. */
export function freshDeck(): Omit<DeckTableState, 'gameId' | 'players' | 'keys' | 'threshold' | 'size' | 'me' | 'phase'> {
  return {
    secret: null,
    keyShares: {},
    backups: {},
    jointKey: null,
    gone: [],
    forfeits: [],
    deck: [],
    shuffled: [],
    shuffles: 0,
    opening: null,
    openings: 0,
    sent: [],
    standins: {},
    parts: {},
    outbox: [],
  };
}
