/**
 * What `fairtable play` says on stderr as a game goes (docs/spec/diplomacy-by-hand.md §1), besides the turns
 * of a game of chance (mail/chance-text.ts's `TurnNarrator` puts those in the game's own words): a line for
 * each spin or Rochambeau attempt, and for what ends or changes the game (an escrow opened, a forfeit, the end).
 */
import type { GameEvent } from '@fairtable/core/protocols/machine.js';

const money = (n: unknown): string => (typeof n === 'number' ? String(Math.abs(n)) : String(n));

/** The progress line for `e`, or null for an event a player need not be told of here. */
export function progressLine(e: GameEvent): string | null {
  switch (e.type) {
    case 'decided':
      return `turn ${String(e.turn)} decided: ${JSON.stringify(e.summary ?? e.answers)}`;
    case 'spin': {
      const won = typeof e.won === 'number' ? e.won : 0;
      return `round ${String(e.round)}: ${String(e.player)} bet ${JSON.stringify(e.bet)}; the wheel gave ${String(e.lucky)}: ${won >= 0 ? `won ${money(won)}` : `lost ${money(won)}`}`;
    }
    case 'first-player':
      return `${String(e.player)} moves first`;
    case 'no-winner':
      return `attempt ${String(e.attempt)} left no single winner: another attempt`;
    case 'escrow-opened':
      return `${String(e.player)} did not reveal; its value was opened from escrow, and nobody is named for it`;
    case 'forfeit':
    case 'game-over':
      return `${e.type} ${JSON.stringify(e)}`;
    default:
      return null;
  }
}
