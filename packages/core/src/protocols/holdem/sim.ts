/**
 * Hold'em in the simulator (docs/spec/holdem.md §11.6): a cheat for each of the deck's rules, each a hook
 * on what the cheater's seat sends, and its out-of-turn message. The generic cheats (equivocation, a
 * replay, a forgery, a rewritten log) apply as to every protocol.
 */
import type { Body } from '../../envelope.js';
import type { JsonValue } from '../../jcs.js';
import { makeKeyShare } from '../../deck/joint-key.js';
import type { Seat } from '../../seat/seat.js';
import type { OutgoingHook } from '../../seat/seat.js';
import type { SimExtension } from '../../sim/simulate.js';
import type { CheatDeps } from '../../sim/cheats.js';
import type { Strategy } from '../../sim/strategies.js';
import type { Choices } from '../machine.js';
import { RandomStream } from '../../stream.js';
import type { HoldemState } from './state.js';

export const HOLDEM_CHEATS = ['bad-key-share', 'reused-key', 'bad-shuffle', 'bad-decryption-share', 'substituted-card', 'card-not-dealt', 'leave'] as const;
export type HoldemCheat = (typeof HOLDEM_CHEATS)[number];

/** The violation each cheat is named for (`withheld` as an absence for the player who leaves). */
export const HOLDEM_CHEAT_CODES: Readonly<Record<HoldemCheat, string>> = {
  'bad-key-share': 'bad_key_share',
  'reused-key': 'bad_key_share',
  'bad-shuffle': 'bad_shuffle',
  'bad-decryption-share': 'bad_decryption_share',
  'substituted-card': 'card_not_dealt',
  'card-not-dealt': 'card_not_dealt',
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

type Shown = { position: number; card: number; share: JsonValue }[];

const holdemCheats: Record<HoldemCheat, (deps: CheatDeps) => OutgoingHook> = {
  // A key that is not the one its proof is about.
  'bad-key-share': (deps) =>
    once((b) => (b.type === 'key' ? { ...b, key: makeKeyShare({ game: 'elsewhere', players: ['x'] }, 'x', deps.random).share.key } : null)),
  // A valid key share with its proof, from another game: the proof is bound to that game, not this one.
  'reused-key': (deps) =>
    once((b, seat) => {
      if (b.type !== 'key') return null;
      const s = seat.referee.state as HoldemState;
      const other = makeKeyShare({ game: `${s.gameId}/an earlier game`, players: s.players }, seat.id, deps.random).share;
      return { ...b, key: other.key, proof: other.proof };
    }),
  // The shuffled deck with its first card replaced by a copy of its second: a card dropped, one doubled.
  'bad-shuffle': () =>
    once((b) => {
      const deck = b.deck as JsonValue[] | undefined;
      return b.type === 'shuffle' && Array.isArray(deck) ? { ...b, deck: [deck[1]!, ...deck.slice(1)] } : null;
    }),
  // A decryption share that is another position's.
  'bad-decryption-share': () =>
    once((b) => {
      const shares = b.shares as { share: string }[] | undefined;
      if (b.type !== 'shares' || !Array.isArray(shares) || shares.length < 2) return null;
      return { ...b, shares: [{ ...shares[0]!, share: shares[1]!.share }, ...shares.slice(1)] as unknown as JsonValue };
    }),
  // At the showdown, a better card named than the one dealt.
  'substituted-card': () =>
    once((b) => {
      const cards = b.cards as Shown | undefined;
      if (b.type !== 'show' || !Array.isArray(cards)) return null;
      return { ...b, cards: [{ ...cards[0]!, card: (cards[0]!.card + 1) % 52 }, cards[1]!] as unknown as JsonValue };
    }),
  // At the showdown, a position shown that was another player's.
  'card-not-dealt': () =>
    once((b) => {
      const cards = b.cards as Shown | undefined;
      if (b.type !== 'show' || !Array.isArray(cards)) return null;
      const other = cards[0]!.position === 0 ? 2 : 0;
      return { ...b, cards: [{ ...cards[0]!, position: other }, cards[1]!] as unknown as JsonValue };
    }),
  // Leaves the table once the hole cards are dealt: sends nothing more.
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

export const holdemSim: SimExtension = {
  protocol: 'holdem',
  cheats: holdemCheats,
  earlyMove(seat: Seat): Body | null {
    if (seat.referee.machine.protocol !== 'holdem') return null;
    const s = seat.referee.state as HoldemState;
    // Shows its hand while the betting is still on (an early act could land on its own turn and be legal).
    return s.phase === 'act' && s.mine !== null && s.table.hand !== null && !s.table.hand.folded.includes(seat.id)
      ? { type: 'show', hand: s.hand, cards: s.mine.map((card) => ({ card })) }
      : null;
  },
};

/**
 * The simulator's Hold'em player: never folds, so hands reach their showdown; checks or calls three times
 * in four, else raises by the least it may (or goes all-in when it cannot raise).
 */
export function holdemStrategy(seed: Uint8Array): Strategy {
  const stream = new RandomStream(seed, 'holdem-strategy');
  return (decision) => {
    const c = decision.choices;
    const simple = (c.type === 'any-of' ? c.options[0] : c) as Extract<Choices, { type: 'one-of' }>;
    const passive = simple.values[1]!;
    if (stream.below(4) !== 0 || c.type !== 'any-of') return passive;
    const raise = c.options[1] as Extract<Choices, { type: 'record' }>;
    const kind = (raise.fields.do as Extract<Choices, { type: 'one-of' }>).values[0]!;
    const to = raise.fields.to as Extract<Choices, { type: 'integer' }>;
    return { do: kind, to: Number(to.min) };
  };
}
