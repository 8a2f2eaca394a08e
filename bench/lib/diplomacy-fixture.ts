/**
 * A Diplomacy game as the web app's board reads it (the observer's state and events), made by adjudicating seeded
 * random orders from the standard opening: ann plays Austria, bob France, the other five powers are not played and
 * hold. The events have the fields and the position hashes the protocol's `adjudicated` events carry.
 */
import { adjudicate } from '@fairtable/diplomacy/adjudicate.js';
import { positionHash, startingPosition, type Position } from '@fairtable/diplomacy/position.js';
import { phaseLabel } from '@fairtable/diplomacy/protocol/machine.js';
import { randomOrders, seededBelow } from '@fairtable/diplomacy/random-orders.js';
import { standardMap } from '@fairtable/diplomacy/standard.js';

export interface Fixture {
  readonly players: string[];
  readonly powers: Record<string, string>;
  /** The position after each phase: positions[0] is the opening, positions[k] the one after k phases. */
  readonly positions: Position[];
  readonly events: {
    type: 'adjudicated';
    round: number;
    phase: string;
    next: string;
    hash: string;
    results: { power: string; order: string; status: string; reason: string | null }[];
  }[];
}

export function diplomacyFixture(phases: number, seed = 7): Fixture {
  const below = seededBelow(seed);
  const powers = { ann: 'austria', bob: 'france' };
  const positions: Position[] = [startingPosition(standardMap)];
  const events: Fixture['events'] = [];
  for (let k = 0; k < phases; k++) {
    const position = positions[k]!;
    const orders = Object.values(powers).flatMap((power) => randomOrders(standardMap, position, power, below).map((text) => ({ power, text })));
    const r = adjudicate(standardMap, position, orders);
    events.push({
      type: 'adjudicated',
      round: k + 1,
      phase: phaseLabel(position),
      next: phaseLabel(r.position),
      hash: positionHash(standardMap, r.position),
      results: r.results.map((x) => ({ power: x.power, order: x.order ?? x.text, status: x.status, reason: x.reason })),
    });
    positions.push(r.position);
    if (r.position.winner !== null) break;
  }
  return { players: ['ann', 'bob'], powers, positions, events };
}
