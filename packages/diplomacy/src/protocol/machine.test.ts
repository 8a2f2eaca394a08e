import { describe, expect, it } from 'vitest';
import { simulate } from '@fairtable/core/testing';
import { auditLines } from '@fairtable/core/audit.js';
import { diplomacyRegistry } from './index.js';
import { diplomacySim } from './sim.js';

const seed = (n: number): Uint8Array => new Uint8Array(32).fill(n);

describe('diplomacy machine: honest play', () => {
  it('7 players, fixed powers, one year', () => {
    const r = simulate({ protocol: 'diplomacy', extension: diplomacySim, registry: diplomacyRegistry, players: 7, seed: seed(1), params: { assign: 'fixed', years: 1 } });
    const v = auditLines(r.lines, { registry: diplomacyRegistry });
    expect(v.violations).toEqual([]);
    expect(v.valid).toBe(true);
    console.log(r.lines.length, JSON.stringify(v.outcome));
  });
});
