/**
 * A seat follows its key (docs/SPEC.md §10.2): a seat dropped mid-game is rebuilt on another device from the
 * key and the log alone and finishes the game; two devices open at once with the same key never make their
 * player equivocate; the same decision on two devices signs the same envelope.
 */
import { describe, expect, it } from 'vitest';
import { toHex } from '../bytes.js';
import { Door } from '../door.js';
import { envelopeLine, type Envelope } from '../envelope.js';
import { generateKeyPair, type KeyPair } from '../identity.js';
import type { JsonValue } from '../jcs.js';
import { createSetupEnvelope, type GameSetup } from '../setup.js';
import { Seat, type SeatOptions } from './seat.js';
import { auditLines } from '../audit.js';
import { simStrategy, type Strategy } from '../sim/strategies.js';
import { MemoryNetwork, type Link, type NetNode } from '../sim/network.js';
import { Table, type TableMessage } from '../sim/table.js';

/** An orderer in the same process: a door, a log, and every line handed to every device at once. */
class LocalTable {
  readonly log: string[];
  readonly door: Door;
  readonly devices = new Map<string, { id: string; seat: Seat; decide: Strategy }>();
  private readonly inbox: [string, string][] = [];
  now = 1;
  constructor(setupLine: string) {
    this.door = new Door(setupLine);
    this.log = [setupLine];
  }
  transport(device: string, id: string): SeatOptions['transport'] {
    return {
      submit: (text) => this.inbox.push([id, text]),
      sync: (from) => {
        for (let i = from; i < this.log.length; i++) this.devices.get(device)?.seat.receive(i, this.log[i]!);
      },
    };
  }
  /** Answers every decision, delivers until nothing moves; `budget` lines at most. */
  play(budget = Infinity): void {
    const start = this.log.length;
    for (let rounds = 0; rounds < 100_000 && this.log.length - start < budget; rounds++) {
      for (const d of this.devices.values()) for (let x = d.seat.decision(); x !== null; x = d.seat.decision()) d.seat.decide(d.decide(x));
      if (this.inbox.length === 0) {
        this.now += 50;
        for (const d of this.devices.values()) d.seat.tick();
        if (this.inbox.length === 0) return;
      }
      const [id, text] = this.inbox.shift()!;
      const a = this.door.admit(text, id);
      if (!a.ok) throw new Error(`refused ${id}: ${a.code} ${a.message}`);
      if (a.duplicate) continue;
      this.log.push(text);
      for (const d of this.devices.values()) d.seat.receive(a.line, text);
    }
  }
  /** What a device submitted and the table has not taken yet is lost (its process died). */
  drop(device: string, id: string): void {
    this.devices.delete(device);
    for (let i = this.inbox.length - 1; i >= 0; i--) if (this.inbox[i]![0] === id) this.inbox.splice(i, 1);
  }
}

interface Game {
  readonly protocol: string;
  readonly game: string | null;
  readonly params: Record<string, JsonValue>;
  readonly players: number;
  /** How many lines are played before the seat is dropped. */
  readonly cut?: number;
}

const GAMES: Record<string, Game> = {
  'dice (chain)': { protocol: 'chain', game: 'dice', params: { rounds: 3 }, players: 3 },
  'snakes (chain)': { protocol: 'chain', game: 'snakes', params: { maxRounds: 4 }, players: 2 },
  'monopoly chance (keyed stream)': { protocol: 'keyed-stream', game: 'monopoly-chance', params: { rounds: 3 }, players: 3 },
  'dice (keyed stream)': { protocol: 'keyed-stream', game: 'dice', params: { rounds: 3 }, players: 2 },
  beacon: { protocol: 'beacon', game: null, params: { rounds: 3 }, players: 3 },
  'beacon with escrow': { protocol: 'beacon', game: null, params: { rounds: 2, escrow: { scheme: 'vss', threshold: 2 } }, players: 4 },
  rochambeau: { protocol: 'rochambeau', game: null, params: { N: '5' }, players: 3, cut: 2 },
};

function setUp(g: Game, salt = 0) {
  const ids = Array.from({ length: g.players }, (_, i) => `p${i}`);
  const keys: KeyPair[] = ids.map((_, i) => generateKeyPair(new Uint8Array(32).fill(30 + i + salt)));
  const setup: GameSetup = {
    protocol: g.protocol,
    game: g.game,
    params: { timeoutMs: 60_000, ...g.params },
    players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
    nonce: '42'.repeat(32),
    created: 1,
  };
  const setupLine = envelopeLine(createSetupEnvelope(setup, ids[0]!, keys[0]!));
  const table = new LocalTable(setupLine);
  const options = (i: number, device: string): SeatOptions => ({
    id: ids[i]!,
    keys: keys[i]!,
    setupLine,
    transport: table.transport(device, ids[i]!),
    clock: () => table.now,
  });
  return { ids, keys, setupLine, table, options };
}

const named = (lines: readonly string[]) => auditLines(lines).violations.filter((v) => v.player !== null);

describe('a seat dropped mid-game is rebuilt from its key and the log alone', () => {
  for (const [name, g] of Object.entries(GAMES)) {
    it(`${name}: the rebuilt seat finishes the game, nothing is sent twice, nobody is named`, () => {
      const { ids, table, options } = setUp(g);
      ids.forEach((id, i) => table.devices.set(id, { id, seat: new Seat(options(i, id)), decide: simStrategy(new Uint8Array(32).fill(i + 1)) }));
      table.play(g.cut ?? 4 + g.players * 2);
      // p1's device is gone: its browser, its journal, its envelope in flight.
      const before = table.log.length;
      table.drop('p1', 'p1');
      table.play(g.cut === undefined ? g.players : 1);
      const copy = [...table.log];
      const fresh = Seat.follow(options(1, 'p1b'), copy);
      expect(fresh.lines).toEqual(copy);
      table.devices.set('p1b', { id: 'p1', seat: fresh, decide: simStrategy(new Uint8Array(32).fill(2)) });
      fresh.tick();
      table.play();
      expect(table.log.length).toBeGreaterThan(before);
      const v = auditLines(table.log);
      expect(v.violations).toEqual([]);
      for (const d of table.devices.values()) expect(d.seat.outcome()).not.toBeNull();
      // Each of p1's positions stands once: nothing was signed twice for one position.
      const seqs = table.log
        .map((l) => JSON.parse(l) as Envelope)
        .filter((e) => e.from === 'p1')
        .map((e) => e.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i));
    });
  }
});

/** One player on the in-memory network, playing on one or more devices at once with the same key. */
class PlayerNode implements NetNode {
  readonly devices: { seat: Seat; decide: Strategy; submitted: string[] }[] = [];
  private link: Link | null = null;
  constructor(readonly id: string) {}
  transport(index: number): SeatOptions['transport'] {
    return {
      submit: (text) => {
        this.devices[index]?.submitted.push(text);
        this.link?.send(this.id, 'table', { kind: 'submit', text } satisfies TableMessage);
      },
      sync: (from) => this.link?.send(this.id, 'table', { kind: 'sync', from } satisfies TableMessage),
    };
  }
  receive(from: string, payload: unknown, net: Link): void {
    this.link = net;
    const msg = payload as TableMessage;
    if (from !== 'table' || msg.kind !== 'entry') return;
    for (const d of this.devices) d.seat.receive(msg.index, msg.text);
    this.act();
  }
  tick(net: Link): void {
    this.link = net;
    this.act();
    for (const d of this.devices) d.seat.tick();
    this.act();
  }
  private act(): void {
    for (const d of this.devices) for (let x = d.seat.decision(); x !== null; x = d.seat.decision()) d.seat.decide(d.decide(x));
  }
}

function onNetwork(g: Game, strategies: (player: number, device: number) => Uint8Array, seed: number) {
  const { ids, keys, setupLine } = setUp(g);
  const net = new MemoryNetwork({ seed: new Uint8Array(32).fill(seed), duplicate: 0.05, minDelay: 1, maxDelay: 40 });
  const table = new Table(setupLine, ids);
  net.add(table);
  const nodes = ids.map((id) => new PlayerNode(id));
  const events: string[] = [];
  nodes.forEach((node, i) => {
    net.add(node);
    // p1 plays on two devices, whose clocks disagree by 777 ms.
    for (let d = 0; d < (i === 1 ? 2 : 1); d++) {
      const seat = new Seat({
        id: node.id,
        keys: keys[i]!,
        setupLine,
        transport: node.transport(d),
        clock: () => net.now + d * 777,
        onEvent: (e) => events.push(`${node.id}/${d}: ${e.type}`),
      });
      node.devices.push({ seat, decide: simStrategy(strategies(i, d)), submitted: [] });
    }
  });
  net.run(() => nodes.every((n) => n.devices.every((d) => d.seat.outcome() !== null && d.seat.idle)), 600_000);
  return { table, nodes, events };
}

describe('two devices open at once with the same key', () => {
  for (const [name, g] of Object.entries(GAMES)) {
    it(`${name}, the same decisions on both: the game finishes, nobody is named, the door sees only repeats`, () => {
      const { table, nodes } = onNetwork(g, (p) => new Uint8Array(32).fill(p + 1), 7);
      for (const n of nodes) for (const d of n.devices) expect(d.seat.outcome()).not.toBeNull();
      expect(named(table.log)).toEqual([]);
      expect(auditLines(table.log).violations).toEqual([]);
      // Both devices signed every position the same, byte for byte: the door refused nothing.
      expect(table.refusals).toEqual([]);
      const [a, b] = nodes[1]!.devices;
      const common = a!.submitted.filter((t) => b!.submitted.includes(t));
      expect(common.length).toBeGreaterThan(0);
    });
  }

  for (const name of ['rochambeau', 'dice (chain)', 'monopoly chance (keyed stream)']) {
    it(`${name}, different decisions on each: one device's envelope stands, the other adopts it, nobody is named`, () => {
      const { table, nodes, events } = onNetwork(GAMES[name]!, (p, d) => new Uint8Array(32).fill(p + 1 + 50 * d), 9);
      for (const n of nodes) for (const d of n.devices) expect(d.seat.outcome()).not.toBeNull();
      expect(named(table.log)).toEqual([]);
      expect(auditLines(table.log).violations).toEqual([]);
      // Both devices end with the same game: the same outcome, the same copy of the log.
      const [a, b] = nodes[1]!.devices;
      expect(a!.seat.outcome()).toEqual(b!.seat.outcome());
      expect(a!.seat.lines).toEqual(table.log);
      expect(b!.seat.lines).toEqual(table.log);
      // Where the two answers differed, the door took the first and refused the other (recorded nowhere), and
      // the device whose answer was refused went on from the one in the log.
      expect(table.refusals.every((r) => r.code === 'equivocation' && r.player === 'p1')).toBe(true);
      if (name === 'rochambeau') {
        expect(table.refusals.length).toBeGreaterThan(0);
        expect(events.filter((e) => e.startsWith('p1/') && e.endsWith('seat-adopted')).length).toBe(table.refusals.length);
      }
    });
  }
});

describe('what the player decided is read back from the log', () => {
  it('a Rochambeau hand committed on one device is revealed by another that has only the key and the log', () => {
    const { ids, table, options } = setUp(GAMES.rochambeau!);
    ids.forEach((id, i) => table.devices.set(id, { id, seat: new Seat(options(i, id)), decide: () => 3 }));
    table.devices.get('p1')!.seat.decide(4);
    table.play(3);
    expect(table.log.some((l) => (JSON.parse(l) as Envelope).from === 'p1')).toBe(true);
    table.drop('p1', 'p1');
    const fresh = Seat.follow(options(1, 'p1b'), table.log);
    expect(fresh.journal.map((j) => j.choice)).toEqual([4]);
    table.devices.set('p1b', { id: 'p1', seat: fresh, decide: () => 1 });
    table.play();
    expect(auditLines(table.log).violations).toEqual([]);
    expect(fresh.outcome()).not.toBeNull();
  });

  it('a seat rebuilt with the envelope it was sending (not yet in its copy) takes the answer back from it and sends it once', () => {
    const { ids, table, options } = setUp(GAMES.rochambeau!);
    ids.forEach((id, i) => table.devices.set(id, { id, seat: new Seat(options(i, id)), decide: () => 3 }));
    let inFlight: string | null = null;
    const p1 = new Seat({ ...options(1, 'p1'), onSubmit: (t) => (inFlight = t) });
    table.devices.set('p1', { id: 'p1', seat: p1, decide: () => 3 });
    p1.decide(4);
    const copy = [...p1.lines];
    // The page reloads the moment its player answered: the copy lacks the Commit, which is in flight.
    table.drop('p1', 'p1');
    const fresh = Seat.follow(options(1, 'p1'), copy, inFlight);
    expect(fresh.decision()).toBeNull();
    expect(fresh.journal.map((j) => j.choice)).toEqual([4]);
    table.devices.set('p1', { id: 'p1', seat: fresh, decide: () => 1 });
    fresh.tick();
    table.play();
    expect(auditLines(table.log).violations).toEqual([]);
    expect(fresh.outcome()).not.toBeNull();
  });

  it('the same decision on two devices with different clocks signs the same envelope', () => {
    const { ids, keys, setupLine, table, options } = setUp(GAMES.rochambeau!);
    ids.forEach((id, i) => table.devices.set(id, { id, seat: new Seat(options(i, id)), decide: () => 2 }));
    const sent: string[] = [];
    const second = new Seat({
      id: 'p1',
      keys: keys[1]!,
      setupLine,
      clock: () => table.now + 123_456,
      transport: { submit: (t) => sent.push(t), sync: () => undefined },
    });
    const first: string[] = [];
    const p1 = new Seat({ ...options(1, 'p1'), onSubmit: (t) => first.push(t) });
    table.devices.set('p1', { id: 'p1', seat: p1, decide: () => 2 });
    table.devices.set('p1-second', { id: 'p1', seat: second, decide: () => 2 });
    p1.decide(2);
    second.decide(2);
    table.play();
    expect(first.length).toBeGreaterThan(0);
    expect(sent.slice(0, first.length)).toEqual(first);
    expect(auditLines(table.log).violations).toEqual([]);
  });

  it('a seat whose envelopes no answer reproduces (another key, or free text) is not followed: it throws, sending nothing', () => {
    const { ids, table, options } = setUp(GAMES.rochambeau!);
    ids.forEach((id, i) => table.devices.set(id, { id, seat: new Seat(options(i, id)), decide: () => 3 }));
    table.devices.get('p1')!.seat.decide(4);
    table.play(3);
    const sent: string[] = [];
    const wrongKey = {
      ...options(1, 'x'),
      keys: setUp(GAMES.rochambeau!, 9).keys[1]!,
      transport: { submit: (t: string) => sent.push(t), sync: () => undefined },
    };
    expect(() => Seat.follow(wrongKey, table.log)).toThrow(/not what replaying/);
    expect(sent).toEqual([]);
  });
});
