/**
 * What `fairtable play` says on stderr as a game goes (docs/spec/diplomacy-by-hand.md §1), besides the turns
 * of a game of chance (mail/chance-text.ts's `TurnNarrator` puts those in the game's own words): a line for
 * each spin or Rochambeau attempt, and for what ends or changes the game (an escrow opened, a forfeit, the end).
 */
import type { JsonValue } from '@fairtable/core/jcs.js';
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
    case 'votes': {
      // Diplomacy's votes for an agreed ending (docs/spec/diplomacy.md §10.12), public once revealed.
      const votes = Object.entries((e.votes ?? {}) as Record<string, JsonValue>).map(([power, v]) => `${power} ${String(v)}`);
      return `votes to end the game: ${votes.join(', ')}; ${e.agreed === null ? 'no ending agreed' : `agreed: ${String(e.agreed)}`}`;
    }
    case 'game-over':
      if (typeof e.why === 'string') return `game over at ${String(e.phase)}: ${e.why}`;
      return `${e.type} ${JSON.stringify(e)}`;
    case 'forfeit':
      return `${e.type} ${JSON.stringify(e)}`;
    default:
      return null;
  }
}
