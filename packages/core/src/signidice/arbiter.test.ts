import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { simulate } from '../sim/simulate.js';
import { auditLines } from '../audit.js';
import { checkHouseKey } from './house-key.js';
import { betError, payout } from './roulette.js';

type Summary = { balances: Record<string, number>; escrow: number; lucky: number[]; rounds: number };

describe('Signidice', () => {
  it('conserves money: balances plus escrow always add up to what was put in', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.integer({ min: 1, max: 4 }), (seed, players) => {
        const r = simulate({ protocol: 'signidice', players, seed, turns: 2 });
        const v = auditLines(r.lines);
        expect(v.valid).toBe(true);
        const s = v.outcome!.summary as Summary;
        const total = Object.values(s.balances).reduce((a, b) => a + b, 0) + s.escrow;
        expect(s.escrow).toBe(0);
        expect(total).toBe(100_000 + 1000 * players);
        expect(s.lucky).toHaveLength(2 * players);
        for (const l of s.lucky) expect(l >= 0 && l <= 36).toBe(true);
      }),
      { numRuns: 8 },
    );
  });

  it('a house that withholds pays the bounty and refunds the bets', () => {
    const r = simulate({ protocol: 'signidice', players: 2, seed: new Uint8Array(32).fill(2), cheat: 'house-withhold' });
    // The claim naming the house is the game's last line: the seats, which saw the log live, name it and
    // settle; an audit of the file alone names nobody on it (the unvouched tail, docs/SPEC.md §4.4).
    const s = r.outcome!.summary as Summary;
    expect(r.violations.map((x) => [x.code, x.player])).toContainEqual(['withheld', 'house']);
    const v = auditLines(r.lines);
    expect(v.violations[0]).toMatchObject({ code: 'withheld', player: null });
    expect(v.violations[0]!.message).toMatch(/deadline claim names house withheld/);
    expect(s.balances.p0).toBe(1500);
    expect(s.balances.p1).toBe(1500);
    expect(s.balances.house).toBe(99_000);
  });

  it('refuses non-unique signature schemes by name', () => {
    expect(() => checkHouseKey({ scheme: 'ecdsa', publicKey: '00' })).toThrow(/not unique/);
    expect(() => checkHouseKey({ scheme: 'ed25519', publicKey: '00'.repeat(32) })).toThrow(/not unique/);
    expect(() => checkHouseKey({ scheme: 'rsa-fdh-vrf', publicKey: { n: 'ff', e: '010001' } })).toThrow();
    expect(checkHouseKey({ scheme: 'ecvrf-ell2', publicKey: '11'.repeat(32) }).scheme).toBe('ecvrf-ell2');
  });

  it('pays roulette as the table says', () => {
    expect(payout({ kind: 'straight', pick: 17, amount: 1 }, 17)).toBe(35);
    expect(payout({ kind: 'red', pick: null, amount: 1 }, 0)).toBe(0);
    expect(payout({ kind: 'red', pick: null, amount: 1 }, 1)).toBe(1);
    expect(payout({ kind: 'black', pick: null, amount: 1 }, 2)).toBe(1);
    expect(payout({ kind: 'even', pick: null, amount: 1 }, 0)).toBe(0);
    expect(payout({ kind: 'odd', pick: null, amount: 1 }, 35)).toBe(1);
    expect(payout({ kind: 'dozen', pick: 3, amount: 1 }, 36)).toBe(2);
    expect(payout({ kind: 'dozen', pick: 1, amount: 1 }, 13)).toBe(0);
    expect(betError('roulette', { kind: 'straight', pick: 37, amount: 1 })).not.toBeNull();
    expect(betError('roulette', { kind: 'red', pick: null, amount: 0 })).not.toBeNull();
    expect(betError('dice', { kind: 'face', pick: 6, amount: 5 })).toBeNull();
  });
});
