/**
 * A game of chance by mail in words (docs/spec/mail.md §3.2): where the game stands (each player's score or
 * square, from the game's own `standing`) for every message and `mail status`, and, for `mail status`, every
 * turn rolled so far, found by replaying the folder's log through a referee, the same machine the seat runs.
 */
import { ScriptedChance } from '@fairtable/core/chance.js';
import type { ChanceGame } from '@fairtable/core/games/game.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { Referee } from '@fairtable/core/referee.js';
import type { VerifyFn } from '@fairtable/core/transcript.js';
import { diplomacyRegistry } from '@fairtable/diplomacy/protocol/index.js';

/** The part of a chain or keyed-stream machine's state a game's words are read from. */
interface ChanceMachineState {
  readonly rules: ChanceGame<unknown>;
  readonly game: unknown;
}

function chanceState(state: unknown): ChanceMachineState | null {
  const s = state as Partial<ChanceMachineState> | null;
  if (s === null || typeof s !== 'object' || s.rules === undefined || typeof s.rules.standing !== 'function') return null;
  return s as ChanceMachineState;
}

/** Where the game stands, as lines; empty when the game has no words for it (Monopoly and Diplomacy have their own). */
export function standingText(state: unknown): string[] {
  const s = chanceState(state);
  return s === null ? [] : s.rules.standing!(s.game);
}

/** At most this many turns are listed; the earlier ones are counted (the transcript holds them all). */
export const TURNS_SHOWN = 30;

/**
 * Every turn in the log, in words: "turn 3: bob rolled 6 + 6 = 12" (the protocol's turn number, as the
 * audit quotes it). The lines already passed this folder's checks, so signatures are not checked again.
 * A chain turn names its summary; a keyed-stream turn names only its draws, which the game's own `play`
 * turns back into the summary on the state before the line.
 */
export function turnsText(log: readonly string[]): string[] {
  if (log.length === 0) return [];
  const referee = new Referee(log[0]!, null, undefined, { verify: trustAll, registry: diplomacyRegistry });
  if (chanceState(referee.state) === null || chanceState(referee.state)!.rules.turnText === undefined) return [];
  const turns: string[] = [];
  for (let n = 1; n < log.length; n++) {
    const before = chanceState(referee.state)!.game;
    const { events } = referee.feedText(n, log[n]!);
    const rules = chanceState(referee.state)!.rules;
    for (const e of events) {
      if (e.type !== 'turn' || typeof e.player !== 'string') continue;
      const summary = e.summary !== undefined ? e.summary : summaryOf(rules, before, e.player, e.draws);
      turns.push(`turn ${String(e.turn)}: ${rules.turnText!(e.player, summary)}`);
    }
  }
  if (turns.length <= TURNS_SHOWN) return turns;
  const hidden = turns.length - TURNS_SHOWN;
  return [`(${hidden} earlier turn${hidden === 1 ? '' : 's'} not shown: fairtable mail transcript writes them all)`, ...turns.slice(hidden)];
}

/** A keyed-stream event carries its draws as canonical JSON text. */
function summaryOf(rules: ChanceGame<unknown>, before: unknown, player: string, draws: JsonValue | undefined): JsonValue {
  const list = typeof draws === 'string' ? (JSON.parse(draws) as unknown) : draws;
  if (!Array.isArray(list)) return null;
  return rules.play(before, player, new ScriptedChance(list as [number, number][]), null).summary;
}

const trustAll: VerifyFn = () => true;
