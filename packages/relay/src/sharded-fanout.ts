/**
 * Fan-out on several primaries (relay.md §4, "Beyond one Postgres" and "Clients on any process").
 */
import { PgFanout, type FanoutEvents, type Forwarded, type PgFanoutOptions } from './pg-fanout.js';
import { shardIndex } from './sharded-store.js';

/**
 * The fan-out of a service whose games are spread over several primaries (relay.md §4, "Beyond one Postgres"):
 * one `PgFanout` a primary, in the order of the service's list. A game's line and talk notifications, inbox and
 * lease are on its own primary (`shardIndex`: its store notifies there), so its forwards, nudges and takes go there; a process listens on every
 * primary, so an answer, which names its process and not its game, may go through any one (the first).
 */
export class ShardedFanout {
  readonly node: string;
  private readonly shards: readonly PgFanout[];

  constructor(options: PgFanoutOptions & { readonly urls: readonly string[] }, events: FanoutEvents) {
    this.node = options.node;
    this.shards = options.urls.map((url) => new PgFanout({ ...options, url }, events));
  }

  /** Notifications heard on every primary together, by channel; LISTEN connections opened. */
  get counts(): { lines: number; inbox: number; reply: number; talk: number; listens: number } {
    const sum = { lines: 0, inbox: 0, reply: 0, talk: 0, listens: 0 };
    for (const s of this.shards) for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += s.counts[k];
    return sum;
  }

  private of(game: string): PgFanout {
    return this.shards[shardIndex(game, this.shards.length)]!;
  }

  async start(): Promise<void> {
    await Promise.all(this.shards.map((s) => s.start()));
  }
  forward(game: string, req: number, author: string, text: string): Promise<boolean> {
    return this.of(game).forward(game, req, author, text);
  }
  nudge(game: string): Promise<void> {
    return this.of(game).nudge(game);
  }
  take(game: string): Promise<Forwarded[]> {
    return this.of(game).take(game);
  }
  answer(to: Forwarded, message: string): Promise<void> {
    return this.shards[0]!.answer(to, message);
  }
  async close(): Promise<void> {
    await Promise.all(this.shards.map((s) => s.close()));
  }
}
