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
import { cliRegistry } from '../registry.js';

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
  const narrator = new TurnNarrator(log[0]!);
  const turns = log.slice(1).flatMap((text, i) => narrator.feed(i + 1, text));
  if (turns.length <= TURNS_SHOWN) return turns;
  const hidden = turns.length - TURNS_SHOWN;
  return [`(${hidden} earlier turn${hidden === 1 ? '' : 's'} not shown: fairtable mail transcript writes them all)`, ...turns.slice(hidden)];
}

/**
 * A game of chance's turns in words as its lines come, one line at a time (`fairtable play`'s progress, and
 * `turnsText`): a referee of its own replays them, so a keyed-stream turn, whose event carries only draws, is
 * put in words from the state before it. Lines that already passed the seat's checks; nothing for a game
 * without `turnText`.
 */
export class TurnNarrator {
  private readonly referee: Referee | null;

  constructor(setupLine: string) {
    const referee = new Referee(setupLine, null, undefined, { verify: trustAll, registry: cliRegistry });
    this.referee = chanceState(referee.state)?.rules.turnText === undefined ? null : referee;
  }

  /** Line `n` (1 on; in order, each once): the turns it plays, in words ("turn 3: bob rolled 6 + 6 = 12"). */
  feed(n: number, text: string): string[] {
    if (this.referee === null) return [];
    const before = chanceState(this.referee.state)!.game;
    const { events } = this.referee.feedText(n, text);
    const rules = chanceState(this.referee.state)!.rules;
    const turns: string[] = [];
    for (const e of events) {
      if (e.type !== 'turn' || typeof e.player !== 'string') continue;
      const summary = e.summary !== undefined ? e.summary : summaryOf(rules, before, e.player, e.draws);
      turns.push(`turn ${String(e.turn)}: ${rules.turnText!(e.player, summary)}`);
    }
    return turns;
  }
}

/** A keyed-stream event carries its draws as canonical JSON text. */
function summaryOf(rules: ChanceGame<unknown>, before: unknown, player: string, draws: JsonValue | undefined): JsonValue {
  const list = typeof draws === 'string' ? (JSON.parse(draws) as unknown) : draws;
  if (!Array.isArray(list)) return null;
  return rules.play(before, player, new ScriptedChance(list as [number, number][]), null).summary;
}

const trustAll: VerifyFn = () => true;
