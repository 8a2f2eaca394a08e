/**
 * No-limit Texas Hold'em, 2 to 9 players, as pure rules (docs/spec/holdem.md):
 * the cards as indices 0..51, hand ranking, betting, side pots, a hand's state
 * machine and a table across hands. The cards are input (dealt by a deck
 * protocol); the players' actions are input; nothing here draws or times.
 */
export * from './cards.js';
export * from './rank.js';
export * from './pots.js';
export {
  HoldemError,
  STREETS,
  type Action,
  type HandEvent,
  type HandResult,
  type HandState,
  type HandWaiting,
  type HoldemReason,
  type Street,
} from './state.js';
export { legalActions, readAction, type LegalActions } from './betting.js';
export { act, deal, showdown, showOrder, smallBlindSeat, startHand, waiting, type HandOptions } from './hand.js';
export * from './table.js';
export * from './policy.js';
export { actionChoices, eventText, handText, TIMEOUT, whyIllegal } from './decisions.js';
