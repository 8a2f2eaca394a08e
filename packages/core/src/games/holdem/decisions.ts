/**
 * A player's decision in words and as `Choices` (docs/spec/holdem.md §4), for
 * the protocol and user interfaces that will carry Hold'em: the legal actions
 * as a form, the default a missed deadline takes, why an action is refused,
 * and an action or a hand's state in words.
 */
import type { JsonValue } from '../../jcs.js';
import type { Choices } from '../../protocols/machine.js';
import { legalActions } from './betting.js';
import { cardName } from './cards.js';
import { act } from './hand.js';
import { HoldemError, live, type Action, type HandEvent, type HandState } from './state.js';

/** What a missed deadline answers (the player folds, §4). */
export const TIMEOUT: Action = { do: 'timeout' };

/** The legal actions of `player` now as a form; null when it is not its turn. */
export function actionChoices(h: HandState, player: string): Choices | null {
  const legal = legalActions(h, player);
  if (legal === null) return null;
  const simple: JsonValue[] = [{ do: 'fold' }, legal.check ? { do: 'check' } : { do: 'call' }];
  if (legal.raise !== null || legal.allIn <= legal.call) simple.push({ do: 'all-in' });
  const options: Choices[] = [{ type: 'one-of', values: simple }];
  if (legal.raise !== null) {
    options.push({
      type: 'record',
      fields: { do: { type: 'one-of', values: [legal.raise.kind] }, to: { type: 'integer', min: String(legal.raise.min), max: String(legal.raise.max) } },
    });
  }
  return options.length === 1 ? options[0]! : { type: 'any-of', options };
}

/** Why `action` is not legal for `player` now, or null. */
export function whyIllegal(h: HandState, player: string, action: JsonValue): string | null {
  try {
    act(h, player, action);
    return null;
  } catch (e) {
    if (e instanceof HoldemError) return e.message;
    throw e;
  }
}

/** One event in words: `ann raises to 300`, `bob posts the big blind of 100`. */
export function eventText(e: HandEvent): string {
  switch (e.what) {
    case 'small blind':
    case 'big blind':
      return `${e.player} posts the ${e.what} of ${e.chips}`;
    case 'returned':
      return `${e.chips} uncalled returned to ${e.player}`;
    case 'fold':
    case 'check':
      return `${e.player} ${e.what}s`;
    case 'timeout':
      return `${e.player} timed out and folds`;
    case 'call':
      return `${e.player} calls ${e.chips}`;
    case 'all-in':
      return `${e.player} goes all-in for ${e.chips}`;
    default:
      return `${e.player} ${e.what === 'bet' ? 'bets' : 'raises to'} ${e.total}`;
  }
}

/** The hand's state in plain-text lines for a person: the board, the pot, each player's chips and bet. */
export function handText(h: HandState): string[] {
  const pot = h.seats.reduce((s, p) => s + (h.committed[p] ?? 0), 0);
  const board = h.board.length === 0 ? 'no board yet' : `board ${h.board.map(cardName).join(' ')}`;
  const players = h.seats.map((p) => {
    const state = h.folded.includes(p) ? ', folded' : (h.stacks[p] ?? 0) === 0 && h.phase !== 'over' ? ', all-in' : '';
    const bet = (h.bets[p] ?? 0) > 0 && h.phase !== 'over' ? `, bet ${h.bets[p]}` : '';
    return `${p}${p === h.button ? ' (button)' : ''} ${h.stacks[p]}${bet}${state}`;
  });
  const lines = [`Hold'em, ${h.street}: ${board}; pot ${pot}.`, `Chips: ${players.join('; ')}.`];
  if (h.result !== null) {
    for (const [i, pot] of h.result.pots.entries()) {
      const name = i === 0 ? 'main pot' : `side pot ${i}`;
      const who = pot.winners.map((w) => `${w} ${pot.shares[w]}${h.result!.hands[w] !== undefined ? ` (${h.result!.hands[w]!.name})` : ''}`);
      lines.push(`The ${name} of ${pot.amount}: ${who.join(', ')}.`);
    }
  } else if (h.toAct !== null) lines.push(`${h.toAct} to act; ${live(h).length} players in.`);
  return lines;
}
