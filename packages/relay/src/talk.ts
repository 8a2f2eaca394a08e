/**
 * Table talk on the relay (docs/spec/press.md §6, docs/spec/relay.md §3 and §5): `POST /games/:game/talk` keeps one
 * message beside the game's log, never in it, and pushes it as a `talk` frame to every connection of the game
 * that has said hello; `GET /games/:game/talk?from=N` reads them back a page at a time.
 *
 * The relay is not trusted with talk and does not judge it: it checks the message's shape and size (core's
 * `talkShapeError`), that it names this game and an author of its log (a setup's player, or a newcomer from its `newcomer` line on), that the game's press rule allows it (its setup's
 * `params.press`), and the rates and caps below; signatures, MACs and sequence numbers are every reader's to check. A private message is sealed: the relay sees who
 * wrote to whom, when, and how long.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { isHex } from '@fairtable/core/bytes.js';
import { parseJson } from '@fairtable/core/jcs.js';
import { MAX_TALK_BYTES, pressRulesOf, talkShapeError, talkText, type TalkDeparture, type TalkMessage } from '@fairtable/core/press/index.js';
import type { Connection, Game } from './games.js';
import { clientKey, RateLimiter, remoteAddress } from './rate-limit.js';
import { failure, type RelayCore } from './relay-options.js';
import { HandoverTracker } from './talk-roster.js';

export interface TalkLimits {
  /** Messages one author (by the `from` it claims, per game) may post a minute, sustained. */
  readonly perAuthorPerMinute: number;
  /** Messages above that rate one author may post at once. */
  readonly perAuthorBurst: number;
  /** Messages one game's talk holds at most. */
  readonly gameMessages: number;
  /** Bytes of message text one game's talk holds at most. */
  readonly gameBytes: number;
  /** Messages one `GET` answers at most. */
  readonly pageMessages: number;
  /** Bytes of message text one `GET` answers at most (the first message always goes). */
  readonly pageBytes: number;
  /** `GET`s one client address may make a second, sustained (burst: twice as many, at least 2). */
  readonly readsPerSecond: number;
}

export const DEFAULT_TALK_LIMITS: TalkLimits = {
  perAuthorPerMinute: 60,
  perAuthorBurst: 20,
  gameMessages: 20_000,
  gameBytes: 32 << 20,
  pageMessages: 500,
  pageBytes: 1 << 20,
  readsPerSecond: 10,
};

export interface TalkDeps {
  readonly core: RelayCore;
  readonly loadGame: (id: string) => Promise<Game | null>;
  /** Sends a value to one connection (connections.ts). */
  readonly send: (c: Connection, value: unknown) => void;
  /**
   * With several processes (follow.ts): a message stored here, pushed like one notified from another process
   * (talk-fanout.ts), to this process's sockets once and in order. Without it, pushed here directly.
   */
  readonly stored?: (game: string, index: number) => void;
}

interface Usage {
  count: number;
  bytes: number;
}

export function talkRoutes(deps: TalkDeps): Hono {
  const { core, loadGame, send, stored } = deps;
  const { store, clock, metrics, limits, storage, log } = core;
  const t: TalkLimits = { ...DEFAULT_TALK_LIMITS, ...core.options.talk };
  const byAuthor = new RateLimiter({ perSecond: t.perAuthorPerMinute / 60, burst: t.perAuthorBurst, maxClients: limits.httpClients });
  const byAddress = new RateLimiter({ perSecond: limits.messagesPerSecond, burst: limits.messageBurst, maxClients: limits.httpClients });
  const readers = new RateLimiter({ perSecond: t.readsPerSecond, burst: Math.max(2, 2 * t.readsPerSecond), maxClients: limits.httpClients });
  const handovers = new HandoverTracker(store, core.options.talkRegistry);
  /** What each game's talk holds, read from the store on a game's first message since the relay started. */
  const usage = new Map<string, Promise<Usage>>();
  const usageOf = (game: string): Promise<Usage> => {
    let u = usage.get(game);
    if (u === undefined) {
      u = (store.talkUsage?.(game) ?? Promise.resolve({ count: 0, bytes: 0 })).then((x) => ({ count: x.count, bytes: x.bytes }));
      u.catch(() => usage.delete(game));
      usage.set(game, u);
    }
    return u;
  };
  const refused = (code: string, message: string, status: 400 | 403 | 404 | 413 | 429 | 503) => {
    metrics.refused(code);
    return { body: failure(code, message), status };
  };

  const app = new Hono();
  app.post(
    '/games/:game/talk',
    bodyLimit({ maxSize: MAX_TALK_BYTES + 2, onError: (c) => c.json(failure('line_too_long', `a talk message is at most ${MAX_TALK_BYTES} bytes`), 413) }),
    async (c) => {
      const answer = async (): Promise<{ body: unknown; status: 200 | 201 | 400 | 403 | 404 | 413 | 429 | 503 }> => {
        if (store.appendTalk === undefined) return refused('talk_unsupported', "this relay's store keeps no talk", 400);
        if (!byAddress.take(clientKey(remoteAddress(c)))) return refused('rate_limited', 'too many talk messages from this address', 429);
        if (storage.full !== null) return refused('storage_full', `the relay stores nothing now: ${storage.full}`, 503);
        const id = c.req.param('game');
        const g = isHex(id, 32) ? await loadGame(id) : null;
        if (g === null) return refused('unknown_game', 'no such game on this relay', 404);
        const text = (await c.req.text()).replace(/\r?\n$/, '');
        let value: unknown;
        try {
          value = parseJson(text);
        } catch {
          return refused('bad_message', 'a talk message is one strict JSON object', 400);
        }
        const problem = talkShapeError(value);
        if (problem !== null) return refused('bad_message', problem, 400);
        const m = value as TalkMessage;
        if (m.game !== g.id) return refused('bad_message', 'talk.game: not this game', 400);
        // The game's authors as its log has them (press.md §10): the setup's players, and each newcomer from the
        // line that introduced it (SPEC §4.6), the same authors the door admits lines from.
        const seats = g.door.checker.keys;
        if (!seats.has(m.from)) return refused('bad_message', `talk.from: ${m.from} is not a seat of this game`, 400);
        if (Array.isArray(m.to) && m.to.some((r) => !seats.has(r))) return refused('bad_message', 'talk.to: every recipient is a seat of this game', 400);
        // A player whose power went to a newcomer writes no more press, and none is sealed to it (press.md §10).
        let departed: readonly TalkDeparture[];
        try {
          departed = await handovers.departed(g);
        } catch (e) {
          log.error({ err: e, game: g.id }, 'talk: the log could not be replayed for its hand-overs');
          return refused('store_failed', "the relay could not read the game's log", 503);
        }
        const gone = departed.find((d) => d.id === m.from);
        if (gone !== undefined) {
          return refused('talk_departed', `${m.from}'s power went to ${gone.by} at line ${gone.line}: ${m.from}'s key writes no more press`, 403);
        }
        const to = Array.isArray(m.to) ? departed.find((d) => (m.to as readonly string[]).includes(d.id)) : undefined;
        if (to !== undefined) return refused('talk_departed', `${to.id}'s power went to ${to.by} at line ${to.line}: write to ${to.by}`, 403);
        // The game's press rules, from its setup: talk a game has none of is not kept (readers would refuse it anyway).
        const rules = pressRulesOf(g.door.checker.setup.params);
        if (rules === null || rules.rule === 'none') return refused('no_press', 'this game has no talk', 403);
        if (rules.rule === 'public' && Array.isArray(m.to)) return refused('no_press', 'this game has public press only', 403);
        if (!byAuthor.take(`${g.id}/${m.from}`)) {
          return refused('rate_limited', `more than ${t.perAuthorPerMinute} talk messages a minute (burst ${t.perAuthorBurst}) from ${m.from}`, 429);
        }
        // Kept in its canonical form: every reader hashes the same bytes.
        const canonical = talkText(m);
        const size = Buffer.byteLength(canonical);
        const u = await usageOf(g.id);
        if (u.count + 1 > t.gameMessages) return refused('game_full', `this game's talk holds ${t.gameMessages} messages, the most the relay keeps`, 403);
        if (u.bytes + size > t.gameBytes) return refused('game_full', `this game's talk holds ${u.bytes} bytes; the relay keeps ${t.gameBytes}`, 403);
        u.count++;
        u.bytes += size;
        const at = clock();
        let index: number;
        try {
          index = await store.appendTalk(g.id, at, canonical);
        } catch (e) {
          u.count--;
          u.bytes -= size;
          log.error({ err: e, game: g.id }, 'talk append failed');
          return refused('store_failed', 'the relay could not keep this message', 503);
        }
        if (stored !== undefined) stored(g.id, index);
        else {
          const frame = JSON.stringify({ kind: 'talk', index, at, text: canonical });
          for (const conn of g.connections) if (conn.who !== null && !conn.closed) send(conn, frame);
        }
        return { body: { index, at }, status: 201 };
      };
      const a = await answer();
      return c.json(a.body, a.status);
    },
  );
  app.get('/games/:game/talk', async (c) => {
    if (!readers.take(clientKey(remoteAddress(c)))) {
      metrics.refused('rate_limited');
      return c.json(failure('rate_limited', `more than ${t.readsPerSecond} talk reads a second from this address`), 429);
    }
    const id = c.req.param('game');
    const g = isHex(id, 32) ? await loadGame(id) : null;
    if (g === null) return c.json(failure('unknown_game', 'no such game on this relay'), 404);
    const fromText = c.req.query('from') ?? '0';
    const from = /^[0-9]{1,15}$/.test(fromText) ? Number(fromText) : -1;
    if (from < 0) return c.json(failure('bad_message', 'from: a talk index, a non-negative integer'), 400);
    const read = (await store.readTalk?.(g.id, from, t.pageMessages)) ?? [];
    // A page bounded in bytes too: the messages up to pageBytes, and always the first.
    const talk: typeof read = [];
    let bytes = 0;
    for (const m of read) {
      bytes += m.text.length;
      if (talk.length > 0 && bytes > t.pageBytes) break;
      talk.push(m);
    }
    const last = talk[talk.length - 1];
    return c.json({ game: g.id, talk, next: last === undefined ? from : last.index + 1 });
  });
  return app;
}
