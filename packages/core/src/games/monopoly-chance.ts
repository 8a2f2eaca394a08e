/**
 * Monopoly's chance parts alone, the game "monopoly-chance" (docs/SPEC.md §8.3; seed 000): kept
 * for the chance-only demonstrations; the whole game is games/monopoly/ (docs/spec/monopoly.md).
 *
 * Two dice; doubles roll again; a third double in one turn sends the player to
 * jail. In jail: a Get Out of Jail Free card is used if held, else doubles get
 * out (moving by that roll, with no extra roll), and the third failed try pays
 * $50 and moves. Chance (squares 7, 22, 36) and Community Chest (2, 17, 33)
 * are piles in canonical order, sorted by the cards' wording (UTF-16 code unit
 * order, as seed 000 suggests "alphabetical based on their wording"); a draw
 * takes a uniform card from the Y cards remaining, `below(Y)` indexing the
 * remaining cards in canonical order; an empty pile is refilled with every
 * card not held by a player (a player who leaves gives its held cards back to
 * their piles). Property buying, rent and building are not part
 * of this module: cash moves only through Go, taxes, cards and jail fines.
 * After `rounds` rounds (default 20) the most cash wins.
 */
import type { Chance } from '../chance.js';
import type { JsonValue } from '../jcs.js';
import { leaders, numberParam, type ChanceGame, type TurnResult } from './game.js';

type Effect =
  | { kind: 'move'; to: number }
  | { kind: 'back'; by: number }
  | { kind: 'nearest'; of: 'railroad' | 'utility' }
  | { kind: 'jail' }
  | { kind: 'cash'; amount: number }
  | { kind: 'each'; amount: number }
  | { kind: 'keep' };

interface Card {
  readonly text: string;
  readonly effect: Effect;
}

const card = (text: string, effect: Effect): Card => ({ text, effect });

export const CHANCE: readonly Card[] = [
  card('Advance to Boardwalk', { kind: 'move', to: 39 }),
  card('Advance to Go (Collect $200)', { kind: 'move', to: 0 }),
  card('Advance to Illinois Avenue. If you pass Go, collect $200', { kind: 'move', to: 24 }),
  card('Advance to St. Charles Place. If you pass Go, collect $200', { kind: 'move', to: 11 }),
  card('Advance to the nearest Railroad (1)', { kind: 'nearest', of: 'railroad' }),
  card('Advance to the nearest Railroad (2)', { kind: 'nearest', of: 'railroad' }),
  card('Advance token to nearest Utility', { kind: 'nearest', of: 'utility' }),
  card('Bank pays you dividend of $50', { kind: 'cash', amount: 50 }),
  card('Get Out of Jail Free (Chance)', { kind: 'keep' }),
  card('Go Back 3 Spaces', { kind: 'back', by: 3 }),
  card('Go to Jail. Go directly to Jail, do not pass Go, do not collect $200', { kind: 'jail' }),
  card('Make general repairs on all your property', { kind: 'cash', amount: 0 }),
  card('Speeding fine $15', { kind: 'cash', amount: -15 }),
  card('Take a trip to Reading Railroad. If you pass Go, collect $200', { kind: 'move', to: 5 }),
  card('You have been elected Chairman of the Board. Pay each player $50', { kind: 'each', amount: -50 }),
  card('Your building loan matures. Collect $150', { kind: 'cash', amount: 150 }),
].sort(byText);

export const COMMUNITY_CHEST: readonly Card[] = [
  card('Advance to Go (Collect $200)', { kind: 'move', to: 0 }),
  card('Bank error in your favor. Collect $200', { kind: 'cash', amount: 200 }),
  card("Doctor's fee. Pay $50", { kind: 'cash', amount: -50 }),
  card('From sale of stock you get $50', { kind: 'cash', amount: 50 }),
  card('Get Out of Jail Free (Community Chest)', { kind: 'keep' }),
  card('Go to Jail. Go directly to jail, do not pass Go, do not collect $200', { kind: 'jail' }),
  card('Holiday fund matures. Receive $100', { kind: 'cash', amount: 100 }),
  card('Income tax refund. Collect $20', { kind: 'cash', amount: 20 }),
  card('It is your birthday. Collect $10 from every player', { kind: 'each', amount: 10 }),
  card('Life insurance matures. Collect $100', { kind: 'cash', amount: 100 }),
  card('Pay hospital fees of $100', { kind: 'cash', amount: -100 }),
  card('Pay school fees of $50', { kind: 'cash', amount: -50 }),
  card('Receive $25 consultancy fee', { kind: 'cash', amount: 25 }),
  card('You are assessed for street repair', { kind: 'cash', amount: 0 }),
  card('You have won second prize in a beauty contest. Collect $10', { kind: 'cash', amount: 10 }),
  card('You inherit $100', { kind: 'cash', amount: 100 }),
].sort(byText);

function byText(a: Card, b: Card): number {
  return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
}

export const CHANCE_SQUARES = [7, 22, 36];
export const CHEST_SQUARES = [2, 17, 33];
const GO_TO_JAIL = 30;
const JAIL = 10;
const RAILROADS = [5, 15, 25, 35];
const UTILITIES = [12, 28];

export type Pile = 'chance' | 'chest';

export interface MonopolyState {
  readonly players: string[];
  readonly positions: Record<string, number>;
  readonly cash: Record<string, number>;
  readonly inJail: Record<string, number>; // failed tries so far; absent = not in jail
  readonly held: Record<string, string[]>; // Get Out of Jail Free cards held
  /** Indexes (into the canonical pile) of the cards still in each pile. */
  readonly piles: Record<Pile, number[]>;
  readonly turns: number;
  readonly rounds: number;
}

const pileCards = (pile: Pile): readonly Card[] => (pile === 'chance' ? CHANCE : COMMUNITY_CHEST);

interface Draft {
  positions: Record<string, number>;
  cash: Record<string, number>;
  inJail: Record<string, number>;
  held: Record<string, string[]>;
  piles: Record<Pile, number[]>;
  log: JsonValue[];
}

function draw(d: Draft, pile: Pile, chance: Chance): Card {
  const cards = pileCards(pile);
  if (d.piles[pile].length === 0) {
    const heldTexts = new Set(Object.values(d.held).flat());
    d.piles[pile] = cards.map((_, i) => i).filter((i) => !heldTexts.has(cards[i]!.text));
    d.log.push({ refill: pile, cards: d.piles[pile].length });
  }
  const remaining = d.piles[pile];
  const pick = chance.below(remaining.length);
  const index = remaining[pick]!;
  d.piles[pile] = remaining.filter((_, i) => i !== pick);
  return cards[index]!;
}

/** A used (or abandoned) Get Out of Jail Free card goes back among the remaining cards of its pile. */
function returnCard(piles: Record<Pile, number[]>, text: string): void {
  const pile: Pile = text.includes('(Chance)') ? 'chance' : 'chest';
  const index = pileCards(pile).findIndex((c) => c.text === text);
  piles[pile] = [...piles[pile], index].sort((a, b) => a - b);
}

function moveTo(d: Draft, mover: string, to: number, passGo: boolean): void {
  const from = d.positions[mover]!;
  if (passGo && to < from) d.cash[mover]! += 200;
  d.positions[mover] = to;
}

function toJail(d: Draft, mover: string): void {
  d.positions[mover] = JAIL;
  d.inJail[mover] = 0;
  d.log.push({ jail: true });
}

/** Resolves the square the mover stands on; returns false when the turn ends (jail). */
function resolve(d: Draft, players: readonly string[], mover: string, chance: Chance, depth = 0): boolean {
  const at = d.positions[mover]!;
  if (at === GO_TO_JAIL) {
    toJail(d, mover);
    return false;
  }
  if (at === 4) d.cash[mover]! -= 200;
  if (at === 38) d.cash[mover]! -= 100;
  const pile: Pile | null = CHANCE_SQUARES.includes(at) ? 'chance' : CHEST_SQUARES.includes(at) ? 'chest' : null;
  if (pile === null || depth > 1) return true;
  const c = draw(d, pile, chance);
  d.log.push({ card: c.text, pile });
  const e = c.effect;
  switch (e.kind) {
    case 'move':
      moveTo(d, mover, e.to, true);
      return resolve(d, players, mover, chance, depth + 1);
    case 'back':
      d.positions[mover] = (at - e.by + 40) % 40;
      return resolve(d, players, mover, chance, depth + 1);
    case 'nearest': {
      const targets = e.of === 'railroad' ? RAILROADS : UTILITIES;
      const to = targets.find((t) => t > at) ?? targets[0]!;
      moveTo(d, mover, to, true);
      return true;
    }
    case 'jail':
      toJail(d, mover);
      return false;
    case 'cash':
      d.cash[mover]! += e.amount;
      return true;
    case 'each':
      for (const p of players) {
        if (p === mover) continue;
        d.cash[p]! -= e.amount;
        d.cash[mover]! += e.amount;
      }
      return true;
    case 'keep':
      d.held[mover] = [...(d.held[mover] ?? []), c.text];
      return true;
  }
}

export const monopolyChanceGame: ChanceGame<MonopolyState> = {
  name: 'monopoly-chance',
  init(players, params) {
    return {
      players: [...players],
      positions: Object.fromEntries(players.map((p) => [p, 0])),
      cash: Object.fromEntries(players.map((p) => [p, 1500])),
      inJail: {},
      held: {},
      piles: { chance: CHANCE.map((_, i) => i), chest: COMMUNITY_CHEST.map((_, i) => i) },
      turns: 0,
      rounds: numberParam(params, 'rounds', 20, 1, 1_000_000),
    };
  },

  play(state: MonopolyState, mover: string, chance: Chance, _action: JsonValue): TurnResult<MonopolyState> {
    const d: Draft = {
      positions: { ...state.positions },
      cash: { ...state.cash },
      inJail: { ...state.inJail },
      held: Object.fromEntries(Object.entries(state.held).map(([k, v]) => [k, [...v]])),
      piles: { chance: [...state.piles.chance], chest: [...state.piles.chest] },
      log: [],
    };
    const players = state.players;
    let rollAgain = true;
    let doubles = 0;
    if (d.inJail[mover] !== undefined) {
      const card = d.held[mover]?.[0];
      if (card !== undefined) {
        d.held[mover] = d.held[mover]!.slice(1);
        returnCard(d.piles, card);
        delete d.inJail[mover];
        d.log.push({ used: card });
      } else {
        const roll = chance.dice(2, 6);
        const tries = d.inJail[mover]! + 1;
        d.log.push({ roll });
        if (roll[0] === roll[1] || tries === 3) {
          if (roll[0] !== roll[1]) d.cash[mover]! -= 50;
          delete d.inJail[mover];
          moveTo(d, mover, (d.positions[mover]! + roll[0]! + roll[1]!) % 40, true);
          resolve(d, players, mover, chance);
        } else {
          d.inJail[mover] = tries;
        }
        rollAgain = false;
      }
    }
    while (rollAgain) {
      const roll = chance.dice(2, 6);
      d.log.push({ roll });
      const isDouble = roll[0] === roll[1];
      if (isDouble) doubles++;
      if (doubles === 3) {
        toJail(d, mover);
        break;
      }
      moveTo(d, mover, (d.positions[mover]! + roll[0]! + roll[1]!) % 40, true);
      const stillFree = resolve(d, players, mover, chance);
      rollAgain = isDouble && stillFree;
    }
    return {
      state: { ...state, positions: d.positions, cash: d.cash, inJail: d.inJail, held: d.held, piles: d.piles, turns: state.turns + 1 },
      summary: { events: d.log, position: d.positions[mover]!, cash: d.cash[mover]! },
    };
  },

  winners(state) {
    if (state.players.length <= 1) return [...state.players];
    return state.turns >= state.rounds * state.players.length ? leaders(state.cash, state.players) : null;
  },

  forfeit(state, player) {
    // A player who leaves takes no card with it: its Get Out of Jail Free cards go back to their piles.
    const piles = { chance: [...state.piles.chance], chest: [...state.piles.chest] };
    for (const text of state.held[player] ?? []) returnCard(piles, text);
    const { [player]: _gone, ...held } = state.held;
    return { ...state, players: state.players.filter((p) => p !== player), held, piles };
  },
};
