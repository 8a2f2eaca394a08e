/** The dice game (docs/SPEC.md §8) on scripted draws, against sums worked out by hand. */
import { describe, expect, it } from 'vitest';
import { ScriptedChance } from '../chance.js';
import { diceGame, type DiceState } from './dice.js';

function play(s: DiceState, mover: string, faces: number[]): DiceState {
  const chance = new ScriptedChance(faces.map((f) => [s.sides, f - 1] as [number, number]));
  const next = diceGame.play(s, mover, chance, null).state;
  expect(chance.exhausted).toBe(true);
  return next;
}

describe('dice', () => {
  it('each turn adds the sum of the dice; after the rounds the highest score wins', () => {
    let s = diceGame.init(['a', 'b', 'c'], { rounds: 1 });
    s = play(s, 'a', [6, 5]);
    s = play(s, 'b', [1, 2]);
    expect(diceGame.winners(s)).toBeNull();
    s = play(s, 'c', [4, 4]);
    expect(s.scores).toEqual({ a: 11, b: 3, c: 8 });
    expect(diceGame.winners(s)).toEqual(['a']);
  });

  it('a tie shares the win', () => {
    let s = diceGame.init(['a', 'b', 'c'], { rounds: 1 });
    s = play(s, 'a', [6, 1]);
    s = play(s, 'b', [2, 2]);
    s = play(s, 'c', [3, 4]);
    expect(diceGame.winners(s)).toEqual(['a', 'c']);
  });

  it('other dice: three d20 over two rounds', () => {
    let s = diceGame.init(['a', 'b'], { dice: 3, sides: 20, rounds: 2 });
    s = play(s, 'a', [20, 1, 1]);
    s = play(s, 'b', [10, 10, 1]);
    s = play(s, 'a', [1, 1, 1]);
    expect(diceGame.winners(s)).toBeNull();
    s = play(s, 'b', [1, 1, 1]);
    expect(s.scores).toEqual({ a: 25, b: 24 });
    expect(diceGame.winners(s)).toEqual(['a']);
  });

  it('a player who forfeits cannot win; the last one left does', () => {
    let s = diceGame.init(['a', 'b'], { rounds: 5 });
    s = play(s, 'a', [6, 6]);
    expect(diceGame.winners(diceGame.forfeit(s, 'a'))).toEqual(['b']);
  });

  it('says in words where the game stands and what each turn rolled', () => {
    let s = diceGame.init(['a', 'b'], { rounds: 2 });
    const first = diceGame.play(
      s,
      'a',
      new ScriptedChance([
        [6, 2],
        [6, 4],
      ]),
      null,
    );
    s = play(s, 'a', [3, 5]);
    expect(diceGame.turnText!('a', first.summary)).toBe('a rolled 3 + 5 = 8');
    expect(diceGame.standing!(s)).toEqual(['Dice: 2d6 a turn, 2 rounds; 1 of 4 turns played.', 'Scores: a 8, b 0.']);
    expect(diceGame.standing!(diceGame.forfeit(s, 'b'))[1]).toBe('Scores: a 8, b 0 (out).');
  });
});
