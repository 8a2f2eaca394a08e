/**
 * The diplomacy machine's saved state (docs/spec/mail.md §2.1): after every line of games played honestly and
 * with cheats, escrow on, the state saved as JSON and loaded again is the very state (no value lost or changed
 * by JSON, no key added or dropped), and a referee that goes on from a snapshot taken mid-game ends where the
 * uninterrupted one ends: the same state, the same violations naming the same cheater, the same outcome.
 */
import { describe, expect, it } from 'vitest';
import { simulate } from '@fairtable/core/testing';
import { Referee, type RefereeSnapshot } from '@fairtable/core/referee.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { diplomacyRegistry } from './index.js';
import { diplomacy } from './machine.js';
import { diplomacySim } from './sim.js';
import type { DiplomacyState } from './state.js';

/** OpenSSL's Ed25519 (the same signatures and verdicts as noble's): what is tested is the machine's state. */
const ed25519 = { sign: nativeSign, verify: nativeVerify } as const;
const options = { registry: diplomacyRegistry, verify: nativeVerify } as const;

describe('the diplomacy machine saves and loads its state', () => {
  for (const [cheat, params] of [
    [undefined, { assign: 'weighted', escrow: 'threshold' }],
    ['withhold', { assign: 'fixed', escrow: 'threshold' }],
    ['withhold', { assign: 'fixed', escrow: 'layers' }],
    ['layers-bad-box', { assign: 'weighted', escrow: 'layers' }],
    ['disagree', { assign: 'serial' }],
  ] as const) {
    it(`${cheat ?? 'honest'} (${JSON.stringify(params)}): every line's state survives JSON, and a referee resumed mid-game ends the same`, () => {
      const r = simulate({
        protocol: 'diplomacy',
        extension: diplomacySim,
        registry: diplomacyRegistry,
        players: 4,
        seed: new Uint8Array(32).fill(21),
        params: { years: 1, ...params },
        ...(cheat === undefined ? {} : { cheat, cheater: 'p1' }),
        ...ed25519,
      });
      const lines = r.lines;
      const whole = new Referee<DiplomacyState>(lines[0]!, null, undefined, options);
      const middle = Math.floor(lines.length / 2);
      let snapshot: RefereeSnapshot | null = null;
      lines.slice(1).forEach((text, i) => {
        whole.feedText(i + 1, text);
        const saved = JSON.parse(JSON.stringify(whole.save())) as RefereeSnapshot;
        expect(diplomacy.loadState!(saved.state, whole.checker.setup, whole.checker.gameId, null)).toStrictEqual(whole.state);
        if (i + 1 === middle) snapshot = saved;
      });
      expect(snapshot).not.toBeNull();
      const resumed = new Referee<DiplomacyState>(lines[0]!, null, undefined, options, snapshot!);
      lines.slice(middle + 1).forEach((text, i) => resumed.feedText(middle + 1 + i, text));
      expect(resumed.state).toStrictEqual(whole.state);
      expect(resumed.violations).toEqual(whole.violations);
      expect(resumed.outcome()).toEqual(whole.outcome());
      expect(whole.outcome()).not.toBeNull();
      // The cheater, and only the cheater, is named; an honest game names nobody.
      const named = new Set(whole.violations.map((v) => v.player).filter((p) => p !== null));
      if (cheat === undefined || cheat === 'withhold') expect([...named]).toEqual([]);
      else expect([...named]).toEqual(['p1']);
    });
  }
});
