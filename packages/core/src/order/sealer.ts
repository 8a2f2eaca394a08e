/**
 * The sealer (docs/spec/sealed.md): what an orderer in sealed mode holds back from the log and when it lets
 * it go, with no game logic. The setup's `params.sealed` names the message types that are sealed and the body
 * member that says which set an envelope belongs to (`round` by default); envelopes of one type and one value
 * of that member form a set. The orderer holds each one out of the log until every expected player has one
 * in, or until the set's deadline (its first envelope's arrival plus `timeoutMs`), then releases the whole set
 * as consecutive lines in seat order, so neither arrival order nor any player can steer the order.
 *
 * Who is expected needs no game logic either: every player of the setup for the first set of a type; for a
 * later set, the players with an envelope in the last set of that type in the log. A player the game left out
 * (a forfeit) stops being waited for after one deadline; one that comes back is in again once its envelope
 * joins a set. A newcomer a recorded `newcomer` line introduces (docs/SPEC.md §4.6) takes the next seat in
 * the release order, and is waited for once its envelope has joined a set, as one that comes back.
 *
 * One class for the relay and the e-mail recorder: no clock (times come in as arguments), no I/O. The caller
 * runs the door on each arrival (the sealer does not verify signatures), stores what is held, signs the
 * holding receipts (holding.ts), and tells the sealer of every line it records (`observe`), so a sealer
 * rebuilt from the log and the held envelopes after a restart is the one that was lost.
 */
import { FairtableError } from '../errors.js';
import { canonicalize, type JsonValue } from '../jcs.js';
import type { GameSetup } from '../setup.js';
import { MAX_NEWCOMERS, newcomerIn } from '../transcript.js';

/** What `params.sealed` says, with its defaults filled in. */
export interface SealedRule {
  readonly types: readonly string[];
  /** The body member whose value names the set (absent: null). */
  readonly key: string;
  /** How long a set is held at most, from its first envelope's arrival, ms. */
  readonly timeoutMs: number;
}

/** Types that are never sealed: the setup is line 0, and a deadline claim exists to be seen. */
const NEVER_SEALED = ['setup', 'deadline'];

/** The game's sealed rule, or null when the game asks for none. Throws `bad_setup` for a malformed one. */
export function sealedRule(setup: GameSetup): SealedRule | null {
  const raw = setup.params.sealed;
  if (raw === undefined) return null;
  const bad = (why: string): never => {
    throw new FairtableError('bad_setup', `params.sealed: ${why}`, { field: 'params.sealed' });
  };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return bad('must be an object {types, key?, timeoutMs?}');
  for (const k of Object.keys(raw)) if (!['types', 'key', 'timeoutMs'].includes(k)) bad(`unknown member "${k}"`);
  const types = raw.types;
  if (!Array.isArray(types) || types.length === 0 || types.length > 16) return bad('types must be a list of 1 to 16 message types');
  for (const t of types) {
    if (typeof t !== 'string' || t.length === 0 || t.length > 64) bad('each type is a string of 1 to 64 characters');
    if (NEVER_SEALED.includes(t as string)) bad(`"${t as string}" messages cannot be sealed`);
  }
  if (new Set(types).size !== types.length) bad('a type is listed twice');
  const key = raw.key ?? 'round';
  if (typeof key !== 'string' || key.length === 0 || key.length > 64 || key === 'type') bad('key must name a body member other than "type"');
  const timeout = raw.timeoutMs ?? setup.params.timeoutMs ?? 30_000;
  if (typeof timeout !== 'number' || !Number.isSafeInteger(timeout) || timeout < 1 || timeout > 2 ** 40) bad('timeoutMs must be an integer from 1 to 2^40');
  return { types: types as string[], key: key as string, timeoutMs: timeout as number };
}

/** The set an envelope body belongs to: its type and the value of the rule's key member, canonically. */
export function setOf(rule: SealedRule, body: { readonly type: string; readonly [k: string]: unknown }): string | null {
  if (!rule.types.includes(body.type)) return null;
  return canonicalize([body.type, (body[rule.key] as JsonValue | undefined) ?? null]);
}

/** An envelope as the sealer sees it (the door has already checked it). */
export interface Arriving {
  readonly from: string;
  readonly seq: number;
  readonly hash: string;
  readonly body: { readonly type: string; readonly [k: string]: unknown };
}

export interface HeldEnvelope {
  readonly set: string;
  readonly from: string;
  readonly seq: number;
  readonly hash: string;
  /** The line as submitted. */
  readonly text: string;
  /** When the orderer took it, ms. */
  readonly time: number;
  /** When its set is released at the latest, ms. */
  readonly until: number;
}

/** What to do with an envelope that arrives. */
export type Arrival =
  /** Not sealed, or its set was already released: the door records it as usual. */
  | { readonly kind: 'pass' }
  /** Sealed: hold it in `set` (after the door's checks), promising release by `until`. */
  | { readonly kind: 'hold'; readonly set: string; readonly until: number }
  /** The very envelope is already held: answer with its holding receipt again. */
  | { readonly kind: 'again'; readonly held: HeldEnvelope }
  /** The author's earlier envelope is held: its next one must wait for the release (refused `sealed_pending`). */
  | { readonly kind: 'pending'; readonly held: HeldEnvelope }
  /** Another envelope for the position the held one takes (refused `equivocation`, the held one as evidence to its author). */
  | { readonly kind: 'equivocation'; readonly held: HeldEnvelope };

/** A set let go: its envelopes, in seat order, become consecutive lines, each receipted at `time`. */
export interface Release {
  readonly set: string;
  readonly reason: 'complete' | 'deadline';
  /** `complete`: when the last one arrived; `deadline`: the set's `until`, even if the orderer is late. */
  readonly time: number;
  readonly envelopes: readonly HeldEnvelope[];
  /** Expected players with nothing in the set. */
  readonly missing: readonly string[];
}

interface OpenSet {
  readonly type: string;
  readonly until: number;
  readonly held: Map<string, HeldEnvelope>;
}

export class Sealer {
  readonly rule: SealedRule;
  /** The setup's players, then each newcomer a recorded line introduced (docs/SPEC.md §4.6), in that order. */
  private readonly players: string[];
  private readonly seat: Map<string, number>;
  private readonly setupPlayers: number;
  private readonly open = new Map<string, OpenSet>();
  private readonly heldBy = new Map<string, HeldEnvelope>();
  private readonly released = new Set<string>();
  /** Sets that have a line in the log (a late envelope for an old set does not make it the last). */
  private readonly seen = new Set<string>();
  /** Per type, the set that appeared last in the log and who has an envelope in it. */
  private readonly last = new Map<string, { set: string; members: Set<string> }>();

  constructor(setup: GameSetup, rule: SealedRule) {
    this.rule = rule;
    this.players = setup.players.map((p) => p.id);
    this.setupPlayers = this.players.length;
    this.seat = new Map(this.players.map((p, i) => [p, i]));
  }

  /** A sealer for the game, or null when its setup asks for no sealing. */
  static of(setup: GameSetup): Sealer | null {
    const rule = sealedRule(setup);
    return rule === null ? null : new Sealer(setup, rule);
  }

  /** How many envelopes are held. */
  get size(): number {
    return this.heldBy.size;
  }

  /** Every envelope held, in no particular order. */
  held(): HeldEnvelope[] {
    return [...this.heldBy.values()];
  }

  /** The earliest `until` of the sets held, or null. */
  nextDeadline(): number | null {
    let next: number | null = null;
    for (const s of this.open.values()) if (next === null || s.until < next) next = s.until;
    return next;
  }

  /** What to do with `env`, arriving at `now`. Changes nothing: `hold` records. */
  arrive(env: Arriving, now: number): Arrival {
    const h = this.heldBy.get(env.from);
    if (h !== undefined) {
      // An earlier position stands in the log: the door tells a resend from an equivocation there.
      if (env.seq < h.seq) return { kind: 'pass' };
      if (env.seq > h.seq) return { kind: 'pending', held: h };
      return env.hash === h.hash ? { kind: 'again', held: h } : { kind: 'equivocation', held: h };
    }
    const set = setOf(this.rule, env.body);
    if (set === null || this.released.has(set)) return { kind: 'pass' };
    return { kind: 'hold', set, until: this.open.get(set)?.until ?? now + this.rule.timeoutMs };
  }

  /** Records a held envelope; returns its set's release when that makes the set complete. */
  hold(h: HeldEnvelope): Release | null {
    if (this.heldBy.has(h.from)) throw new FairtableError('bad_input', `${h.from} already has an envelope held`);
    if (this.released.has(h.set)) throw new FairtableError('bad_input', `set ${h.set} was already released`);
    let open = this.open.get(h.set);
    if (open === undefined) {
      open = { type: (JSON.parse(h.set) as [string])[0], until: h.until, held: new Map() };
      this.open.set(h.set, open);
    }
    open.held.set(h.from, h);
    this.heldBy.set(h.from, h);
    const missing = this.expected(open.type).filter((p) => !open.held.has(p));
    return missing.length === 0 ? this.release(h.set, 'complete', h.time, []) : null;
  }

  /** The sets whose deadline is at or before `now`, released, earliest deadline first. */
  due(now: number): Release[] {
    const sets = [...this.open.entries()].filter(([, s]) => s.until <= now).sort((a, b) => a[1].until - b[1].until || (a[0] < b[0] ? -1 : 1));
    return sets.map(([set, s]) => {
      const missing = this.expected(s.type).filter((p) => !s.held.has(p));
      return this.release(set, 'deadline', s.until, missing);
    });
  }

  /** A line the orderer recorded (passed through, or released): what later sets expect follows from it. */
  observe(from: string, body: { readonly type: string; readonly [k: string]: unknown }): void {
    // A newcomer takes the next seat in the release order, as the envelope layer makes it an author.
    const n = newcomerIn(body);
    if (n !== null && !this.seat.has(n.id) && this.players.length - this.setupPlayers < MAX_NEWCOMERS) {
      this.seat.set(n.id, this.players.length);
      this.players.push(n.id);
    }
    const set = setOf(this.rule, body);
    if (set === null) return;
    this.released.add(set);
    const type = body.type;
    const last = this.last.get(type);
    if (last === undefined || (last.set !== set && !this.seen.has(set))) this.last.set(type, { set, members: new Set([from]) });
    else if (last.set === set) last.members.add(from);
    this.seen.add(set);
  }

  private expected(type: string): string[] {
    const last = this.last.get(type);
    return last === undefined ? [...this.players] : this.players.filter((p) => last.members.has(p));
  }

  private release(set: string, reason: Release['reason'], time: number, missing: string[]): Release {
    const open = this.open.get(set)!;
    this.open.delete(set);
    this.released.add(set);
    const envelopes = [...open.held.values()].sort((a, b) => this.seat.get(a.from)! - this.seat.get(b.from)!);
    for (const e of envelopes) this.heldBy.delete(e.from);
    return { set, reason, time, envelopes, missing };
  }
}
