/**
 * What every player learns after a Diplomacy phase (docs/spec/mail.md §11.1): every power's orders with what
 * came of each (moved, bounced, cut, dislodged, retreated, built, removed), read from the machine's
 * `adjudicated` event, and, while a phase is played, who has done the step so far (never what). Used by the
 * mail folder (`mail read`, `mail status`) and by `fairtable play`; the text is the same in both.
 */
import type { GameEvent } from '@fairtable/core/protocols/machine.js';
import { Referee } from '@fairtable/core/referee.js';
import type { VerifyFn } from '@fairtable/core/transcript.js';
import { phaseName } from '@fairtable/diplomacy/orders-file.js';
import type { Position } from '@fairtable/diplomacy/position.js';
import { diplomacyRegistry, phaseLabel, type DiplomacyState } from '@fairtable/diplomacy/protocol/index.js';

/** One order and what came of it, as the machine's `adjudicated` event gives it. */
export interface OrderOutcome {
  readonly power: string;
  readonly order: string;
  readonly status: string;
  readonly reason: string | null;
}

/** A phase's results: its name and label, every order's outcome, and the units it dislodged. */
export interface PhaseResults {
  /** The log line whose processing adjudicated the phase. */
  readonly line: number;
  readonly round: number;
  /** As players say it (the diplomacy package's formatter) and as a label (S1901M). */
  readonly name: string;
  readonly label: string;
  readonly orders: readonly OrderOutcome[];
  /** Units dislodged by the phase, by power and province (they retreat or disband next). */
  readonly dislodged: readonly { readonly power: string; readonly at: string }[];
  /** The votes to end the game cast in the phase (docs/spec/diplomacy.md §10.12), by power, and what was agreed; absent when nobody voted. */
  readonly votes?: { readonly byPower: Readonly<Record<string, string>>; readonly agreed: string | null };
}

const title = (power: string): string => power.charAt(0).toUpperCase() + power.slice(1);
const province = (at: string): string => at.split('/')[0]!;

/** The unit's province and the order's kind, from a canonical order (`A par - bur`, `F kie S A ber - mun`, `Build A par`). */
function parts(order: string): { at: string | null; kind: string } {
  const m = /^(Build |Remove )?(?:[AF] )?([a-z]{3}(?:\/[a-z]{2})?)(?: (H|-|S|C|R|D)(?= |$))?/.exec(order);
  if (m === null) return { at: null, kind: order === 'Waive' ? 'waive' : '' };
  return { at: m[2]!, kind: m[1] !== undefined ? m[1].trim().toLowerCase() : (m[3] ?? 'H') };
}

const DONE: Readonly<Record<string, string>> = {
  H: 'held',
  '-': 'moved',
  S: 'support given',
  C: 'convoyed',
  R: 'retreated',
  D: 'disbanded',
  build: 'built',
  remove: 'removed',
  waive: 'waived',
};

/** What came of one order, in words: `moved`, `bounced`, `cut`, `dislodged`, `invalid (why): the unit holds`. */
export function outcomeWords(o: OrderOutcome, dislodged: boolean): string {
  const { kind } = parts(o.order);
  let words: string;
  if (o.status === 'succeeded') words = DONE[kind] ?? 'carried out';
  else if (o.status === 'failed') words = o.reason ?? 'failed';
  else words = `${o.status}${o.reason === null ? '' : ` (${o.reason})`}`;
  return dislodged && !/\bdislodged\b/.test(words) ? `${words}; dislodged` : words;
}

/** A phase's results as lines: a heading, then each power's orders with their outcomes, then who must retreat. */
export function resultsText(r: PhaseResults): string[] {
  const out = [`Results of the ${r.name} (${r.label}):`];
  const hit = new Set(r.dislodged.map((d) => `${d.power} ${province(d.at)}`));
  const powers = [...new Set(r.orders.map((o) => o.power))];
  if (powers.length === 0) out.push('  no orders');
  for (const power of powers) {
    out.push(`  ${title(power)}:`);
    for (const o of r.orders.filter((x) => x.power === power)) {
      const at = parts(o.order).at;
      out.push(`    ${o.order}: ${outcomeWords(o, at !== null && hit.has(`${power} ${province(at)}`))}`);
    }
  }
  if (r.dislodged.length > 0) out.push(`  Dislodged, to retreat or disband: ${r.dislodged.map((d) => `${title(d.power)} ${d.at}`).join(', ')}`);
  if (r.votes !== undefined) {
    const cast = Object.entries(r.votes.byPower).map(([power, v]) => `${title(power)} ${v === 'none' ? 'no vote' : v.replace('concede:', 'concede to ')}`);
    out.push(
      `  Votes to end the game: ${cast.join(', ')}: ${r.votes.agreed === null ? 'no ending agreed, play goes on' : `agreed (${r.votes.agreed.replace('concede:', 'concede to ')})`}`,
    );
  }
  return out;
}

/** The step's words for who has done it (the log's view: a sealed commitment is not in it until the set is). */
const DID: Readonly<Record<string, string>> = { commit: 'committed', claim: 'claimed', reveal: 'revealed', sign: 'signed' };

/**
 * Who has done the current step so far, never what: `Claimed so far: ann, ben`; at the commit step only
 * what the log shows (a sealed game's commitments enter it all at once), and the reader's own commitment
 * that the orderer holds. Empty outside the four steps of a phase.
 */
export function progressText(s: DiplomacyState): string[] {
  const done =
    s.phase === 'commit'
      ? Object.keys(s.commits)
      : s.phase === 'claim'
        ? Object.keys(s.claims)
        : s.phase === 'reveal'
          ? Object.keys(s.reveals)
          : s.phase === 'sign'
            ? Object.keys(s.signs)
            : null;
  if (done === null) return [];
  const ordered = s.active.filter((p) => done.includes(p));
  // At a sealed commit step the log holds no commitment until the set is complete: "nobody" would mislead.
  const out = s.phase === 'commit' && ordered.length === 0 ? [] : [`${title(DID[s.phase]!)} so far: ${ordered.length === 0 ? 'nobody' : ordered.join(', ')}`];
  // A sealed commitment stays out of the log until the set is complete (docs/spec/sealed.md §6): the reader
  // knows only its own.
  if (s.phase === 'commit' && s.me !== null && s.mine?.round === s.round && s.commits[s.me] === undefined)
    out.push(`You (${s.me}) have committed: the orderer holds it sealed until every commitment is in`);
  return out;
}

/**
 * Follows a Diplomacy log line by line: each phase's results when it is adjudicated, and what each line
 * changed in who has done the step. `options` as the referee's: `verify` checks signatures (a folder's lines
 * passed its door already), `timeOf` gives each line's receipt time (a relay's game).
 */
export class DiplomacyFollower {
  readonly results: PhaseResults[] = [];
  private readonly referee: Referee<DiplomacyState>;

  constructor(setupLine: string, options: { readonly verify?: VerifyFn; readonly timeOf?: (line: number) => number | undefined } = {}) {
    this.referee = new Referee<DiplomacyState>(setupLine, null, undefined, { registry: diplomacyRegistry, ...options });
  }

  get lines(): number {
    return this.referee.checker.lines;
  }

  get state(): DiplomacyState | null {
    return this.referee.machine.protocol === 'diplomacy' ? this.referee.state : null;
  }

  /** Feeds line n; returns the results of a phase it completed, or null. */
  feed(n: number, text: string): PhaseResults | null {
    const before: Position | undefined = this.state?.position;
    const { events } = this.referee.feedText(n, text);
    let found: PhaseResults | null = null;
    const votes = events.find((e) => e.type === 'votes');
    for (const e of events) if (e.type === 'adjudicated' && before !== undefined) found = this.record(n, e, before, votes);
    return found;
  }

  private record(line: number, e: GameEvent, before: Position, votes: GameEvent | undefined): PhaseResults {
    const list = Array.isArray(e.results) ? (e.results as unknown as OrderOutcome[]) : [];
    const next = this.state?.next?.position;
    const r: PhaseResults = {
      line,
      round: typeof e.round === 'number' ? e.round : 0,
      name: phaseName(before),
      label: typeof e.phase === 'string' ? e.phase : phaseLabel(before),
      orders: list.map((o) => ({ power: o.power, order: o.order, status: o.status, reason: o.reason ?? null })),
      dislodged: (next?.dislodged ?? []).map((d) => ({ power: d.power, at: d.at })),
      ...(votes === undefined
        ? {}
        : {
            votes: {
              byPower: Object.fromEntries(Object.entries((votes.votes ?? {}) as Record<string, unknown>).map(([p, v]) => [p, String(v)])),
              agreed: typeof votes.agreed === 'string' ? votes.agreed : null,
            },
          }),
    };
    this.results.push(r);
    return r;
  }
}

/**
 * The follower of the last log asked about. A game's log only grows, and one command asks about it several
 * times (each letter it writes, then what it prints): the next question feeds only the lines added since,
 * instead of replaying the game, escrow openings and all, from its setup. A log that does not start with the
 * lines fed so far gets a follower of its own.
 */
let last: { readonly follower: DiplomacyFollower; readonly fed: string[] } | null = null;

function startsAlike(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Every phase adjudicated in a log, in order (the lines passed a folder's checks: signatures are not checked again). */
export function phaseResults(log: readonly string[]): PhaseResults[] {
  if (log.length === 0) return [];
  if (last === null || !startsAlike(last.fed, log)) {
    const f = new DiplomacyFollower(log[0]!, { verify: () => true });
    if (f.state === null) return [];
    last = { follower: f, fed: [log[0]!] };
  }
  const { follower, fed } = last;
  try {
    for (let n = fed.length; n < log.length; n++) {
      follower.feed(n, log[n]!);
      fed.push(log[n]!);
    }
  } catch (e) {
    last = null;
    throw e;
  }
  // Fed further than this log (an earlier part of it asked about): the results up to its end.
  return follower.results.filter((r) => r.line < log.length);
}
