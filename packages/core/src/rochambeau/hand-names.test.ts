/** The hands' names agree with Figure 1: each named hand beats exactly what it beats in the game people know. */
import { describe, expect, it } from 'vitest';
import { handName, handNames } from './hand-names.js';
import { rochambeau } from './judge.js';

const BEATS: Record<string, readonly string[]> = {
  rock: ['scissors', 'lizard'],
  paper: ['rock', 'Spock'],
  scissors: ['paper', 'lizard'],
  lizard: ['Spock', 'paper'],
  Spock: ['scissors', 'rock'],
};

describe('hand names', () => {
  for (const N of [3, 5]) {
    it(`${N} states: every pair of named hands plays as in the usual game`, () => {
      const names = handNames(N)!;
      expect(new Set(names).size).toBe(N);
      for (let i = 0; i < N; i++)
        for (let j = 0; j < N; j++) {
          const [a, b] = [names[i]!, names[j]!];
          const usual = a === b ? 'tie' : BEATS[a]!.includes(b) ? 'win' : 'lose';
          if (usual === 'lose') expect(BEATS[b]!.includes(a), `${b} beats ${a}`).toBe(true);
          expect(rochambeau(BigInt(i), BigInt(j), BigInt(N)), `${a} against ${b}`).toBe(usual);
        }
    });
  }

  it('other numbers of states have no names', () => {
    expect(handNames(7)).toBeNull();
    expect(handName(4, '7')).toBe('4');
    expect(handName(2, '3')).toBe('2 (paper)');
    expect(handName('2', 5n)).toBe('2 (Spock)');
  });
});
