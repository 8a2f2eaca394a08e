/**
 * Lossy networks (docs/SPEC.md §7.4, §10): whatever the network drops, duplicates, delays or reorders, an
 * honest player is never named. A claim that a late message overtook is a race, never held against its
 * author; a seat asks again for what it missed; an honest claimant waits half a timeout past the deadline.
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

  it('any protocol, any seed, up to half the messages lost, some duplicated, all reordered', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SIM_PROTOCOLS),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
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
      { numRuns: 24 },
    );
  });
});
