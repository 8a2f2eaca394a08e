/**
 * Table talk through a relay (docs/spec/press.md): a seat's or an observer's view of one game's talk. Messages
 * are written (signed, or MACed, and sealed when private) here, posted to the relay, read back from it a page at
 * a time and as the relay pushes them, and each is checked by core's `TalkReader` before it is shown. Unread
 * counts are the messages from others shown since the reader last looked.
 *
 * Isomorphic: no `node:` import; fetch is injected or the platform's.
 */
import { randomBytes } from '@fairtable/core/bytes.js';
import { FairtableError } from '@fairtable/core/errors.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import {
  pressRulesOf,
  TalkReader,
  talkText,
  writeOwnTalk,
  type PressRules,
  type ShownTalk,
  type TalkFinding,
  talkingSeats,
  talkKeys,
  type TalkMessage,
  type TalkRoster,
  type TalkTo,
} from '@fairtable/core/press/index.js';
import type { PlayerEntry } from '@fairtable/core/setup.js';
import type { FetchLike } from './relay-http.js';

export interface TableTalkOptions {
  readonly relayUrl: string;
  readonly gameId: string;
  readonly players: readonly PlayerEntry[];
  /** The setup's params (its press rules: `params.press`, table chat when absent). */
  readonly params: { readonly [key: string]: JsonValue };
  /**
   * What the game's log changed about who talks (press.md §10): the newcomers it introduced and the players whose
   * power it handed over, asked afresh for each message read and each written. Absent: the setup's players only.
   */
  readonly roster?: () => TalkRoster;
  /** The reading seat (a newcomer's id and key included); absent for an observer (who reads and cannot write). */
  readonly me?: { readonly id: string; readonly secretKey: Uint8Array };
  readonly fetch?: FetchLike;
  readonly clock?: () => number;
  readonly random?: (n: number) => Uint8Array;
}

/** One message of the talk as the relay ordered it: shown, or refused with a finding. */
export type TalkEntry =
  | { readonly index: number; readonly at: number; readonly kind: 'shown'; readonly talk: ShownTalk }
  | { readonly index: number; readonly at: number; readonly kind: 'refused'; readonly finding: TalkFinding };

/** Waits before the second and third tries of a request that failed on the network. */
const RETRY_DELAYS_MS = [100, 400] as const;
/** How long a gap in the pushed messages may stay open before the pages are read to fill it. */
const GAP_WAIT_MS = 250;
/** The most pushed messages kept while the ones before them are still to come. */
const MAX_AHEAD = 1_000;

interface Page {
  readonly talk: readonly { readonly index: number; readonly at: number; readonly text: string }[];
  readonly next: number;
}

export class TableTalk {
  readonly rules: PressRules | null;
  private readonly reader: TalkReader | null;
  private readonly list: TalkEntry[] = [];
  private nextIndex = 0;
  private readUpTo = 0;
  private lastSeq = 0;
  /** Whether a read of the relay's talk has completed: a seat's first message waits for one (its earlier messages set `seq`). */
  private loadedOnce = false;
  private loading: Promise<void> | null = null;
  private gapTimer: ReturnType<typeof setTimeout> | null = null;
  /** Messages the relay pushed or answered with beyond the next one to read, by index: read once the ones before them are in. */
  private readonly ahead = new Map<number, { readonly index: number; readonly at: number; readonly text: string }>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly o: TableTalkOptions) {
    this.rules = pressRulesOf(o.params);
    this.reader =
      this.rules === null
        ? null
        : new TalkReader({
            game: o.gameId,
            players: o.players,
            rules: this.rules,
            ...(o.roster === undefined ? {} : { roster: o.roster }),
            ...(o.me === undefined ? {} : { me: o.me }),
          });
  }

  /** The seats that write now: the setup's players and the log's newcomers, less those whose power was handed over. */
  get seats(): readonly PlayerEntry[] {
    return this.o.roster === undefined ? this.o.players : talkingSeats(this.o.players, this.o.roster());
  }

  /** Whether this seat's power was handed to a newcomer: it writes no more (press.md §10). */
  get departed(): boolean {
    const me = this.o.me;
    return me !== undefined && this.o.roster !== undefined && this.o.roster().departed.some((d) => d.id === me.id);
  }

  /** Whether this reader may write at all, and privately. */
  get canWrite(): boolean {
    return this.o.me !== undefined && this.rules !== null && this.rules.rule !== 'none' && !this.departed;
  }
  get canWritePrivately(): boolean {
    return this.canWrite && this.rules!.rule === 'full';
  }

  /** Every message read so far, in the relay's order. */
  get entries(): readonly TalkEntry[] {
    return this.list;
  }

  /** Messages from others this reader can read, shown since `markRead` (another's private press to others is not counted). */
  get unread(): number {
    let n = 0;
    for (const e of this.list) if (e.index >= this.readUpTo && e.kind === 'shown' && !e.talk.mine && e.talk.body !== null) n++;
    return n;
  }

  markRead(): void {
    if (this.readUpTo === this.nextIndex) return;
    this.readUpTo = this.nextIndex;
    this.changed();
  }

  /** Called after every change (a message read, sent, or marked read). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads what the relay holds beyond what this reader has. */
  load(): Promise<void> {
    this.loading ??= this.loadAll().finally(() => {
      this.loading = null;
      if (this.drain() > 0) this.changed();
    });
    return this.loading;
  }

  /**
   * A message the relay pushed (the client's `talk` event): read now when it is the next, else kept until the ones
   * before it are in. A gap still open after GAP_WAIT_MS (a message missed before the pushes began, or pushes that
   * stopped) is filled by a read of the pages; one the pushes fill in time costs no read (the relay's answer to a post
   * often comes before the pushes of the messages others posted just before it).
   */
  take(frame: { readonly index: number; readonly at: number; readonly text: string }): void {
    if (frame.index < this.nextIndex) return;
    // Bounded: past MAX_AHEAD kept messages a push is dropped (the read that fills the gap brings it again).
    if (this.ahead.size < MAX_AHEAD || frame.index === this.nextIndex) this.ahead.set(frame.index, frame);
    if (this.loading !== null) return;
    if (this.drain() > 0) this.changed();
    if (this.ahead.size > 0) this.fillGapSoon();
  }

  private fillGapSoon(): void {
    if (this.gapTimer !== null) return;
    this.gapTimer = setTimeout(() => {
      this.gapTimer = null;
      if (this.ahead.size > 0 && this.loading === null) void this.load().catch(() => {});
    }, GAP_WAIT_MS);
    // In Node, a pending gap read does not keep a process that has nothing else to do alive.
    (this.gapTimer as { unref?: () => void }).unref?.();
  }

  /** Writes and posts a message from this seat; resolves once the relay kept it. */
  async send(to: TalkTo, body: string): Promise<TalkMessage> {
    const me = this.o.me;
    if (me === undefined || this.rules === null) throw new FairtableError('refused', 'an observer cannot write');
    if (this.rules.rule === 'none') throw new FairtableError('refused', 'this game has no press');
    if (this.departed) throw new FairtableError('refused', `${me.id}'s power was handed to a newcomer: ${me.id} writes no more press`);
    if (Array.isArray(to) && this.rules.rule !== 'full') throw new FairtableError('refused', 'this game has public press only');
    if (Array.isArray(to)) {
      const now = new Set(this.seats.map((p) => p.id));
      const gone = to.filter((id) => !now.has(id));
      if (gone.length > 0) throw new FairtableError('refused', `not a seat that reads press now: ${gone.join(', ')}`);
    }
    // Once read, the talk is kept current by the relay's pushes and its answers to posts (§7); the first message
    // waits for a read so that its seq is above this seat's earlier ones.
    if (!this.loadedOnce) await this.load();
    const random = this.o.random ?? randomBytes;
    const at = (this.o.clock ?? Date.now)();
    // Above every message of this seat read so far, and otherwise from the clock with three random digits: two
    // devices of one seat writing at once (a second tab, the command line) do not take the same number, which
    // every reader would take for equivocation.
    const r = random(2);
    const seq = Math.max(this.lastSeq + 1, at * 1000 + (((r[0]! << 8) | r[1]!) % 1000));
    this.lastSeq = seq;
    const written = writeOwnTalk(
      { game: this.o.gameId, from: me.id, to, seq, at, body },
      {
        mode: this.rules.mode,
        secretKey: me.secretKey,
        // Sealed to the keys the log has now: a newcomer's, from its newcomer line on.
        players: this.o.roster === undefined ? this.o.players : talkKeys(this.o.players, this.o.roster()),
        random,
      },
    );
    const m = written.message;
    this.reader?.wrote(written);
    const text = talkText(m);
    const res = await this.request(`${this.base()}/talk`, { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
    const answer = JSON.parse(await res.text()) as { index?: unknown; at?: unknown; error?: { code?: string; message?: string } };
    if (!res.ok) throw new FairtableError('refused', `the relay did not keep the message: ${answer.error?.code ?? res.status}: ${answer.error?.message ?? ''}`);
    // The relay answers with the message's place: read it there like a pushed one (no read of the pages again),
    // at once when it is the next, else once the messages before it are in; a relay that does not say where is read again.
    if (Number.isSafeInteger(answer.index) && Number.isSafeInteger(answer.at)) this.take({ index: answer.index as number, at: answer.at as number, text });
    else await this.load();
    return m;
  }

  private async loadAll(): Promise<void> {
    for (;;) {
      const res = await this.request(`${this.base()}/talk?from=${this.nextIndex}`);
      if (!res.ok) throw new FairtableError('connection_failed', `the relay's talk could not be read (${res.status})`);
      const page = JSON.parse(await res.text()) as Page;
      let added = 0;
      for (const t of page.talk) {
        if (t.index !== this.nextIndex) continue;
        this.ahead.delete(t.index);
        this.add(t);
        added++;
      }
      added += this.drain();
      if (added > 0) this.changed();
      if (added === 0 || page.talk.length === 0) break;
    }
    this.loadedOnce = true;
    for (const i of this.ahead.keys()) if (i < this.nextIndex) this.ahead.delete(i);
  }

  /** Reads the kept messages that come next, in order; returns how many. */
  private drain(): number {
    let n = 0;
    for (let t = this.ahead.get(this.nextIndex); t !== undefined; t = this.ahead.get(this.nextIndex)) {
      this.ahead.delete(t.index);
      this.add(t);
      n++;
    }
    return n;
  }

  private add(t: { readonly index: number; readonly at: number; readonly text: string }): void {
    this.nextIndex = t.index + 1;
    if (this.reader === null) return;
    const r = this.reader.read(t.text);
    if (r.kind === 'duplicate') return;
    if (r.kind === 'shown') {
      if (r.talk.mine) this.lastSeq = Math.max(this.lastSeq, r.talk.seq);
      this.list.push({ index: t.index, at: t.at, kind: 'shown', talk: r.talk });
    } else this.list.push({ index: t.index, at: t.at, kind: 'refused', finding: r.finding });
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  private base(): string {
    return `${this.o.relayUrl.replace(/\/$/, '')}/games/${this.o.gameId}`;
  }

  /**
   * One request, tried again after a network failure (a kept-alive connection the relay closed as it was reused,
   * a reset): up to three tries, 100 ms then 400 ms apart. An answer, even a refusal, is never retried. A message
   * posted twice this way (its first answer lost after the relay kept it) is the same text, which every reader
   * counts once (press.md §5), so a retry cannot make its author look like an equivocator.
   */
  private async request(url: string, init?: Parameters<FetchLike>[1]): ReturnType<FetchLike> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.fetcher()(url, init);
      } catch (e) {
        if (attempt >= RETRY_DELAYS_MS.length) throw e;
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]));
      }
    }
  }

  private fetcher(): FetchLike {
    return this.o.fetch ?? (globalThis.fetch as unknown as FetchLike);
  }
}
