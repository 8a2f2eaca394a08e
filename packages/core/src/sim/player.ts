/**
 * A simulated player on the in-memory network (docs/SPEC.md §10.2): the
 * production seat (seat/seat.ts) on a link to the table, answering its
 * machine's decisions with an automatic strategy, and, for one named player,
 * a cheat. Cheats are hooks on what the seat signs and sends (cheats.ts); the
 * honest seat knows nothing of them.
 */
import type { Body } from '../envelope.js';
import type { KeyPair } from '../identity.js';
import type { Registry } from '../registry.js';
import { Referee } from '../referee.js';
import { Seat, type JournalEntry, type OutgoingHook, type SeatOptions, type SignFn } from '../seat/seat.js';
import type { VerifyFn } from '../transcript.js';
import type { ProvedOnce } from '../deck/proved-once.js';
import { cheatHook, earlyMove, type Cheat } from './cheats.js';
import type { Link, NetNode } from './network.js';
import { simStrategy, type Strategy } from './strategies.js';
import type { TableMessage } from './table.js';

export { CHEATS, GENERIC_CHEATS, cheatApplies, type Cheat } from './cheats.js';

export interface SimPlayerOptions {
  readonly strategy?: Strategy;
  readonly registry?: Registry;
  /** A clock of CPU time for the simulation's figures (the bench passes performance.now). */
  readonly cpuClock?: () => number;
  /** Resume the seat from its copy of the log (and its journal of decisions): Seat.resume. */
  readonly resume?: { readonly lines: readonly string[]; readonly journal?: readonly JournalEntry[]; readonly inFlight?: string | null };
  /** A cheat from outside the core (SimExtension): the hook on what this seat sends. */
  readonly hook?: OutgoingHook;
  /** The out-of-turn message of a protocol from outside the core, when the core's earlyMove knows none. */
  readonly earlyMove?: (seat: Seat) => Body | null;
  /** The simulation's keeper of deck proofs (deck/proved-once.ts), shared by its seats. */
  readonly provedOnce?: ProvedOnce;
}

export class SimPlayer implements NetNode {
  readonly seat: Seat;
  /** CPU milliseconds spent in this player's seat, when a cpu clock was given. */
  cpuMs = 0;
  private link: Link | null = null;
  private readonly strategy: Strategy;
  private readonly cpuClock: () => number;
  private cheated = false;
  private readonly extensionEarlyMove: ((seat: Seat) => Body | null) | undefined;

  constructor(
    readonly id: string,
    keys: KeyPair,
    setupLine: string,
    random: (n: number) => Uint8Array,
    private readonly cheat: Cheat | null,
    clock: () => number,
    verify?: VerifyFn,
    prover?: (alpha: Uint8Array) => Uint8Array,
    sign?: SignFn,
    options: SimPlayerOptions = {},
  ) {
    this.strategy = options.strategy ?? simStrategy(random(32));
    this.cpuClock = options.cpuClock ?? ((): number => 0);
    const t0 = this.cpuClock();
    this.extensionEarlyMove = options.earlyMove;
    const hook =
      options.hook ??
      (cheat === null ? undefined : cheatHook(cheat, { random, ...(prover === undefined ? {} : { prover }), ...(sign === undefined ? {} : { sign }), keys }));
    const seatOptions: SeatOptions = {
      id,
      keys,
      setupLine,
      random,
      clock,
      transport: {
        submit: (text) => this.link?.send(id, 'table', { kind: 'submit', text } satisfies TableMessage),
        sync: (from) => this.link?.send(id, 'table', { kind: 'sync', from } satisfies TableMessage),
      },
      ...(verify === undefined ? {} : { verify }),
      ...(sign === undefined ? {} : { sign }),
      ...(prover === undefined ? {} : { prover }),
      ...(options.registry === undefined ? {} : { registry: options.registry }),
      ...(hook === undefined ? {} : { outgoing: hook }),
      ...(options.provedOnce === undefined ? {} : { provedOnce: options.provedOnce }),
    };
    const r = options.resume;
    this.seat = r === undefined ? new Seat(seatOptions) : Seat.resume(seatOptions, r.lines, r.journal ?? [], r.inFlight ?? null);
    this.cpuMs += this.cpuClock() - t0;
  }

  get referee(): Referee {
    return this.seat.referee;
  }

  get idle(): boolean {
    return this.seat.idle;
  }

  receive(from: string, payload: unknown, net: Link): void {
    this.link = net;
    const msg = payload as TableMessage;
    if (from !== 'table' || msg.kind !== 'entry') return;
    const t0 = this.cpuClock();
    this.seat.receive(msg.index, msg.text);
    this.act();
    this.cpuMs += this.cpuClock() - t0;
  }

  tick(net: Link): void {
    this.link = net;
    const t0 = this.cpuClock();
    this.act();
    this.seat.tick();
    this.act();
    this.cpuMs += this.cpuClock() - t0;
  }

  /** Answers every decision the machine is waiting for, and lets an out-of-turn cheater act early. */
  private act(): void {
    const early = this.cheat === 'out-of-turn' && !this.cheated;
    // The out-of-turn cheater holds what its decisions produce so that its early message goes out first.
    if (early) this.seat.hold(true);
    for (let d = this.seat.decision(); d !== null; d = this.seat.decision()) this.seat.decide(this.strategy(d));
    if (early) {
      const body: Body | null = earlyMove(this.seat) ?? this.extensionEarlyMove?.(this.seat) ?? null;
      if (body !== null) {
        this.cheated = true;
        this.seat.sendUnasked(body);
      }
      this.seat.hold(false);
    }
  }
}
