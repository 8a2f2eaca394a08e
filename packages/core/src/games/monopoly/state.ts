/**
 * Monopoly's game state and parameters (docs/spec/monopoly.md §2, §12).
 *
 * The state is plain JSON so that an outcome can carry it and every seat can
 * compare it. Rules never mutate a state they were given: each step copies it
 * into a `Draft` (containers copied, records shallow) and returns the draft.
 */
import type { JsonValue } from '../../jcs.js';
import { numberParam } from '../game.js';
import { FairtableError } from '../../errors.js';

export type Pile = 'chance' | 'chest';

export interface Holding {
  readonly owner: string;
  /** 0–4 houses, or HOTEL (5). */
  readonly houses: number;
  readonly mortgaged: boolean;
}

/** Money one side owes: `to` is a player, 'bank', or (with the Free Parking house rule) 'pot'. */
export interface Debt {
  readonly from: string;
  readonly to: string;
  readonly amount: number;
  readonly why: string;
}

export interface TradeSide {
  readonly squares: readonly number[];
  readonly cash: number;
  readonly cards: readonly Pile[];
}

export interface Offer {
  readonly from: string;
  readonly to: string;
  readonly give: TradeSide;
  readonly get: TradeSide;
}

/** What the game waits for now (docs/spec/monopoly.md §10). */
export type Stage =
  | { readonly kind: 'turn' }
  | { readonly kind: 'roll' }
  | { readonly kind: 'buy'; readonly square: number }
  | { readonly kind: 'auction'; readonly square: number; readonly bidders: readonly string[] }
  | { readonly kind: 'trade'; readonly offer: Offer }
  | { readonly kind: 'raise' }
  | { readonly kind: 'over' };

export interface Rules {
  readonly startCash: number;
  readonly goSalary: number;
  readonly bail: number;
  /** 0: play until one player is left. */
  readonly rounds: number;
  readonly houses: number;
  readonly hotels: number;
  /** House rule (off by default): taxes, fines and fees paid to the bank go to a pot that landing on Free Parking collects. */
  readonly freeParkingPot: boolean;
  /** Trade offers a player may make in one turn, so that a player cannot stall the table with offers. */
  readonly offersPerTurn: number;
}

export interface MonopolyState {
  readonly rules: Rules;
  /** Players still in the game, in seat order. */
  readonly players: readonly string[];
  readonly cash: Readonly<Record<string, number>>;
  readonly position: Readonly<Record<string, number>>;
  /** Failed tries to roll out of jail; absent when free. */
  readonly jail: Readonly<Record<string, number>>;
  /** Get Out of Jail Free cards held, by the pile they came from. */
  readonly cards: Readonly<Record<string, readonly Pile[]>>;
  /** Indexes (into the canonical pile) of the cards still in each pile. */
  readonly piles: Readonly<Record<Pile, readonly number[]>>;
  /** Owned squares, by square number. */
  readonly deeds: Readonly<Record<string, Holding>>;
  readonly bank: { readonly houses: number; readonly hotels: number };
  readonly pot: number;
  readonly mover: string;
  /** Doubles rolled so far in the mover's turn. */
  readonly doubles: number;
  /** The mover rolls again once the stage is settled (it rolled doubles and is still free). */
  readonly again: boolean;
  readonly offers: number;
  readonly stage: Stage;
  readonly debts: readonly Debt[];
  /** A square the mover may buy once its debts are settled. */
  readonly buy: number | null;
  /** Where play goes once every debt is paid: on after the roll (buy, roll again, next turn) or back to the mover's turn decision. */
  readonly resume: 'roll' | 'turn';
  /** Every player of the game in seat order, out or not: the turn passes to the next seat still in. */
  readonly seats: readonly string[];
  readonly round: number;
  readonly turns: number;
  /** Players out, in the order they went bankrupt (or forfeited). */
  readonly out: readonly string[];
  /** The last roll, for the board summary. */
  readonly lastRoll: readonly number[] | null;
}

/** A state being changed by one step: the same members, writable. */
export interface Draft {
  rules: Rules;
  players: string[];
  cash: Record<string, number>;
  position: Record<string, number>;
  jail: Record<string, number>;
  cards: Record<string, readonly Pile[]>;
  piles: Record<Pile, readonly number[]>;
  deeds: Record<string, Holding>;
  bank: { houses: number; hotels: number };
  pot: number;
  mover: string;
  doubles: number;
  again: boolean;
  offers: number;
  stage: Stage;
  debts: Debt[];
  buy: number | null;
  resume: 'roll' | 'turn';
  seats: readonly string[];
  round: number;
  turns: number;
  out: string[];
  lastRoll: readonly number[] | null;
  /** What happened in this step, for the turn's public summary. */
  log: JsonValue[];
}

export function draft(s: MonopolyState): Draft {
  return {
    ...s,
    players: [...s.players],
    cash: { ...s.cash },
    position: { ...s.position },
    jail: { ...s.jail },
    cards: { ...s.cards },
    piles: { ...s.piles },
    deeds: { ...s.deeds },
    bank: { ...s.bank },
    debts: [...s.debts],
    out: [...s.out],
    log: [],
  };
}

export function finish(d: Draft): MonopolyState {
  const { log: _log, ...state } = d;
  return state as MonopolyState;
}

export function readRules(params: { readonly [key: string]: JsonValue }): Rules {
  const flag = (name: string): boolean => {
    const v = params[name] ?? false;
    if (typeof v !== 'boolean') throw new FairtableError('out_of_range', `game parameter ${name} must be true or false`, { field: name });
    return v;
  };
  return {
    startCash: numberParam(params, 'startCash', 1500, 0, 1_000_000_000),
    goSalary: numberParam(params, 'goSalary', 200, 0, 1_000_000_000),
    bail: numberParam(params, 'bail', 50, 0, 1_000_000_000),
    rounds: numberParam(params, 'rounds', 0, 0, 1_000_000),
    houses: numberParam(params, 'houses', 32, 0, 10_000),
    hotels: numberParam(params, 'hotels', 12, 0, 10_000),
    freeParkingPot: flag('freeParkingPot'),
    offersPerTurn: numberParam(params, 'offersPerTurn', 3, 0, 100),
  };
}

export function initialState(
  players: readonly string[],
  params: { readonly [key: string]: JsonValue },
  chanceCount: number,
  chestCount: number,
): MonopolyState {
  if (players.length < 2) throw new FairtableError('out_of_range', 'Monopoly needs at least two players', { field: 'players' });
  const rules = readRules(params);
  return {
    rules,
    players: [...players],
    cash: Object.fromEntries(players.map((p) => [p, rules.startCash])),
    position: Object.fromEntries(players.map((p) => [p, 0])),
    jail: {},
    cards: {},
    piles: { chance: Array.from({ length: chanceCount }, (_, i) => i), chest: Array.from({ length: chestCount }, (_, i) => i) },
    deeds: {},
    bank: { houses: rules.houses, hotels: rules.hotels },
    pot: 0,
    mover: players[0]!,
    doubles: 0,
    again: false,
    offers: 0,
    stage: { kind: 'turn' },
    debts: [],
    buy: null,
    resume: 'roll',
    seats: [...players],
    round: 0,
    turns: 0,
    out: [],
    lastRoll: null,
  };
}

export const ownerOf = (d: { readonly deeds: Readonly<Record<string, Holding>> }, square: number): string | null => d.deeds[square]?.owner ?? null;

export function ownedBy(d: { readonly deeds: Readonly<Record<string, Holding>> }, player: string): number[] {
  return Object.entries(d.deeds)
    .filter(([, h]) => h.owner === player)
    .map(([k]) => Number(k))
    .sort((a, b) => a - b);
}
