/**
 * The seat a real player runs (docs/SPEC.md §7.5, §10.2): its player chooses the Rochambeau hand and the
 * roulette bet; an answer that is not allowed is refused with a code; a seat rebuilt from its own copy of
 * the log and its journal sends nothing twice and never contradicts itself.
 */
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../bytes.js';
import { Door } from '../door.js';
import { envelopeLine, type Envelope } from '../envelope.js';
import { FairtableError } from '../errors.js';
import { generateKeyPair } from '../identity.js';
import type { JsonValue } from '../jcs.js';
import { createSetupEnvelope, type GameSetup } from '../setup.js';
import { Seat, seatRandom, type JournalEntry, type SeatOptions } from './seat.js';
import { decodeReveal, decodeState } from '../rochambeau/codec.js';
import { ecvrfHouse } from '../signidice/house-key.js';
import { auditLines } from '../audit.js';

/** An orderer in the same process: a door, a log, and every line handed to every seat at once. */
class LocalTable {
  readonly log: string[];
  readonly door: Door;
  readonly seats = new Map<string, Seat>();
  private readonly inbox: [string, string][] = [];
  now = 1;
  constructor(setupLine: string) {
    this.door = new Door(setupLine);
    this.log = [setupLine];
  }
  transport(id: string): SeatOptions['transport'] {
    return {
      submit: (text) => this.inbox.push([id, text]),
      sync: (from) => {
        for (let i = from; i < this.log.length; i++) this.seats.get(id)?.receive(i, this.log[i]!);
      },
    };
  }
  /** Delivers until nothing moves. */
  settle(): void {
    for (let rounds = 0; rounds < 10_000 && this.inbox.length > 0; rounds++) this.step();
  }
  /** Takes one submitted line. */
  step(): void {
    const [id, text] = this.inbox.shift()!;
    const a = this.door.admit(text, id);
    if (!a.ok || a.duplicate) return;
    this.log.push(text);
    for (const s of this.seats.values()) s.receive(a.line, text);
  }
  /** What `id` submitted and the table has not taken yet is lost (its process died). */
  lose(id: string): void {
    for (let i = this.inbox.length - 1; i >= 0; i--) if (this.inbox[i]![0] === id) this.inbox.splice(i, 1);
  }
}

function game(protocol: string, ids: readonly string[], params: Record<string, JsonValue>) {
  const keys = ids.map((_, i) => generateKeyPair(new Uint8Array(32).fill(40 + i)));
  const setup: GameSetup = {
    protocol,
    game: null,
    params: { timeoutMs: 60_000, ...params },
    players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
    nonce: '77'.repeat(32),
    created: 1,
  };
  const setupLine = envelopeLine(createSetupEnvelope(setup, ids[0]!, keys[0]!));
  const table = new LocalTable(setupLine);
  const options = (i: number, extra: Partial<SeatOptions> = {}): SeatOptions => ({
    id: ids[i]!,
    keys: keys[i]!,
    setupLine,
    transport: table.transport(ids[i]!),
    clock: () => table.now,
    random: seatRandom(new Uint8Array(32).fill(90 + i), table.door.checker.gameId),
    ...extra,
  });
  return { table, options, ids };
}

describe('the seat asks its player', () => {
  it('for a Rochambeau hand: the state played is the one chosen, and an illegal one is refused', () => {
    const { table, options, ids } = game('rochambeau', ['ann', 'bob', 'cy'], { N: '5' });
    ids.forEach((id, i) => table.seats.set(id, new Seat(options(i))));
    const ann = table.seats.get('ann')!;
    expect(ann.decision()).toMatchObject({ kind: 'hand', choices: { type: 'integer', min: '1', max: '4' } });
    for (const bad of [0, 5, 'two', 2.5, null] as JsonValue[]) {
      expect(() => ann.decide(bad)).toThrow(FairtableError);
      try {
        ann.decide(bad);
      } catch (e) {
        expect((e as FairtableError).code).toBe('illegal_choice');
      }
    }
    const hands: Record<string, number> = { ann: 4, bob: 2, cy: 1 };
    for (const id of ids) table.seats.get(id)!.decide(hands[id]!);
    expect(ann.decision()).toBeNull();
    table.settle();
    for (const s of table.seats.values()) expect(s.outcome()).not.toBeNull();
    // Each Reveal in the log carries the state its player chose.
    for (const line of table.log.slice(1)) {
      const e = JSON.parse(line) as Envelope;
      if (e.body.type !== 'reveal') continue;
      expect(decodeState(decodeReveal(fromHex(e.body.payload as string), 1).M)).toBe(BigInt(hands[e.from]!));
    }
    expect(auditLines(table.log).valid).toBe(true);
  });

  it('for a roulette bet: the stake chosen is what is won or lost, and a bet beyond the balance is refused', () => {
    const house = ecvrfHouse('ecvrf-ell2', new Uint8Array(32).fill(3));
    const { table, options } = game('signidice', ['house', 'ann'], { houseKey: house.key as unknown as JsonValue, rounds: 1, stake: 100 });
    table.seats.set('house', new Seat(options(0, { prover: house.prove })));
    table.seats.set('ann', new Seat(options(1)));
    const ann = table.seats.get('ann')!;
    expect(ann.decision()).toMatchObject({ kind: 'bet' });
    expect(() => ann.decide({ kind: 'red', pick: null, amount: 101 })).toThrow(/must be from 1 to 100/);
    expect(() => ann.decide({ kind: 'straight', pick: 37, amount: 5 })).toThrow(FairtableError);
    ann.decide({ kind: 'straight', pick: 17, amount: 25 });
    table.settle();
    const o = ann.outcome()!;
    const balance = (o.summary as { balances: Record<string, number> }).balances.ann!;
    const lucky = (o.summary as { lucky: number[] }).lucky[0]!;
    expect(balance).toBe(lucky === 17 ? 100 + 35 * 25 : 75);
  });

  it('passing sits the round out and the round goes on without waiting for a deadline', () => {
    const house = ecvrfHouse('ecvrf-ell2', new Uint8Array(32).fill(3));
    const { table, options } = game('signidice', ['house', 'ann'], { houseKey: house.key as unknown as JsonValue, rounds: 2, stake: 100 });
    table.seats.set('house', new Seat(options(0, { prover: house.prove })));
    table.seats.set('ann', new Seat(options(1)));
    const ann = table.seats.get('ann')!;
    ann.decide(null);
    table.settle();
    expect(ann.decision()).toMatchObject({ kind: 'bet', prompt: expect.stringMatching(/^Round 2/) });
  });
});

describe('a seat resumes from its own copy', () => {
  it('replays the log and its journal, sends nothing already in the log, and finishes the game honestly', () => {
    const { table, options, ids } = game('rochambeau', ['ann', 'bob', 'cy'], { N: '7' });
    const journal: JournalEntry[] = [];
    let inFlight: string | null = null;
    ids.forEach((id, i) =>
      table.seats.set(id, new Seat(options(i, id === 'bob' ? { onDecision: (c) => journal.push(c), onSubmit: (t) => (inFlight = t) } : {}))),
    );
    table.seats.get('bob')!.decide(3);
    table.seats.get('ann')!.decide(6);
    table.settle();
    // bob's process dies here; it kept its copy of the log, its journal and the envelope it last sent.
    const copy = [...table.seats.get('bob')!.lines];
    table.seats.delete('bob');
    table.seats.get('cy')!.decide(1);
    table.settle();
    const bob = Seat.resume(options(1), copy, journal, inFlight);
    table.seats.set('bob', bob);
    bob.tick(); // asks for what it missed
    table.settle();
    expect(bob.outcome()).not.toBeNull();
    const v = auditLines(table.log);
    expect(v.violations).toEqual([]);
    // bob's Commit stands once; its Reveal opens it.
    expect(table.log.filter((l) => (JSON.parse(l) as Envelope).from === 'bob')).toHaveLength(2);
  });

  it('that lost an envelope the table took: it signs it again, then meets the first in the log and lets its own copy go', () => {
    const { table, options, ids } = game('rochambeau', ['ann', 'bob', 'cy'], { N: '5' });
    const journal: JournalEntry[] = [];
    ids.forEach((id, i) => table.seats.set(id, new Seat(options(i, id === 'bob' ? { onDecision: (c) => journal.push(c) } : {}))));
    table.seats.get('ann')!.decide(2);
    table.seats.get('bob')!.decide(3);
    table.settle();
    table.seats.get('cy')!.decide(4);
    // cy's Commit reaches the log and every seat; bob's Reveal goes out, and bob's process dies before the
    // table's line for it comes back (its copy ends before it, and nothing in flight was kept).
    table.step();
    const copy = [...table.seats.get('bob')!.lines];
    table.seats.delete('bob');
    table.settle();
    const bobLines = () => table.log.filter((l) => (JSON.parse(l) as Envelope).from === 'bob');
    expect(bobLines().map((l) => (JSON.parse(l) as Envelope).body.type)).toEqual(['commit', 'reveal']);
    table.now += 5; // the Reveal signed again differs from the first in its time
    const bob = Seat.resume(options(1), copy, journal, null);
    table.seats.set('bob', bob);
    table.settle(); // the door refuses the second Reveal as an equivocation: nothing is stored
    bob.tick(); // asks for what it missed, and meets its first Reveal
    table.settle();
    expect(bob.outcome()).not.toBeNull();
    // Nothing left to resend: the seat does not go on offering the second Reveal.
    expect(bob.idle).toBe(true);
    expect(bobLines()).toHaveLength(2);
    expect(auditLines(table.log).violations).toEqual([]);
  });

  it('after a deadline claim of its own (made by the clock, not replayed), it sends what came next', () => {
    const { table, options, ids } = game('rochambeau', ['ann', 'bob', 'cy'], { N: '5', timeoutMs: 1000 });
    const journal: JournalEntry[] = [];
    let inFlight: string | null = null;
    ids.forEach((id, i) =>
      table.seats.set(id, new Seat(options(i, id === 'bob' ? { onDecision: (c) => journal.push(c), onSubmit: (t) => (inFlight = t) } : {}))),
    );
    table.seats.get('ann')!.decide(2);
    table.seats.get('bob')!.decide(3);
    table.settle();
    // cy never commits; past the deadline (and the claimant's grace) bob claims it.
    table.now += 2000;
    table.seats.get('bob')!.tick();
    const claimLine = table.log.length;
    while (table.log.length === claimLine) table.step();
    expect((JSON.parse(table.log[claimLine]!) as Envelope).body.type).toBe('deadline');
    // The claim closed the commits; bob's Reveal went out, but bob's process died before the table took it.
    expect((JSON.parse(inFlight!) as Envelope).body.type).toBe('reveal');
    const copy = [...table.seats.get('bob')!.lines];
    table.lose('bob');
    table.seats.delete('bob');
    table.settle();
    // Whether or not it kept the Reveal it was sending, the resumed seat sends it.
    const bob = Seat.resume(options(1), copy, journal, null);
    table.seats.set('bob', bob);
    bob.tick();
    table.settle();
    expect(bob.outcome()).not.toBeNull();
    const v = auditLines(table.log);
    expect(v.violations.map((x) => [x.code, x.player])).toEqual([['withheld', 'cy']]);
    expect(table.log.filter((l) => (JSON.parse(l) as Envelope).from === 'bob').map((l) => (JSON.parse(l) as Envelope).body.type)).toEqual([
      'commit',
      'deadline',
      'reveal',
    ]);
  });
});
