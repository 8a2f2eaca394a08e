/**
 * A simulated player on the in-memory network (docs/SPEC.md §10.2): an honest
 * client of the table, or one that cheats in one named way. The honest part is
 * what a real client does: follow the log in order (asking the table again for
 * what it missed), run the referee over every line, sign what the protocol
 * machine says to send, one envelope at a time, and resend it until it shows
 * up in the log.
 */
import type { Body, Envelope } from '../envelope.js';
import { envelopeHash, envelopeLine, signEnvelope } from '../envelope.js';
import { generateKeyPair, type KeyPair } from '../identity.js';
import { Referee } from '../referee.js';
import { hashJsonHex } from '../hash.js';
import type { Ctx } from '../protocols/machine.js';
import type { JsonValue } from '../jcs.js';
import { prepareLine, type VerifyFn } from '../transcript.js';
import { toHex, utf8 } from '../bytes.js';
import { ecvrfHouse } from '../signidice/house-key.js';
import { signidiceAlpha, type SignidiceState } from '../signidice/arbiter.js';
import type { Link, NetNode } from './network.js';
import type { TableMessage } from './table.js';

export const CHEATS = [
  'wrong-opening',
  'equivocate',
  'replay',
  'withhold',
  'forge',
  'out-of-turn',
  'tamper',
  // Signidice (docs/spec/signidice.md §7)
  'house-wrong-signature',
  'house-withhold',
  'house-key-swap',
  'player-wrong-hr',
  'player-reuse-r',
] as const;
export type Cheat = (typeof CHEATS)[number];
/** The cheats every protocol knows; the others are Signidice's own. */
export const GENERIC_CHEATS = CHEATS.slice(0, 7) as readonly Cheat[];

const ACTIONS = new Set(['reveal', 'move', 'turn', 'audit', 'hr']);
const RESEND_MS = 200;
const trustOwn = (): boolean => true;

export class SimPlayer implements NetNode {
  readonly referee: Referee;
  private next = 1;
  private readonly buffer = new Map<number, string>();
  private readonly queue: Body[] = [];
  private current: { text: string; hash: string; sentAt: number } | null = null;
  private seq: number;
  private prev: string;
  private lastEntryAt = 0;
  private cheated = false;
  /** CPU milliseconds spent in this player's referee and signing. */
  cpuMs = 0;

  constructor(
    readonly id: string,
    private readonly keys: KeyPair,
    setupLine: string,
    private readonly random: (n: number) => Uint8Array,
    private readonly cheat: Cheat | null,
    clock: () => number,
    verify?: VerifyFn,
    private readonly prover?: (alpha: Uint8Array) => Uint8Array,
    private readonly signFn?: (message: Uint8Array, secretKey: Uint8Array) => Uint8Array,
  ) {
    this.clock = clock;
    const t0 = performance.now();
    this.referee = new Referee(setupLine, id, this.ctx(), verify === undefined ? {} : { verify });
    this.queue.push(...this.referee.takeInitialOut());
    const setupEnvelope = JSON.parse(setupLine) as Envelope;
    const creator = setupEnvelope.from === id;
    this.seq = creator ? 1 : 0;
    this.prev = creator ? this.referee.checker.hashOfLine(0)! : this.referee.checker.gameId;
    this.cheatOutOfTurn();
    this.cpuMs += performance.now() - t0;
  }

  private readonly clock: () => number;

  private ctx(): Ctx {
    const now = this.clock?.() ?? 0;
    return this.prover === undefined ? { now, random: this.random } : { now, random: this.random, prover: this.prover };
  }

  receive(from: string, payload: unknown, net: Link): void {
    const msg = payload as TableMessage;
    if (from !== 'table' || msg.kind !== 'entry') return;
    if (msg.index < this.next) return;
    this.buffer.set(msg.index, msg.text);
    this.lastEntryAt = net.now;
    const t0 = performance.now();
    while (this.buffer.has(this.next)) {
      const text = this.buffer.get(this.next)!;
      this.buffer.delete(this.next);
      // A client need not check its own signature on what it just signed.
      const own = this.current !== null && text === this.current.text;
      const prepared = own ? prepareLine(this.next, text, this.referee.checker.keys, trustOwn) : this.referee.prepare(this.next, text);
      const result = this.referee.feed(prepared, this.ctx());
      if (this.current !== null && prepared.hash === this.current.hash) {
        this.current = null;
        this.seq++;
        this.prev = prepared.hash;
      }
      this.next++;
      this.queue.push(...result.out);
      this.cheatOutOfTurn();
    }
    this.pump(net);
    this.cpuMs += performance.now() - t0;
  }

  tick(net: Link): void {
    const t0 = performance.now();
    if (this.current !== null && net.now - this.current.sentAt >= RESEND_MS) {
      this.current.sentAt = net.now;
      net.send(this.id, 'table', { kind: 'submit', text: this.current.text } satisfies TableMessage);
    }
    if (net.now - this.lastEntryAt >= RESEND_MS) {
      this.lastEntryAt = net.now;
      net.send(this.id, 'table', { kind: 'sync', from: this.next } satisfies TableMessage);
    }
    this.queue.push(...this.referee.tick(this.ctx()));
    this.pump(net);
    this.cpuMs += performance.now() - t0;
  }

  private sign(body: Body, game = this.referee.checker.gameId, seq = this.seq): Envelope {
    const at = this.next;
    return signEnvelope(
      { v: 1, game, from: this.id, seq, prev: this.prev, at, head: this.referee.checker.hashOfLine(at - 1)!, time: this.ctx().now, body },
      this.keys.secretKey,
      this.signFn,
    );
  }

  private submit(net: Link, envelope: Envelope): void {
    net.send(this.id, 'table', { kind: 'submit', text: envelopeLine(envelope) } satisfies TableMessage);
  }

  private pump(net: Link): void {
    while (this.current === null && this.queue.length > 0) {
      const body = this.queue.shift()!;
      if (this.cheat === 'withhold' && ACTIONS.has(body.type)) continue;
      if (this.cheat === 'house-withhold' && body.type === 'sign') continue;
      let envelope = this.sign(this.cheatBody(body));
      if (!this.cheated && this.cheat === 'equivocate') {
        this.cheated = true;
        this.submit(net, this.sign({ ...body, variant: true }));
      } else if (!this.cheated && this.cheat === 'replay') {
        this.cheated = true;
        this.submit(net, this.sign(body, hashJsonHex('game', { replayed: this.referee.checker.gameId })));
      } else if (!this.cheated && this.cheat === 'forge') {
        this.cheated = true;
        const forger = generateKeyPair(this.random(32));
        envelope = { ...envelope, sig: signEnvelope(envelope, forger.secretKey).sig };
      }
      const text = envelopeLine(envelope);
      this.current = { text, hash: envelopeHash(envelope), sentAt: net.now };
      net.send(this.id, 'table', { kind: 'submit', text } satisfies TableMessage);
    }
  }

  private cheatBody(body: Body): Body {
    const signidice = this.signidiceCheat(body);
    if (signidice !== null) return signidice;
    if ((this.cheat !== 'wrong-opening' && this.cheat !== 'player-wrong-hr') || this.cheated) return body;
    const opening = body.opening as { nonce: string; value: unknown } | undefined;
    if (opening !== undefined) {
      this.cheated = true;
      const flipped = (opening.nonce[0] === '0' ? '1' : '0') + opening.nonce.slice(1);
      return { ...body, opening: { ...opening, nonce: flipped } };
    }
    if (body.type === 'reveal' && typeof body.payload === 'string') {
      // A Rochambeau Reveal whose nonce (after the 16-octet binding) is not the committed one.
      this.cheated = true;
      const at = 2 * (4 + 16);
      const p = body.payload;
      return { ...body, payload: p.slice(0, at) + (p[at] === '0' ? '1' : '0') + p.slice(at + 1) };
    }
    const roll = body.roll as { turn: number; draws: [number, number][] } | null | undefined;
    if (body.type === 'turn' && roll && roll.draws.length > 0) {
      // Seed 000: the roller claims a different roll than its stream gave; only the audit can tell.
      this.cheated = true;
      const [n, v] = roll.draws[0]!;
      return { ...body, roll: { ...roll, draws: [[n, (v + 1) % n], ...roll.draws.slice(1)] } };
    }
    return body;
  }

  private firstR: string | null = null;

  /** The house's and players' Signidice cheats; null when this body is left alone. */
  private signidiceCheat(body: Body): Body | null {
    if (this.cheated) return null;
    if (this.cheat === 'house-wrong-signature' && body.type === 'sign' && this.prover !== undefined) {
      this.cheated = true;
      return { ...body, pi: toHex(this.prover(utf8('something other than V'))) };
    }
    if (this.cheat === 'house-key-swap' && body.type === 'sign') {
      this.cheated = true;
      const s = this.referee.state as SignidiceState;
      const other = ecvrfHouse('ecvrf-ell2', this.random(32));
      const p = body.player as string;
      const alpha = signidiceAlpha(s.gameId, s.round, s.playerKeys[p]!, s.bets[p]!.r);
      return { ...body, key: other.key, pi: toHex(other.prove(alpha)) };
    }
    if (this.cheat === 'player-reuse-r' && body.type === 'bet') {
      if (this.firstR === null) {
        this.firstR = body.r as string;
        return body;
      }
      this.cheated = true;
      return { ...body, r: this.firstR };
    }
    return null;
  }

  /** out-of-turn: act (reveal, move) at the first moment it is not this player's place to. */
  private cheatOutOfTurn(): void {
    if (this.cheat !== 'out-of-turn' || this.cheated) return;
    const s = this.referee.state as Record<string, unknown>;
    const protocol = this.referee.machine.protocol;
    if (protocol === 'beacon' && s.phase === 'commit' && s.mine !== null) {
      const mine = s.mine as { round: number; opening: unknown };
      this.cheated = true;
      this.queue.unshift({ type: 'reveal', round: mine.round, commitSet: '0'.repeat(64), opening: mine.opening as JsonValue });
    } else if (protocol === 'rochambeau' && s.phase === 'commit' && s.mine !== null) {
      const mine = s.mine as { attempt: number; reveal: string };
      this.cheated = true;
      this.queue.unshift({ type: 'reveal', attempt: mine.attempt, payload: mine.reveal });
    } else if (protocol === 'signidice' && s.phase === 'bet' && s.mine !== null) {
      // Opens HR before the house has signed: the arbiter refuses it.
      const mine = s.mine as { round: number; opening: unknown };
      this.cheated = true;
      this.queue.push({ type: 'hr', round: mine.round, opening: mine.opening as JsonValue });
    } else if ((protocol === 'chain' || protocol === 'keyed-stream') && s.phase === 'play') {
      const active = s.active as string[];
      const mover = active[(s.mover as number) % active.length];
      if (mover !== this.id) {
        this.cheated = true;
        const type = protocol === 'chain' ? 'move' : 'turn';
        this.queue.push({ type, turn: s.turn as number, x: 0, roll: null });
      }
    }
  }

  get idle(): boolean {
    return this.current === null && this.queue.length === 0;
  }
}

