/**
 * "Your games" on the first page (docs/spec/web.md §3.1): each game this browser plays, replayed by an observer
 * referee from its log (the relay's when it answers, else the stored copy) to say who the opponents are, whose turn
 * it is or how it ended, the time left when the log tells it, and the offer a rematch would make.
 */
import { readOffer, type Offer } from '@fairtable/core/lobby.js';
import { Referee } from '@fairtable/core/referee.js';
import type { Registry } from '@fairtable/core/registry.js';
import { HOUSE } from '@fairtable/core/signidice/arbiter.js';
import type { GameSetup } from '@fairtable/core/setup.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { setupLabel } from './labels.js';

export interface GameSummary {
  readonly game: string;
  readonly label: string;
  readonly me: string;
  /** The other seats, by name, with their keys' fingerprints (the first 8 hex digits). */
  readonly opponents: readonly { readonly id: string; readonly fingerprint: string }[];
  /** Whose turn, or how the game ended, in words. */
  readonly state: string;
  readonly finished: boolean;
  /** When the phase now running ends (receipt time, ms), when the log tells it. */
  readonly deadline: number | null;
  readonly lines: number;
  /** The offer and seats (this page's first) of the same game again, or null when this page cannot open it. */
  readonly rematch: { readonly offer: Offer; readonly seats: readonly string[] } | null;
}

/** "ann", "ann and bob", "ann, bob and cy"; "you" for `me`. */
function names(list: readonly string[], me: string): string {
  const named = list.map((p) => (p === me ? 'you' : p));
  return named.length <= 1 ? (named[0] ?? '') : `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]!}`;
}

/** The lobby's offer that makes this setup again, or null for a setup no offer makes (made by the CLI with other options). */
export function offerOf(setup: GameSetup): Offer | null {
  const p = setup.params;
  const num = (v: JsonValue | undefined, d: number): number => (typeof v === 'number' ? v : d);
  const base = { timeoutMs: num(p.timeoutMs, 120_000), rounds: 3, states: 3 };
  let offer: unknown;
  if ((setup.protocol === 'chain' || setup.protocol === 'keyed-stream') && setup.game !== null) {
    offer = {
      ...base,
      protocol: setup.game,
      rounds: num(setup.game === 'snakes' ? p.maxRounds : p.rounds, 3),
      ...(typeof p.roll === 'string' ? { roll: p.roll } : {}),
    };
  } else if (setup.protocol === 'rochambeau') offer = { ...base, protocol: 'rochambeau', states: Number(p.N ?? 3) };
  else if (setup.protocol === 'signidice') offer = { ...base, protocol: 'signidice', rounds: num(p.rounds, 3) };
  else if (setup.protocol === 'diplomacy') offer = { ...base, protocol: 'diplomacy', rounds: num(p.years, 2) };
  return readOffer(offer);
}

function turnWords(state: Record<string, unknown>, players: readonly string[], me: string): string {
  const who = (list: readonly string[]) => (list.length === 0 ? null : list.includes(me) ? 'Your move' : `Waiting for ${names(list, me)}`);
  // Games in turns (dice, snakes, Monopoly): the seat whose turn it is.
  if (state.phase === 'play' && Array.isArray(state.active) && typeof state.mover === 'number') {
    const mover = state.active[state.mover % Math.max(1, state.active.length)] as string | undefined;
    if (mover !== undefined) return mover === me ? 'Your turn' : `${mover}'s turn`;
  }
  // Rochambeau's picks and reveals, roulette's bets: who has not yet.
  const pending = (done: unknown, from: readonly string[]) =>
    from.filter((p) => !(done !== null && typeof done === 'object' && p in (done as object)) && p !== HOUSE);
  if (state.phase === 'commit') return who(pending(state.commits, players)) ?? 'In play';
  if (state.phase === 'reveal') return who(pending(state.reveals, players)) ?? 'In play';
  if (state.phase === 'bet' && Array.isArray(state.active)) {
    const passed = Array.isArray(state.passed) ? (state.passed as string[]) : [];
    return (
      who(
        pending(
          state.bets,
          (state.active as string[]).filter((p) => !passed.includes(p)),
        ),
      ) ?? 'In play'
    );
  }
  return 'In play';
}

/** The game in a few words, replayed from `lines` (receipts give the times deadlines are counted from). */
export function summarize(game: string, me: string, lines: readonly string[], receipts: readonly unknown[], registry?: Registry): GameSummary {
  const timeOf = (line: number): number | undefined => {
    const t = (receipts[line] as { time?: unknown } | undefined)?.time;
    return typeof t === 'number' ? t : undefined;
  };
  const referee = new Referee(lines[0]!, null, undefined, { timeOf, ...(registry === undefined ? {} : { registry }) });
  for (let i = 1; i < lines.length; i++) referee.feedText(i, lines[i]!);
  const setup = referee.checker.setup;
  const players = setup.players.map((p) => p.id);
  const outcome = referee.outcome();
  const state = (referee.state ?? {}) as Record<string, unknown>;
  let words: string;
  if (outcome !== null) {
    const w = outcome.winners;
    words =
      w.length === 1
        ? w[0] === me
          ? 'You won'
          : `${w[0]!} won`
        : w.length > 1
          ? `A tie: ${names(w, me)} share the win`
          : setup.protocol === 'signidice'
            ? 'Every round played'
            : 'Over, nobody won';
  } else words = turnWords(state, players, me);
  const phaseStart = state.phaseStart;
  const timeoutMs = state.timeoutMs ?? setup.params.timeoutMs;
  const offer = offerOf(setup);
  return {
    game,
    label: setupLabel(setup.protocol, setup.game, setup.params),
    me,
    opponents: setup.players.filter((p) => p.id !== me).map((p) => ({ id: p.id, fingerprint: p.key.slice(0, 8) })),
    state: words,
    finished: outcome !== null,
    deadline: outcome === null && typeof phaseStart === 'number' && typeof timeoutMs === 'number' && phaseStart > 0 ? phaseStart + timeoutMs : null,
    lines: lines.length,
    rematch: offer === null || (offer.protocol === 'signidice' && me !== HOUSE) ? null : { offer, seats: [me, ...players.filter((p) => p !== me)] },
  };
}

/** "4 min left", "40 s left", "1 day left"; "time is up" once past. */
export function timeLeftWords(deadline: number, now: number): string {
  const ms = deadline - now;
  if (ms <= 0) return 'time is up';
  if (ms >= 86_400_000) return `${Math.floor(ms / 86_400_000)} day${ms >= 2 * 86_400_000 ? 's' : ''} left`;
  if (ms >= 3_600_000) return `${Math.floor(ms / 3_600_000)} h left`;
  if (ms >= 60_000) return `${Math.floor(ms / 60_000)} min left`;
  return `${Math.ceil(ms / 1000)} s left`;
}
