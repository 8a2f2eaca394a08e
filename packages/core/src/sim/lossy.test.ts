/**
 * Lossy networks (docs/SPEC.md §7.4, §10): whatever the network drops, duplicates, delays or reorders, an
 * honest player is not named, unless it is cut off from the table for longer than a timeout and a half. A
 * claim that a late message overtook is a race, never held against its author; a seat asks again for what
 * it missed; an honest claimant waits half a timeout past the deadline.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { simulate, SIM_PROTOCOLS } from './simulate.js';
import { auditLines } from '../audit.js';

describe('lossy networks name no honest player', () => {
  it('the reported case: dice, 3 players, 3 turns, half of all messages lost', () => {
    for (let s = 1; s <= 4; s++) {
      const r = simulate({ protocol: 'dice', players: 3, turns: 3, drop: 0.5, seed: new Uint8Array(32).fill(s) });
      const v = auditLines(r.lines);
      expect(v.violations).toEqual([]);
      expect(v.outcome).not.toBeNull();
    }
  });

  // Up to 40 % lost, not half: a player whose every round trip to the table is lost for longer than a timeout
  // and a half is named `withheld`, honest or not (docs/SPEC.md §7.4, "Limit"). Measured: 2 of 400 games at 45 to 50 %
  // loss named an honest player so, none of 400 at 35 to 40 %. Seeded, so that a run is reproducible: with a
  // random seed this test once found such a game at 49.9 % loss (snakes, in SPEC) and then shrank it for minutes.
  it('any protocol, any seed, up to 40 % of messages lost, some duplicated, all reordered', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SIM_PROTOCOLS),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.double({ min: 0, max: 0.4, noNaN: true }),
        fc.double({ min: 0, max: 0.2, noNaN: true }),
        (protocol, seed, drop, duplicate) => {
          const r = simulate({ protocol, players: 3, turns: 2, drop, duplicate, maxDelay: 80, seed });
          const v = auditLines(r.lines);
          // Both the auditor and an honest player's own referee: nobody is named, and the game ends.
          expect(v.violations.filter((x) => x.player !== null)).toEqual([]);
          expect(r.violations.filter((x) => x.player !== null)).toEqual([]);
          expect(v.outcome).not.toBeNull();
        },
      ),
      { numRuns: 24, seed: 9 },
    );
  });
});
