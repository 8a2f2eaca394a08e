/**
 * Snakes & Ladders (docs/SPEC.md §8) on scripted dice, against results worked
 * out by hand: a die showing d is the draw `[6, d − 1]`.
 */
import { describe, expect, it } from 'vitest';
import { ScriptedChance } from '../chance.js';
import { snakesGame, type SnakesState } from './snakes.js';

function from(at: number, other = 0, params = {}): SnakesState {
  const s = snakesGame.init(['a', 'b'], params);
  return { ...s, positions: { a: at, b: other } };
}

function play(s: SnakesState, d: number, mover = 'a'): { state: SnakesState; summary: unknown } {
  const chance = new ScriptedChance([[6, d - 1]]);
  const r = snakesGame.play(s, mover, chance, null);
  expect(chance.exhausted).toBe(true);
  return r;
}

describe('snakes and ladders', () => {
  it('a plain square', () => {
    expect(play(from(0), 2).summary).toEqual({ roll: 2, from: 0, to: 2, via: null });
  });

  it('a ladder climbs (1 → 38 from the start; 28 → 84)', () => {
    expect(play(from(0), 1).summary).toEqual({ roll: 1, from: 0, to: 38, via: 'ladder' });
    expect(play(from(25), 3).state.positions.a).toBe(84);
  });

  it('a snake slides down (16 → 6; 98 → 78)', () => {
    expect(play(from(10), 6).summary).toEqual({ roll: 6, from: 10, to: 6, via: 'snake' });
    expect(play(from(94), 4).state.positions.a).toBe(78);
  });

  it('a roll past 100 leaves the piece where it was', () => {
    const r = play(from(97), 4);
    expect(r.summary).toEqual({ roll: 4, from: 97, to: 97, via: null });
    expect(snakesGame.winners(r.state)).toBeNull();
    // 99 + 1 lands exactly and wins; 99 + 2 does not move.
    expect(play(from(99), 2).state.positions.a).toBe(99);
  });

  it('landing exactly on 100 wins, and so does the ladder 80 → 100', () => {
    const exact = play(from(96), 4).state;
    expect(exact.positions.a).toBe(100);
    expect(snakesGame.winners(exact)).toEqual(['a']);
    const ladder = play(from(75, 0), 5).state;
    expect(ladder.positions.a).toBe(100);
    expect(snakesGame.winners(ladder)).toEqual(['a']);
  });

  it('after maxRounds rounds the furthest players win, ties share', () => {
    const s = from(0, 0, { maxRounds: 1 });
    const one = play(s, 3).state; // a: 3
    expect(snakesGame.winners(one)).toBeNull();
    expect(snakesGame.winners(play(one, 2, 'b').state)).toEqual(['a']);
    expect(snakesGame.winners(play(one, 3, 'b').state)).toEqual(['a', 'b']);
  });

  it('the last player left wins', () => {
    expect(snakesGame.winners(snakesGame.forfeit(from(0), 'b'))).toEqual(['a']);
  });

  it('says in words where the pieces stand and what each turn rolled', () => {
    const t = (d: number, at: number): string => snakesGame.turnText!('a', play(from(at), d).summary as never);
    expect(t(2, 0)).toBe('a rolled 2: 0 to 2');
    expect(t(3, 18)).toBe('a rolled 3: 18 to 21, up a ladder to 42');
    expect(t(2, 45)).toBe('a rolled 2: 45 to 47, down a snake to 26');
    expect(t(3, 99)).toBe('a rolled 3: stays on 99 (past 100)');
    const s = play(from(0), 5).state;
    expect(snakesGame.standing!(s)).toEqual(['Snakes & Ladders: 1 turn played; the first on square 100 wins.', 'Positions: a on 5, b on 0.']);
  });
});
