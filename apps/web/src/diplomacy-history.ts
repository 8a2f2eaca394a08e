/**
 * A Diplomacy game's phases, replayed from the transcript the page holds (docs/spec/web.md §4, "Diplomacy"): each
 * `adjudicated` event carries the orders of a phase and the hash of the position they give, so the page adjudicates
 * them again from the starting position and keeps every phase whose position hashes as the event says. A phase that
 * does not (a game started elsewhere than the standard opening) ends the history there, and the page says so.
 * And each order's result in the words players use: moved, bounced, dislodged, retreated, built.
 */
import { adjudicate } from '@fairtable/diplomacy/adjudicate.js';
import { provinceOf } from '@fairtable/diplomacy/map.js';
import { positionHash, startingPosition, type Position } from '@fairtable/diplomacy/position.js';
import { standardMap } from '@fairtable/diplomacy/standard.js';

export interface Result {
  readonly power: string;
  readonly order: string;
  readonly status: string;
  readonly reason?: string | null;
}

/** The fields of an `adjudicated` event the board reads. */
export interface Adjudicated {
  readonly type: 'adjudicated';
  readonly phase: string;
  readonly next: string;
  readonly results: readonly Result[];
  readonly hash?: string;
}

export interface Step {
  /** The phase's code (S1901M). */
  readonly phase: string;
  readonly results: readonly Result[];
  /** The position the orders were given in, and the one they gave. */
  readonly before: Position;
  readonly after: Position;
}

export interface History {
  readonly steps: readonly Step[];
  /** Phases the page could not replay (their position hash differs from the event's), from the first such. */
  readonly unreplayed: number;
}

/** Phases already replayed, by their event: a page that gets one more phase adjudicates only that one again. */
const replayed = new WeakMap<Adjudicated, Step>();
const opening = startingPosition(standardMap);

/** Replays the adjudicated phases in order; stops at the first whose position is not the one the event names. */
export function replay(events: readonly Adjudicated[], strictUnitType = false): History {
  const steps: Step[] = [];
  let position: Position = opening;
  for (const [i, e] of events.entries()) {
    const known = replayed.get(e);
    if (known !== undefined && known.before === position) {
      steps.push(known);
      position = known.after;
      continue;
    }
    try {
      const r = adjudicate(
        standardMap,
        position,
        e.results.map((x) => ({ power: x.power, text: x.order })),
        { strictUnitType },
      );
      if (e.hash === undefined || positionHash(standardMap, r.position) !== e.hash) return { steps, unreplayed: events.length - i };
      const step = { phase: e.phase, results: e.results, before: position, after: r.position };
      if (!strictUnitType) replayed.set(e, step);
      steps.push(step);
      position = r.position;
    } catch {
      return { steps, unreplayed: events.length - i };
    }
  }
  return { steps, unreplayed: 0 };
}

const unitAt = (order: string): string | null => /^(?:Build |Remove )?[AF] ?([a-z]{3}(?:\/[a-z]{2})?)/.exec(order)?.[1] ?? null;

/**
 * What happened to an order, in words: `moved`, `bounced (…)`, `dislodged`, `retreated`, `built`; `after` is the
 * position the phase gave (a movement phase's, to tell a dislodged unit).
 */
export function resultWords(r: Result, after: Position | null): string {
  const why = r.reason === undefined || r.reason === null || r.reason === '' ? '' : ` (${r.reason})`;
  if (r.status === 'invalid') return `not valid${why}: the unit holds`;
  if (r.status === 'ignored') return `ignored${why}`;
  const ok = r.status === 'succeeded';
  const at = unitAt(r.order);
  // After a movement phase, a unit that did not move away and is no longer there was dislodged (and, with no
  // retreat open to it, disbanded at once).
  const stayed = !(ok && / - /.test(r.order) && !/ [SC] /.test(r.order));
  const here = (u: { readonly at: string }): boolean => at !== null && provinceOf(u.at) === provinceOf(at);
  const dislodged = stayed && after !== null && (after.dislodged.some(here) || !after.units.some(here));
  const then = dislodged ? ', dislodged' : '';
  if (r.order.startsWith('Build')) return ok ? 'built' : `not built${why}`;
  if (r.order.startsWith('Remove')) return ok ? 'removed' : `not removed${why}`;
  if (r.order === 'Waive') return 'build waived';
  if (/ R /.test(r.order)) return ok ? 'retreated' : `disbanded${why}`;
  if (/ D$/.test(r.order)) return 'disbanded';
  // The adjudicator's reasons that are already the words (bounced, cut, dislodged) are not said twice.
  const own = r.reason === 'bounced' || r.reason === 'cut' || r.reason === 'dislodged' ? '' : why;
  if (/ S /.test(r.order)) return (ok ? 'supported' : `${r.reason === 'cut' || r.reason === 'dislodged' ? 'support cut' : 'support failed'}${own}`) + then;
  if (/ C /.test(r.order)) return (ok ? 'convoyed' : `convoy failed${own}`) + then;
  if (/ - /.test(r.order)) return ok ? 'moved' : `${r.reason === 'bounced' ? 'bounced' : 'failed'}${own}${then}`;
  if (/ H$/.test(r.order)) return dislodged ? 'dislodged' : 'held';
  return (ok ? 'succeeded' : `failed${why}`) + then;
}
