/**
 * Position encoding and hash against the vectors in
 * testdata/position-vectors.json (docs/spec/diplomacy.md §4), and readPosition's
 * checks.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '@fairtable/core/jcs.js';
import { FairtableError } from '@fairtable/core/errors.js';
import vectors from './testdata/position-vectors.json' with { type: 'json' };
import { encodePosition, positionHash, readPosition, startingPosition } from './position.js';
import { standardMap as map } from './standard.js';

describe('position vectors', () => {
  for (const v of vectors.vectors) {
    it(v.name, () => {
      const position = readPosition(map, v.position);
      expect(canonicalize(encodePosition(map, position))).toBe(v.jcs);
      expect(positionHash(map, position)).toBe(v.hash);
    });
  }

  it('any change to a position changes the hash', () => {
    const start = startingPosition(map);
    const base = positionHash(map, start);
    const moved = { ...start, units: start.units.map((u, i) => (i === 0 ? { ...u, at: 'bla' } : u)) };
    expect(positionHash(map, readPosition(map, moved))).not.toBe(base);
    expect(positionHash(map, { ...start, phase: { ...start.phase, year: 1902 } })).not.toBe(base);
    expect(positionHash(map, { ...start, supplyCenterOwners: start.supplyCenterOwners.slice(1) })).not.toBe(base);
  });

  it('winter adjustments are the fall adjustment phase', () => {
    const start = startingPosition(map);
    const winter = readPosition(map, { ...start, phase: { season: 'winter', year: 1901, type: 'adjustment' } });
    expect(winter.phase).toEqual({ season: 'fall', year: 1901, type: 'adjustment' });
  });

  it('the order of lists in the input does not matter', () => {
    const start = startingPosition(map);
    const shuffled = readPosition(map, { ...start, units: [...start.units].reverse(), supplyCenterOwners: [...start.supplyCenterOwners].reverse() });
    expect(positionHash(map, shuffled)).toBe(positionHash(map, start));
  });
});

describe('readPosition', () => {
  const start = startingPosition(map);
  it.each([
    ['phase.season', { ...start, phase: { season: 'winter', year: 1901, type: 'movement' } }],
    ['phase.type', { ...start, phase: { season: 'spring', year: 1901, type: 'adjustment' } }],
    ['units[0].at', { ...start, units: [{ power: 'france', type: 'army', at: 'nth' }] }],
    ['units[0].at', { ...start, units: [{ power: 'russia', type: 'fleet', at: 'stp' }] }],
    [
      'units[1].at',
      {
        ...start,
        units: [
          { power: 'france', type: 'army', at: 'par' },
          { power: 'germany', type: 'army', at: 'par' },
        ],
      },
    ],
    ['units[0].power', { ...start, units: [{ power: 'narnia', type: 'army', at: 'par' }] }],
    ['dislodged', { ...start, dislodged: [{ power: 'france', type: 'army', at: 'bur', attackerFrom: 'mar', attackerViaConvoy: false }] }],
    ['supplyCenterOwners[0]', { ...start, supplyCenterOwners: [{ power: 'france', at: 'bur' }] }],
    ['map', { ...start, map: 'ancient-mediterranean' }],
  ])('rejects a bad %s', (field, value) => {
    let error: unknown;
    try {
      readPosition(map, value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FairtableError);
    expect((error as FairtableError).code).toBe('bad_position');
    expect((error as FairtableError).field).toBe(field);
  });
});
