/**
 * The in-memory network (docs/SPEC.md §10): a deterministic discrete-event
 * simulator whose links drop, duplicate, delay and so reorder messages, driven
 * by a seeded random stream so every run (and every failure) replays exactly.
 */
import { RandomStream } from '../stream.js';

export interface NetworkOptions {
  readonly seed: Uint8Array;
  /** Probability (0..1) that a message is lost. */
  readonly drop?: number;
  /** Probability (0..1) that a message is delivered twice. */
  readonly duplicate?: number;
  /** Delay bounds in ms; a spread reorders messages. */
  readonly minDelay?: number;
  readonly maxDelay?: number;
}

/**
 * What a node needs of a network: the time and a way to send. The in-memory
 * network is one; a TCP connection to a table (packages/node) is another, so the
 * same client code runs in simulation and for real.
 */
export interface Link {
  readonly now: number;
  send(from: string, to: string, payload: unknown): void;
}

export interface NetNode {
  readonly id: string;
  receive(from: string, payload: unknown, net: Link): void;
  /** Called every `tickMs` of simulated (or real) time. */
  tick?(net: Link): void;
}

interface Scheduled {
  time: number;
  order: number;
  run: () => void;
}

const before = (a: Scheduled, b: Scheduled): boolean => a.time < b.time || (a.time === b.time && a.order < b.order);

export class MemoryNetwork implements Link {
  now = 0;
  sent = 0;
  delivered = 0;
  dropped = 0;
  private readonly nodes = new Map<string, NetNode>();
  private readonly queue: Scheduled[] = [];
  private order = 0;
  private readonly rng: RandomStream;
  private readonly drop: number;
  private readonly dup: number;
  private readonly minDelay: number;
  private readonly maxDelay: number;

  constructor(options: NetworkOptions) {
    this.rng = new RandomStream(options.seed, 'network');
    this.drop = options.drop ?? 0;
    this.dup = options.duplicate ?? 0;
    this.minDelay = options.minDelay ?? 1;
    this.maxDelay = options.maxDelay ?? 10;
  }

  add(node: NetNode): void {
    this.nodes.set(node.id, node);
  }

  private chance(p: number): boolean {
    return p > 0 && this.rng.below(1_000_000) < p * 1_000_000;
  }

  private delay(): number {
    return this.minDelay + this.rng.below(this.maxDelay - this.minDelay + 1);
  }

  at(time: number, run: () => void): void {
    // A binary min-heap on (time, order): equal times keep their sending order.
    const q = this.queue;
    q.push({ time, order: this.order++, run });
    let i = q.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(q[i]!, q[parent]!)) break;
      [q[i], q[parent]] = [q[parent]!, q[i]!];
      i = parent;
    }
  }

  private pop(): Scheduled | undefined {
    const q = this.queue;
    const top = q[0];
    const last = q.pop();
    if (q.length > 0 && last !== undefined) {
      q[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < q.length && before(q[l]!, q[m]!)) m = l;
        if (r < q.length && before(q[r]!, q[m]!)) m = r;
        if (m === i) break;
        [q[i], q[m]] = [q[m]!, q[i]!];
        i = m;
      }
    }
    return top;
  }

  send(from: string, to: string, payload: unknown): void {
    this.sent++;
    if (this.chance(this.drop)) {
      this.dropped++;
      return;
    }
    const copies = this.chance(this.dup) ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      this.at(this.now + this.delay(), () => {
        const node = this.nodes.get(to);
        if (node === undefined) return;
        this.delivered++;
        node.receive(from, payload, this);
      });
    }
  }

  /** Runs until `done()` holds or simulated time passes `limitMs`; ticks every node every `tickMs`. */
  run(done: () => boolean, limitMs: number, tickMs = 50): void {
    let nextTick = this.now + tickMs;
    while (!done()) {
      const item = this.queue[0];
      if (item !== undefined && item.time <= nextTick) {
        this.pop();
        this.now = Math.max(this.now, item.time);
        item.run();
      } else {
        this.now = nextTick;
        nextTick += tickMs;
        for (const node of this.nodes.values()) node.tick?.(this);
      }
      if (this.now > limitMs) return;
    }
  }
}
