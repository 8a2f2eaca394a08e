/**
 * The hand-overs a game's log has made, for the talk route (docs/spec/press.md §10): which players' powers went
 * to a newcomer, so that their keys write no more press. A hand-over is a protocol's decision (Diplomacy's
 * `newcomer-seated` event, diplomacy.md §10.15), so the relay replays the log with the game's machine, taken
 * from `RelayOptions.talkRegistry` (the command line's relay passes the one that holds Diplomacy's); without
 * it, or for a protocol it does not hold, the relay sees no hand-over and readers alone refuse such press.
 *
 * Only a game whose log has introduced a newcomer (SPEC §4.6) can have one, so only such a game is replayed, once
 * and then line by line as its log grows; at most `MAX_TRACKED` games are kept replayed at once.
 */
import { OBSERVER_CTX, Referee } from '@fairtable/core/referee.js';
import { departuresOf, type TalkDeparture } from '@fairtable/core/press/index.js';
import type { Registry } from '@fairtable/core/registry.js';
import { nativeVerify } from '@fairtable/node/native-verify.js';
import type { Game } from './games.js';
import type { Store } from './store.js';

const MAX_TRACKED = 256;
const PAGE = 1_000;

interface Tracked {
  readonly referee: Referee;
  next: number;
  readonly departed: TalkDeparture[];
}

export class HandoverTracker {
  private readonly games = new Map<string, Tracked>();
  private readonly busy = new Map<string, Promise<readonly TalkDeparture[]>>();

  constructor(
    private readonly store: Store,
    private readonly registry: Registry | undefined,
  ) {}

  /** The departures in `g`'s stored log so far. */
  departed(g: Game): Promise<readonly TalkDeparture[]> {
    if (this.registry === undefined || !this.registry.machines.has(g.protocol)) return Promise.resolve([]);
    // Without a newcomer, nobody has been handed over.
    if (g.door.checker.keys.size <= g.players.length) return Promise.resolve([]);
    // One replay at a time per game: a second post waits for the first's.
    const before = this.busy.get(g.id) ?? Promise.resolve([]);
    const next = before.then(
      () => this.catchUp(g),
      () => this.catchUp(g),
    );
    this.busy.set(g.id, next);
    void next.finally(() => {
      if (this.busy.get(g.id) === next) this.busy.delete(g.id);
    });
    return next;
  }

  private async catchUp(g: Game): Promise<readonly TalkDeparture[]> {
    let t = this.games.get(g.id);
    if (t === undefined) {
      if (this.games.size >= MAX_TRACKED) this.games.delete(this.games.keys().next().value!);
      const [setup] = await this.store.readLines(g.id, 0, 1);
      if (setup === undefined) return [];
      t = { referee: new Referee(setup.text, null, OBSERVER_CTX, { registry: this.registry!, verify: nativeVerify }), next: 1, departed: [] };
      this.games.set(g.id, t);
    }
    const referee = t.referee;
    while (t.next < g.committed) {
      const lines = await this.store.readLines(g.id, t.next, Math.min(PAGE, g.committed - t.next));
      const from = t.next;
      for (const l of lines) {
        if (l.line !== t.next) break;
        const prepared = referee.prepare(l.line, l.text);
        const fed = referee.feed(prepared, OBSERVER_CTX);
        t.departed.push(...departuresOf(fed.events, l.line, prepared.envelope?.time ?? 0));
        t.next++;
      }
      // A page that does not continue the log (none, or not from line `from`) ends the catch-up: the next post tries again.
      if (t.next === from) break;
    }
    return t.departed;
  }
}
