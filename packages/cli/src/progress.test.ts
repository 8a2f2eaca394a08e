import { describe, expect, it } from 'vitest';
import { progressLine } from './progress.js';

describe("play's progress lines", () => {
  it("says a spin with what it won or lost, an escrow opened, and nothing of the machine's own events", () => {
    expect(progressLine({ type: 'spin', round: 2, player: 'bob', lucky: 17, bet: { kind: 'straight', amount: 5 }, won: -5 })).toBe(
      'round 2: bob bet {"kind":"straight","amount":5}; the wheel gave 17: lost 5',
    );
    expect(progressLine({ type: 'spin', round: 3, player: 'bob', lucky: 17, bet: { kind: 'straight', amount: 5 }, won: 175 })).toMatch(/: won 175$/);
    expect(progressLine({ type: 'escrow-opened', player: 'cy' })).toMatch(/^cy did not reveal; .*nobody is named/);
    expect(progressLine({ type: 'something-internal' })).toBeNull();
  });
});
