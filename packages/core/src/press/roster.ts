/**
 * Who talks in a game whose seats changed after its setup (docs/spec/press.md §10): the talk roster as a
 * function of the log.
 *
 * - A newcomer (an author a `newcomer` line introduced, SPEC §4.6) writes press and is written to under the id
 *   and key the log gave it, from that line on: the same authors the orderer's door admits.
 * - A departed player (one whose power was handed to a newcomer) writes no more press from the hand-over on:
 *   a message of its key whose `at` is at or after the hand-over's time is refused (`talk_departed`). Its press
 *   from before stays readable and its own. The hand-over is the line at which the game's machine seated the
 *   newcomer in its place: an event `{type: "newcomer-seated", player, replaces}` (Diplomacy's, diplomacy.md
 *   §10.15), read from the machine's events.
 */
import { toHex } from '../bytes.js';
import type { GameEvent } from '../protocols/machine.js';
import { OBSERVER_CTX, Referee, type RefereeOptions } from '../referee.js';
import type { PlayerEntry } from '../setup.js';
import { prepareLine, TranscriptChecker } from '../transcript.js';

/** A player whose power was handed over: from `at` (ms, the hand-over line's time) on, its key writes no press. */
export interface TalkDeparture {
  /** The departed player's id. */
  readonly id: string;
  /** The newcomer who holds its power now. */
  readonly by: string;
  /** The transcript line at which the hand-over took effect. */
  readonly line: number;
  /** That line's envelope `time` (its author's signed clock, the same for every reader, with receipts or without), ms. */
  readonly at: number;
}

/** What the log changed about who talks: the newcomers it introduced, the players it replaced. */
export interface TalkRoster {
  readonly newcomers: readonly PlayerEntry[];
  readonly departed: readonly TalkDeparture[];
}

export const SETUP_ROSTER: TalkRoster = { newcomers: [], departed: [] };

/**
 * The authors a transcript's `newcomer` lines introduced (SPEC §4.6), each with the key the log gave it, read
 * as every seat reads the log (`TranscriptChecker`): a line the checker does not accept introduces nobody.
 * Line 0 is the setup. Throws `TranscriptError` when line 0 is no setup.
 */
export function newcomersOfLog(lines: readonly string[]): PlayerEntry[] {
  const first = lines[0];
  if (first === undefined) return [];
  const checker = new TranscriptChecker(first);
  for (let i = 0; i < lines.length; i++) checker.check(prepareLine(i, lines[i]!, checker.keys));
  return newcomersOfChecker(checker);
}

/** The event a machine emits when a newcomer takes over a departed player's place. */
export const SEATED_EVENT = 'newcomer-seated';

/** The departures one line's events make (`at`: that line's envelope `time`): each newcomer seated in someone's place. */
export function departuresOf(events: readonly GameEvent[], line: number, at: number): TalkDeparture[] {
  const out: TalkDeparture[] = [];
  for (const e of events) {
    if (e.type !== SEATED_EVENT || typeof e.replaces !== 'string' || typeof e.player !== 'string') continue;
    out.push({ id: e.replaces, by: e.player, line, at });
  }
  return out;
}

/**
 * The roster a whole log makes (line 0 the setup), replayed with its protocol's machine as an auditor does:
 * `options.registry` must hold the machine (Diplomacy's is not among the core's built-ins). The lines are
 * checked as every reader checks them; a log shown altered stops the machine, and with it any later hand-over.
 */
export function talkRosterOfLog(lines: readonly string[], options: RefereeOptions = {}): TalkRoster {
  const first = lines[0];
  if (first === undefined) return SETUP_ROSTER;
  const referee = new Referee(first, null, OBSERVER_CTX, options);
  const departed: TalkDeparture[] = [];
  for (let i = 1; i < lines.length; i++) {
    const prepared = referee.prepare(i, lines[i]!);
    const fed = referee.feed(prepared, OBSERVER_CTX);
    departed.push(...departuresOf(fed.events, i, prepared.envelope?.time ?? 0));
  }
  return { newcomers: newcomersOfChecker(referee.checker), departed };
}

/** The newcomers a checker's log has introduced so far: its authors that are not players of the setup. */
export function newcomersOfChecker(checker: Pick<TranscriptChecker, 'keys' | 'setup'>): PlayerEntry[] {
  const setup = new Set(checker.setup.players.map((p) => p.id));
  const out: PlayerEntry[] = [];
  for (const [id, key] of checker.keys) if (!setup.has(id)) out.push({ id, key: toHex(key) });
  return out;
}

/** The departure of `id`, if its power was handed over. */
export const departureOf = (roster: TalkRoster, id: string): TalkDeparture | undefined => roster.departed.find((d) => d.id === id);

/** The seats that may write now: the setup's players and the newcomers, less the departed. */
export function talkingSeats(players: readonly PlayerEntry[], roster: TalkRoster): PlayerEntry[] {
  const gone = new Set(roster.departed.map((d) => d.id));
  const seen = new Set<string>();
  const out: PlayerEntry[] = [];
  for (const p of [...players, ...roster.newcomers]) {
    if (seen.has(p.id) || gone.has(p.id)) continue;
    seen.add(p.id);
    out.push(p);
  }
  return out;
}

/** Every key the game's talk knows: the setup's players, then the newcomers (a departed player's key included: its old press is read under it). */
export function talkKeys(players: readonly PlayerEntry[], roster: TalkRoster): PlayerEntry[] {
  const seen = new Set(players.map((p) => p.id));
  return [...players, ...roster.newcomers.filter((p) => !seen.has(p.id) && seen.add(p.id))];
}
