/**
 * Reading a table's talk (docs/spec/press.md §5): every reader, seat or observer, runs the same checks on each
 * message the relay hands over, in the relay's order, and either shows it or refuses it with a coded finding.
 *
 * A finding names a player only where the player's own signature (or, in a deniable game, the MAC only the author
 * and this reader share) stands on what was wrong: a message in one seat's name that another seat signed names
 * that other seat (`talk_forged`). A signature that is no seat's, a message for another game, a replayed copy or
 * a box a recipient says it cannot open name nobody: the relay or anyone else could have made them, and a
 * recipient's word alone never names an author.
 */
import { equalBytes, fromHex, toHex } from '../bytes.js';
import { publicKeyRemembered } from '../ed25519/sign.js';
import type { PlayerEntry } from '../setup.js';
import { parseTalk, talkId, talkText, type TalkMessage } from './message.js';
import { openBox, unwrapContentKey, verifyTalkMac, verifyTalkSignature, writtenInThisProcess, type WrittenTalk } from './seal.js';
import type { PressRules } from './rules.js';
import { departureOf, type TalkRoster } from './roster.js';

export type TalkCode =
  /** Not a talk message (its shape): names nobody. */
  | 'talk_malformed'
  /** For another game: names nobody (anyone can copy a message from one game to another). */
  | 'talk_wrong_game'
  /** Its author is not a seat of the game: names nobody. */
  | 'talk_unknown_author'
  /** A signed game's message whose signature is not its author's: names nobody. */
  | 'talk_bad_signature'
  /** A deniable game's message whose MAC for this reader is wrong or missing: names nobody. */
  | 'talk_bad_mac'
  /**
   * A message in one seat's name whose signature (or, deniable, this reader's MAC) is another seat's: names that
   * seat, which alone could have made it (an honest seat signs only messages in its own name).
   */
  | 'talk_forged'
  /** Press the game's rules forbid (private press in a public-only game, any in a game without press, a signature in a deniable game): names the author. */
  | 'talk_rule'
  /** A private message to someone not seated: names the author. */
  | 'talk_bad_recipients'
  /** Two different messages with one author and seq: names the author, with both. */
  | 'talk_equivocation'
  /** The same message again: names nobody, and is not shown twice. */
  | 'talk_duplicate'
  /** A sealed message whose wrap does not open for this reader: a flag that names nobody (only this reader can see it). */
  | 'talk_unreadable'
  /** A sealed box that opens to no message (or, signed, to one without its author's inner signature): names the author. */
  | 'talk_bad_box'
  /**
   * A message of a player whose power was handed to a newcomer, dated (`at`) at or after the hand-over: refused,
   * naming nobody (a claimed time does not show the author knew of the hand-over; press.md §10).
   */
  | 'talk_departed';

export interface TalkFinding {
  readonly code: TalkCode;
  /** The author named, or null. */
  readonly player: string | null;
  readonly message: string;
  /** What a third party checks: the messages, and for a bad box the content key. */
  readonly evidence: readonly unknown[];
  /** Whether the evidence convinces a third party (signed games), or this reader only (deniable games). */
  readonly provable: boolean;
}

/** How a shown message's author is known: by signature, by this reader's MAC, or not at all (a deniable message not addressed to this reader). */
export type TalkProof = 'signed' | 'deniable' | 'unverified';

export interface ShownTalk {
  readonly id: string;
  readonly message: TalkMessage;
  readonly from: string;
  readonly to: TalkMessage['to'];
  readonly seq: number;
  readonly at: number;
  /** The text; null for a private message this reader is not among the readers of. */
  readonly body: string | null;
  readonly private: boolean;
  readonly proof: TalkProof;
  /** Written by this reader. */
  readonly mine: boolean;
}

export type TalkRead =
  { readonly kind: 'shown'; readonly talk: ShownTalk } | { readonly kind: 'duplicate' } | { readonly kind: 'refused'; readonly finding: TalkFinding };

export interface TalkReaderOptions {
  readonly game: string;
  readonly players: readonly PlayerEntry[];
  readonly rules: PressRules;
  /** The reading seat and its secret key; absent for an observer. */
  readonly me?: { readonly id: string; readonly secretKey: Uint8Array };
  /**
   * What the log changed about who talks (press.md §10), asked before each message: the newcomers it introduced
   * (authors and recipients from then on) and the players it replaced. Absent: the setup's players only.
   */
  readonly roster?: () => TalkRoster;
}

/** Own messages remembered until read back. */
const MAX_OWN = 256;

const refuse = (code: TalkCode, player: string | null, message: string, evidence: readonly unknown[], provable: boolean): TalkRead => ({
  kind: 'refused',
  finding: { code, player, message, evidence, provable },
});

export class TalkReader {
  private readonly keys = new Map<string, Uint8Array>();
  /** The authenticated messages by author and seq: id and message. */
  private readonly seen = new Map<string, Map<number, { id: string; message: TalkMessage }>>();
  /** Ids of every message shown or refused after authentication, and of unverified ones. */
  private readonly ids = new Set<string>();
  /** Messages this reader's seat wrote and has not read back yet, by their exact text (`wrote`). */
  private readonly own = new Map<string, { readonly message: TalkMessage; readonly contentKey: Uint8Array | null; readonly body: string }>();

  constructor(private readonly o: TalkReaderOptions) {
    for (const p of o.players) this.keys.set(p.id, fromHex(p.key, 'key', 32));
  }

  /**
   * Notes a message this reader's seat has just written (`writeOwnTalk`), so that reading back its very text skips
   * what the author knows already in a signed game: its signatures (its own, over these bytes) and the unwrapping
   * of its content key (it drew the key). Every other check of `read` still runs, and a text that differs by one byte is
   * read in full. Ignored for an observer, for a message that is not in this seat's name under its key, and for any
   * message object `writeOwnTalk` did not make in this process (a note cannot vouch for a message built elsewhere).
   */
  wrote(written: WrittenTalk): void {
    const me = this.o.me;
    const m = written.message;
    if (me === undefined || m.from !== me.id || !writtenInThisProcess(m)) return;
    const key = this.keys.get(me.id);
    if (key === undefined || !equalBytes(key, publicKeyRemembered(me.secretKey))) return;
    // Bounded: a seat whose messages the relay never hands back does not grow this without end.
    if (this.own.size >= MAX_OWN) this.own.delete(this.own.keys().next().value!);
    // The text as it is now, and the message as that text says (a copy: the caller's object may change later).
    const text = talkText(m);
    this.own.set(text, { message: JSON.parse(text) as TalkMessage, contentKey: written.contentKey, body: written.body });
  }

  /** Reads one message (its text as the relay gave it, or already parsed). */
  read(input: string | TalkMessage): TalkRead {
    const written = typeof input === 'string' ? this.own.get(input) : undefined;
    if (written !== undefined) this.own.delete(input as string);
    let m: TalkMessage;
    try {
      m = written !== undefined ? written.message : typeof input === 'string' ? parseTalk(input) : parseTalk(JSON.stringify(input));
    } catch (e) {
      return refuse('talk_malformed', null, (e as Error).message, [typeof input === 'string' ? input : input], false);
    }
    const id = talkId(m);
    if (this.ids.has(id)) return { kind: 'duplicate' };
    const { game, rules, me } = this.o;
    if (m.game !== game) return refuse('talk_wrong_game', null, `a message for game ${m.game.slice(0, 12)}…, not this one`, [m], false);
    const roster = this.o.roster?.();
    if (roster !== undefined) for (const p of roster.newcomers) if (!this.keys.has(p.id)) this.keys.set(p.id, fromHex(p.key, 'key', 32));
    const authorKey = this.keys.get(m.from);
    if (authorKey === undefined) return refuse('talk_unknown_author', null, `${m.from} is not a seat of this game`, [m], false);

    // This seat's own text, signed by it a moment ago under the key it is seated with (`wrote`). In a deniable game
    // the MACs are checked as for any message (HMACs, cheap; and a seat with no reader to MAC for is refused).
    const own = written !== undefined && m.sig !== undefined ? written : undefined;
    let proof: TalkProof;
    if (own !== undefined) {
      proof = 'signed';
    } else if (rules.mode === 'signed' || m.sig !== undefined) {
      if (!verifyTalkSignature(m, authorKey)) {
        const writer = this.otherSeats(m.from).find((id) => verifyTalkSignature(m, this.keys.get(id)!));
        if (writer !== undefined) return this.named(id, refuse('talk_forged', writer, `a message in ${m.from}'s name, signed by ${writer}`, [m], true));
        return refuse('talk_bad_signature', null, `the signature is not ${m.from}'s`, [m], false);
      }
      proof = 'signed';
    } else if (
      me !== undefined &&
      (me.id === m.from || m.macs?.[me.id] !== undefined || (Array.isArray(m.to) && m.to.includes(me.id)) || !Array.isArray(m.to))
    ) {
      if (me.id === m.from) {
        // The author's own message: it checks one of its MACs with its own key and a recipient's public key.
        const first = Object.keys(m.macs ?? {})[0];
        const key = first === undefined ? undefined : this.keys.get(first);
        if (key === undefined || !verifyTalkMac(m, first!, me.secretKey, key)) return refuse('talk_bad_mac', null, 'not a message this seat wrote', [m], false);
      } else if (!verifyTalkMac(m, me.id, me.secretKey, authorKey)) {
        const writer = this.otherSeats(m.from).find((id) => id !== me.id && verifyTalkMac(m, me.id, me.secretKey, this.keys.get(id)!));
        if (writer !== undefined)
          return this.named(id, refuse('talk_forged', writer, `a message in ${m.from}'s name, whose MAC for ${me.id} only ${writer} could make`, [m], false));
        return refuse('talk_bad_mac', null, `the MAC for ${me.id} is missing or wrong: who wrote this cannot be told`, [m], false);
      }
      proof = 'deniable';
    } else {
      proof = 'unverified';
    }
    const departed = roster === undefined ? undefined : departureOf(roster, m.from);
    if (departed !== undefined && m.at >= departed.at) {
      return this.named(
        id,
        refuse(
          'talk_departed',
          null,
          `${m.from}'s power went to ${departed.by} at line ${departed.line}: ${m.from}'s key writes no press from then on`,
          [m, { handover: departed }],
          false,
        ),
      );
    }
    const provable = proof === 'signed';
    const named = proof === 'unverified' ? null : m.from;
    const isPrivate = Array.isArray(m.to);

    if (proof === 'unverified') {
      this.ids.add(id);
    } else {
      if (rules.mode === 'deniable' && m.sig !== undefined)
        return this.named(id, refuse('talk_rule', m.from, 'a signed message in a deniable game', [m], true));
      if (rules.rule === 'none') return this.named(id, refuse('talk_rule', named, 'this game has no press', [m], provable));
      if (rules.rule === 'public' && isPrivate)
        return this.named(id, refuse('talk_rule', named, 'private press in a game with public press only', [m], provable));
      if (isPrivate && (m.to as string[]).some((r) => !this.keys.has(r))) {
        return this.named(id, refuse('talk_bad_recipients', named, 'a private message to someone not seated', [m], provable));
      }
      let bySeq = this.seen.get(m.from);
      if (bySeq === undefined) this.seen.set(m.from, (bySeq = new Map()));
      const earlier = bySeq.get(m.seq);
      if (earlier !== undefined) {
        this.ids.add(id);
        return refuse('talk_equivocation', named, `${m.from} wrote two different messages numbered ${m.seq}`, [earlier.message, m], provable);
      }
      bySeq.set(m.seq, { id, message: m });
      this.ids.add(id);
    }

    let body: string | null = m.body ?? null;
    if (own !== undefined && own.contentKey !== null && isPrivate) {
      // The box this seat sealed: its content key and body are the ones it wrote.
      body = own.body;
    } else if (isPrivate && me !== undefined && m.sealed?.wraps[me.id] !== undefined && proof !== 'unverified') {
      let contentKey: Uint8Array;
      try {
        contentKey = unwrapContentKey(m, me.id, me.secretKey);
      } catch {
        return refuse('talk_unreadable', null, `the box does not open for ${me.id}; only ${me.id} can see that, so it names nobody`, [m], false);
      }
      const opened = openBox(m, contentKey, rules.mode, authorKey);
      if (!opened.ok) {
        return refuse(
          'talk_bad_box',
          m.from,
          `${m.from} sealed a box that holds no message: ${opened.reason}`,
          [m, { contentKey: toHex(contentKey) }],
          provable,
        );
      }
      body = opened.body;
    }
    return {
      kind: 'shown',
      talk: { id, message: m, from: m.from, to: m.to, seq: m.seq, at: m.at, body, private: isPrivate, proof, mine: me?.id === m.from },
    };
  }

  /** Every seat but `author`, in the setup's order. */
  private otherSeats(author: string): string[] {
    return [...this.keys.keys()].filter((id) => id !== author);
  }

  private named(id: string, r: TalkRead): TalkRead {
    this.ids.add(id);
    return r;
  }
}

/** The seats a reader shows as able to read a message: everyone for the table and observers, else the author and its recipients. */
export const talkReaders = (m: Pick<TalkMessage, 'from' | 'to'>): 'everyone' | string[] => (Array.isArray(m.to) ? [m.from, ...m.to].sort() : 'everyone');
