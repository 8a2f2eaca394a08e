/**
 * Seed 000's audit on demand and continued game (docs/SPEC.md §7.3), driven
 * with signed envelopes written by hand: honest seats are the keyed-stream
 * machine itself, fed every envelope of the transcript as it is written; a
 * cheat is a hook that rewrites or drops what one seat sends. The auditor
 * (the same machine, no seat) must name each cheat with its evidence.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { auditLines } from '../audit.js';
import { fromHex, toHex } from '../bytes.js';
import { envelopeHash, envelopeLine, signEnvelope, type Body, type Envelope } from '../envelope.js';
import type { Violation } from '../errors.js';
import { generateKeyPair, type KeyPair } from '../identity.js';
import type { JsonValue } from '../jcs.js';
import { createSetupEnvelope, type GameSetup } from '../setup.js';
import { RandomStream } from '../stream.js';
import { DEFAULT_SKIP_LIMIT, firstPlayerIndex, keyedStream, streamOfSecret, type KeyedState } from './keyed-stream.js';
import type { Ctx } from './machine.js';

const TIMEOUT = 1000;
type Cheat = (from: string, body: Body) => Body | null;
const honest: Cheat = (_, body) => body;
const pub = (secret: Uint8Array | string): string => toHex(ed25519.getPublicKey(typeof secret === 'string' ? fromHex(secret) : secret));

/** A transcript written by hand, and a seat (the real machine) for each player that wants one. */
class Table {
  readonly lines: string[] = [];
  readonly keys: Record<string, KeyPair> = {};
  readonly setup: GameSetup;
  readonly game: string;
  readonly seats: Record<string, { state: KeyedState; rng: RandomStream; queue: Body[] }> = {};
  /** Every violation an honest seat's machine reported (they must agree with the auditor). */
  readonly seen: Violation[] = [];
  now = 0;
  private readonly seq: Record<string, number> = {};
  private readonly prev: Record<string, string> = {};

  constructor(
    readonly players: string[],
    params: { [k: string]: JsonValue } = {},
    game = 'dice',
    seated: readonly string[] = players,
  ) {
    for (const [i, p] of players.entries()) this.keys[p] = generateKeyPair(new Uint8Array(32).fill(i + 1));
    this.setup = {
      protocol: 'keyed-stream',
      game,
      params: { timeoutMs: TIMEOUT, skipLimit: DEFAULT_SKIP_LIMIT, ...params },
      players: players.map((id) => ({ id, key: toHex(this.keys[id]!.publicKey) })),
      nonce: '00'.repeat(32),
      created: 0,
    };
    const env = createSetupEnvelope(this.setup, players[0]!, this.keys[players[0]!]!);
    this.game = env.game;
    this.lines.push(envelopeLine(env));
    for (const p of players) {
      this.seq[p] = p === players[0] ? 1 : 0;
      this.prev[p] = p === players[0] ? envelopeHash(env) : this.game;
    }
    for (const [i, p] of players.entries()) {
      if (!seated.includes(p)) continue;
      const rng = new RandomStream(new Uint8Array(32).fill(100 + i), 'seat');
      const r = keyedStream.init(this.setup, this.game, p, this.ctx(rng));
      this.seats[p] = { state: r.state, rng, queue: [...r.out] };
    }
  }

  private ctx(rng: RandomStream): Ctx {
    return { now: this.now, random: (n) => rng.bytes(n) };
  }

  /** Signs and appends a body as `from`, then feeds the envelope to every seat. */
  post(from: string, body: Body, keys: KeyPair = this.keys[from]!): Envelope {
    const head = envelopeHash(JSON.parse(this.lines[this.lines.length - 1]!) as Envelope);
    const env = signEnvelope(
      { v: 1, game: this.game, from, seq: this.seq[from]!, prev: this.prev[from]!, at: this.lines.length, head, time: this.now, body },
      keys.secretKey,
    );
    const line = this.lines.length;
    this.lines.push(envelopeLine(env));
    this.seq[from]!++;
    this.prev[from] = envelopeHash(env);
    for (const seat of Object.values(this.seats)) {
      const r = keyedStream.step(seat.state, { line, hash: envelopeHash(env), envelope: env, time: env.time }, this.ctx(seat.rng));
      seat.state = r.state;
      seat.queue.push(...r.out);
      this.seen.push(...r.violations);
    }
    return env;
  }

  /**
   * Lets the seats play: each sends its next message in turn (after `cheat`
   * may rewrite or drop it), the clock moving `stepMs` a message; when nobody
   * has anything to send, the clock jumps past the deadline and seats tick.
   */
  run(cheat: Cheat = honest, stepMs = 10): void {
    for (let i = 0; i < 5000; i++) {
      if (!this.sendNext(cheat, stepMs)) {
        if (this.allDone()) return;
        this.now += TIMEOUT + 1;
        if (!this.tickAll()) return;
      }
    }
    throw new Error('the game did not settle');
  }

  /** The next seat in turn with something to send sends it; false when no seat has anything. */
  sendNext(cheat: Cheat = honest, stepMs = 10, tick = true): boolean {
    const ids = Object.keys(this.seats);
    const who = ids.map((_, k) => ids[(this.rr + k) % ids.length]!).find((p) => this.seats[p]!.queue.length > 0);
    if (who === undefined) return false;
    this.rr++;
    const body = cheat(who, this.seats[who]!.queue.shift()!);
    if (body !== null) this.post(who, body);
    this.now += stepMs;
    if (tick) this.tickAll();
    return true;
  }

  private rr = 0;

  private allDone(): boolean {
    return Object.values(this.seats).every((s) => keyedStream.outcome(s.state) !== null);
  }

  tickAll(): boolean {
    let any = false;
    for (const seat of Object.values(this.seats)) {
      const r = keyedStream.tick(seat.state, this.ctx(seat.rng));
      seat.state = r.state;
      seat.queue.push(...r.out);
      any ||= r.out.length > 0;
    }
    return any;
  }

  state(p: string): KeyedState {
    return this.seats[p]!.state;
  }

  verdict() {
    return auditLines(this.lines);
  }

  bodies(type: string): Body[] {
    return this.lines
      .slice(1)
      .map((l) => (JSON.parse(l) as Envelope).body)
      .filter((b) => b.type === type);
  }
}

const other = (hex: string): string => (hex[0] === '0' ? '1' : '0') + hex.slice(1);

describe('audit on demand: the honest game', () => {
  it('a request is answered with the secret and a new key; everybody replays, and play goes on from the new key', () => {
    const t = new Table(['a', 'b'], { rounds: 3 });
    // Keys, then the first turn (the X of whoever goes first).
    for (let i = 0; i < 3; i++) t.sendNext();
    const first = t.state('a').active[t.state('a').mover]!;
    expect(t.bodies('turn')).toHaveLength(1);
    const secretBefore = t.state(first).mine!.secret;
    const keyBefore = t.state(first).keys[first]!;
    const asker = first === 'a' ? 'b' : 'a';
    t.post(asker, { type: 'audit-request', players: [first] });
    // The named seat answers at once with its secret and the public key of a fresh one.
    const answer = t.seats[first]!.queue.find((b) => b.type === 'audit')!;
    expect(answer.secret).toBe(secretBefore);
    expect(pub(secretBefore)).toBe(keyBefore);
    expect(answer.key).not.toBe(keyBefore);
    expect(pub(t.state(first).mine!.secret)).toBe(answer.key);
    t.run();
    const v = t.verdict();
    expect(v.violations).toEqual([]);
    expect(v.valid).toBe(true);
    expect(t.seen).toEqual([]);
    expect(v.outcome?.winners.length).toBeGreaterThan(0);
    // Both keys were in use: the final audit reveals the second one, which must reproduce the numbers drawn after the switch.
    const finals = t.bodies('audit').filter((b) => b.key === undefined);
    expect(finals.map((b) => pub(b.secret as string))).toContain(answer.key);
  });

  it('auditEvery: honest seats audit the last roller every k turns, with three players and the chance-only Monopoly', () => {
    const t = new Table(['a', 'b', 'c'], { rounds: 3, auditEvery: 2 }, 'monopoly-chance');
    t.run();
    const v = t.verdict();
    expect(v.violations).toEqual([]);
    expect(t.seen).toEqual([]);
    const turns = t.bodies('turn').length;
    const requests = t.bodies('audit-request');
    expect(requests.length).toBe(Math.floor((turns - 1) / 2));
    // Every request that reached the transcript before the game ended was answered with a key
    // (one sent after the requester's own turn may be overtaken by the end: stale, and ignored).
    const all = t.lines.slice(1).map((l) => (JSON.parse(l) as Envelope).body);
    const end = all.findIndex((b) => b.type === 'turn' && b.x === null);
    const inPlay = all.slice(0, end).filter((b) => b.type === 'audit-request').length;
    expect(inPlay).toBeGreaterThan(0);
    const answers = t.bodies('audit').filter((b) => b.key !== undefined);
    expect(answers.length).toBe(inPlay);
    const keys = [...t.bodies('stream-key').map((b) => b.key), ...answers.map((b) => b.key)];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('a voluntary audit (no request) is accepted, and a key revealed during play may come later as a stream-key', () => {
    const t = new Table(['a', 'b'], { rounds: 2 }, 'dice', ['b']);
    // a plays by hand on two streams it controls.
    const s1 = new Uint8Array(32).fill(41);
    const s2 = new Uint8Array(32).fill(42);
    const mine = [streamOfSecret(s1), streamOfSecret(s2)];
    let epoch = 0;
    t.post('a', { type: 'stream-key', key: pub(s1) });
    t.sendNext(); // b's key
    const play = (): void => {
      for (let guard = 0; guard < 100 && keyedStream.outcome(t.state('b')) === null; guard++) {
        const s = t.state('b');
        if (s.phase === 'play' && s.active[s.mover] === 'a' && t.seats.b!.queue.length === 0) {
          const stream = mine[epoch]!;
          let roll: JsonValue = null;
          if (s.pending !== null) {
            stream.skip(4 * s.pending.x);
            roll = {
              turn: s.pending.turn,
              draws: [
                [6, stream.below(6)],
                [6, stream.below(6)],
              ],
            };
          }
          t.post('a', { type: 'turn', turn: s.turn, roll, x: stream.below(DEFAULT_SKIP_LIMIT) });
          if (epoch === 0) {
            t.post('a', { type: 'audit', secret: toHex(s1) });
            expect(t.state('b').keyless.a).toBe(true);
            t.post('a', { type: 'stream-key', key: pub(s2) });
            epoch = 1;
          }
        } else if (s.phase === 'audit' && !s.audited.a) t.post('a', { type: 'audit', secret: toHex(s2) });
        else t.sendNext();
      }
    };
    play();
    expect(t.verdict().violations).toEqual([]);
    expect(t.verdict().valid).toBe(true);
  });
});

describe('audit on demand: cheats', () => {
  it('a key revealed on demand that does not match the published one is bad_key, and the game goes on without its owner', () => {
    const t = new Table(['a', 'b', 'c'], { rounds: 3, auditEvery: 1 });
    let done = false;
    t.run((from, body) => {
      if (from === 'a' && body.type === 'audit' && body.key !== undefined && !done) {
        done = true;
        return { ...body, secret: other(body.secret as string) };
      }
      return body;
    });
    const v = t.verdict();
    const bad = v.violations.find((x) => x.player === 'a')!;
    expect(bad).toMatchObject({ code: 'bad_key', player: 'a' });
    // The evidence is the answer itself, made during play (it carries a new key).
    expect((bad.evidence[0]!.envelope as Envelope).body).toMatchObject({ type: 'audit' });
    expect((bad.evidence[0]!.envelope as Envelope).body.key).toBeDefined();
    expect(v.outcome!.forfeits).toEqual([{ player: 'a', code: 'bad_key' }]);
    expect(v.violations.filter((x) => x.player !== 'a')).toEqual([]);
  });

  it('an X its stream does not give is audit_mismatch at the first audit on demand, not at the end', () => {
    const t = new Table(['a', 'b', 'c'], { rounds: 3, auditEvery: 1 });
    let done = false;
    t.run((from, body) => {
      if (from === 'b' && body.type === 'turn' && typeof body.x === 'number' && !done) {
        done = true;
        return { ...body, x: ((body.x as number) + 1) % DEFAULT_SKIP_LIMIT };
      }
      return body;
    });
    const v = t.verdict();
    const bad = v.violations.find((x) => x.player === 'b')!;
    expect(bad.code).toBe('audit_mismatch');
    expect(bad.message).toMatch(/X = /);
    const evidence = bad.evidence[0]!.envelope as Envelope;
    expect(evidence.body.type).toBe('audit');
    expect(evidence.body.key).toBeDefined(); // caught by an audit during play
    expect(v.outcome!.forfeits).toEqual([{ player: 'b', code: 'audit_mismatch' }]);
    expect(v.outcome!.winners).not.toContain('b');
  });

  it('a roll its stream does not give is audit_mismatch at the next audit on demand', () => {
    const t = new Table(['a', 'b', 'c'], { rounds: 3, auditEvery: 1 });
    let done = false;
    t.run((from, body) => {
      const roll = body.roll as { turn: number; draws: [number, number][] } | null | undefined;
      if (from === 'c' && body.type === 'turn' && roll && !done) {
        done = true;
        const [n, value] = roll.draws[0]!;
        return { ...body, roll: { ...roll, draws: [[n, (value + 1) % n], ...roll.draws.slice(1)] } };
      }
      return body;
    });
    const bad = t.verdict().violations.find((x) => x.player === 'c')!;
    expect(bad.code).toBe('audit_mismatch');
    expect(bad.message).toMatch(/roll/);
    expect((bad.evidence[0]!.envelope as Envelope).body.key).toBeDefined();
  });

  it('numbers drawn from the old stream after the switch are audit_mismatch under the new key', () => {
    // a answers honestly but keeps drawing from the revealed stream: hand-played a, honest seat b.
    const t = new Table(['a', 'b'], { rounds: 3 }, 'dice', ['b']);
    const s1 = new Uint8Array(32).fill(51);
    const s2 = new Uint8Array(32).fill(52);
    const old = streamOfSecret(s1);
    t.post('a', { type: 'stream-key', key: pub(s1) });
    t.sendNext();
    let answered = false;
    for (let guard = 0; guard < 100 && keyedStream.outcome(t.state('b')) === null; guard++) {
      const s = t.state('b');
      if (s.phase === 'play' && s.active[s.mover] === 'a' && t.seats.b!.queue.length === 0) {
        let roll: JsonValue = null;
        if (s.pending !== null) {
          old.skip(4 * s.pending.x);
          roll = {
            turn: s.pending.turn,
            draws: [
              [6, old.below(6)],
              [6, old.below(6)],
            ],
          };
        }
        t.post('a', { type: 'turn', turn: s.turn, roll, x: old.below(DEFAULT_SKIP_LIMIT) });
        if (!answered) {
          t.post('a', { type: 'audit', secret: toHex(s1), key: pub(s2) });
          answered = true;
        }
      } else if (s.phase === 'audit' && !s.audited.a) t.post('a', { type: 'audit', secret: toHex(s2) });
      else t.sendNext();
    }
    const v = t.verdict();
    expect(v.violations[0]).toMatchObject({ code: 'audit_mismatch', player: 'a' });
    expect(v.violations[0]!.message).toMatch(/stream key #2/);
  });

  it('no answer to a request is withheld, by a deadline claim', () => {
    const t = new Table(['a', 'b', 'c'], { rounds: 10, auditEvery: 1 });
    t.run((from, body) => (from === 'a' && body.type === 'audit' && body.key !== undefined ? null : body), 100);
    const v = t.verdict();
    const w = v.violations.find((x) => x.player === 'a')!;
    expect(w.code).toBe('withheld');
    expect(w.message).toMatch(/reveal its stream secret and publish a new key within 1000 ms of audit request/);
    const claim = (w.evidence[0]!.envelope as Envelope).body;
    expect(claim).toMatchObject({ type: 'deadline', phase: 'audit-request', missing: ['a'] });
    expect(v.outcome!.forfeits).toEqual([{ player: 'a', code: 'withheld' }]);
    expect(v.violations.filter((x) => x.player !== 'a')).toEqual([]);
  });

  it('a secret revealed with the new key held back is withheld, by a deadline claim', () => {
    const t = new Table(['a', 'b', 'c'], { rounds: 10, auditEvery: 1 });
    t.run((from, body) => {
      if (from === 'a' && body.type === 'audit' && body.key !== undefined) {
        const { key: _key, ...rest } = body;
        return rest as Body;
      }
      return body;
    }, 100);
    const v = t.verdict();
    const w = v.violations.find((x) => x.player === 'a')!;
    expect(w.code).toBe('withheld');
    expect(w.message).toMatch(/publish its next stream key/);
    expect(v.outcome!.forfeits).toEqual([{ player: 'a', code: 'withheld' }]);
  });

  it('a revealed key offered again as the next key is bad_key', () => {
    const t = new Table(['a', 'b', 'c'], { rounds: 3, auditEvery: 1 });
    t.run((from, body) => {
      if (from === 'a' && body.type === 'audit' && body.key !== undefined) {
        return { ...body, key: pub(body.secret as string) };
      }
      return body;
    });
    const bad = t.verdict().violations.find((x) => x.player === 'a')!;
    expect(bad).toMatchObject({ code: 'bad_key', player: 'a' });
    expect(bad.message).toMatch(/already revealed/);
  });
});

describe('audit requests by hand', () => {
  it('before play, a request is out_of_turn; a request naming nobody or a stranger is unexpected_message', () => {
    const t = new Table(['a', 'b'], { rounds: 1 }, 'dice', []);
    t.post('a', { type: 'audit-request', players: ['b'] });
    t.post('a', { type: 'stream-key', key: pub(new Uint8Array(32).fill(81)) });
    t.post('b', { type: 'stream-key', key: pub(new Uint8Array(32).fill(82)) });
    t.post('b', { type: 'audit-request', players: [] });
    t.post('b', { type: 'audit-request', players: ['mallory'] });
    t.post('b', { type: 'audit-request', players: ['a', 'a'] });
    const codes = t
      .verdict()
      .violations.filter((x) => x.player !== null)
      .map((x) => [x.code, x.player]);
    expect(codes).toEqual([
      ['out_of_turn', 'a'],
      ['unexpected_message', 'b'],
      ['unexpected_message', 'b'],
      ['unexpected_message', 'b'],
    ]);
  });

  it('a deadline claim on a request before its deadline is false_deadline_claim; one a reply overtook is a race', () => {
    const t = new Table(['a', 'b'], { rounds: 3 }, 'dice', ['a']);
    const sb = new Uint8Array(32).fill(61);
    t.post('b', { type: 'stream-key', key: pub(sb) });
    t.sendNext(); // a's key
    t.post('a', { type: 'audit-request', players: ['b'] });
    t.post('a', { type: 'deadline', phase: 'audit-request', round: 0, missing: ['b'] });
    expect(t.verdict().violations.find((x) => x.player !== null)).toMatchObject({ code: 'false_deadline_claim', player: 'a' });

    const u = new Table(['a', 'b'], { rounds: 3 }, 'dice', ['a']);
    u.post('b', { type: 'stream-key', key: pub(sb) });
    u.sendNext();
    u.post('b', { type: 'audit-request', players: ['a'] });
    while (u.sendNext(honest, 10, false)); // a answers at once
    u.now += 5000;
    u.post('b', { type: 'deadline', phase: 'audit-request', round: 0, missing: ['a'] });
    // The request was closed by the answer: a claim on it is stale, held against no one.
    expect(u.verdict().violations.filter((x) => x.player !== null)).toEqual([]);
    u.post('b', { type: 'audit-request', players: ['a', 'b'] });
    while (u.sendNext(honest, 10, false)); // a answers; b does not (and a's clock is not asked)
    u.now += 5000;
    u.post('b', { type: 'deadline', phase: 'audit-request', round: 1, missing: ['a', 'b'] });
    // Nobody but the claimant has written since: the claim stands in the unvouched tail and names nobody (docs/SPEC.md §4.4).
    expect(u.verdict().violations.filter((x) => x.player !== null)).toEqual([]);
    while (u.sendNext(honest, 10, false)); // a, the one left, writes on (its final audit), vouching for the claim
    // a's answer overtook the claim (an honest race, docs/SPEC.md §7.4); b, still missing, is named.
    expect(
      u
        .verdict()
        .violations.filter((x) => x.player !== null)
        .map((x) => [x.code, x.player]),
    ).toEqual([['withheld', 'b']]);
  });

  it('a roller who revealed and owes its next key cannot take its turn: out_of_turn', () => {
    const t = new Table(['a', 'b'], { rounds: 3 }, 'dice', []);
    const sa = new Uint8Array(32).fill(71);
    const sb = new Uint8Array(32).fill(72);
    t.post('a', { type: 'stream-key', key: pub(sa) });
    t.post('b', { type: 'stream-key', key: pub(sb) });
    // Whoever goes first reveals at once, with no new key, and then tries to move.
    const first = ['a', 'b'][firstPlayerIndex([pub(sa), pub(sb)])]!;
    const secret = first === 'a' ? sa : sb;
    t.post(first, { type: 'audit', secret: toHex(secret) });
    t.post(first, { type: 'turn', turn: 0, roll: null, x: streamOfSecret(secret).below(DEFAULT_SKIP_LIMIT) });
    expect(t.verdict().violations.find((x) => x.player !== null)).toMatchObject({ code: 'out_of_turn', player: first });
  });
});

describe('a mover that leaves with its X pending', () => {
  /** Three hand-played players; the first mover sends its X, then forfeits (a bad audit) before its roller's turn lands. */
  function scene(rollerSawIt: 'before' | 'after' | 'garbled'): { code: string; player: string | null }[] {
    const t = new Table(['a', 'b', 'c'], { rounds: 5 }, 'dice', []);
    const secrets = { a: new Uint8Array(32).fill(91), b: new Uint8Array(32).fill(92), c: new Uint8Array(32).fill(93) };
    for (const p of ['a', 'b', 'c'] as const) t.post(p, { type: 'stream-key', key: pub(secrets[p]) });
    const order = ['a', 'b', 'c'] as const;
    const first = firstPlayerIndex(order.map((p) => pub(secrets[p])));
    const [p0, p1, p2] = [order[first]!, order[(first + 1) % 3]!, order[(first + 2) % 3]!];
    const streams = { a: streamOfSecret(secrets.a), b: streamOfSecret(secrets.b), c: streamOfSecret(secrets.c) };
    const x0 = streams[p0].below(DEFAULT_SKIP_LIMIT);
    t.post(p0, { type: 'turn', turn: 0, roll: null, x: x0 });
    let roll: JsonValue = null;
    if (rollerSawIt === 'after') {
      // The roller drew p0's roll before the forfeit reached it.
      streams[p1].skip(4 * x0);
      roll = {
        turn: 0,
        draws: [
          [6, streams[p1].below(6)],
          [6, streams[p1].below(6)],
        ],
      };
    } else if (rollerSawIt === 'garbled') roll = { turn: 0, draws: [[6, 9]] };
    t.post(p0, { type: 'audit', secret: '77'.repeat(32), key: pub(new Uint8Array(32).fill(94)) });
    const x1 = streams[p1].below(DEFAULT_SKIP_LIMIT);
    t.post(p1, { type: 'turn', turn: 1, roll, x: x1 });
    streams[p2].skip(4 * x1);
    const r2 = {
      turn: 1,
      draws: [
        [6, streams[p2].below(6)],
        [6, streams[p2].below(6)],
      ],
    };
    t.post(p2, { type: 'turn', turn: 2, roll: r2, x: streams[p2].below(DEFAULT_SKIP_LIMIT) });
    // The roller's audit: its numbers must replay whichever way it went.
    t.post(p1, { type: 'audit', secret: toHex(secrets[p1]), key: pub(new Uint8Array(32).fill(95)) });
    const names = { [p0]: 'mover', [p1]: 'roller', [p2]: 'next' } as Record<string, string>;
    return t
      .verdict()
      .violations.filter((v) => v.player !== null)
      .map((v) => ({ code: v.code, player: names[v.player!]! }));
  }

  it('a roll drawn before the forfeit was seen is kept in the roller history and replays at its audit', () => {
    expect(scene('after')).toEqual([{ code: 'bad_key', player: 'mover' }]);
  });

  it('a roller that saw the forfeit first draws nothing and sends no roll', () => {
    expect(scene('before')).toEqual([{ code: 'bad_key', player: 'mover' }]);
  });

  it('a roll for the departed mover that is not a list of draws is wrong_result', () => {
    // With two of three gone the game is over: the third player's turn is then out of turn.
    expect(scene('garbled')).toEqual([
      { code: 'bad_key', player: 'mover' },
      { code: 'wrong_result', player: 'roller' },
      { code: 'out_of_turn', player: 'next' },
    ]);
  });
});
