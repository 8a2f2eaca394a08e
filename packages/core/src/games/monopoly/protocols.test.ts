/**
 * Monopoly on both chance protocols (docs/spec/monopoly.md §11; SPEC §7.7),
 * driven with signed envelopes: every seat is the real machine (chain or
 * keyed-stream) fed the transcript as it is written; a player's answers come
 * from a function that may stay silent, and a cheat may rewrite or drop what
 * a seat sends. The auditor (the same machines, no seat) must agree.
 */
import { describe, expect, it } from 'vitest';
import { auditLines } from '../../audit.js';
import { toHex } from '../../bytes.js';
import { envelopeHash, envelopeLine, signEnvelope, type Body, type Envelope } from '../../envelope.js';
import type { Violation } from '../../errors.js';
import { generateKeyPair, type KeyPair } from '../../identity.js';
import type { JsonValue } from '../../jcs.js';
import { createSetupEnvelope, type GameSetup } from '../../setup.js';
import { RandomStream } from '../../stream.js';
import { chain } from '../../protocols/chain.js';
import { keyedStream } from '../../protocols/keyed-stream.js';
import type { Ctx, Decision, GameEvent, Machine } from '../../protocols/machine.js';
import { monopolyStrategy } from '../../sim/monopoly-strategy.js';
import type { MonopolyState } from './state.js';

const TIMEOUT = 1000;
type Answerer = (player: string, d: Decision) => JsonValue | null;
type Cheat = (from: string, body: Body) => Body | null;
const PROTOCOLS = { chain, 'keyed-stream': keyedStream } as const;

class Table {
  readonly lines: string[] = [];
  readonly keys: Record<string, KeyPair> = {};
  readonly seats: Record<string, { state: unknown; rng: RandomStream; queue: Body[] }> = {};
  readonly seen: Violation[] = [];
  readonly events: GameEvent[] = [];
  readonly game: string;
  now = 0;
  private rr = 0;
  private readonly seq: Record<string, number> = {};
  private readonly prev: Record<string, string> = {};
  private readonly machine: Machine<unknown>;

  constructor(
    readonly protocol: keyof typeof PROTOCOLS,
    readonly players: string[],
    params: Record<string, JsonValue>,
    private readonly answer: Answerer,
    private readonly cheat: Cheat = (_, b) => b,
  ) {
    this.machine = PROTOCOLS[protocol] as Machine<unknown>;
    for (const [i, p] of players.entries()) this.keys[p] = generateKeyPair(new Uint8Array(32).fill(i + 1));
    const setup: GameSetup = {
      protocol,
      game: 'monopoly',
      params: { timeoutMs: TIMEOUT, ...params },
      players: players.map((id) => ({ id, key: toHex(this.keys[id]!.publicKey) })),
      nonce: '00'.repeat(32),
      created: 0,
    };
    const env = createSetupEnvelope(setup, players[0]!, this.keys[players[0]!]!);
    this.game = env.game;
    this.lines.push(envelopeLine(env));
    for (const p of players) {
      this.seq[p] = p === players[0] ? 1 : 0;
      this.prev[p] = p === players[0] ? envelopeHash(env) : this.game;
    }
    for (const [i, p] of players.entries()) {
      const rng = new RandomStream(new Uint8Array(32).fill(100 + i), 'seat');
      const r = this.machine.init(setup, this.game, p, this.ctx(rng));
      this.seats[p] = { state: r.state, rng, queue: [...r.out] };
    }
  }

  private ctx(rng: RandomStream): Ctx {
    return { now: this.now, random: (n) => rng.bytes(n) };
  }

  post(from: string, body: Body): void {
    const head = envelopeHash(JSON.parse(this.lines[this.lines.length - 1]!) as Envelope);
    const env = signEnvelope(
      { v: 1, game: this.game, from, seq: this.seq[from]!, prev: this.prev[from]!, at: this.lines.length, head, time: this.now, body },
      this.keys[from]!.secretKey,
    );
    const line = this.lines.length;
    this.lines.push(envelopeLine(env));
    this.seq[from]!++;
    this.prev[from] = envelopeHash(env);
    for (const [p, seat] of Object.entries(this.seats)) {
      const r = this.machine.step(seat.state, { line, hash: envelopeHash(env), envelope: env, time: env.time }, this.ctx(seat.rng));
      seat.state = r.state;
      seat.queue.push(...r.out);
      this.seen.push(...r.violations);
      if (p === this.players[0]) this.events.push(...r.events);
    }
  }

  private decideAll(): void {
    for (const [p, seat] of Object.entries(this.seats)) {
      for (let d = this.machine.decision(seat.state); d !== null; d = this.machine.decision(seat.state)) {
        const choice = this.answer(p, d);
        if (choice === null) break;
        const r = this.machine.decide(seat.state, choice, this.ctx(seat.rng));
        seat.state = r.state;
        seat.queue.push(...r.out);
      }
    }
  }

  run(maxMessages = 20_000): void {
    let idle = 0;
    for (let i = 0; i < maxMessages; i++) {
      this.decideAll();
      const ids = Object.keys(this.seats);
      const who = ids.map((_, k) => ids[(this.rr + k) % ids.length]!).find((p) => this.seats[p]!.queue.length > 0);
      if (who === undefined) {
        if (this.outcome() !== null) return;
        this.now += 2 * TIMEOUT + 1;
        let sent = false;
        for (const seat of Object.values(this.seats)) {
          const r = this.machine.tick(seat.state, this.ctx(seat.rng));
          seat.state = r.state;
          seat.queue.push(...r.out);
          sent ||= r.out.length > 0;
        }
        // Nothing due yet: let the clock run on (a long deadline), but not forever.
        if (!sent && ++idle > 100) return;
        if (sent) idle = 0;
        continue;
      }
      idle = 0;
      this.rr++;
      const body = this.cheat(who, this.seats[who]!.queue.shift()!);
      if (body !== null) this.post(who, body);
      this.now += 10;
    }
    throw new Error('the game did not settle');
  }

  outcome() {
    return this.machine.outcome(this.seats[this.players[1]!]!.state);
  }

  state(): MonopolyState {
    return (this.seats[this.players[1]!]!.state as { game: MonopolyState }).game;
  }

  bodies(type: string): { from: string; body: Body }[] {
    return this.lines
      .slice(1)
      .map((l) => JSON.parse(l) as Envelope)
      .filter((e) => e.body.type === type);
  }
}

const auto = (players: readonly string[]): Answerer => {
  const strategies = Object.fromEntries(players.map((p, i) => [p, monopolyStrategy(p, new Uint8Array(32).fill(50 + i))]));
  return (p, d) => strategies[p]!(d);
};

describe.each(['chain', 'keyed-stream'] as const)('Monopoly on %s', (protocol) => {
  it('plays a whole game of set rounds; every seat and the auditor agree', () => {
    const players = ['a', 'b', 'c'];
    const t = new Table(protocol, players, { rounds: 6 }, auto(players));
    t.run();
    expect(t.seen).toEqual([]);
    const outcome = t.outcome();
    expect(outcome).not.toBeNull();
    expect(t.state().stage).toEqual({ kind: 'over' });
    expect(t.state().round).toBe(6);
    const verdict = auditLines(t.lines);
    expect(verdict.violations).toEqual([]);
    expect(verdict.valid).toBe(true);
    expect(verdict.outcome?.winners).toEqual(outcome!.winners);
    expect(t.bodies('unseal').length).toBe(t.bodies('seal').length);
  });

  it("a silent player's decisions take the defaults (roll, decline, pass): it is slow, not out", () => {
    const players = ['a', 'b', 'c'];
    const strategies = auto(players);
    const t = new Table(protocol, players, { rounds: 3 }, (p, d) => (p === 'b' ? null : strategies(p, d)));
    t.run();
    expect(t.outcome()).not.toBeNull();
    expect(t.state().players).toContain('b');
    expect(t.seen.filter((v) => v.player === 'b')).toEqual([]);
    expect(t.bodies('answer').some((e) => e.from === 'b')).toBe(false);
    const defaults = t.events.filter((e) => e.type === 'default' && e.player === 'b');
    expect(defaults.length).toBeGreaterThan(0);
    expect(t.state().position.b).not.toBe(0);
    expect(auditLines(t.lines).valid).toBe(true);
  });

  it("a late bidder's bid is a pass; a bidder who seals and never opens is named withheld, its bid a pass", () => {
    const players = ['a', 'b', 'c'];
    const strategies = auto(players);
    // Everyone declines to buy, so every deed goes to auction; c never bids.
    const late = new Table(protocol, players, { rounds: 2 }, (p, d) =>
      d.kind === 'buy' ? { do: 'decline' } : d.kind === 'bid' && p === 'c' ? null : strategies(p, d),
    );
    late.run();
    expect(late.bodies('seal').some((e) => e.from === 'c')).toBe(false);
    expect(late.events.some((e) => e.type === 'default' && e.player === 'c')).toBe(true);
    expect(late.seen).toEqual([]);
    expect(auditLines(late.lines).valid).toBe(true);

    const hiding = new Table(
      protocol,
      players,
      { rounds: 2 },
      (p, d) => (d.kind === 'buy' ? { do: 'decline' } : d.kind === 'bid' ? (p === 'c' ? 1000 : 10) : strategies(p, d)),
      (from, body) => (from === 'c' && body.type === 'unseal' ? null : body),
    );
    hiding.run();
    const withheld = auditLines(hiding.lines).violations.filter((v) => v.code === 'withheld');
    expect(withheld.length).toBeGreaterThan(0);
    expect(withheld.every((v) => v.player === 'c')).toBe(true);
    // c bid 1000 and never opened it: every auction went to another bidder, and c is still playing.
    expect(Object.values(hiding.state().deeds).some((h) => h.owner === 'c')).toBe(false);
    expect(hiding.state().players).toContain('c');
  });

  it('each kind of decision may have its own deadline (deadlines.bid here)', () => {
    const players = ['a', 'b', 'c'];
    const strategies = auto(players);
    const answerer: Answerer = (p, d) => (d.kind === 'buy' ? { do: 'decline' } : d.kind === 'bid' && p === 'c' ? null : strategies(p, d));
    // How long after the auction opened (the decline) the claim on c's missing seal came.
    const wait = (t: Table): number => {
      const envs = t.lines.slice(1).map((l) => JSON.parse(l) as Envelope);
      const claim = envs.findIndex((e) => e.body.type === 'deadline' && e.body.phase === 'seal');
      const opened = envs.slice(0, claim).findLast((e) => e.body.type === 'answer')!;
      return envs[claim]!.time - opened.time;
    };
    const plain = new Table(protocol, players, { rounds: 2 }, answerer);
    plain.run();
    expect(wait(plain)).toBeLessThan(10 * TIMEOUT);
    const long = new Table(protocol, players, { rounds: 2, deadlines: { bid: 30 * TIMEOUT } }, answerer);
    long.run();
    expect(wait(long)).toBeGreaterThanOrEqual(30 * TIMEOUT);
    expect(auditLines(long.lines).valid).toBe(true);
  });

  it('an unseal that does not open its seal is commit_mismatch: the player forfeits', () => {
    const players = ['a', 'b', 'c'];
    const strategies = auto(players);
    let done = false;
    const t = new Table(
      protocol,
      players,
      { rounds: 2 },
      (p, d) => (d.kind === 'buy' ? { do: 'decline' } : strategies(p, d)),
      (from, body) => {
        if (from !== 'c' || body.type !== 'unseal' || done) return body;
        done = true;
        const opening = body.opening as { nonce: string; value: JsonValue };
        return { ...body, opening: { ...opening, value: 1234 } };
      },
    );
    t.run();
    const v = auditLines(t.lines).violations;
    expect(v.map((x) => [x.code, x.player])).toContainEqual(['commit_mismatch', 'c']);
    expect(t.state().players).not.toContain('c');
    expect(t.state().out).toContain('c');
  });

  it('an answer the game refuses is illegal_answer and counts as the default', () => {
    const players = ['a', 'b'];
    const strategies = auto(players);
    let done = false;
    const t = new Table(protocol, players, { rounds: 2 }, strategies, (from, body) => {
      if (from !== 'b' || body.type !== 'answer' || done) return body;
      done = true;
      return { ...body, choice: { do: 'build', square: 39 } };
    });
    t.run();
    const v = auditLines(t.lines).violations;
    expect(v.map((x) => [x.code, x.player])).toEqual([['illegal_answer', 'b']]);
    expect(t.outcome()).not.toBeNull();
  });
});

describe('chain: a roll is seeded only by fresh values published after the roller committed', () => {
  it('holds on every move of a long game (doubles make the others send fresh values)', () => {
    const players = ['a', 'b', 'c'];
    const t = new Table('chain', players, { rounds: 12 }, auto(players));
    t.run();
    expect(t.seen).toEqual([]);
    const envs = t.lines.slice(1).map((l) => JSON.parse(l) as Envelope);
    const lastCommit: Record<string, number> = {};
    const lastFresh: Record<string, number> = {};
    envs.forEach((e, i) => {
      const b = e.body;
      if (b.type === 'move') {
        for (const p of players) if (p !== e.from) expect(lastFresh[p]!).toBeGreaterThan(lastCommit[e.from]!);
      }
      if (b.type === 'join' || b.type === 'move') lastCommit[e.from] = i;
      if (typeof b.fresh === 'string') lastFresh[e.from] = i;
    });
    expect(t.bodies('fresh').length).toBeGreaterThan(0);
  });
});

describe('keyed-stream: a wrong roll is possible-looking and caught at the audit', () => {
  it('names the roller audit_mismatch', () => {
    const players = ['a', 'b'];
    let done = false;
    // Swapping the two dice of a roll plays exactly the same move: nobody can tell before the audit.
    const t = new Table('keyed-stream', players, { rounds: 3 }, auto(players), (from, body) => {
      const draws = body.draws as [number, number][] | undefined;
      if (from !== 'b' || body.type !== 'roll' || done || draws!.length !== 2 || draws![0]![1] === draws![1]![1]) return body;
      done = true;
      return { ...body, draws: [draws![1]!, draws![0]!] };
    });
    t.run();
    const v = auditLines(t.lines).violations;
    expect(v.map((x) => [x.code, x.player])).toContainEqual(['audit_mismatch', 'b']);
  });
});
