import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { randomBytes, toHex, fromHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair, type KeyPair } from '@fairtable/core/identity.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { forkProof, receiptError, signReceipt, signReceiptBatch, type Receipt } from '@fairtable/core/order/receipt.js';
import { createSetupEnvelope } from '@fairtable/core/setup.js';
import { randomStrategy } from '@fairtable/core/testing';
import { seatRandom, type JournalEntry } from '@fairtable/core/seat/seat.js';
import { createGame, fetchGame, joinGame, receiptTimedRegistry, type RelayGame, type RelayLie } from '@fairtable/client';
import { Referee } from '@fairtable/core/referee.js';
import { DEFAULT_REGISTRY } from '@fairtable/core/registry.js';
import { signChain, startMiniRelay, type MiniRelay, type View } from '../../../test/mini-relay.js';

interface Player {
  readonly id: string;
  readonly keys: KeyPair;
}

function newGame(protocol: string, game: string | null, params: Record<string, JsonValue>, n: number): { setupLine: string; players: Player[] } {
  const players = Array.from({ length: n }, (_, i) => ({ id: `p${i}`, keys: generateKeyPair() }));
  const setup = {
    protocol,
    game,
    params,
    players: players.map((p) => ({ id: p.id, key: toHex(p.keys.publicKey) })),
    nonce: toHex(randomBytes(32)),
    created: Date.now(),
  };
  return { setupLine: envelopeLine(createSetupEnvelope(setup, 'p0', players[0]!.keys)), players };
}

/** What a test started: its relays and seats, closed when it ends. */
interface Held {
  readonly relays: MiniRelay[];
  readonly games: RelayGame[];
}
const started: Held = { relays: [], games: [] };
async function release(h: Held): Promise<void> {
  for (const g of h.games.splice(0)) g.close();
  for (const r of h.relays.splice(0)) await r.close();
}
afterEach(() => release(started));

async function play(
  protocol: string,
  game: string | null,
  params: Record<string, JsonValue>,
  n: number,
  automatic = true,
  seats: { readonly only?: readonly string[]; readonly clock?: (id: string) => (() => number) | undefined; readonly batch?: number } = {},
  into: Held = started,
): Promise<{ relay: MiniRelay; games: RelayGame[]; gameId: string; relayKey: string; players: Player[] }> {
  const relay = await startMiniRelay(seats.batch === undefined ? {} : { batch: seats.batch });
  into.relays.push(relay);
  const { setupLine, players } = newGame(protocol, game, params, n);
  const created = await createGame(relay.url, setupLine);
  const clockOf = (id: string): { clock?: () => number } => {
    const c = seats.clock?.(id);
    return c === undefined ? {} : { clock: c };
  };
  const games = players
    .filter((p) => seats.only === undefined || seats.only.includes(p.id))
    .map((p) =>
      joinGame({
        ...clockOf(p.id),
        relayUrl: relay.url,
        gameId: created.game,
        id: p.id,
        keys: p.keys,
        random: randomBytes,
        WebSocket,
        relayKey: created.relay,
        backoffMs: { min: 50, max: 400 },
        ...(automatic ? { strategy: randomStrategy(randomBytes(32)) } : {}),
      }),
    );
  into.games.push(...games);
  return { relay, games, gameId: created.game, relayKey: created.relay, players };
}

function checkReceipts(g: RelayGame, relayKey: string): void {
  expect(g.receipts.length).toBe(g.lines.length);
  for (const r of g.receipts) expect(receiptError(r, fromHex(relayKey))).toBeNull();
}

describe('the client through a relay', () => {
  it('plays an honest game of dice on the chain protocol with 3 seats; every seat holds the same verified log', async () => {
    const { relay, games, gameId, relayKey } = await play('chain', 'dice', { rounds: 2, timeoutMs: 5000 }, 3);
    const outcomes = await Promise.all(games.map((g) => g.finished));
    expect(outcomes[0]!.winners.length).toBeGreaterThan(0);
    for (const o of outcomes) expect(o).toEqual(outcomes[0]);
    const truth = relay.games.get(gameId)!;
    for (const g of games) {
      expect(g.lie).toBeNull();
      expect(g.lines).toEqual(truth.lines);
      checkReceipts(g, relayKey);
      const verdict = g.audit();
      expect(verdict.valid).toBe(true);
      expect(verdict.receipts).toBe(truth.lines.length);
    }
    // 2 rounds of 3 movers, each a commit and an opening at least, plus the setup.
    expect(truth.lines.length).toBeGreaterThan(1 + 3 * 2);
    const fetched = await fetchGame(relay.url, gameId, relayKey);
    expect(fetched.lie).toBeNull();
    expect(fetched.lines).toEqual(truth.lines);
  });

  it('plays Rochambeau with the hands chosen through the client', async () => {
    const { games } = await play('rochambeau', null, { N: '3', timeoutMs: 5000 }, 2, false);
    const chosen: Record<string, number[]> = { p0: [], p1: [] };
    for (const g of games) {
      g.on('decision', (d) => {
        expect(d.kind).toBe('hand');
        // p0 always plays 1; p1 plays 1 on its first attempt and 2 after.
        const hand = g.id === 'p0' ? 1 : chosen.p1!.length === 0 ? 1 : 2;
        chosen[g.id]!.push(hand);
        g.decide(hand);
      });
    }
    const [o] = await Promise.all(games.map((g) => g.finished));
    expect(chosen.p1![0]).toBe(1);
    expect(o!.winners.length).toBe(1);
    // Every hand chosen went into a commitment this seat signed: one commit per attempt.
    const commits = games[1]!.lines.filter((t) => t.includes('"from":"p1"') && t.includes('"type":"commit"'));
    expect(commits.length).toBe(chosen.p1!.length);
    expect(games[0]!.audit().valid).toBe(true);
  });

  it('refuses an illegal hand with illegal_choice and takes a legal one after', async () => {
    const { games } = await play('rochambeau', null, { N: '3', timeoutMs: 5000 }, 2, false);
    const refusals: string[] = [];
    for (const g of games)
      g.on('decision', () => {
        try {
          g.decide(7);
        } catch (e) {
          refusals.push((e as { code: string }).code);
          g.decide(g.id === 'p0' ? 1 : 2);
        }
      });
    await Promise.all(games.map((g) => g.finished));
    expect(refusals.length).toBeGreaterThanOrEqual(2);
    expect(new Set(refusals)).toEqual(new Set(['illegal_choice']));
  });

  it('reconnects after its sockets are dropped mid-game and finishes with the same verified log', async () => {
    const { relay, games, gameId, relayKey } = await play('chain', 'dice', { rounds: 4, timeoutMs: 10_000 }, 3);
    const disconnects: string[] = [];
    for (const g of games) g.on('status', (s) => s.status === 'disconnected' && disconnects.push(g.id));
    const truth = relay.games.get(gameId)!;
    // Drop every connection twice while the game is under way.
    for (const at of [5, 12]) {
      while (truth.lines.length < at) await new Promise((r) => setTimeout(r, 5));
      relay.dropConnections();
    }
    const outcomes = await Promise.all(games.map((g) => g.finished));
    expect(new Set(disconnects)).toEqual(new Set(['p0', 'p1', 'p2']));
    for (const o of outcomes) expect(o).toEqual(outcomes[0]);
    for (const g of games) {
      expect(g.lines).toEqual(truth.lines);
      checkReceipts(g, relayKey);
      expect(g.audit().valid).toBe(true);
    }
  });
});

/**
 * Plays a 3-seat dice game in which the relay lies to p1: p1 is served the true log up to line `hold`
 * (exclusive) until the log has more than `from` lines, and `lie(truth)` from then on. Returns p1's finding.
 */
async function caught(lie: (truth: View, keys: KeyPair, gameId: string) => View, hold: number, from: number): Promise<RelayLie> {
  // Its own relay and seats, closed here: these tests run at once, each mostly waiting out the deadline below.
  const own: Held = { relays: [], games: [] };
  try {
    return await caughtOn(own, lie, hold, from);
  } finally {
    await release(own);
  }
}

async function caughtOn(own: Held, lie: (truth: View, keys: KeyPair, gameId: string) => View, hold: number, from: number): Promise<RelayLie> {
  // A short timeout: once p1 stops, the others claim its deadline and finish without it.
  const { relay, games, gameId, relayKey } = await play('chain', 'dice', { rounds: 3, timeoutMs: 1500 }, 3, true, {}, own);
  relay.lie = (player, truth) =>
    player !== 'p1'
      ? truth
      : truth.lines.length > from
        ? lie(truth, relay.keys, gameId)
        : { lines: truth.lines.slice(0, hold), receipts: truth.receipts.slice(0, hold) };
  const victim = games[1]!;
  const reported: RelayLie[] = [];
  victim.on('relay_lied', (l) => reported.push(l));
  await expect(victim.finished).rejects.toMatchObject({ code: 'relay_lied' });
  expect(reported).toHaveLength(1);
  const found = reported[0]!;
  expect(victim.lie).toBe(found);
  expect(found.relay).toBe(relayKey);
  // The evidence is the relay's own signatures.
  for (const r of found.receipts) expect(receiptError(r, fromHex(relayKey))).toBeNull();
  // The victim stopped: it asks for no decision, and holds no line past the lie.
  expect(victim.decision()).toBeNull();
  expect(victim.status).toBe('stopped');
  expect(victim.lines.length).toBeLessThanOrEqual(found.line + 1);
  // The other seats, served the truth, finish the game.
  await Promise.all([games[0]!.finished, games[2]!.finished]);
  return found;
}

const now = (): number => Date.now();

/**
 * A history re-signed from line 3 on may move the victim's own envelope, whose receipt the relay gave it when
 * it submitted: which of its envelopes stands at 3 or 4 depends on how the seats' moves interleave. The victim then
 * holds two receipts of the relay for one line that differ, a fork proof, and names the lie by it (as soon as the
 * re-signed receipt arrives, before any door is asked). True when that is what was found, its proof checked.
 */
function reSignedOverOwn(lie: RelayLie): boolean {
  if (lie.kind !== 'fork') return false;
  // Lines 0–2 it was served true; the re-signed history starts where its log stopped.
  expect(lie.line).toBeGreaterThanOrEqual(3);
  expect(lie.receipts).toHaveLength(2);
  expect(forkProof(lie.receipts[0]!, lie.receipts[1]!)).not.toBeNull();
  return true;
}

describe('time and restarts', () => {
  it('judges deadlines on receipt times: a seat whose clock is an hour fast claims nothing early; the absent player is named withheld', async () => {
    const hour = 3_600_000;
    const { games } = await play('chain', 'dice', { rounds: 1, timeoutMs: 400 }, 3, true, {
      only: ['p0', 'p1'],
      clock: (id) => (id === 'p0' ? () => Date.now() + hour : undefined),
    });
    const outcomes = await Promise.all(games.map((g) => g.finished));
    expect(outcomes[0]!.forfeits).toEqual([{ player: 'p2', code: 'withheld' }]);
    for (const g of games) {
      expect(g.violations.filter((v) => v.player !== 'p2')).toEqual([]);
      expect(g.audit().violations.map((v) => [v.code, v.player])).toEqual([['withheld', 'p2']]);
    }
    // The fast seat signed its envelopes on the relay's clock, not its own.
    const fast = games[0]!;
    expect(fast.clockOffset!).toBeLessThan(-hour + 60_000);
    for (const text of fast.lines.slice(1)) {
      const e = JSON.parse(text) as { from: string; time: number };
      if (e.from === 'p0') expect(Math.abs(e.time - Date.now())).toBeLessThan(60_000);
    }
  });

  it("the machines take each line's time from its receipt (receiptTimedRegistry), not from its author's claim", async () => {
    // The deadline is long enough that the line before the claim is receipted before it even on a loaded machine.
    const { games } = await play('chain', 'dice', { rounds: 1, timeoutMs: 2_000 }, 3, true, { only: ['p0', 'p1'] });
    await Promise.all(games.map((g) => g.finished));
    const g = games[0]!;
    const claims = g.lines.map((t, i) => [i, t] as const).filter(([, t]) => t.includes('"type":"deadline"'));
    expect(claims.length).toBeGreaterThan(0);
    const first = claims[0]![0];
    const judge = (timeOf: (line: number) => number | undefined): string[] => {
      const referee = new Referee(g.lines[0]!, null, undefined, { registry: receiptTimedRegistry(DEFAULT_REGISTRY, timeOf) });
      for (let i = 1; i < g.lines.length; i++) referee.feedText(i, g.lines[i]!);
      return referee.violations.map((v) => `${v.code} ${v.player}`);
    };
    const receipts = (line: number): number | undefined => g.receipts[line]?.time;
    expect(judge(receipts)).toEqual(['withheld p2']);
    // Receipted at the instant of the line before it (before the deadline): the same claim is false.
    const early = (line: number): number | undefined => (line === first ? g.receipts[first - 1]!.time : receipts(line));
    expect(judge(early)).toContain(`false_deadline_claim ${JSON.parse(g.lines[first]!).from}`);
  });

  it('resumes a seat stopped mid-game from its kept lines, receipts, journal and envelope in flight, without equivocating', async () => {
    const r = await play('chain', 'dice', { rounds: 3, timeoutMs: 10_000 }, 2, true, { only: ['p0'] });
    const p1 = r.players[1]!;
    const secret = randomBytes(32);
    const kept = { lines: [] as string[], receipts: [] as unknown[], journal: [] as JournalEntry[], inFlight: null as string | null };
    const base = {
      relayUrl: r.relay.url,
      gameId: r.gameId,
      id: 'p1',
      keys: p1.keys,
      random: seatRandom(secret, r.gameId),
      WebSocket,
      relayKey: r.relayKey,
      backoffMs: { min: 50, max: 400 },
      strategy: randomStrategy(new Uint8Array(32)),
      onDecision: (c: JournalEntry) => kept.journal.push(c),
      onSubmit: (t: string) => (kept.inFlight = t),
    };
    const first = joinGame({ ...base, onLine: (_n, text, receipt) => (kept.lines.push(text), kept.receipts.push(receipt)) });
    started.games.push(first);
    const truth = r.relay.games.get(r.gameId)!;
    while (truth.lines.filter((t) => t.includes('"from":"p1"')).length < 3) await new Promise((res) => setTimeout(res, 5));
    first.close();
    const held = kept.lines.length;
    const resumed = joinGame({
      ...base,
      random: seatRandom(secret, r.gameId),
      resume: { lines: [...kept.lines], receipts: [...kept.receipts], journal: [...kept.journal], inFlight: kept.inFlight },
    });
    started.games.push(resumed);
    expect(resumed.lines.length).toBe(held);
    const [o0, o1] = await Promise.all([r.games[0]!.finished, resumed.finished]);
    expect(o1).toEqual(o0);
    expect(o0!.forfeits).toEqual([]);
    expect(resumed.lines).toEqual(truth.lines);
    expect(resumed.audit().valid).toBe(true);
  });

  /**
   * A two-seat dice game played to its end, p1's seat keeping its copy: its lines and receipts, its
   * journal, and how long the journal was as each line came. A restarted p1 resumes from part of it with
   * `restart(lines)`, answering with what it submitted and what the relay refused of it.
   */
  async function playedWithCopy(batch?: number) {
    const r = await play('chain', 'dice', { rounds: 3, timeoutMs: 10_000 }, 2, true, batch === undefined ? { only: ['p0'] } : { only: ['p0'], batch });
    const secret = randomBytes(32);
    const kept = { lines: [] as string[], receipts: [] as unknown[], journal: [] as JournalEntry[] };
    const journalAt: number[] = [];
    const base = {
      relayUrl: r.relay.url,
      gameId: r.gameId,
      id: 'p1',
      keys: r.players[1]!.keys,
      WebSocket,
      relayKey: r.relayKey,
      strategy: randomStrategy(new Uint8Array(32)),
    };
    const first = joinGame({
      ...base,
      random: seatRandom(secret, r.gameId),
      onDecision: (c) => kept.journal.push(c),
      onLine: (_n, text, receipt) => (kept.lines.push(text), kept.receipts.push(receipt), journalAt.push(kept.journal.length)),
    });
    started.games.push(first);
    const [outcome] = await Promise.all([r.games[0]!.finished, first.finished]);
    /** Where p1's own lines stand in the log. */
    const mine = kept.lines
      .map((t, i) => [i, t.includes('"from":"p1"')] as const)
      .filter(([, m]) => m)
      .map(([i]) => i);
    const truth = r.relay.games.get(r.gameId)!;
    /** p1 restarted from the copy's first `n` lines and the decisions taken by then. */
    const restart = async (n: number) => {
      const submitted: string[] = [];
      const refused: string[] = [];
      const again = joinGame({
        ...base,
        random: seatRandom(secret, r.gameId),
        onSubmit: (t) => submitted.push(t),
        resume: { lines: kept.lines.slice(0, n), receipts: kept.receipts.slice(0, n), journal: kept.journal.slice(0, journalAt[n]) },
      });
      started.games.push(again);
      again.on('refused', (x) => refused.push(x.code));
      return { outcome: await again.finished, lines: again.lines, submitted, refused };
    };
    return { outcome, mine, truth, restart };
  }

  it('a seat restarted after the game went on catches up over many small batches, sending nothing again', async () => {
    const { outcome, mine, truth, restart } = await playedWithCopy(2);
    // The copy as it stood just after p1's own second line: everything after it is news to the restarted seat,
    // its own later envelopes included, and the journal holds only the decisions taken by then.
    const last = mine[1]!;
    expect(truth.lines.length - (last + 1)).toBeGreaterThanOrEqual(2);
    const again = await restart(last + 1);
    expect(again.outcome).toEqual(outcome);
    expect(again.lines).toEqual(truth.lines);
    expect(again.submitted).toEqual([]);
    expect(again.refused).toEqual([]);
  });

  it('a seat whose copy ends just before its own envelope (lost in a crash, nothing in flight kept) signs nothing until it has caught up', async () => {
    const { outcome, mine, truth, restart } = await playedWithCopy();
    // The copy cut just before p1's second envelope, with every decision taken before it: the body of that
    // envelope (the Reveal of its first) is queued again on resume, while the relay already holds the envelope.
    const again = await restart(mine[1]!);
    expect(again.outcome).toEqual(outcome);
    expect(again.lines).toEqual(truth.lines);
    expect(again.submitted).toEqual([]);
    expect(again.refused).toEqual([]);
  });

  it('refuses to resume from a copy whose receipts do not fit its lines', async () => {
    const r = await play('chain', 'dice', { rounds: 1, timeoutMs: 5000 }, 2);
    await Promise.all(r.games.map((g) => g.finished));
    const g = r.games[0]!;
    const lines = [...g.lines];
    lines[2] = r.relay.games.get(r.gameId)!.lines[1]!;
    expect(() =>
      joinGame({
        relayUrl: r.relay.url,
        gameId: r.gameId,
        id: 'p0',
        keys: r.players[0]!.keys,
        random: randomBytes,
        WebSocket,
        relayKey: r.relayKey,
        resume: { lines, receipts: [...g.receipts] },
      }),
    ).toThrow(expect.objectContaining({ code: 'relay_lied' }));
  });
});

describe('a lying relay is caught', () => {
  it.concurrent('drops a line (the next lines renumbered, with their own receipts): the receipts name other lines', async () => {
    const lie = await caught(
      (t) => ({ lines: [...t.lines.slice(0, 4), ...t.lines.slice(5)], receipts: [...t.receipts.slice(0, 4), ...t.receipts.slice(5)] }),
      4,
      5,
    );
    expect(lie.kind).toBe('wrong_receipt');
    expect(lie.line).toBe(4);
    expect(lie.receipts[0]!.line).toBe(5);
  });

  it.concurrent('drops a line and re-signs a consistent history for it: the log it receipted is one no door admits', async () => {
    const lie = await caught(
      (t, keys, game) => {
        const lines = [...t.lines.slice(0, 3), ...t.lines.slice(4)];
        return { lines, receipts: signChain(game, lines, keys, now) };
      },
      3,
      4,
    );
    if (reSignedOverOwn(lie)) return;
    expect(lie.kind).toBe('admitted_bad_line');
    expect(lie.line).toBe(3);
    expect(lie.receipts[0]!.line).toBe(3);
  });

  it.concurrent('reorders two lines and re-signs them: caught as a log no door admits, with the receipt of the line', async () => {
    const lie = await caught(
      (t, keys, game) => {
        const lines = [...t.lines];
        [lines[3], lines[4]] = [lines[4]!, lines[3]!];
        return { lines, receipts: signChain(game, lines, keys, now) };
      },
      3,
      4,
    );
    if (reSignedOverOwn(lie)) return;
    expect(lie.kind).toBe('admitted_bad_line');
    expect(lie.line).toBe(3);
  });

  it.concurrent('reorders two lines keeping their receipts: the receipts name other lines', async () => {
    const lie = await caught(
      (t) => {
        const lines = [...t.lines];
        const receipts = [...t.receipts];
        [lines[3], lines[4]] = [lines[4]!, lines[3]!];
        [receipts[3], receipts[4]] = [receipts[4]!, receipts[3]!];
        return { lines, receipts };
      },
      3,
      4,
    );
    expect(lie.kind).toBe('wrong_receipt');
    expect(lie.line).toBe(3);
  });

  it.concurrent('alters a line under its true receipt: the line does not hash to what the relay signed', async () => {
    const lie = await caught(
      (t) => {
        const lines = [...t.lines];
        lines[3] = lines[3]!.replace(/"time":(\d+)/, (_, d: string) => `"time":${Number(d) + 1}`);
        return { lines, receipts: t.receipts };
      },
      3,
      3,
    );
    expect(lie.kind).toBe('altered_line');
    expect(lie.line).toBe(3);
    expect(lie.receipts[0]!.line).toBe(3);
    expect(lie.lines[0]!.text).toContain('"time"');
  });

  it.concurrent("serves a line whose receipt does not chain from the lines before it: the relay's two receipts contradict", async () => {
    const lie = await caught(
      (t, keys, game) => {
        const receipts = [...t.receipts] as Receipt[];
        const r = receipts[3]!;
        // A chain started afresh at line 3: the line's hash is right, the log it commits to is not.
        const fresh = signChain(game, [t.lines[3]!], keys, () => r.time)[0]!;
        receipts[3] = signReceipt({ v: 1, game, line: 3, hash: r.hash, log: fresh.log, time: r.time }, keys.secretKey);
        return { lines: t.lines, receipts };
      },
      3,
      3,
    );
    expect(lie.kind).toBe('broken_log');
    expect(lie.line).toBe(3);
    expect(lie.receipts.map((r) => r.line)).toEqual([2, 3]);
  });

  it('shows two histories: the receipt it gave the submitter and the one it serves differ (a fork proof)', async () => {
    const r = await play('chain', 'dice', { rounds: 3, timeoutMs: 10_000 }, 3);
    // The relay tells p1, for each of its envelopes, a receipt for a history where another log stands there.
    r.relay.acceptedLie = (player, receipt) => {
      if (player !== 'p1') return receipt;
      const other = signChain(r.gameId, [r.relay.games.get(r.gameId)!.lines[0]!], r.relay.keys, () => receipt.time)[0]!;
      return signChainAt(other, receipt, r.relay.keys);
    };
    const victim = r.games[1]!;
    await expect(victim.finished).rejects.toMatchObject({ code: 'relay_lied' });
    const lie = victim.lie!;
    expect(lie.kind).toBe('fork');
    expect(lie.receipts).toHaveLength(2);
    expect(forkProof(lie.receipts[0]!, lie.receipts[1]!)).not.toBeNull();
    for (const x of lie.receipts) expect(receiptError(x, r.relay.keys.publicKey)).toBeNull();
  });

  it('says, when the player connects again, that its log is shorter than a line it receipted: dropped', async () => {
    const { relay, games, relayKey } = await play('chain', 'dice', { rounds: 3, timeoutMs: 10_000 }, 3);
    const victim = games[1]!;
    while (victim.lines.length < 5) await new Promise((r) => setTimeout(r, 5));
    relay.lie = (player, truth) => (player === 'p1' ? { lines: truth.lines.slice(0, 3), receipts: truth.receipts.slice(0, 3) } : truth);
    relay.dropConnections();
    await expect(victim.finished).rejects.toMatchObject({ code: 'relay_lied' });
    const lie = victim.lie!;
    expect(lie.kind).toBe('dropped');
    expect(lie.line).toBe(3);
    expect(lie.receipts[0]!.line).toBe(3);
    for (const x of lie.receipts) expect(receiptError(x, fromHex(relayKey))).toBeNull();
  });
});

/** A receipt for `honest`'s line and time whose log differs: what a relay signing two histories gives. */
function signChainAt(other: Receipt, honest: Receipt, keys: KeyPair): Receipt {
  const { sig: _s, batch: _b, ...rest } = honest;
  return signReceiptBatch([{ ...rest, log: other.log }], keys.secretKey)[0]!;
}

describe('the client is isomorphic', () => {
  it('its sources import nothing of Node and no WebSocket implementation (the caller injects one)', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const here = new URL('.', import.meta.url);
    const sources = readdirSync(here).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(sources).toContain('client.ts');
    for (const f of sources) {
      const text = readFileSync(new URL(f, here), 'utf8');
      expect(text, f).not.toMatch(/from '(node:[a-z/_]+|ws|fs|net|http|crypto)'/);
      expect(text, f).not.toMatch(/\bprocess\.|\brequire\(/);
    }
  });
});
