import { describe, expect, it } from 'vitest';
import { simulate, SIM_PROTOCOLS } from './simulate.js';
import { CHEATS, type Cheat } from './player.js';
import { auditLines } from '../audit.js';

/** The violation each cheat must produce, per protocol family; the cheater is always named. */
function expectedCode(protocol: string, cheat: Cheat): string {
  switch (cheat) {
    case 'wrong-opening':
      return protocol === 'keyed-stream' ? 'audit_mismatch' : 'commit_mismatch';
    case 'equivocate':
      return 'equivocation';
    case 'replay':
      return 'wrong_game';
    case 'withhold':
      return 'withheld';
    case 'forge':
      return 'bad_signature';
    case 'out-of-turn':
      return 'out_of_turn';
    case 'tamper':
      return 'broken_chain';
  }
}

describe('every cheat on every protocol is caught and the cheater named', () => {
  for (const protocol of SIM_PROTOCOLS) {
    it(`${protocol}: honest play on a lossy, duplicating, reordering network is valid`, () => {
      const r = simulate({ protocol, players: 3, seed: new Uint8Array(32).fill(9), turns: 2, drop: 0.1, duplicate: 0.1, maxDelay: 50 });
      const verdict = auditLines(r.lines);
      expect(verdict.violations).toEqual([]);
      expect(verdict.valid).toBe(true);
      expect(verdict.outcome).not.toBeNull();
    });
    for (const cheat of CHEATS) {
      it(`${protocol}: ${cheat}`, () => {
        const cheater = 'p2';
        const r = simulate({ protocol, players: 3, seed: new Uint8Array(32).fill(11), turns: 2, cheat, cheater, drop: 0.05, duplicate: 0.05 });
        const verdict = auditLines(r.lines);
        expect(verdict.valid).toBe(false);
        const first = verdict.violations[0]!;
        expect(first.code).toBe(expectedCode(protocol, cheat));
        expect(first.player).toBe(cheater);
        expect(first.evidence.length).toBeGreaterThan(0);
        // No honest player is ever blamed.
        for (const v of verdict.violations) expect([cheater, null]).toContain(v.player);
        // The honest players' own referees saw the same thing live (tamper happens after the game).
        if (cheat !== 'tamper') expect(r.violations.some((v) => v.code === first.code && v.player === cheater)).toBe(true);
      });
    }
  }
});

describe('the beacon among many players', () => {
  it('100 players agree on one seed in two broadcast rounds', () => {
    const r = simulate({ protocol: 'beacon', players: 100, seed: new Uint8Array(32).fill(5) });
    expect(r.lines.length).toBe(1 + 200);
    const verdict = auditLines(r.lines);
    expect(verdict.valid).toBe(true);
    const seeds = (verdict.outcome!.summary as { seeds: { seed: string }[] }).seeds;
    expect(seeds).toHaveLength(1);
    expect(seeds[0]!.seed).toMatch(/^[0-9a-f]{64}$/);
  });
});
