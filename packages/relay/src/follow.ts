/**
 * Clients on any process (docs/spec/relay.md §4, "Clients on any process"): the relay's side of the fan-out
 * through Postgres (pg-fanout.ts). A game loaded without its lease is *followed*: its door is rebuilt from the
 * store like any other, and each time the store notifies new lines of it (or the LISTEN connection opens
 * again) the process reads the lines past the last one it has, by number, passes them through the door (a
 * line that does not pass is the store's fault: the game leaves memory) and sends them to its sockets. A
 * submission on a follower's socket goes to the game's inbox; the holder puts it through its door as its own
 * socket's and its answer comes back to the submitter. No line is ordered here without the lease: when a
 * forwarded submission finds no lease running (its holder gave the game up, or died and its lease ran out),
 * this process takes the lease and orders the game itself (sealed games: their sockets reconnect here).
 */
import type { WebSocket } from 'ws';
import type { Connections } from './connections.js';
import type { Connection, Game, GameFanout } from './games.js';
import { PgFanout, type FanoutEvents, type Forwarded, type PgFanoutOptions } from './pg-fanout.js';
import { ShardedFanout } from './sharded-fanout.js';
import { readPage } from './reads.js';
import type { RelayCore } from './relay-options.js';
import { talkFanout } from './talk-fanout.js';

export interface FollowDeps {
  readonly core: RelayCore;
  readonly wire: Connections;
  /** The database, or with `shards` the service's further primaries in order (one fan-out a primary, sharded-fanout.ts). */
  readonly fanout: PgFanoutOptions & { readonly shards?: readonly string[] };
  /** How long a forwarded submission may go unanswered before this process looks for the lease itself, ms. */
  readonly leaseMs: number;
  /** A line from a socket of a game this process orders (pipeline.ts). */
  readonly submit: (c: Connection, text: string) => void;
  /** A game that must leave memory (games.ts). */
  readonly forget: (g: Game, message: string, code?: string) => void;
  /** Loads a game into memory (games.ts): one whose lease this process holds is loaded as its holder. */
  readonly load: (id: string) => Promise<Game | null>;
}

export interface Follow extends GameFanout {
  start(): Promise<void>;
  close(): Promise<void>;
  /** A submission on a socket of a followed game. */
  forward(c: Connection, text: string): void;
  /** For `/health`. */
  health(): Record<string, number>;
  /** Prometheus text for `/metrics`. */
  render(node: string): string;
  /** A table-talk message of `game` was stored through this process, numbered `index`: pushed like a notified one. */
  talkStored(game: string, index: number): void;
}

interface Followed {
  readonly game: Game;
  /** A catch-up runs; `again`: another was asked for meanwhile. */
  running: Promise<void> | null;
  again: boolean;
  /** Acknowledgements that came before their line was read here: sent just before the line's entry. */
  readonly acks: Map<number, { c: Connection; message: string }>;
}

interface Waiting {
  readonly c: Connection;
  readonly at: number;
}

export function followGames(deps: FollowDeps): Follow {
  const { core, wire, submit, forget, load, leaseMs } = deps;
  const { store, log, leases, readLimits } = core;
  const followed = new Map<string, Followed>();
  const held = new Map<string, Game>();
  const draining = new Map<string, { again: boolean }>();
  const waiting = new Map<number, Waiting>();
  const promoting = new Set<string>();
  let nextReq = 0;
  const figures = { catchUps: 0, linesDelivered: 0, forwarded: 0, answered: 0, takenOver: 0, unanswered: 0 };
  const talk = talkFanout(core, wire);

  const fanoutOf = (events: FanoutEvents): PgFanout | ShardedFanout =>
    deps.fanout.shards === undefined || deps.fanout.shards.length === 0
      ? new PgFanout(deps.fanout, events)
      : new ShardedFanout({ ...deps.fanout, urls: [deps.fanout.url, ...deps.fanout.shards] }, events);
  const pg = fanoutOf({
    lines: (game, last) => {
      const f = followed.get(game);
      if (f !== undefined && last >= f.game.committed) void catchUp(f);
    },
    inbox: (game) => {
      const g = held.get(game);
      if (g !== undefined) void drain(g);
      // A game this process orders without having it in memory (created here, its sockets all elsewhere): loaded, it takes its inbox.
      else if (leases?.holds(game) === true && !followed.has(game))
        load(game).catch((e: unknown) => log.warn({ err: e, game }, 'cannot load a game to take its forwarded submissions'));
    },
    reply: (req, message) => answered(req, message),
    talk: (game, index) => talk.stored(game, index),
    listening: () => {
      talk.catchUpAll();
      for (const f of followed.values()) void catchUp(f);
      for (const g of held.values()) void drain(g);
    },
    lost: (e) => log.warn({ err: e }, 'the fan-out LISTEN connection failed; it is opened again, and followed games catch up'),
  });

  /** Reads `f`'s lines past the last it has, through its door, to its sockets; one catch-up at a time per game. */
  function catchUp(f: Followed): Promise<void> {
    if (f.running !== null) {
      f.again = true;
      return f.running;
    }
    f.running = (async () => {
      do {
        f.again = false;
        figures.catchUps++;
        const g = f.game;
        for (;;) {
          if (g.unloaded) return;
          const batch = await readPage(store, g.id, g.committed, 256, 4 * readLimits.pageBytes);
          if (batch.length === 0 || g.unloaded) break;
          for (const l of batch) {
            if (l.line !== g.committed) break;
            const from = (JSON.parse(l.text) as { from?: unknown }).from;
            const a = g.door.admit(l.text, typeof from === 'string' ? from : '');
            if (!a.ok || a.duplicate || a.line !== l.line) {
              forget(g, `stored line ${l.line} of this game does not pass its door; reconnect`, 'bad_journal');
              return;
            }
            g.log = l.receipt.log;
            g.committed = l.line + 1;
            g.usage.lines++;
            g.usage.bytes += l.text.length;
            figures.linesDelivered++;
            const ack = f.acks.get(l.line);
            if (ack !== undefined) {
              f.acks.delete(l.line);
              wire.send(ack.c, ack.message);
            }
            const entry = JSON.stringify({ kind: 'entry', line: l.line, text: l.text, receipt: l.receipt });
            for (const c of g.connections) if (c.who !== null) wire.send(c, entry);
          }
        }
      } while (f.again);
    })()
      .catch((e: unknown) => log.warn({ err: e, game: f.game.id }, 'cannot catch a followed game up; the next notification tries again'))
      .finally(() => (f.running = null));
    return f.running;
  }

  /** The holder's side: puts the submissions forwarded to `g` through its door, each answered to where it came from. */
  async function drain(g: Game): Promise<void> {
    const d = draining.get(g.id);
    if (d !== undefined) return void (d.again = true);
    const state = { again: true };
    draining.set(g.id, state);
    try {
      while (state.again) {
        state.again = false;
        const rows = await pg.take(g.id);
        for (const row of rows) {
          if (g.follower || g.unloaded) {
            // Taken by a process that no longer orders the game: the submitter's socket reconnects and resends.
            answer(row, JSON.stringify({ kind: 'error', code: 'lease_lost', message: 'the process ordering this game let it go; reconnect and submit again' }));
            continue;
          }
          figures.answered++;
          submit(remoteSocket(g, row), row.text);
        }
      }
    } catch (e) {
      log.warn({ err: e, game: g.id }, "cannot take a game's forwarded submissions; the next notification tries again");
    } finally {
      draining.delete(g.id);
    }
  }

  function answer(row: Forwarded, message: string): void {
    pg.answer(row, message).catch((e: unknown) => log.warn({ err: e, game: row.origin }, 'cannot answer a forwarded submission; its submitter resends it'));
  }

  /** A stand-in for the submitter's socket on the process that forwarded it: what the pipeline sends it goes back there. */
  function remoteSocket(g: Game, row: Forwarded): Connection {
    const ws = {
      OPEN: 1,
      readyState: 1,
      bufferedAmount: 0,
      send: (data: unknown) => answer(row, Buffer.isBuffer(data) ? data.toString('utf8') : String(data)),
      close: () => {},
      terminate: () => {},
      ping: () => {},
    } as unknown as WebSocket;
    return {
      ws,
      game: g,
      address: `forwarded:${row.origin}`,
      nonce: '',
      who: row.author,
      tokens: 0,
      refilledAt: 0,
      lastHeard: 0,
      helloTimer: null,
      closed: false,
      sync: null as never,
    };
  }

  function forward(c: Connection, text: string): void {
    const g = c.game;
    const req = ++nextReq;
    waiting.set(req, { c, at: Date.now() });
    figures.forwarded++;
    pg.forward(g.id, req, c.who!, text).then(
      (live) => {
        // Nobody orders the game: this process takes it (the submission waits in the inbox for whoever does).
        if (!live) void takeOver(g);
      },
      (e: unknown) => {
        waiting.delete(req);
        wire.refuse(c, 'store_failed', `cannot pass this line to the process ordering the game: ${(e as Error).message}; submit again`);
      },
    );
  }

  function answered(req: number, message: string): void {
    const w = waiting.get(req);
    if (w === undefined) return;
    let m: { kind?: unknown; line?: unknown; code?: unknown; message?: unknown };
    try {
      m = JSON.parse(message) as typeof m;
    } catch {
      return;
    }
    const { c } = w;
    // One answer a submission (`accepted`, `refused`, a sealed game's `held`, or `error`).
    waiting.delete(req);
    if (m.kind === 'error') return wire.drop(c, String(m.code), String(m.message));
    const f = followed.get(c.game.id);
    if (m.kind === 'accepted' && typeof m.line === 'number' && f !== undefined && f.game === c.game && m.line >= c.game.committed) {
      // The line is stored (the holder answers after its commit): its entry comes with the catch-up, just after this.
      f.acks.set(m.line, { c, message });
      void catchUp(f);
      return;
    }
    wire.send(c, message);
  }

  /**
   * A followed game whose holder let it go or died: this process takes the lease (refused while another's
   * runs), reads the lines stored before it took it, and orders the game from then on.
   */
  async function takeOver(g: Game): Promise<void> {
    if (!g.follower || g.unloaded || promoting.has(g.id) || leases === null) return;
    promoting.add(g.id);
    try {
      if (!(await leases.tryAcquire(g.id))) return;
      if (g.sealedMode || g.unloaded) {
        // A sealed game's room is rebuilt with the game: its sockets reconnect, and the game loads here with the lease.
        leases.release(g.id);
        if (!g.unloaded) forget(g, 'this process orders the game from now on; reconnect', 'lease_lost');
        return;
      }
      // Every line stored before the lease was taken passes this door before it orders one.
      const f = followed.get(g.id);
      if (f !== undefined) await catchUp(f);
      if (g.unloaded || g.committed !== (await store.lineCount(g.id))) {
        leases.release(g.id);
        if (!g.unloaded) forget(g, 'this process could not read the whole log of the game it was to order; reconnect', 'lease_lost');
        return;
      }
      followed.delete(g.id);
      g.follower = false;
      held.set(g.id, g);
      figures.takenOver++;
      log.info({ game: g.id }, 'a followed game had no process ordering it: this process orders it now');
      await drain(g);
    } catch (e) {
      log.warn({ err: e, game: g.id }, 'cannot take a followed game over');
    } finally {
      promoting.delete(g.id);
    }
  }

  // Forwarded submissions unanswered for a lease's length: the holder may be gone, so look for the lease; after
  // three, the submitter's socket is closed (it reconnects and resends what was not acknowledged).
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [req, w] of waiting) {
        if (w.c.closed) waiting.delete(req);
        else if (now - w.at > 3 * leaseMs) {
          waiting.delete(req);
          figures.unanswered++;
          wire.drop(w.c, 'lease_lost', 'no answer from the process ordering this game; reconnect and submit again');
        } else if (now - w.at > leaseMs && w.c.game.follower) {
          void takeOver(w.c.game);
          // The holder may have missed the notification: it is sent again.
          pg.nudge(w.c.game.id).catch(() => {});
        }
      }
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  sweep.unref();

  return {
    start: () => pg.start(),
    async close() {
      clearInterval(sweep);
      await pg.close();
    },
    follow(g) {
      const f: Followed = { game: g, running: null, again: false, acks: new Map() };
      followed.set(g.id, f);
      void catchUp(f);
    },
    hold(g) {
      held.set(g.id, g);
      void drain(g);
    },
    talk: (g) => talk.track(g),
    talkStored: (game, index) => talk.stored(game, index),
    leave(g) {
      talk.leave(g);
      if (followed.get(g.id)?.game === g) followed.delete(g.id);
      if (held.get(g.id) === g) held.delete(g.id);
    },
    forward,
    health: () => ({ followed: followed.size, ...pg.counts, ...figures, ...talk.figures, waiting: waiting.size }),
    render(node) {
      const rows: [string, string, number][] = [
        ['fairtable_relay_fanout_followed', 'Games this process follows (another process holds their lease).', followed.size],
        ['fairtable_relay_fanout_line_notifications_total', 'Notifications of stored lines heard.', pg.counts.lines],
        ['fairtable_relay_fanout_catch_ups_total', 'Catch-ups of followed games from the store.', figures.catchUps],
        ['fairtable_relay_fanout_lines_delivered_total', 'Lines of followed games read from the store and sent to sockets.', figures.linesDelivered],
        ['fairtable_relay_fanout_forwarded_total', 'Submissions forwarded to the process ordering their game.', figures.forwarded],
        ['fairtable_relay_fanout_taken_total', 'Forwarded submissions this process put through its doors.', figures.answered],
        ['fairtable_relay_fanout_taken_over_total', 'Followed games this process took over (nobody held their lease).', figures.takenOver],
        ['fairtable_relay_fanout_unanswered_total', 'Forwarded submissions never answered (their sockets closed).', figures.unanswered],
        ['fairtable_relay_fanout_talk_notifications_total', 'Notifications of stored table talk heard.', pg.counts.talk],
        ['fairtable_relay_fanout_talk_pushed_total', 'Table-talk messages read from the store and pushed to sockets.', talk.figures.talkPushed],
        ['fairtable_relay_fanout_listens_total', 'Times the LISTEN connection was opened.', pg.counts.listens],
      ];
      return rows
        .map(
          ([name, help, value]) =>
            `# HELP ${name} ${help}\n# TYPE ${name} ${name.endsWith('_total') ? 'counter' : 'gauge'}\n${name}{node=${JSON.stringify(node)}} ${value}\n`,
        )
        .join('');
    },
  };
}
