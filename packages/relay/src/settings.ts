/**
 * The relay's quotas, read bounds and storage thresholds as a person sets them (docs/spec/relay.md §5): a
 * `fairtable relay` flag, else an environment variable, else the default. Each is a whole number of at least
 * 1 (0 for `--min-free-bytes`); anything else is refused `out_of_range`, naming the flag.
 */
import { FairtableError } from '@fairtable/core/errors.js';
import type { QuotaLimits } from './quotas.js';
import type { ReadLimits } from './reads.js';
import type { StorageLimits } from './storage-watch.js';

/** Each setting: its flag (without `--`), its environment variable, where it goes, and its least value. */
export const SETTINGS = [
  { flag: 'game-lines', env: 'RELAY_GAME_LINES', group: 'quotas', key: 'gameLines', min: 1, help: 'lines one game holds at most (default 100000)' },
  { flag: 'game-bytes', env: 'RELAY_GAME_BYTES', group: 'quotas', key: 'gameBytes', min: 1, help: 'bytes of lines one game holds at most (default 32 MiB)' },
  {
    flag: 'games-per-key',
    env: 'RELAY_GAMES_PER_KEY',
    group: 'quotas',
    key: 'gamesPerKey',
    min: 1,
    help: 'games one key may create while the relay runs (default 1000)',
  },
  {
    flag: 'games-per-address',
    env: 'RELAY_GAMES_PER_ADDRESS',
    group: 'quotas',
    key: 'gamesPerAddress',
    min: 1,
    help: 'games one address may create while the relay runs (default 10000)',
  },
  {
    flag: 'read-bytes',
    env: 'RELAY_READ_BYTES',
    group: 'reads',
    key: 'readBytes',
    min: 1,
    help: 'bytes one transcript or receipts answer carries at most (default 128 MiB)',
  },
  {
    flag: 'reads-per-address',
    env: 'RELAY_READS_PER_ADDRESS',
    group: 'reads',
    key: 'readsPerAddress',
    min: 1,
    help: 'transcript reads one address may have under way (default 4)',
  },
  {
    flag: 'max-store-bytes',
    env: 'RELAY_MAX_STORE_BYTES',
    group: 'storage',
    key: 'maxStoreBytes',
    min: 1,
    help: "the store's files together at most; writes stop above it (default 64 GiB)",
  },
  {
    flag: 'min-free-bytes',
    env: 'RELAY_MIN_FREE_BYTES',
    group: 'storage',
    key: 'minFreeBytes',
    min: 0,
    help: "free bytes the store's disk keeps; writes stop under it (default 64 MiB)",
  },
] as const;

export interface RelaySettings {
  quotas: Partial<Record<keyof QuotaLimits, number>>;
  reads: Partial<Record<keyof ReadLimits, number>>;
  storage: Partial<Record<keyof StorageLimits, number>>;
}

/** The settings given by `flags` (commander's camel-cased option values) or `env`; unset ones are left out (their defaults hold). */
export function relaySettings(flags: Readonly<Record<string, string | undefined>>, env: Readonly<Record<string, string | undefined>>): RelaySettings {
  const out: RelaySettings = { quotas: {}, reads: {}, storage: {} };
  for (const s of SETTINGS) {
    const camel = s.flag.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
    const value = flags[camel] ?? env[s.env];
    if (value === undefined || value === '') continue;
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < s.min)
      throw new FairtableError('out_of_range', `--${s.flag} (${s.env}): ${value} is not a whole number of at least ${s.min}`, { field: s.flag });
    (out[s.group] as Record<string, number>)[s.key] = n;
  }
  return out;
}
