/**
 * The relay's watch on its disk (docs/spec/relay.md §5, "Storage"): before a line is admitted the relay asks
 * whether it may write at all. Writes stop (`storage_full`) when the file system holding the store has less
 * than `minFreeBytes` free, when the store's files together pass `maxStoreBytes`, or when the store has just
 * failed to write (SQLITE_FULL, ENOSPC, an I/O error). Reads go on. The watch looks again every
 * `checkMs` and lets writes back in by itself once space has returned: nothing waits for a restart, and a
 * relay started on a full disk starts refusing writes rather than failing.
 */
import { statfs, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface StorageLimits {
  /** Free bytes the store's file system must keep; below it every write is refused `storage_full`. */
  readonly minFreeBytes: number;
  /** The store's files (the database and its journal) together; above it every write is refused `storage_full`. */
  readonly maxStoreBytes: number;
  /** How often the free space and the store's size are read, ms. */
  readonly checkMs: number;
}

export const DEFAULT_STORAGE_LIMITS: StorageLimits = {
  minFreeBytes: 64 << 20,
  maxStoreBytes: 64 * 2 ** 30,
  checkMs: 1000,
};

/** What a look at the disk finds: the free bytes where the store lives, and the bytes of the store's files. */
export interface DiskReading {
  readonly free: number;
  readonly storeBytes: number;
}

/** Reads the free space under `dir` (statfs: the blocks an unprivileged writer may use) and the size of the SQLite files in it. */
export async function readDisk(dir: string): Promise<DiskReading> {
  const fs = await statfs(dir);
  let storeBytes = 0;
  for (const name of ['relay.sqlite', 'relay.sqlite-wal', 'witness.sqlite', 'witness.sqlite-wal']) {
    try {
      storeBytes += (await stat(join(dir, name))).size;
    } catch {
      // Not there (yet): nothing to count.
    }
  }
  return { free: fs.bavail * fs.bsize, storeBytes };
}

/** True for an error that says the disk (or the database on it) is full or cannot be written. */
export function isStorageError(e: unknown): boolean {
  const text = `${(e as { code?: unknown } | null)?.code ?? ''} ${(e as Error | null)?.message ?? String(e)}`;
  return /SQLITE_FULL|SQLITE_IOERR|SQLITE_READONLY|SQLITE_CANTOPEN|ENOSPC|EDQUOT|EROFS|EIO|disk is full|disk I\/O error|readonly database/i.test(text);
}

export class StorageWatch {
  /** Why writes are refused now; null while they are let in. */
  private reason: string | null = null;
  /** A failed write: writes stay refused until a later look finds room. */
  private failedWrite: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private looking: Promise<void> | null = null;
  last: DiskReading = { free: Number.POSITIVE_INFINITY, storeBytes: 0 };
  /** How many times writes were stopped, and when they last came back (ms, the relay's clock). */
  stops = 0;
  resumedAt = 0;

  constructor(
    readonly limits: StorageLimits,
    /** How to read the disk; null: the store is not on a disk the relay knows (only write failures stop writes). */
    private readonly read: (() => Promise<DiskReading>) | null,
    private readonly onChange: (full: string | null) => void,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Why a write is refused now, or null when writes are let in. */
  get full(): string | null {
    return this.reason;
  }

  /** Looks once now, then every `checkMs`. */
  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), Math.max(10, this.limits.checkMs));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** The store failed to write: writes stop at once, until a look finds room again. */
  writeFailed(e: unknown): void {
    this.failedWrite = `the store could not write (${(e as Error | null)?.message ?? String(e)})`;
    this.set(this.failedWrite);
  }

  /** Reads the disk and decides; looks that overlap share one reading. */
  check(): Promise<void> {
    this.looking ??= this.look().finally(() => (this.looking = null));
    return this.looking;
  }

  private async look(): Promise<void> {
    let why: string | null = null;
    if (this.read !== null) {
      try {
        this.last = await this.read();
        if (this.last.free < this.limits.minFreeBytes)
          why = `${this.last.free} bytes free on the store's disk, under the ${this.limits.minFreeBytes} the relay keeps free`;
        else if (this.last.storeBytes > this.limits.maxStoreBytes)
          why = `the store holds ${this.last.storeBytes} bytes, over its limit of ${this.limits.maxStoreBytes}`;
      } catch (e) {
        why = `the store's disk cannot be read (${(e as Error).message})`;
      }
    }
    // A failed write is forgiven by a look that finds room: the next write tries the disk again.
    if (why === null) this.failedWrite = null;
    this.set(why ?? this.failedWrite);
  }

  private set(why: string | null): void {
    if (why === this.reason) return;
    const was = this.reason;
    this.reason = why;
    if (was === null && why !== null) this.stops++;
    if (was !== null && why === null) this.resumedAt = this.clock();
    if ((was === null) !== (why === null)) this.onChange(why);
  }
}

/** The watch's state as Prometheus text, for `GET /metrics`. */
export function renderStorage(w: StorageWatch): string {
  const rows: [string, string, number][] = [
    ['fairtable_relay_storage_full', 'Whether writes are refused for want of space (1) or let in (0).', w.full === null ? 0 : 1],
    ['fairtable_relay_storage_free_bytes', "Free bytes on the store's disk at the last look.", Number.isFinite(w.last.free) ? w.last.free : -1],
    ['fairtable_relay_store_bytes', "Bytes of the store's files at the last look.", w.last.storeBytes],
    ['fairtable_relay_storage_stops_total', 'Times writes were stopped for want of space or a failed write.', w.stops],
  ];
  return rows
    .map(([name, help, value]) => `# HELP ${name} ${help}\n# TYPE ${name} ${name.endsWith('_total') ? 'counter' : 'gauge'}\n${name} ${value}\n`)
    .join('');
}
