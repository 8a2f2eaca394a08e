/**
 * Differential test: the Diplomacy position hash (packages/diplomacy,
 * docs/spec/diplomacy.md §4) against an independent Python implementation
 * written from the spec (test/python/diplomacy_position_hash.py, standard
 * library only), on positions from random play with their lists shuffled.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { adjudicate, positionHash, randomOrders, seededBelow, standardMap as map, startingPosition, type Position } from '@fairtable/diplomacy';

const script = fileURLToPath(new URL('./python/diplomacy_position_hash.py', import.meta.url));

describe('diplomacy position hash against Python', () => {
  it('agrees on the positions of a random game (up to 300 phases), whatever the order of their lists', () => {
    const below = seededBelow(303);
    const shuffle = <T>(xs: readonly T[]): T[] => {
      const out = [...xs];
      for (let i = out.length - 1; i > 0; i--) {
        const j = below(i + 1);
        [out[i], out[j]] = [out[j] as T, out[i] as T];
      }
      return out;
    };
    const positions: Position[] = [];
    let position = startingPosition(map);
    for (let k = 0; k < 300; k++) {
      positions.push(position);
      if (position.winner !== null) break;
      const orders = map.powers.flatMap((power) => randomOrders(map, position, power, below).map((text) => ({ power, text })));
      position = adjudicate(map, position, orders).position;
    }
    expect(new Set(positions.map((p) => p.phase.type)).size).toBe(3);
    const input = positions
      .map((p) => JSON.stringify({ ...p, units: shuffle(p.units), supplyCenterOwners: shuffle(p.supplyCenterOwners), dislodged: shuffle(p.dislodged) }))
      .join('\n');
    const run = spawnSync('python3', [script], { input, encoding: 'utf8' });
    if (run.error) throw run.error;
    expect(run.stderr).toBe('');
    expect(run.stdout.trim().split('\n')).toEqual(positions.map((p) => positionHash(map, p)));
  });
});
