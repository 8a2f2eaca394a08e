/**
 * Agreed deadline extensions through a real relay (docs/SPEC.md §7.4.1): one seat asks for more time through
 * its `RelayGame`, the other agrees, every seat's copy shows the new deadline in force, and no honest seat
 * claims the deadline before it: the decider answers after the old deadline and the game goes on; a decider
 * that never answers is claimed only once the new deadline has passed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { pino } from 'pino';
import { randomBytes, toHex } from '@fairtable/core/bytes.js';
import { envelopeLine, type Envelope } from '@fairtable/core/envelope.js';
import { violationKind, type Violation } from '@fairtable/core/errors.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { Auditor } from '@fairtable/core/audit.js';
import { randomStrategy } from '@fairtable/core/testing';
import { createGame, joinGame, type RelayGame } from '@fairtable/client';
import { startRelay } from '@fairtable/relay';

const dir = mkdtempSync(join(tmpdir(), 'fairtable-extension-'));
const closing: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of closing.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

const TIMEOUT = 1500;
const MORE = 2500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const named = (vs: readonly Violation[]): string[] => vs.filter((v) => v.player !== null).map((v) => `${violationKind(v)} ${v.code} ${v.player}`);

/** Two seats of a one-round dice chain on a fresh relay; nobody answers a decision until told. */
async function table(n: number): Promise<RelayGame[]> {
  const relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: join(dir, `relay-${n}`), logger: pino({ level: 'silent' }) });
  closing.push(() => relay.close());
  const players = ['ann', 'bob'].map((id) => ({ id, keys: generateKeyPair() }));
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params: { rounds: 1, timeoutMs: TIMEOUT },
    players: players.map((p) => ({ id: p.id, key: toHex(p.keys.publicKey) })),
    nonce: toHex(randomBytes(32)),
    created: Date.now(),
  };
  const created = await createGame(relay.url, envelopeLine(createSetupEnvelope(setup, 'ann', players[0]!.keys)));
  return players.map((p) => {
    const g = joinGame({
      relayUrl: relay.url,
      gameId: created.game,
      id: p.id,
      keys: p.keys,
      random: randomBytes,
      WebSocket,
      relayKey: created.relay,
      tickMs: 50,
    });
    closing.push(() => g.close());
    return g;
  });
}

/** Waits until `f` holds (polled), or fails after `ms`. */
async function until(f: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The decider asks for MORE ms on its first decision, the other seat agrees as soon as it sees the proposal. */
async function agreeMoreTime(seats: RelayGame[]): Promise<{ decider: RelayGame; other: RelayGame; old: number; moved: number }> {
  await until(() => seats.some((g) => g.decision() !== null), 10_000, 'a decision');
  const decider = seats.find((g) => g.decision() !== null)!;
  const other = seats.find((g) => g !== decider)!;
  const old = decider.extension().deadline!;
  expect(old).toBe(decider.decision()!.deadline);
  // Nothing to accept before anyone asked.
  expect(() => other.acceptExtension()).toThrow(/no extension/);
  decider.proposeExtension(old + MORE);
  await until(() => other.extension().open !== null, 5000, "the proposal at the other's seat");
  expect(other.extension().open).toMatchObject({ until: old + MORE, signed: [decider.id] });
  other.acceptExtension();
  await until(() => seats.every((g) => g.extension().agreed !== null), 5000, 'the agreement at every seat');
  for (const g of seats) expect(g.extension()).toMatchObject({ open: null, agreed: { until: old + MORE }, deadline: old + MORE });
  return { decider, other, old, moved: old + MORE };
}

const deadlineClaims = (g: RelayGame): Envelope[] =>
  g.lines
    .slice(1)
    .map((l) => JSON.parse(l) as Envelope)
    .filter((e) => e.body.type === 'deadline');

describe('agreed deadline extensions through a relay (SPEC §7.4.1)', () => {
  it('one seat asks, the other agrees: nobody claims the old deadline, the late answer counts, nobody is named', async () => {
    const seats = await table(0);
    const { decider, old } = await agreeMoreTime(seats);
    // Well past the old deadline and its grace: no honest seat has claimed it.
    while (decider.now() < old + TIMEOUT) await sleep(50);
    for (const g of seats) expect(deadlineClaims(g)).toEqual([]);
    expect(decider.decision()).not.toBeNull();
    // From here on every decision is answered at once.
    const strategy = randomStrategy(randomBytes(32));
    for (const g of seats) {
      g.on('decision', (d) => setTimeout(() => g.decision() !== null && g.decide(strategy(d))));
      if (g.decision() !== null) g.decide(strategy(g.decision()!));
    }
    await Promise.all(seats.map((g) => g.finished));
    for (const g of seats) {
      expect(named(g.violations)).toEqual([]);
      expect(g.outcome()!.forfeits).toEqual([]);
      expect(deadlineClaims(g)).toEqual([]);
    }
    const auditor = new Auditor(seats[0]!.lines[0]!);
    for (const l of seats[0]!.lines.slice(1)) auditor.add(l);
    expect(named(auditor.verdict().violations)).toEqual([]);
    const types = seats[0]!.lines.slice(1).map((l) => (JSON.parse(l) as Envelope).body.type);
    expect(types.filter((t) => t === 'extend' || t === 'extend-accept')).toEqual(['extend', 'extend-accept']);
  }, 30_000);

  it('a decider that never answers is claimed only after the agreed deadline, and only it is named', async () => {
    const seats = await table(1);
    const { decider, other, moved } = await agreeMoreTime(seats);
    await until(() => deadlineClaims(other).length > 0, 15_000, 'the claim of the moved deadline');
    for (const claim of deadlineClaims(other)) {
      expect(claim.from).toBe(other.id);
      expect(claim.time).toBeGreaterThanOrEqual(moved);
    }
    await sleep(500);
    const found = named(other.violations);
    expect(found.length).toBeGreaterThan(0);
    // Only the silent decider is named (as the chain's rules say for a roll not sent): the seat that claimed never is.
    for (const v of found) expect(v).toMatch(new RegExp(`^\\S+ \\S+ ${decider.id}$`));
  }, 30_000);
});
