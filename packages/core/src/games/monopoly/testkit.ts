/**
 * Helpers for Monopoly's rule tests (docs/spec/monopoly.md): states built by
 * hand, rolls on scripted draws (a die showing d is `[6, d − 1]`, the k-th of
 * the Y cards left in a pile is `[Y, k]`), answers applied as the machines
 * apply them. Used by the tests only.
 */
import { ScriptedChance } from '../../chance.js';
import type { JsonValue } from '../../jcs.js';
import { CHANCE, COMMUNITY_CHEST } from './cards.js';
import { monopolyGame } from './index.js';
import type { Holding, MonopolyState } from './state.js';

export const die = (d: number): [number, number] => [6, d - 1];
export const dice = (a: number, b: number): [number, number][] => [die(a), die(b)];

export function game(over: Partial<MonopolyState> = {}, players = ['a', 'b', 'c'], params: Record<string, JsonValue> = {}): MonopolyState {
  return deepFreeze({ ...monopolyGame.init(players, params), ...over });
}

export const own = (owner: string, houses = 0, mortgaged = false): Holding => ({ owner, houses, mortgaged });

/** The mover's roll on exactly these draws (a script left over, or too short, fails the test). */
export function roll(s: MonopolyState, draws: [number, number][]): MonopolyState {
  const chance = new ScriptedChance(draws);
  const next = monopolyGame.play(s, s.mover, chance, null).state;
  if (!chance.exhausted) throw new Error('the script holds draws the roll did not use');
  return deepFreeze(next);
}

export function answer(s: MonopolyState, answers: Record<string, JsonValue>): MonopolyState {
  return deepFreeze(monopolyGame.answer(s, answers).state);
}

/** The mover decides to roll, then rolls. */
export function turn(s: MonopolyState, draws: [number, number][]): MonopolyState {
  return roll(answer(s, { [s.mover]: { do: 'roll' } }), draws);
}

export const chanceCard = (prefix: string): number => CHANCE.findIndex((c) => c.text.startsWith(prefix));
export const chestCard = (prefix: string): number => COMMUNITY_CHEST.findIndex((c) => c.text.startsWith(prefix));

/** The draw that picks canonical card `index` from a full pile of 16. */
export const fullPile = (index: number): [number, number] => [16, index];

export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
