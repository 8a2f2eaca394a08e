/**
 * Whole games of random legal orders (docs/spec/diplomacy.md §7): every
 * generated order passes checkOrders and is never judged invalid, positions
 * stay well formed and round-trip through their encoding, and the order in
 * which orders arrive does not change the result.
 */
import { describe, expect, it } from 'vitest';
import { adjudicate, checkOrders, type OrderInput } from './adjudicate.js';
import { provinceOf } from './map.js';
import { encodePosition, positionHash, readPosition, startingPosition, type Position } from './position.js';
import { randomOrders, seededBelow } from './random-orders.js';
import { standardMap as map } from './standard.js';

function play(seed: number, phases: number, check: (before: Position, orders: OrderInput[], after: Position) => void): Position {
  const below = seededBelow(seed);
  let position = startingPosition(map);
  for (let k = 0; k < phases && position.winner === null; k++) {
    const orders: OrderInput[] = [];
    for (const power of map.powers) {
      const texts = randomOrders(map, position, power, below);
      for (const c of checkOrders(map, position, power, texts)) expect(c.error, `${power} ${c.text} in ${JSON.stringify(position.phase)}`).toBeNull();
      for (const text of texts) orders.push({ power, text });
    }
    const { position: next, results } = adjudicate(map, position, orders);
    for (const r of results) expect(r.status, `${r.power} ${r.text}: ${r.reason}`).not.toBe('invalid');
    check(position, orders, next);
    position = next;
  }
  return position;
}

describe('random games', () => {
  it('100 phases for each of 5 seeds: legal orders, well-formed positions', () => {
    const phaseTypes = new Set<string>();
    for (let seed = 1; seed <= 5; seed++) {
      play(seed, 100, (_before, _orders, after) => {
        phaseTypes.add(after.phase.type);
        const provinces = after.units.map((u) => provinceOf(u.at));
        expect(new Set(provinces).size).toBe(provinces.length);
        const again = readPosition(map, JSON.parse(JSON.stringify(encodePosition(map, after))));
        expect(positionHash(map, again)).toBe(positionHash(map, after));
      });
    }
    expect([...phaseTypes].sort()).toEqual(['adjustment', 'movement', 'retreat']);
  });

  it('the same orders in another order give the same position', () => {
    play(42, 40, (before, orders, after) => {
      const reversed = adjudicate(map, before, [...orders].reverse());
      expect(positionHash(map, reversed.position)).toBe(positionHash(map, after));
    });
  });
});
