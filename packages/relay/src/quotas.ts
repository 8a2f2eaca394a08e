/**
 * The relay's quotas (docs/spec/relay.md §5, "Quotas"): what one game may hold (lines and bytes), and how many
 * games one key and one client address may create. A line that would take its game past its quota is refused
 * `game_full` before its door sees it, so the door never runs ahead of what the relay will store; a game at
 * its quota is closed for writing, and its transcript ends there. Games counted per key and per address are
 * those created since the relay started (the address of a game's creator is not stored); the store's total
 * size is bounded by the storage watch (storage-watch.ts).
 */

export interface QuotaLimits {
  /** Lines one game holds at most, its setup included. */
  readonly gameLines: number;
  /** Bytes of line text one game holds at most, its setup included. */
  readonly gameBytes: number;
  /** Games one key (the setup's signer) may create while the relay runs. */
  readonly gamesPerKey: number;
  /** Games one client address may create while the relay runs. */
  readonly gamesPerAddress: number;
}

export const DEFAULT_QUOTAS: QuotaLimits = {
  gameLines: 100_000,
  gameBytes: 32 << 20,
  gamesPerKey: 1_000,
  gamesPerAddress: 10_000,
};

/** What a game holds, and what is on its way to its door. */
export interface GameUsage {
  /** Lines through the door (stored or on their way to the store). */
  lines: number;
  /** Bytes of those lines' text. */
  bytes: number;
  /** Lines (and their bytes) taken for the door and not yet through it. */
  comingLines: number;
  comingBytes: number;
}

export const emptyUsage = (): GameUsage => ({ lines: 0, bytes: 0, comingLines: 0, comingBytes: 0 });

/** Why a line of `size` bytes cannot join a game with `usage`, or null when it can. */
export function overQuota(usage: GameUsage, size: number, q: QuotaLimits): string | null {
  if (usage.lines + usage.comingLines + 1 > q.gameLines) return `this game holds ${q.gameLines} lines, the most the relay stores for one game`;
  if (usage.bytes + usage.comingBytes + size > q.gameBytes)
    return `this game holds ${usage.bytes + usage.comingBytes} bytes; a line of ${size} would pass the ${q.gameBytes} the relay stores for one game`;
  return null;
}

/** Counts of games created, per key and per client address, since the relay started. */
export class CreatorCounts {
  private readonly byKey = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();

  constructor(private readonly q: QuotaLimits) {}

  /** Why `key` from `address` may not create another game, or null when it may. */
  refusal(key: string, address: string): { code: string; message: string } | null {
    if ((this.byKey.get(key) ?? 0) >= this.q.gamesPerKey)
      return { code: 'too_many_games', message: `this key has created ${this.q.gamesPerKey} games on this relay, the most it hosts for one key` };
    if ((this.byAddress.get(address) ?? 0) >= this.q.gamesPerAddress)
      return { code: 'too_many_games', message: `this address has created ${this.q.gamesPerAddress} games on this relay, the most it hosts for one address` };
    return null;
  }

  created(key: string, address: string): void {
    this.byKey.set(key, (this.byKey.get(key) ?? 0) + 1);
    this.byAddress.set(address, (this.byAddress.get(address) ?? 0) + 1);
  }
}
