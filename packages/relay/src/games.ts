/**
 * The games a relay holds in memory (docs/spec/relay.md §2, §4): each a core `Door` (SPEC §10.1) rebuilt
 * from the store the first time the game is asked for, with the running log hash its receipts carry, its
 * connections, its sealed room (docs/spec/sealed.md) and what it holds against its quota; a game nobody is
 * connected to leaves memory after a while, and one whose lines the store lost leaves it at once.
 */
import type { WebSocket } from 'ws';
import { Door } from '@fairtable/core/door.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { nativeVerify } from '@fairtable/node/native-verify.js';
import { emptyUsage, type GameUsage } from './quotas.js';
import { readPage, type SyncPacer } from './reads.js';
import type { RelayCore } from './relay-options.js';
import { SealedRoom, type RoomHost } from './sealed.js';
import type { LineToSign } from './store.js';

/** A game as the relay holds it in memory. */
export interface Game {
  readonly id: string;
  readonly door: Door;
  readonly protocol: string;
  readonly players: readonly { readonly id: string; readonly key: string }[];
  /** L_n of the last admitted line. */
  log: string;
  /** Lines committed to the store (the log a reader is shown). */
  committed: number;
  /** Lines admitted and not yet stored. */
  unstored: number;
  unloadTimer: NodeJS.Timeout | null;
  /** Out of memory: a connection that finds it so must load the game again. */
  unloaded: boolean;
  readonly connections: Set<Connection>;
  /** Sealed mode (docs/spec/sealed.md), when the setup asks for it. */
  sealed: SealedRoom | null;
  /** What the game holds against its quota. */
  readonly usage: GameUsage;
  /**
   * Followed, not ordered: another process holds the game's lease; this one delivers its stored lines to its
   * own sockets and forwards their submissions (follow.ts). False when this process orders the game.
   */
  follower: boolean;
  /** Whether the setup asks for sealed mode (a follower has no room of its own). */
  readonly sealedMode: boolean;
}

export interface Connection {
  readonly ws: WebSocket;
  readonly game: Game;
  /** The client key (rate-limit.ts) its open connections are counted under. */
  readonly address: string;
  readonly nonce: string;
  who: string | null;
  tokens: number;
  refilledAt: number;
  lastHeard: number;
  helloTimer: NodeJS.Timeout | null;
  closed: boolean;
  /** Its `sync` answers, paced (reads.ts). */
  readonly sync: SyncPacer;
}

export interface Pending extends LineToSign {
  /**
   * The receipt's signature, hex, and where the line sits in its batch (relay.md §2): made with the batch's
   * append (by the store's thread when it can), known once it has committed.
   */
  sig: string;
  index: number;
  size: number;
  path: readonly string[];
  /** The submitter to acknowledge; null for a released sealed line (its author learns of it from the entry). */
  readonly from: Connection | null;
  readonly entry: Game;
}

export interface GamesDeps {
  readonly core: RelayCore;
  /** Ends a connection with a coded error (connections.ts). */
  readonly drop: (c: Connection, code: string, message: string) => void;
  /** What a game's sealed room sees of the relay (pipeline.ts). */
  readonly roomHost: (id: string, self: () => Game | undefined) => RoomHost;
  /** Fan-out between processes (follow.ts), when the service has several: games loaded without their lease are followed. */
  readonly fanout?: () => GameFanout | null;
}

/** What games.ts tells the fan-out (follow.ts). */
export interface GameFanout {
  /** A game loaded without its lease: its lines are followed from the store. */
  follow(g: Game): void;
  /** A game loaded with its lease: submissions forwarded to it are taken. */
  hold(g: Game): void;
  /** A game being loaded (before `follow` or `hold`): its table talk stored from now on is pushed to its sockets. */
  talk(g: Game): Promise<void>;
  /** A game that left memory. */
  leave(g: Game): void;
}

/** The games in memory. */
export interface Games {
  /** Sealed games in memory, for their rooms' callbacks (which may run before loadGame's promise resolves). */
  readonly sealedGames: Map<string, Game>;
  /** Games in memory now. */
  loaded(): number;
  unloadLater(g: Game): void;
  forget(g: Game, message: string, code?: string): void;
  /** Games whose leases another process took over (leases.ts): they leave memory. */
  leaseLost(ids: readonly string[]): void;
  loadGame(id: string): Promise<Game | null>;
}

export function holdGames(deps: GamesDeps): Games {
  const { limits, readLimits, store, leases } = deps.core;
  const { drop, roomHost } = deps;
  const games = new Map<string, Promise<Game | null>>();
  /** Sealed games in memory, for their rooms' callbacks (which may run before loadGame's promise resolves). */
  const sealedGames = new Map<string, Game>();
  let loadedGames = 0;

  /**
   * A game's door holds its log's index in memory; one nobody is connected to leaves memory after
   * `unloadAfterMs`, so memory follows the games being played, not every game ever hosted.
   */
  function unloadLater(g: Game): void {
    if (g.unloadTimer !== null) clearTimeout(g.unloadTimer);
    g.unloadTimer = setTimeout(() => {
      g.unloadTimer = null;
      if (g.connections.size > 0) return;
      if (g.unstored > 0 || (g.sealed?.size ?? 0) > 0) return unloadLater(g);
      void games.get(g.id)?.then((held) => {
        if (held === g && g.connections.size === 0 && g.unstored === 0) {
          games.delete(g.id);
          sealedGames.delete(g.id);
          g.unloaded = true;
          loadedGames--;
          deps.fanout?.()?.leave(g);
          // Another process may order the game from now on.
          if (!g.follower) leases?.release(g.id);
        }
      });
    }, limits.unloadAfterMs);
    g.unloadTimer.unref();
  }

  /**
   * A game whose admitted lines the store lost (a failed append): it leaves memory at once, its connections
   * told why, so that its door is rebuilt from what was stored when it is next asked for.
   */
  function forget(g: Game, message: string, code = 'storage_full'): void {
    if (g.unloaded) return;
    g.unloaded = true;
    g.unstored = 0;
    g.sealed?.stop();
    void games.get(g.id)?.then((held) => {
      if (held === g) games.delete(g.id);
    });
    if (sealedGames.get(g.id) === g) sealedGames.delete(g.id);
    loadedGames--;
    deps.fanout?.()?.leave(g);
    for (const c of [...g.connections]) drop(c, code, message);
    if (g.unloadTimer !== null) clearTimeout(g.unloadTimer);
    g.unloadTimer = null;
  }

  /** The game, from memory or rebuilt from the store (every stored line passes the door again). */
  function loadGame(id: string): Promise<Game | null> {
    let found = games.get(id);
    if (found === undefined) {
      found = (async (): Promise<Game | null> => {
        const first = await store.readLines(id, 0, 1);
        const setup = first[0];
        if (setup === undefined) return null;
        // Ordered here only under this process's lease; the log is read after it is taken, so it holds every
        // line the game's previous holder stored. Without it, and with fan-out, the game is followed instead.
        const fanout = deps.fanout?.() ?? null;
        let holds = true;
        if (leases !== null && fanout === null) await leases.acquire(id);
        else if (leases !== null) holds = await leases.tryAcquire(id);
        const door = new Door(setup.text, { verify: nativeVerify });
        // The room's host finds its game through this, once it is made (a forgotten game's room records nothing).
        const made: { game?: Game } = {};
        const room = SealedRoom.of(
          id,
          door,
          roomHost(id, () => made.game),
        );
        const sealed = holds ? room : null;
        let logHash = setup.receipt.log;
        const usage = emptyUsage();
        usage.lines = 1;
        usage.bytes = setup.text.length;
        let at = 1;
        for (;;) {
          // Pages bounded in bytes: a game at its quota is rebuilt a few MiB at a time.
          const batch = await readPage(store, id, at, 1024, 4 * readLimits.pageBytes);
          for (const l of batch) {
            const from = (JSON.parse(l.text) as { from: string }).from;
            const a = door.admit(l.text, from);
            if (!a.ok || a.duplicate || a.line !== l.line)
              throw new FairtableError('bad_journal', `game ${id}: stored line ${l.line} does not pass the door again`);
            sealed?.observe(l.text);
            logHash = l.receipt.log;
            usage.lines++;
            usage.bytes += l.text.length;
          }
          at += batch.length;
          if (batch.length === 0) break;
        }
        loadedGames++;
        const game: Game = {
          id,
          door,
          protocol: door.checker.setup.protocol,
          players: door.checker.setup.players.map((p) => ({ id: p.id, key: p.key })),
          log: logHash,
          committed: door.length,
          unstored: 0,
          unloadTimer: null,
          unloaded: false,
          connections: new Set(),
          sealed,
          usage,
          follower: !holds,
          sealedMode: room !== null,
        };
        await fanout?.talk(game);
        made.game = game;
        if (sealed !== null) {
          sealedGames.set(id, game);
          await sealed.restore();
        }
        if (holds) fanout?.hold(game);
        else fanout?.follow(game);
        unloadLater(game);
        return game;
      })();
      games.set(id, found);
      // A game the store does not hold is not remembered: the map holds only games that exist.
      void found.then(
        (g) => {
          if (g === null) games.delete(id);
        },
        () => games.delete(id),
      );
    }
    return found;
  }

  function leaseLost(ids: readonly string[]): void {
    for (const id of ids)
      void games.get(id)?.then(
        (g) => g !== null && !g.follower && forget(g, 'another process of this relay service orders this game now; reconnect', 'lease_lost'),
        () => {},
      );
  }

  return { sealedGames, loaded: () => loadedGames, unloadLater, forget, leaseLost, loadGame };
}
