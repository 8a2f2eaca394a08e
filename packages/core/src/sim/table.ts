/**
 * The table: an untrusted orderer on the in-memory network (docs/SPEC.md §10.1),
 * the stand-in for the relay. It appends what players submit to one log, in
 * arrival order, and sends every line to every player. It checks nothing a
 * player could not check itself, with one exception that the relay shares: a
 * connection speaks only for its own player (`from` must be the sender), so a
 * player cannot post in another's name. Identical envelopes are kept once.
 */
import { envelopeShapeError } from '../envelope.js';
import type { Link, NetNode } from './network.js';

export type TableMessage =
  | { kind: 'submit'; text: string }
  | { kind: 'entry'; index: number; text: string }
  | { kind: 'sync'; from: number };

export class Table implements NetNode {
  readonly id = 'table';
  readonly log: string[] = [];
  private readonly seen = new Set<string>();

  constructor(setupLine: string, private readonly players: readonly string[]) {
    this.log.push(setupLine);
    this.seen.add(setupLine);
  }

  receive(from: string, payload: unknown, net: Link): void {
    const msg = payload as TableMessage;
    if (msg.kind === 'submit') {
      if (this.seen.has(msg.text)) return;
      let value: unknown;
      try {
        value = JSON.parse(msg.text);
      } catch {
        return;
      }
      if (envelopeShapeError(value) !== null || (value as { from: string }).from !== from) return;
      this.seen.add(msg.text);
      const index = this.log.length;
      this.log.push(msg.text);
      for (const p of this.players) net.send(this.id, p, { kind: 'entry', index, text: msg.text } satisfies TableMessage);
    } else if (msg.kind === 'sync') {
      for (let i = msg.from; i < Math.min(this.log.length, msg.from + 64); i++) {
        net.send(this.id, from, { kind: 'entry', index: i, text: this.log[i]! } satisfies TableMessage);
      }
    }
  }
}
