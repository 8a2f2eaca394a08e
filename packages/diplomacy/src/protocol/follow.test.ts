/**
 * Diplomacy's seats follow their key (docs/SPEC.md §10.2, docs/spec/diplomacy.md §10.11): a player's orders
 * are sealed to her own key inside her commit, so a seat dropped mid-phase is rebuilt on another device from
 * the key and the log alone, reads back what it committed, reveals it, and the game goes on with nobody
 * named; with and without escrow.
 */
import { describe, expect, it } from 'vitest';
import { randomChoice } from '@fairtable/core/testing';
import { auditLines } from '@fairtable/core/audit.js';
import { toHex } from '@fairtable/core/bytes.js';
import { Door } from '@fairtable/core/door.js';
import { envelopeLine, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { Seat, type SeatOptions } from '@fairtable/core/seat/seat.js';
import { RandomStream } from '@fairtable/core/stream.js';
import { diplomacyRegistry as registry } from './index.js';

function game(params: Record<string, JsonValue>) {
  const ids = Array.from({ length: 7 }, (_, i) => `p${i}`);
  const keys = ids.map((_, i) => generateKeyPair(new Uint8Array(32).fill(60 + i)));
  const setup: GameSetup = {
    protocol: 'diplomacy',
    game: null,
    params: { timeoutMs: 600_000, assign: 'fixed', years: 1, ...params },
    players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
    nonce: '24'.repeat(32),
    created: 1,
  };
  const setupLine = envelopeLine(createSetupEnvelope(setup, ids[0]!, keys[0]!));
  const door = new Door(setupLine);
  const log = [setupLine];
  const inbox: [string, string][] = [];
  const seats = new Map<string, Seat>();
  const strategies = new Map<string, RandomStream>(ids.map((id, i) => [id, new RandomStream(new Uint8Array(32).fill(i + 1), 'orders')]));
  let now = 1;
  const options = (i: number): SeatOptions => ({
    id: ids[i]!,
    keys: keys[i]!,
    setupLine,
    registry,
    clock: () => now,
    transport: { submit: (t) => inbox.push([ids[i]!, t]), sync: () => undefined },
  });
  /** Answers, delivers; stops when `stop` holds or nothing moves. */
  const run = (stop: () => boolean = () => false): void => {
    for (let r = 0; r < 200_000 && !stop(); r++) {
      for (const [id, s] of seats) for (let d = s.decision(); d !== null; d = s.decision()) s.decide(randomChoice(d.choices, strategies.get(id)!));
      if (inbox.length === 0) {
        now += 10;
        for (const s of seats.values()) s.tick();
        if (inbox.length === 0) return;
      }
      const [id, text] = inbox.shift()!;
      const a = door.admit(text, id);
      if (!a.ok) throw new Error(`refused ${id}: ${a.code} ${a.message}`);
      if (a.duplicate) continue;
      log.push(text);
      for (const s of seats.values()) s.receive(a.line, text);
    }
  };
  ids.forEach((id, i) => seats.set(id, new Seat(options(i))));
  return { ids, log, seats, inbox, options, run };
}

const commitsOf = (log: readonly string[], who: string) =>
  log.map((l) => JSON.parse(l) as Envelope).filter((e) => e.from === who && e.body.type === 'commit' && e.body.label !== 'powers');

describe('a Diplomacy seat rebuilt from its key and the log', () => {
  for (const escrow of ['none', 'threshold']) {
    it(`escrow ${escrow}: reads back the orders it committed, reveals them, and the year ends with nobody named`, () => {
      const g = game({ escrow });
      // Until p1 has committed its first orders; then its device is gone, with what it was sending.
      g.run(() => commitsOf(g.log, 'p1').length > 0);
      expect(commitsOf(g.log, 'p1')).toHaveLength(1);
      g.seats.delete('p1');
      for (let i = g.inbox.length - 1; i >= 0; i--) if (g.inbox[i]![0] === 'p1') g.inbox.splice(i, 1);
      g.run(() => g.inbox.length === 0);
      const fresh = Seat.follow(g.options(1), g.log);
      // The orders are read back from the sealed copy in the commit: the journal holds them as given.
      const ordered = fresh.journal.at(-1)!.choice as Record<string, string>;
      expect(Object.keys(ordered).length).toBeGreaterThan(0);
      g.seats.set('p1', fresh);
      fresh.tick();
      g.run();
      const v = auditLines(g.log, { registry });
      expect(v.violations).toEqual([]);
      expect(v.outcome).not.toBeNull();
      // p1's commitments of the year were opened by p1 itself (nothing withheld, nothing opened by escrow).
      const mine = g.log.map((l) => JSON.parse(l) as Envelope).filter((e) => e.from === 'p1');
      expect(mine.filter((e) => e.body.type === 'reveal').length).toBe(mine.filter((e) => e.body.type === 'commit').length);
      expect(commitsOf(g.log, 'p1').length).toBeGreaterThan(1);
    });
  }

  it('the sealed copy opens only with the player’s key: another player learns nothing from it', () => {
    const g = game({ escrow: 'none' });
    g.run(() => commitsOf(g.log, 'p1').length > 0);
    const body = commitsOf(g.log, 'p1')[0]!.body;
    expect(body.own).toBeDefined();
    // p2's key cannot open it: a seat of p2 that tries to follow p1's seat reads nothing back.
    const impostor = { ...g.options(1), keys: generateKeyPair(new Uint8Array(32).fill(62)) };
    expect(() => Seat.follow(impostor, g.log)).toThrow();
  });
});
