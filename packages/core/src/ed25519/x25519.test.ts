/**
 * X25519 to a player's Ed25519 key on the Edwards form (x25519.ts) gives noble's ladder bytes: keys with and
 * without their table, keys with a small-order component (which keep the ladder), and keys the ladder refuses.
 */
import { ED25519_TORSION_SUBGROUP, ed25519, x25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex, utf8 } from '../bytes.js';
import { taggedHash } from '../hash.js';
import { forgetRememberedKeys, knownKey, rememberedKeys, TABLE_FROM_USE } from './known-keys.js';
import { sharedSecretWithKey } from './x25519.js';

const bytesOf = (seed: string, i: number): Uint8Array => taggedHash('x25519-test', utf8(`${seed}/${i}`));

function ladder(scalar: Uint8Array, edwardsKey: Uint8Array): string {
  try {
    return toHex(x25519.getSharedSecret(scalar, ed25519.utils.toMontgomery(edwardsKey)));
  } catch {
    return 'refused';
  }
}
function ours(scalar: Uint8Array, edwardsKey: Uint8Array): string {
  try {
    return toHex(sharedSecretWithKey(scalar, edwardsKey));
  } catch {
    return 'refused';
  }
}

describe('X25519 to a remembered key', () => {
  it("gives the ladder's bytes for keys before and after their table, with scalars of every shape", () => {
    forgetRememberedKeys();
    const keys = Array.from({ length: 6 }, (_, i) => ed25519.getPublicKey(bytesOf('key', i)));
    const scalars = [
      ...Array.from({ length: 30 }, (_, i) => bytesOf('scalar', i)),
      new Uint8Array(32),
      new Uint8Array(32).fill(255),
      fromHex('0100000000000000000000000000000000000000000000000000000000000000'),
    ];
    for (const key of keys) for (const s of scalars) expect(ours(s, key)).toBe(ladder(s, key));
    expect(rememberedKeys().tables).toBe(keys.length);
  });

  it('keeps the ladder for a key with a small-order component, and refuses what the ladder refuses', () => {
    forgetRememberedKeys();
    const torsion = ED25519_TORSION_SUBGROUP.map((h) => ed25519.Point.fromBytes(fromHex(h), true));
    const clean = ed25519.Point.BASE.multiply(123456789n);
    const mixed = torsion.filter((t) => !t.is0()).map((t) => clean.add(t).toBytes());
    const small = ED25519_TORSION_SUBGROUP.map((h) => fromHex(h));
    for (const key of [...mixed, ...small]) {
      // Enough uses for a table where the key has a point at all.
      for (let i = 0; i < TABLE_FROM_USE; i++) knownKey(key);
      for (let i = 0; i < 5; i++) expect(ours(bytesOf('mixed', i), key), toHex(key)).toBe(ladder(bytesOf('mixed', i), key));
    }
    expect(small.map((k) => ours(bytesOf('small', 0), k)).every((r) => r === 'refused')).toBe(true);
  });
});
