/**
 * The diplomacy machine is pure (docs/SPEC.md §7): every state handed to it is deep-frozen first, so a
 * write into it throws, and games are played through the simulator honestly and with cheats, escrow on (the assignment round's too).
 */
import { describe, expect, it } from 'vitest';
import { frozenRegistry, simulate } from '@fairtable/core/testing';
import { Auditor } from '@fairtable/core/audit.js';
import { diplomacyRegistry } from './index.js';
import { diplomacySim } from './sim.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';

const registry = frozenRegistry(diplomacyRegistry);
/**
 * Signatures signed and checked with OpenSSL's Ed25519 (the same bytes and verdicts as noble's, packages/node's
 * differential test): what is tested here is the machine's purity, and noble's checks were most of the time.
 */
const ed25519 = { sign: nativeSign, verify: nativeVerify } as const;

describe('the diplomacy machine never changes the state it is given', () => {
  for (const [cheat, params] of [
    [undefined, { assign: 'weighted' }],
    ['withhold', { assign: 'fixed', escrow: 'threshold' }],
    ['layers-bad-box', { assign: 'fixed', escrow: 'layers' }],
    // In the assignment round (spec/diplomacy.md §10.5.1): a withheld value opened from shares, a bad box peeled past.
    ['withhold', { assign: 'weighted', escrow: 'threshold' }],
    ['layers-bad-box', { assign: 'weighted', escrow: 'layers' }],
    ['tampered-orders', { assign: 'serial' }],
    ['disagree', { assign: 'fixed' }],
  ] as const) {
    it(`${cheat ?? 'honest'} (${JSON.stringify(params)}) on frozen states`, () => {
      const r = simulate({
        protocol: 'diplomacy',
        extension: diplomacySim,
        registry,
        players: 7,
        seed: new Uint8Array(32).fill(21),
        params: { years: 1, ...params },
        drop: 0.05,
        ...(cheat === undefined ? {} : { cheat, cheater: 'p2' }),
        ...ed25519,
      });
      const a = new Auditor(r.lines[0]!, { registry, verify: nativeVerify });
      for (const l of r.lines.slice(1)) a.add(l);
      const v = a.verdict();
      expect(v.outcome).not.toBeNull();
      for (const x of v.violations) expect(['p2', null]).toContain(x.player);
      // A reveal withheld under escrow is opened and names nobody (spec/diplomacy.md §10.6.1): that game is valid.
      expect(v.valid).toBe(cheat === undefined || cheat === 'withhold');
    });
  }
});
