/**
 * Test vector for the assignment round's escrow (docs/spec/diplomacy.md §10.5.1), computed independently
 * with Python's hashlib and cryptography: the contexts that name the stage, the escrow key of each, the
 * opening sealed under each byte for byte, and neither opening as the other.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toHex, utf8 } from '@fairtable/core/bytes.js';
import { commitmentOf, type Opening } from '@fairtable/core/commitment.js';
import { escrowKey, openEscrowedValue, sealValue } from '@fairtable/core/escrow/vss.js';
import { canonicalize, type JsonValue } from '@fairtable/core/jcs.js';
import { readAssignValue } from './assign-escrow.js';
import { valueContext } from './escrow.js';
import type { DiplomacyState } from './machine.js';

const v = JSON.parse(readFileSync(new URL('../testdata/assign-escrow-vectors.json', import.meta.url), 'utf8')) as {
  game: string;
  round: number;
  dealer: string;
  secret: string;
  opening: Opening;
  commitment: string;
  contexts: { powers: string; orders: string };
  keys: { powers: string; orders: string };
  sealed: { powers: string; orders: string };
};

describe('assignment escrow vector', () => {
  const stateIn = (stage: 'assign' | 'play'): DiplomacyState =>
    ({ gameId: v.game, stage, players: ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6'] }) as unknown as DiplomacyState;
  const secret = BigInt(v.secret);
  const plain = utf8(canonicalize(v.opening as unknown as JsonValue));

  it('the contexts name the stage; keys and sealed values byte for byte', () => {
    expect(valueContext(stateIn('assign'), v.round, v.dealer)).toBe(v.contexts.powers);
    expect(valueContext(stateIn('play'), v.round, v.dealer)).toBe(v.contexts.orders);
    for (const stage of ['powers', 'orders'] as const) {
      expect(toHex(escrowKey(secret, v.contexts[stage]))).toBe(v.keys[stage]);
      expect(sealValue(plain, secret, v.contexts[stage])).toBe(v.sealed[stage]);
      expect(openEscrowedValue(v.sealed[stage], secret, v.contexts[stage])).toEqual(plain);
    }
    expect(v.keys.powers).not.toBe(v.keys.orders);
  });

  it('an assignment escrow never opens as an orders escrow, nor the other way', () => {
    expect(() => openEscrowedValue(v.sealed.powers, secret, v.contexts.orders)).toThrow(/does not open/);
    expect(() => openEscrowedValue(v.sealed.orders, secret, v.contexts.powers)).toThrow(/does not open/);
  });

  it('the opening is a commitment of round 0 and a value in the notation', () => {
    expect(commitmentOf({ game: v.game, player: v.dealer, purpose: `diplomacy/${v.round}` }, v.opening)).toBe(v.commitment);
    expect(readAssignValue(stateIn('assign'), v.dealer, v.opening.value)).toMatchObject({ random: (v.opening.value as { random: string }).random });
  });
});
