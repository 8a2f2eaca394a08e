import { describe, expect, it } from 'vitest';
import { outcomeHeadline } from '../apps/web/src/labels.js';

describe("the web app's words for a finished game", () => {
  it('names one winner, says a tie is shared, and that roulette ends with no winner by design', () => {
    expect(outcomeHeadline(['ann'], 'chain')).toBe('Game over: ann won');
    expect(outcomeHeadline(['ann', 'bob'], 'chain')).toBe('Game over: a tie, ann and bob share the win');
    expect(outcomeHeadline(['ann', 'bob', 'cy'], 'rochambeau')).toBe('Game over: a tie, ann, bob and cy share the win');
    expect(outcomeHeadline([], 'signidice')).toMatch(/^Game over: every round is played; roulette has no winner/);
    expect(outcomeHeadline([], 'beacon')).toBe('Game over: nobody won');
  });
});
