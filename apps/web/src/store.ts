/**
 * What the browser keeps (docs/spec/web.md §3), in IndexedDB through `idb`: the player's keys, each as the CLI's key
 * file, and for each game this browser plays a seat in, the seat's copy of the log (lines and receipts), its journal
 * of decisions and its envelope in flight, from which a reloaded page resumes the seat. Nothing here is ever sent:
 * only public keys and signed envelopes leave the page.
 */
import { openDB, type IDBPDatabase } from 'idb';
import type { KeyFile } from '@fairtable/core/identity.js';
import type { JournalEntry } from '@fairtable/core/seat/seat.js';

export interface GameRecord {
  readonly game: string;
  /** The seat this browser plays. */
  readonly me: string;
  readonly protocol: string;
  readonly relayKey: string;
  readonly lobby: string | null;
  /**
   * The secret the seat's random stream is keyed by (seatRandom), for a record made before seats followed their
   * key; unused when `follows` is set.
   */
  readonly secret: string;
  /**
   * The seat's secrets are derived from the player's key (docs/SPEC.md §10.2, "A seat follows its key"): any
   * browser holding the key continues the seat from the relay's log, with no journal. Records made earlier lack it.
   */
  readonly follows?: true;
  /** The seat is a newcomer taking over a Diplomacy power (docs/spec/diplomacy.md §10.15): not a player of the setup. */
  readonly newcomer?: true;
  /** The Signidice house's ECVRF secret key, when this seat is the house. */
  readonly vrfSecret: string | null;
  lines: string[];
  receipts: unknown[];
  journal: JournalEntry[];
  inFlight: string | null;
  readonly created: number;
}

interface Schema {
  keys: { key: string; value: KeyFile };
  games: { key: string; value: GameRecord };
}

let db: Promise<IDBPDatabase<Schema>> | null = null;

function open(): Promise<IDBPDatabase<Schema>> {
  db ??= openDB<Schema>('fairtable', 1, {
    upgrade(d) {
      d.createObjectStore('keys');
      d.createObjectStore('games');
    },
  });
  return db;
}

export async function getKey(name: string): Promise<KeyFile | undefined> {
  return (await open()).get('keys', name);
}

export async function putKey(file: KeyFile): Promise<void> {
  await (await open()).put('keys', file, file.name);
}

export async function allKeys(): Promise<KeyFile[]> {
  return (await open()).getAll('keys');
}

export async function getGame(game: string): Promise<GameRecord | undefined> {
  return (await open()).get('games', game);
}

export async function allGames(): Promise<GameRecord[]> {
  return (await open()).getAll('games');
}

/** Writes are chained so that a later copy of a record never lands before an earlier one. */
let writes: Promise<unknown> = Promise.resolve();

export function putGame(record: GameRecord): Promise<void> {
  // A structured clone of the record as it is now: later pushes to its arrays go into a later write.
  const copy: GameRecord = { ...record, lines: [...record.lines], receipts: [...record.receipts], journal: [...record.journal] };
  const next = writes.then(async () => {
    await (await open()).put('games', copy, copy.game);
  });
  writes = next.catch(() => undefined);
  return next;
}

/**
 * The journal of decisions and the envelope in flight, also written synchronously to localStorage: the client
 * reports a decision and then sends its envelope at once, before an IndexedDB write could land, and a page
 * reloaded in between must not decide again (a different hand would be a second envelope for one position).
 */
export function saveJournal(record: GameRecord): void {
  try {
    localStorage.setItem(`fairtable/journal/${record.game}`, JSON.stringify({ journal: record.journal, inFlight: record.inFlight }));
  } catch {
    // Storage full or refused: IndexedDB's copy still follows.
  }
}

/** The longer of the two journals kept for a game (they agree on what both hold). */
export function loadJournal(record: GameRecord): Pick<GameRecord, 'journal' | 'inFlight'> {
  try {
    const kept = JSON.parse(localStorage.getItem(`fairtable/journal/${record.game}`) ?? 'null') as Pick<GameRecord, 'journal' | 'inFlight'> | null;
    if (kept !== null && Array.isArray(kept.journal) && kept.journal.length >= record.journal.length)
      return { journal: kept.journal, inFlight: kept.inFlight ?? null };
  } catch {
    // unreadable: IndexedDB's copy
  }
  return { journal: record.journal, inFlight: record.inFlight };
}

export interface LobbyNote {
  readonly lobby: string;
  readonly protocol: string;
  readonly created: number;
}

/** The lobbies this browser opened, newest first (at most 20), so that a creator who closed the tab finds them. */
export function openedLobbies(): LobbyNote[] {
  try {
    const v = JSON.parse(localStorage.getItem('fairtable/lobbies') ?? '[]') as unknown;
    return Array.isArray(v) ? (v as LobbyNote[]) : [];
  } catch {
    return [];
  }
}

export function noteLobby(note: LobbyNote): void {
  try {
    localStorage.setItem('fairtable/lobbies', JSON.stringify([note, ...openedLobbies().filter((l) => l.lobby !== note.lobby)].slice(0, 20)));
  } catch {
    // storage refused: the lobby's address still works
  }
}
