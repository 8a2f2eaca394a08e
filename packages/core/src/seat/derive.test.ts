/**
 * The derivation of a seat's secrets (docs/SPEC.md §10.2, "A seat follows its key"), checked byte for byte
 * against vectors computed by an independent implementation; and what it must never do: give two steps,
 * two games, two players or two keys the same draws.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex, utf8 } from '../bytes.js';
import { canonicalize } from '../jcs.js';
import { seatSecretSeed, seatSecretSource, type SeatStep } from './derive.js';

interface Case {
  secretKey: string;
  game: string;
  player: string;
  step: SeatStep;
  preimage: string;
  seed: string;
  bytes80: string;
}
const vectors = JSON.parse(readFileSync(fileURLToPath(new URL('../vectors/seat-secrets.json', import.meta.url)), 'utf8')) as { cases: Case[] };

describe('seat secrets from the key', () => {
  it('match the vectors byte for byte: the preimage, the seed, the first 80 bytes drawn in pieces', () => {
    expect(vectors.cases.length).toBeGreaterThanOrEqual(6);
    for (const c of vectors.cases) {
      expect(canonicalize({ game: c.game, key: c.secretKey, player: c.player, step: c.step } as never)).toBe(c.preimage);
      expect(toHex(seatSecretSeed(fromHex(c.secretKey), c.game, c.player, c.step))).toBe(c.seed);
      const draw = seatSecretSource(fromHex(c.secretKey), c.game, c.player, c.step);
      // Draws of any sizes are successive bytes of one stream.
      const parts = [draw(32), draw(1), draw(15), draw(32)];
      expect(parts.map(toHex).join('')).toBe(c.bytes80);
    }
  });

  it('differ for every step, game, player and key', () => {
    const key = new Uint8Array(32).fill(1);
    const seeds = new Set<string>();
    const steps: SeatStep[] = [
      { kind: 'start' },
      { kind: 'line', line: 1 },
      { kind: 'line', line: 2 },
      { kind: 'decision', n: 0 },
      { kind: 'decision', n: 1 },
      { kind: 'tick', lines: 1 },
    ];
    for (const game of ['aa'.repeat(32), 'ab'.repeat(32)])
      for (const player of ['ann', 'bob'])
        for (const k of [key, new Uint8Array(32).fill(2)]) for (const step of steps) seeds.add(toHex(seatSecretSeed(k, game, player, step)));
    expect(seeds.size).toBe(2 * 2 * 2 * steps.length);
  });

  it('refuse a key that is not 32 bytes', () => {
    expect(() => seatSecretSeed(utf8('short'), 'aa'.repeat(32), 'ann', { kind: 'start' })).toThrow(/32 bytes/);
  });
});
