/**
 * The table: an untrusted orderer on the in-memory network (docs/SPEC.md §10.1),
 * the stand-in for the relay. It admits what players submit through the door
 * (door.ts: the checker's own rules, and a connection speaks only for its own
 * player), appends it to one log in arrival order, and sends every line to
 * every player. What the door refuses is never recorded: the refusal is kept
 * (`refusals`), naming the submitting player with the envelope as evidence.
 */
import { Door, type Admission } from '../door.js';
import type { VerifyFn } from '../transcript.js';
import type { Link, NetNode } from './network.js';

export type TableMessage =
  | { kind: 'submit'; text: string }
  | { kind: 'entry'; index: number; text: string }
  | { kind: 'refused'; code: string; message: string }
  | { kind: 'sync'; from: number };

export type Refusal = Extract<Admission, { ok: false }>;

/** How many lines one sync answers with. */
const SYNC_BATCH = 64;

export class Table implements NetNode {
  readonly id = 'table';
  readonly log: string[] = [];
  readonly refusals: Refusal[] = [];
  private readonly door: Door;

  constructor(
    setupLine: string,
    private readonly players: readonly string[],
    options: { readonly verify?: VerifyFn } = {},
  ) {
    this.door = new Door(setupLine, options);
    this.log.push(setupLine);
  }

  receive(from: string, payload: unknown, net: Link): void {
    if (!this.players.includes(from) || payload === null || typeof payload !== 'object') return;
    const msg = payload as Partial<TableMessage>;
    if (msg.kind === 'submit' && typeof msg.text === 'string') {
      const admission = this.door.admit(msg.text, from);
      if (!admission.ok) {
        this.refusals.push(admission);
        net.send(this.id, from, { kind: 'refused', code: admission.code, message: admission.message } satisfies TableMessage);
        return;
      }
      if (admission.duplicate) {
        // A resend of what the log holds: its author missed the line, so it gets it again.
        net.send(this.id, from, { kind: 'entry', index: admission.line, text: this.log[admission.line]! } satisfies TableMessage);
        return;
      }
      this.log.push(msg.text);
      for (const p of this.players) net.send(this.id, p, { kind: 'entry', index: admission.line, text: msg.text } satisfies TableMessage);
    } else if (msg.kind === 'sync' && typeof msg.from === 'number' && Number.isSafeInteger(msg.from) && msg.from >= 0) {
      for (let i = msg.from; i < Math.min(this.log.length, msg.from + SYNC_BATCH); i++) {
        net.send(this.id, from, { kind: 'entry', index: i, text: this.log[i]! } satisfies TableMessage);
      }
    }
  }
}
