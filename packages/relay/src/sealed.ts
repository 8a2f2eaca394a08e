/**
 * Sealed mode on the relay (docs/spec/sealed.md §4): one `SealedRoom` per game whose setup asks for it,
 * around the core's `Sealer`. A sealed envelope passes the door's checks without being recorded, is stored
 * in the `held` table, and its author gets a signed holding receipt; nobody else is told anything (no
 * entry, no change in the log's length, no count in /metrics). When its set is complete, or at the set's
 * deadline, the room hands the set to the relay in seat order and the relay records it as consecutive lines,
 * like any admitted line (stored, then acknowledged and fanned out).
 *
 * What it needs of the relay comes in as `RoomHost`, so relay.ts only calls it at four places: loading a
 * game, a submission, a recorded line, closing.
 */
import type { Logger } from 'pino';
import type { Door } from '@fairtable/core/door.js';
import { envelopeHash, envelopeShapeError, type Envelope } from '@fairtable/core/envelope.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { signHoldingReceipt, type HoldingReceipt } from '@fairtable/core/order/holding.js';
import { Sealer, type Release } from '@fairtable/core/order/sealer.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import type { Store } from './store.js';

/** What the room uses of the relay. */
export interface RoomHost {
  readonly store: Store;
  readonly secretKey: Uint8Array;
  readonly clock: () => number;
  readonly log: Logger;
  /** Records a line the door has not yet admitted, as the log's next, with its receipt stamped `time`. */
  record(text: string, author: string, time: number): void;
  /** Resolves once every line recorded so far is stored. */
  flush(): Promise<void>;
}

/** A connection as the room answers it. */
export interface RoomPeer {
  readonly who: string;
  send(message: Record<string, unknown>): void;
  /** A coded refusal that is not counted in /metrics (a count would tell others that something is held). */
  refuse(code: string, message: string): void;
}

/** Door refusals that say the submission is not its author's own well-formed envelope: the relay refuses it as usual. */
const NOT_AN_ENVELOPE = new Set(['too_long', 'malformed', 'not_your_seat', 'unknown_player', 'bad_signature', 'wrong_game']);

function parse(text: string): Envelope | null {
  try {
    const v = JSON.parse(text) as unknown;
    return envelopeShapeError(v) === null ? (v as Envelope) : null;
  } catch {
    return null;
  }
}

export class SealedRoom {
  readonly sealer: Sealer;
  private readonly receipts = new Map<string, HoldingReceipt>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  private constructor(
    sealer: Sealer,
    private readonly game: string,
    private readonly door: Door,
    private readonly host: RoomHost,
  ) {
    this.sealer = sealer;
  }

  /** The room for a game, or null when its setup asks for no sealing (or the store cannot hold envelopes). */
  static of(game: string, door: Door, host: RoomHost): SealedRoom | null {
    const sealer = Sealer.of(door.checker.setup);
    if (sealer === null) return null;
    return new SealedRoom(sealer, game, door, host);
  }

  /** Envelopes held now. */
  get size(): number {
    return this.sealer.size;
  }

  /** A line of the log (stored, or just recorded): later sets' expectations follow from it. */
  observe(text: string): void {
    const env = parse(text);
    if (env !== null) this.sealer.observe(env.from, env.body);
  }

  /**
   * After the game's stored lines were observed: takes back the held envelopes from the store. Those
   * already in the log (released, then the relay stopped before forgetting them) are forgotten now.
   */
  async restore(): Promise<void> {
    // In arrival order: a set's deadline is its first envelope's `until` (the set's first arrival + timeoutMs).
    const held = ((await this.host.store.readHeld?.(this.game)) ?? []).sort((x, y) => x.receipt.time - y.receipt.time);
    const done: string[] = [];
    for (const h of held) {
      const env = parse(h.text);
      const check = env === null ? null : this.door.check(h.text, env.from);
      if (check !== null && check.ok && check.duplicate) {
        done.push(h.receipt.hash);
        continue;
      }
      if (env === null || check === null || !check.ok)
        throw new FairtableError(
          'bad_journal',
          `game ${this.game}: a held envelope does not pass the door again (${check?.ok === false ? check.code : 'unreadable'})`,
        );
      const a = this.sealer.arrive({ from: env.from, seq: env.seq, hash: check.hash, body: env.body }, h.receipt.time);
      if (a.kind !== 'hold') throw new FairtableError('bad_journal', `game ${this.game}: a held envelope of ${env.from} cannot be held again (${a.kind})`);
      this.receipts.set(check.hash, h.receipt);
      const release = this.sealer.hold({
        set: a.set,
        from: env.from,
        seq: env.seq,
        hash: check.hash,
        text: h.text,
        time: h.receipt.time,
        until: h.receipt.until,
      });
      if (release !== null) this.release(release);
    }
    if (done.length > 0) await this.host.store.unhold?.(this.game, done);
    this.releaseDue();
  }

  /**
   * A submission over `peer`'s connection. True when the room answered it (held, a resend of a held
   * envelope, or refused because of one); false when the relay handles it as usual.
   */
  submit(peer: RoomPeer, text: string, now: number): boolean {
    // Every set due by `now` goes into the log first: the relay receipts this submission at `now`, and no
    // line may be receipted after a set's `until` while that set is still held (sealed.md §3).
    this.releaseDue(now);
    const env = parse(text);
    if (env === null || env.from !== peer.who) return false;
    const check = this.door.check(text, peer.who);
    if (!check.ok && NOT_AN_ENVELOPE.has(check.code)) return false;
    const hash = check.ok ? check.hash : envelopeHash(env);
    const a = this.sealer.arrive({ from: env.from, seq: env.seq, hash, body: env.body }, now);
    switch (a.kind) {
      case 'pass':
        return false;
      case 'again': {
        const r = this.receipts.get(hash);
        if (r !== undefined) peer.send({ kind: 'held', receipt: r });
        return true;
      }
      case 'pending':
        peer.refuse('sealed_pending', `your envelope #${a.held.seq} is held until its set is released; send #${env.seq} after it appears in the log`);
        return true;
      case 'equivocation':
        peer.refuse('equivocation', `you already have envelope #${a.held.seq} held (${a.held.hash}); this is another envelope for that position`);
        return true;
      case 'hold': {
        if (!check.ok || check.duplicate) return false;
        // The promise runs from this envelope's own arrival, not the set's first: it is never earlier than the
        // set's deadline, and it tells the author nothing of when (or whether) anyone else committed.
        const receipt = signHoldingReceipt(
          { v: 1, game: this.game, hash, time: now, until: now + this.sealer.rule.timeoutMs },
          this.host.secretKey,
          nativeSign,
        );
        this.receipts.set(hash, receipt);
        const release = this.sealer.hold({ set: a.set, from: env.from, seq: env.seq, hash, text, time: now, until: a.until });
        if (release !== null) {
          // The set is complete with this one: it goes into the log at once, with its line receipt.
          this.release(release);
          return true;
        }
        // Durable before the author is told: a holding receipt for an envelope the relay could lose is a promise it cannot keep.
        const stored = this.host.store.hold?.(this.game, { text, receipt }) ?? Promise.reject(new Error('the store cannot hold envelopes'));
        stored.then(
          () => peer.send({ kind: 'held', receipt }),
          (e: unknown) => this.host.log.error({ err: e, game: this.game }, 'cannot store a held envelope'),
        );
        this.schedule();
        return true;
      }
    }
  }

  /** Releases every set whose deadline has passed: called before anything else happens in the game, so receipt times never go back. */
  releaseDue(now = this.host.clock()): void {
    if (this.stopped) return;
    for (const r of this.sealer.due(now)) this.release(r);
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private release(r: Release): void {
    this.host.log.info({ game: this.game, set: r.set, reason: r.reason, lines: r.envelopes.length, missing: r.missing }, 'sealed set released');
    for (const e of r.envelopes) {
      this.host.record(e.text, e.from, r.time);
      this.receipts.delete(e.hash);
    }
    const hashes = r.envelopes.map((e) => e.hash);
    void this.host
      .flush()
      .then(() => this.host.store.unhold?.(this.game, hashes))
      .catch((e: unknown) => this.host.log.error({ err: e, game: this.game }, 'cannot forget released envelopes'));
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const next = this.sealer.nextDeadline();
    if (next === null || this.stopped) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.releaseDue();
      },
      Math.max(0, next - this.host.clock()),
    );
    this.timer.unref();
  }
}
