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
  /** The secret the seat's random stream is keyed by (seatRandom), so that a resumed seat makes the same secrets. */
  readonly secret: string;
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
