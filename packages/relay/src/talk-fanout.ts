/**
 * Table talk on any process (docs/spec/relay.md §4, "Clients on any process"; docs/spec/press.md §6): with
 * several processes on one database, a talk message posted to one is pushed to the sockets of its game on
 * every process. The store notifies each stored message at commit (`talk` channel, pg-fanout.ts); each process
 * keeps, per game in memory, the index of the next message its sockets are to be sent, and on a notification
 * (or right after a message is stored through it) reads the game's talk from that index on and pushes it in
 * order. A notification lost or heard late loses nothing (the next read finds the message) and none is pushed
 * twice (one read at a time per game, from the index past the last pushed). The process a message was posted
 * to pushes it the same way, not from the POST: one path for every socket.
 */
import type { Connections } from './connections.js';
import type { Game } from './games.js';
import type { RelayCore } from './relay-options.js';

/** Messages read from the store at once. */
const PAGE = 256;

export interface TalkFanout {
  /** A game being loaded: its messages stored from now on are pushed to its sockets (resolves once that point is read). */
  track(g: Game): Promise<void>;
  /** A game that left memory. */
  leave(g: Game): void;
  /** Messages of `game` were stored up to `index` (a notification, or a message posted here). */
  stored(game: string, index: number): void;
  /** Every game's talk is read again (the LISTEN connection opened again: notifications may have been lost). */
  catchUpAll(): void;
  readonly figures: { talkPushed: number; talkCatchUps: number };
}

interface Tracked {
  readonly game: Game;
  /** The index of the next message to push; null while it is read (a notification meanwhile sets `again`). */
  next: number | null;
  running: Promise<void> | null;
  again: boolean;
}

export function talkFanout(core: RelayCore, wire: Pick<Connections, 'send'>): TalkFanout {
  const { store, log } = core;
  const tracked = new Map<string, Tracked>();
  const figures = { talkPushed: 0, talkCatchUps: 0 };

  function catchUp(t: Tracked): void {
    if (t.running !== null || t.next === null) return void (t.again = true);
    t.running = (async () => {
      do {
        t.again = false;
        figures.talkCatchUps++;
        for (;;) {
          if (t.game.unloaded || store.readTalk === undefined) return;
          const from = t.next ?? 0;
          const page = await store.readTalk(t.game.id, from, PAGE);
          for (const m of page) {
            if (m.index !== t.next) break;
            t.next = m.index + 1;
            figures.talkPushed++;
            const frame = JSON.stringify({ kind: 'talk', index: m.index, at: m.at, text: m.text });
            for (const c of t.game.connections) if (c.who !== null && !c.closed) wire.send(c, frame);
          }
          // A short page is the end; so is one that does not go on from the last pushed (a store at fault).
          if (page.length < PAGE || t.next === from) break;
        }
      } while (t.again);
    })()
      .catch((e: unknown) => log.warn({ err: e, game: t.game.id }, "cannot read a game's talk to push it; the next notification tries again"))
      .finally(() => (t.running = null));
  }

  return {
    async track(g) {
      // The talk stored before the game is in memory is not pushed (its sockets read it with `GET`); what is
      // notified while that point is read is looked for once it is known.
      const t: Tracked = { game: g, next: null, running: null, again: false };
      tracked.set(g.id, t);
      try {
        t.next = (await store.talkUsage?.(g.id))?.count ?? 0;
      } catch (e) {
        if (tracked.get(g.id) === t) tracked.delete(g.id);
        throw e;
      }
      if (t.again) catchUp(t);
    },
    leave(g) {
      if (tracked.get(g.id)?.game === g) tracked.delete(g.id);
    },
    stored(game, index) {
      const t = tracked.get(game);
      if (t !== undefined && (t.next === null || index >= t.next)) catchUp(t);
    },
    catchUpAll() {
      for (const t of tracked.values()) catchUp(t);
    },
    figures,
  };
}
