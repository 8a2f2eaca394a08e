/**
 * A relay process's game leases (docs/spec/relay.md §4, "Leases"), when its store keeps them (Postgres with a
 * node name): a game is taken into memory only with its lease, which is renewed every third of its length
 * while the process lives and given up when the game leaves memory. A renewal that finds a lease taken over
 * hands its games back (`onLost`): they leave memory, their connections closed `lease_lost`. The store's
 * fencing token makes sure a process that has not yet heard of the loss writes nothing to the game.
 */
import type { Logger } from 'pino';
import { FairtableError } from '@fairtable/core/errors.js';
import { PostgresStore, type HeldLease } from './postgres-store.js';
import { ShardedStore } from './sharded-store.js';
import type { Store } from './store.js';

/** What a store that keeps leases offers (postgres-store.ts). */
export interface GameLeases {
  readonly lease: { readonly holder: string; readonly ttlMs: number } | undefined;
  acquireLease(game: string): Promise<boolean>;
  renewLeases(): Promise<string[]>;
  releaseLease(game: string): Promise<void>;
  heldLeases(): HeldLease[];
}

/** The store's leases, or null for a store without them (SQLite; Postgres without a node name). */
export function leasesOf(store: Store): GameLeases | null {
  return (store instanceof PostgresStore || store instanceof ShardedStore) && store.lease !== undefined ? store : null;
}

export class LeaseKeeper {
  readonly holder: string;
  private timer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> | null = null;
  acquired = 0;
  refused = 0;
  lost = 0;
  renewFailures = 0;
  /** Fan-out between the processes (follow.ts), reported with the leases in `/health` and `/metrics`. */
  fanout: { health(): Record<string, number>; render(node: string): string } | null = null;

  constructor(
    private readonly leases: GameLeases,
    private readonly onLost: (games: string[]) => void,
    private readonly log: Logger,
  ) {
    this.holder = leases.lease!.holder;
  }

  start(): void {
    const every = Math.max(10, Math.floor(this.leases.lease!.ttlMs / 3));
    this.timer = setInterval(() => void this.renew(), every);
    this.timer.unref();
  }

  /** Renews every lease held; the games of the ones taken over go to `onLost`. */
  renew(): Promise<void> {
    this.renewing ??= this.leases
      .renewLeases()
      .then(
        (lost) => {
          if (lost.length === 0) return;
          this.lost += lost.length;
          this.log.warn({ games: lost, node: this.holder }, 'leases taken over by another relay process; their games leave memory');
          this.onLost(lost);
        },
        (e: unknown) => {
          // The database unreachable: the leases run out unless a later renewal gets through, and the fencing
          // token refuses this process's appends once another has taken a game over.
          this.renewFailures++;
          this.log.error({ err: e, node: this.holder }, 'cannot renew the game leases');
        },
      )
      .finally(() => (this.renewing = null));
    return this.renewing;
  }

  /** Takes `game`'s lease before its door is built; `lease_lost` while another process's lease on it runs. */
  async acquire(game: string): Promise<void> {
    if (await this.tryAcquire(game)) return;
    throw new FairtableError('lease_lost', `game ${game} is ordered by another process of this relay service now; connect again later`, { field: 'game' });
  }

  /** Takes `game`'s lease when nobody else's runs: true when this process now orders the game. */
  async tryAcquire(game: string): Promise<boolean> {
    if (await this.leases.acquireLease(game)) {
      this.acquired++;
      return true;
    }
    this.refused++;
    return false;
  }

  /** Whether this process holds `game`'s lease (as far as it knows). */
  holds(game: string): boolean {
    return this.leases.heldLeases().some((l) => l.game === game);
  }

  release(game: string): void {
    this.leases.releaseLease(game).catch((e: unknown) => this.log.warn({ err: e, game }, 'cannot give a game lease up; it runs out by itself'));
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** For `/health`: this process's name and the leases it holds. */
  health(): { node: string; leases: HeldLease[]; fanout?: Record<string, number> } {
    return { node: this.holder, leases: this.leases.heldLeases(), ...(this.fanout === null ? {} : { fanout: this.fanout.health() }) };
  }

  /** Prometheus text for `/metrics`. */
  render(): string {
    const rows: [string, string, number][] = [
      ['fairtable_relay_leases_held', 'Game leases this relay process holds now.', this.leases.heldLeases().length],
      ['fairtable_relay_leases_acquired_total', 'Game leases taken (a game loaded or created).', this.acquired],
      ['fairtable_relay_leases_refused_total', "Games found ordered by another process's running lease (followed, or refused without fan-out).", this.refused],
      ['fairtable_relay_leases_lost_total', 'Game leases found taken over by another process at a renewal.', this.lost],
      ['fairtable_relay_lease_renew_failures_total', 'Lease renewals that could not reach the database.', this.renewFailures],
    ];
    return rows
      .map(
        ([name, help, value]) =>
          `# HELP ${name} ${help}\n# TYPE ${name} ${name.endsWith('_total') ? 'counter' : 'gauge'}\n${name}{node=${JSON.stringify(this.holder)}} ${value}\n`,
      )
      .join('')
      .concat(this.fanout?.render(this.holder) ?? '');
  }
}
