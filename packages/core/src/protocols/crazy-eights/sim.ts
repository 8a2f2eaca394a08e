/**
 * Crazy Eights in the simulator (docs/spec/crazy-eights.md §4): a cheat for each of the game's rules on the
 * deck, each a hook on what the cheater's seat sends, its out-of-turn draw, and an automatic player.
 */
import type { Body } from '../../envelope.js';
import type { JsonValue } from '../../jcs.js';
import type { Seat, OutgoingHook } from '../../seat/seat.js';
import type { SimExtension } from '../../sim/simulate.js';
import type { CheatDeps } from '../../sim/cheats.js';
import type { Strategy } from '../../sim/strategies.js';
import type { Choices } from '../machine.js';
import { RandomStream } from '../../stream.js';
import { EIGHT, rankOf, suitOf } from '../../games/crazy-eights/index.js';
import { ownShare } from '../deck-table/steps.js';
import type { EightsState } from './state.js';

export const EIGHTS_CHEATS = ['bad-shuffle', 'bad-decryption-share', 'card-not-dealt', 'substituted-card', 'no-match', 'leave'] as const;
export type EightsCheat = (typeof EIGHTS_CHEATS)[number];

/** The violation each cheat is named for (`withheld` as an absence for the player who leaves). */
export const EIGHTS_CHEAT_CODES: Readonly<Record<EightsCheat, string>> = {
  'bad-shuffle': 'bad_shuffle',
  'bad-decryption-share': 'bad_decryption_share',
  'card-not-dealt': 'card_not_dealt',
  'substituted-card': 'card_not_dealt',
  'no-match': 'illegal_answer',
  leave: 'withheld',
};

/** A hook that rewrites the first body `change` accepts, and leaves every other one alone. */
function once(change: (body: Body, seat: Seat) => Body | null): OutgoingHook {
  let done = false;
  return {
    body: (b, seat) => {
      if (done) return b;
      const changed = change(b, seat);
      if (changed === null) return b;
      done = true;
      return changed;
    },
  };
}

const eightsCheats: Record<EightsCheat, (deps: CheatDeps) => OutgoingHook> = {
  // The shuffled deck with its first card replaced by a copy of its second: a card dropped, one doubled.
  'bad-shuffle': () =>
    once((b) => {
      const deck = b.deck as JsonValue[] | undefined;
      return b.type === 'shuffle' && Array.isArray(deck) ? { ...b, deck: [deck[1]!, ...deck.slice(1)] } : null;
    }),
  // A decryption share at the deal that is another position's.
  'bad-decryption-share': () =>
    once((b) => {
      const shares = b.shares as { share: string }[] | undefined;
      if (b.type !== 'shares' || !Array.isArray(shares) || shares.length < 2) return null;
      return { ...b, shares: [{ ...shares[0]!, share: shares[1]!.share }, ...shares.slice(1)] as unknown as JsonValue };
    }),
  // A play of a position dealt to the next player, not to the cheater.
  'card-not-dealt': () =>
    once((b, seat) => {
      if (b.type !== 'play') return null;
      const s = seat.referee.state as EightsState;
      const other = s.players.find((p) => p !== seat.id && (s.hands[p]?.length ?? 0) > 0);
      return other === undefined ? null : { ...b, position: s.hands[other]![0]! };
    }),
  // A play that names an eight (any suit may follow) where the position holds another card.
  'substituted-card': () =>
    once((b) => {
      if (b.type !== 'play' || typeof b.card !== 'number' || rankOf(b.card) === EIGHT) return null;
      return { ...b, card: 4 * (EIGHT - 2) + suitOf(b.card), suit: 0 };
    }),
  // Where it would draw, it plays a card of its hand that matches neither suit nor rank.
  'no-match': (deps) =>
    once((b, seat) => {
      if (b.type !== 'draw') return null;
      const s = seat.referee.state as EightsState;
      const top = s.top!;
      const position = (s.hands[seat.id] ?? []).find((p) => {
        const c = s.mine[String(p)];
        return c !== undefined && rankOf(c) !== EIGHT && suitOf(c) !== top.suit && rankOf(c) !== rankOf(top.card);
      });
      if (position === undefined) return null;
      const share = ownShare(s, position, { now: 0, random: deps.random });
      return { type: 'play', turn: b.turn!, position, card: s.mine[String(position)]!, share: share as unknown as JsonValue };
    }),
  // Leaves the table once the hands are dealt: sends nothing more.
  leave: () => {
    let left = false;
    return {
      body: (b) => {
        if (left) return null;
        if (b.type === 'shares') left = true;
        return b;
      },
    };
  },
};

export const eightsSim: SimExtension = {
  protocol: 'crazy-eights',
  cheats: eightsCheats,
  earlyMove(seat: Seat): Body | null {
    if (seat.referee.machine.protocol !== 'crazy-eights') return null;
    const s = seat.referee.state as EightsState;
    // Draws while another player is to move.
    return s.phase === 'turn' && s.turn !== seat.id && !s.gone.includes(seat.id) ? { type: 'draw', turn: s.turns } : null;
  },
};

/** The simulator's Crazy Eights player: plays a card when it can (an eight last), drawing only when it must. */
export function eightsStrategy(seed: Uint8Array): Strategy {
  const stream = new RandomStream(seed, 'crazy-eights-strategy');
  return (decision) => {
    const values = (decision.choices as Extract<Choices, { type: 'one-of' }>).values;
    const plays = values.filter((v) => typeof v === 'object');
    if (plays.length === 0) return values[values.length - 1]!;
    const plain = plays.filter((v) => rankOf((v as { card: number }).card) !== EIGHT);
    const from = plain.length > 0 ? plain : plays;
    return from[stream.below(from.length)]!;
  };
}
