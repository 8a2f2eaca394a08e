/**
 * A post office for tests and the benchmark (docs/spec/mail.md §6): participants' game folders exchange
 * their outbox files through it as a mailing list would, each delivery possibly wrapped in an e-mail with
 * headers and quoting, delivered twice, or held back and delivered late (after later mail). It decides
 * nothing for the players: their decisions come from a strategy, as a person's would.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { Decision } from '@fairtable/core/protocols/machine.js';
import { mailDecide, mailRead, mailStatus, readMail, type MailResult } from './index.js';
import { isGameFolder } from './folder.js';

export interface Participant {
  readonly id: string;
  readonly dir: string;
  readonly key: string;
}

export interface Delivery {
  /** How a message reaches one participant: as the file, inside an e-mail, quoted in a reply. */
  readonly wrap?: (text: string, from: string, to: string, n: number) => string;
  /** Deliver this message twice. */
  readonly twice?: (n: number) => boolean;
  /** Hold this message back for a few rounds (it arrives after later mail). */
  readonly hold?: (n: number) => number;
  /** Lose this outbox file of `from`'s: it reaches nobody (a message its sender never mailed). */
  readonly drop?: (from: string, file: string, text: string) => boolean;
}

/** An e-mail as a mail client saves it: headers, a greeting, the message, a signature. */
export function asEmail(text: string, from: string, to: string): string {
  return `From: ${from} <${from}@example.org>\nTo: ${to} <${to}@example.org>\nSubject: our game\nDate: Sun, 22 Nov 2026 10:00:00 +0000\nContent-Type: text/plain; charset=utf-8\n\nHello ${to},\n\nhere is my move.\n\n${text}\n-- \n${from}\n`;
}

/** A reply that quotes the message once or twice (`> `, `> > `) and re-wraps nothing the armor needs. */
export function asQuotedReply(text: string, from: string, to: string, depth = 1): string {
  const prefix = '> '.repeat(depth);
  return `From: ${from}@example.org\nSubject: Re: our game\n\nGot it, passing it on.\n\nOn Sunday ${from} wrote:\n${text
    .split('\n')
    .map((l) => prefix + l)
    .join('\n')}\n`;
}

function invites(text: string): boolean {
  try {
    return readMail(text).some((m) => m.kind === 'invitation');
  } catch {
    return false;
  }
}

export class PostOffice {
  readonly participants: readonly Participant[];
  private readonly delivery: Delivery;
  private readonly inbox = new Map<string, { text: string; at: number }[]>();
  private round = 0;
  private count = 0;
  /** Armored bytes handed out, per sender. */
  readonly bytesSent = new Map<string, number>();
  readonly messages = { sent: 0, delivered: 0 };

  constructor(participants: readonly Participant[], delivery: Delivery = {}) {
    this.participants = participants;
    this.delivery = delivery;
    for (const p of participants) this.inbox.set(p.id, []);
  }

  /** Takes every file out of `from`'s outbox and posts it to every other participant. */
  collect(from: Participant): void {
    const outbox = join(from.dir, 'outbox');
    const sent = join(from.dir, 'sent');
    if (!existsSync(outbox)) return;
    mkdirSync(sent, { recursive: true });
    for (const f of readdirSync(outbox).sort()) {
      const text = readFileSync(join(outbox, f), 'utf8');
      renameSync(join(outbox, f), join(sent, f));
      this.bytesSent.set(from.id, (this.bytesSent.get(from.id) ?? 0) + text.length);
      this.messages.sent++;
      if (this.delivery.drop?.(from.id, f, text) === true) continue;
      // A message for one participant (`…-for-ID.txt`, a sealed move's holding receipt) goes to that one alone.
      const only = /-for-(.+)\.txt$/.exec(f)?.[1];
      for (const to of this.participants) {
        if (to.id === from.id || (only !== undefined && to.id !== only)) continue;
        const n = this.count++;
        const body = this.delivery.wrap?.(text, from.id, to.id, n) ?? text;
        const at = this.round + (this.delivery.hold?.(n) ?? 0);
        const box = this.inbox.get(to.id)!;
        box.push({ text: body, at });
        if (this.delivery.twice?.(n) === true) box.push({ text: body, at: at + 1 });
      }
    }
  }

  /** Everything due for `to` this round. */
  take(to: Participant): string[] {
    const box = this.inbox.get(to.id)!;
    const due = box.filter((m) => m.at <= this.round);
    this.inbox.set(
      to.id,
      box.filter((m) => m.at > this.round),
    );
    this.messages.delivered += due.length;
    return due.map((m) => m.text);
  }

  get waiting(): number {
    let n = 0;
    for (const box of this.inbox.values()) n += box.length;
    return n;
  }

  /**
   * Plays rounds until every participant's folder says the game is over, or nothing moves for a while: each
   * round every participant reads what reached it, answers its decision if it has one, and mails its outbox.
   * With `tick`, a participant with no new mail looks at its game anyway (`mail status`: deadline claims).
   */
  play(
    strategy: (who: string, d: Decision) => JsonValue,
    options: {
      readonly maxRounds?: number;
      readonly clock?: () => number;
      readonly tick?: boolean;
      /** A participant who is away this round: reads nothing, sends nothing (its mail waits). */
      readonly away?: (who: string) => boolean;
      /**
       * A participant who answers by another command than `mail decide CHOICE` (an orders file, a preference
       * list): its result, or null to answer with `strategy`.
       */
      readonly answer?: (who: Participant, d: Decision) => MailResult | null;
    } = {},
  ): MailResult[] {
    const clock = options.clock ?? Date.now;
    const max = options.maxRounds ?? 10_000;
    let last: MailResult[] = [];
    const known = new Map<string, MailResult>();
    for (const p of this.participants) this.collect(p);
    for (; this.round < max; this.round++) {
      last = [];
      for (const p of this.participants) {
        if (options.away?.(p.id) === true) continue;
        const texts = this.take(p);
        if (!isGameFolder(p.dir)) {
          // Mail that overtook the invitation waits in the inbox, as a person would keep it for later.
          if (texts.length === 0) continue;
          if (!texts.some(invites)) {
            this.inbox.get(p.id)!.push(...texts.map((text) => ({ text, at: this.round + 1 })));
            continue;
          }
        }
        // Nothing came: a person would not open the game (unless the clock matters: `tick`).
        const previous = known.get(p.id);
        if (texts.length === 0 && options.tick !== true && previous !== undefined) {
          last.push(previous);
          continue;
        }
        let r =
          texts.length > 0
            ? mailRead(
                p.dir,
                texts.map((text, i) => ({ name: `mail ${this.round}.${i}`, text })),
                p.key,
                clock,
              )
            : mailStatus(p.dir, clock);
        while (r.status.decision !== null) r = options.answer?.(p, r.status.decision) ?? mailDecide(p.dir, strategy(p.id, r.status.decision), clock);
        last.push(r);
        known.set(p.id, r);
        this.collect(p);
      }
      const present = this.participants.filter((p) => options.away?.(p.id) !== true).length;
      if (last.length === present && last.every((r) => r.status.done) && (this.waiting === 0 || options.away !== undefined)) return last;
    }
    return last;
  }
}
