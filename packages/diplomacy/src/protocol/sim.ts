/**
 * Diplomacy in the simulator (docs/spec/diplomacy.md §10.7): the cheats only a Diplomacy game has, and its
 * out-of-turn message, handed to the core's simulator as a `SimExtension` so that the core never imports
 * this package. The generic cheats (a wrong opening, withholding, equivocation, replay, forgery, a message
 * out of turn, a rewritten log) apply as to every protocol.
 */
import type { Body } from '@fairtable/core/envelope.js';
import { hashJsonHex } from '@fairtable/core/hash.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { Seat } from '@fairtable/core/seat/seat.js';
import type { SimExtension } from '@fairtable/core/testing';
import type { DiplomacyState } from './machine.js';

export const DIPLOMACY_CHEATS = ['tampered-orders', 'disagree'] as const;

/** A hook that rewrites the first body `change` accepts, and leaves every other one alone. */
function once(change: (body: Body) => Body | null): { body: (b: Body) => Body } {
  let done = false;
  return {
    body: (b) => {
      if (done) return b;
      const changed = change(b);
      if (changed === null) return b;
      done = true;
      return changed;
    },
  };
}

export const diplomacySim: SimExtension = {
  protocol: 'diplomacy',
  cheats: {
    // Seed 003's "Bad signature": orders revealed that are not the ones committed to (a unit's order changed after seeing the others').
    'tampered-orders': () =>
      once((b) => {
        const opening = b.opening as { nonce: string; value: JsonValue } | undefined;
        if (b.type !== 'reveal' || opening === undefined || typeof opening.value !== 'string') return null;
        return { ...b, opening: { ...opening, value: `${opening.value}\n# changed after the others revealed` } };
      }),
    // A seat that signs another position than the one the revealed orders give.
    disagree: () =>
      once((b) => (b.type === 'sign' && typeof b.position === 'string' ? { ...b, position: hashJsonHex('diplomacy-position', { not: b.position }) } : null)),
  },
  earlyMove(seat: Seat): Body | null {
    if (seat.referee.machine.protocol !== 'diplomacy') return null;
    const s = seat.referee.state as DiplomacyState;
    // Reveals its committed value while commitments are still being collected.
    return s.phase === 'commit' && s.mine !== null && s.mine.round === s.round
      ? { type: 'reveal', round: s.round, opening: s.mine.opening as unknown as JsonValue }
      : null;
  },
};
