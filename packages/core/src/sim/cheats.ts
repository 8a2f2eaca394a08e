/**
 * The simulator's cheats (docs/SPEC.md §10.3): each is a hook on what an
 * otherwise honest seat signs and sends, so every protocol rule can be broken
 * on purpose and the test can check that the cheater is caught and named.
 * Where a cheat needs to know a protocol's state (the out-of-turn reveal, the
 * Signidice house's key swap) it reads it through that protocol's typed state,
 * one small function per protocol.
 */
import { concatBytes, toHex, utf8 } from '../bytes.js';
import type { Body, Envelope } from '../envelope.js';
import { signEnvelope } from '../envelope.js';
import { hashJsonHex } from '../hash.js';
import { generateKeyPair, type KeyPair } from '../identity.js';
import type { JsonValue } from '../jcs.js';
import type { BeaconState } from '../protocols/beacon.js';
import type { ChainState } from '../protocols/chain.js';
import type { KeyedState } from '../protocols/keyed-stream.js';
import type { RochambeauState } from '../protocols/rochambeau.js';
import { HOUSE, signidiceAlpha, type SignidiceState } from '../signidice/arbiter.js';
import { ecvrfHouse } from '../signidice/house-key.js';
import { ristretto255 } from '@noble/curves/ed25519.js';
import { wrap } from '../escrow/layers.js';
import { canonicalize } from '../jcs.js';
import type { OutgoingHook, Seat, SignFn } from '../seat/seat.js';

export const CHEATS = [
  'wrong-opening',
  'equivocate',
  'replay',
  'withhold',
  'forge',
  'out-of-turn',
  'tamper',
  // Signidice (docs/spec/signidice.md §7)
  'house-wrong-signature',
  'house-withhold',
  'house-key-swap',
  'player-wrong-hr',
  'player-reuse-r',
  // Beacon threshold escrow (docs/spec/escrow.md §2)
  'escrow-bad-deal',
  'escrow-wrong-share',
  'escrow-withhold-share',
  'escrow-false-complaint',
  'escrow-short-deal',
  'escrow-withhold-check',
  'escrow-withhold-answer',
  'escrow-bad-check',
  'escrow-self-complaint',
  'escrow-reveal-wrong-set',
  // Layered escrow, beacon and Diplomacy (docs/spec/escrow.md §3.5)
  'layers-bad-box',
  'layers-bad-body',
  'layers-inside-differs',
  'layers-refuse-peel',
  'layers-bad-peel',
] as const;
export type Cheat = (typeof CHEATS)[number];
/** The cheats every protocol knows; the others are Signidice's own. */
export const GENERIC_CHEATS = CHEATS.slice(0, 7) as readonly Cheat[];

/** Why `cheater` cannot commit `cheat` in a game of `protocol`, or null when it can. */
export function cheatApplies(cheat: Cheat, protocol: string, cheater: string): string | null {
  if (cheat.startsWith('house-')) {
    if (protocol !== 'signidice') return `${cheat} is a Signidice cheat; this game plays ${protocol}`;
    if (cheater !== HOUSE) return `${cheat} is the house's cheat: the cheater must be "${HOUSE}", not ${cheater}`;
  }
  if (cheat.startsWith('player-')) {
    if (protocol !== 'signidice') return `${cheat} is a Signidice cheat; this game plays ${protocol}`;
    if (cheater === HOUSE) return `${cheat} is a player's cheat: the house cannot commit it`;
  }
  // Rochambeau's escrow has the same sharing, check, answer and share messages (docs/spec/rochambeau.md §11).
  const sharedEscrow = [
    'escrow-bad-deal',
    'escrow-short-deal',
    'escrow-wrong-share',
    'escrow-withhold-share',
    'escrow-withhold-check',
    'escrow-withhold-answer',
  ];
  if (cheat.startsWith('escrow-') && protocol !== 'beacon' && !(protocol === 'rochambeau' && sharedEscrow.includes(cheat)))
    return `${cheat} is a cheat on the beacon's escrow; this game plays ${protocol}`;
  if (cheat.startsWith('layers-') && protocol !== 'beacon' && protocol !== 'diplomacy')
    return `${cheat} is a cheat on layered escrow, which the beacon and Diplomacy have; this game plays ${protocol}`;
  if (protocol === 'signidice' && cheater === HOUSE && (cheat === 'wrong-opening' || cheat === 'withhold')) {
    return `the house opens no commitment and withholds only its signatures (house-withhold)`;
  }
  return null;
}

const ACTIONS = new Set(['reveal', 'move', 'turn', 'audit', 'hr']);

export interface CheatDeps {
  readonly keys: KeyPair;
  readonly random: (n: number) => Uint8Array;
  readonly prover?: (alpha: Uint8Array) => Uint8Array;
  readonly sign?: SignFn;
}

/** The hook that makes an honest seat commit `cheat` once (withholding: every time). */
export function cheatHook(cheat: Cheat, deps: CheatDeps): OutgoingHook | undefined {
  let done = false;
  let firstR: string | null = null;
  const once = (f: () => Body | null): Body | null => {
    if (done) return null;
    const b = f();
    if (b !== null) done = true;
    return b;
  };
  switch (cheat) {
    case 'withhold':
      return { body: (b) => (ACTIONS.has(b.type) ? null : b) };
    case 'house-withhold':
      return { body: (b) => (b.type === 'sign' ? null : b) };
    case 'wrong-opening':
    case 'player-wrong-hr':
      return { body: (b) => once(() => wrongOpening(b)) ?? b };
    case 'house-wrong-signature':
      return {
        body: (b) =>
          (b.type === 'sign' && deps.prover !== undefined ? once(() => ({ ...b, pi: toHex(deps.prover!(utf8('something other than V'))) })) : null) ?? b,
      };
    case 'house-key-swap':
      return { body: (b, seat) => (b.type === 'sign' ? once(() => keySwap(b, signidiceState(seat), deps)) : null) ?? b };
    case 'player-reuse-r':
      return {
        body: (b) => {
          if (b.type !== 'bet' || done) return b;
          if (firstR === null) {
            firstR = b.r as string;
            return b;
          }
          done = true;
          return { ...b, r: firstR };
        },
      };
    case 'equivocate':
      // Two different envelopes for one position: the door keeps the first and names the cheater for the second.
      return {
        body: (b) => b,
        envelope: (e, seat) => {
          if (done) return [e];
          done = true;
          return [seat.sign({ ...e.body, variant: true }), e];
        },
      };
    case 'replay':
      // An envelope signed for another game, then the real one.
      return {
        body: (b) => b,
        envelope: (e, seat) => {
          if (done) return [e];
          done = true;
          return [seat.sign(e.body, { game: hashJsonHex('game', { replayed: seat.gameId }) }), e];
        },
      };
    case 'forge':
      // Its envelope signed with a key that is not the player's: the door refuses it, every time it is resent.
      return {
        body: (b) => b,
        envelope: (e) => {
          if (done) return [e];
          done = true;
          const forger = generateKeyPair(deps.random(32));
          return [{ ...e, sig: signEnvelope(e, forger.secretKey).sig } as Envelope];
        },
      };
    case 'escrow-bad-deal':
      // A sharing whose last commitment is not the polynomial's: no share fits, and the dealer's answers cannot either.
      return {
        body: (b) => {
          const e = b.escrow as { commitments: string[]; shares: JsonValue } | undefined;
          if (b.type !== 'commit' || e === undefined || e.commitments.length < 2 || done) return b;
          done = true;
          return { ...b, escrow: { ...e, commitments: [...e.commitments.slice(0, -1), ristretto255.Point.BASE.toHex()] } };
        },
      };
    case 'escrow-wrong-share':
      // Publishes a share of a withheld value that is not the one dealt to it.
      return {
        body: (b, seat) => (b.type === 'share' && b.seat === seat.id ? once(() => ({ ...b, share: flipHex(b.share as string) })) : null) ?? b,
      };
    case 'escrow-withhold-share':
      return { body: (b, seat) => (b.type === 'share' && b.seat === seat.id ? null : b) };
    case 'escrow-false-complaint':
      // Complains of every dealer although every share opened and fit.
      return {
        body: (b, seat) => {
          const s = stateOf<BeaconState>(seat, 'beacon');
          if (b.type !== 'check' || s === null || done) return b;
          done = true;
          return { ...b, complaints: s.active.filter((p) => p !== seat.id) };
        },
      };
    case 'escrow-short-deal':
      // A sharing with one commitment fewer than the threshold asks for.
      return {
        body: (b) => {
          const e = b.escrow as { commitments: string[]; shares: JsonValue } | undefined;
          return b.type === 'commit' && e !== undefined ? (once(() => ({ ...b, escrow: { ...e, commitments: e.commitments.slice(1) } })) ?? b) : b;
        },
      };
    case 'escrow-withhold-check':
      return { body: (b) => (b.type === 'check' ? null : b) };
    case 'escrow-withhold-answer':
      // Never answers a complaint against its own dealing.
      return { body: (b, seat) => (b.type === 'share' && b.dealer === seat.id ? null : b) };
    case 'escrow-bad-check':
      return { body: (b) => (b.type === 'check' ? (once(() => ({ ...b, commitSet: '0'.repeat(64) })) ?? b) : b) };
    case 'escrow-self-complaint':
      return { body: (b, seat) => (b.type === 'check' ? (once(() => ({ ...b, complaints: [seat.id] })) ?? b) : b) };
    case 'escrow-reveal-wrong-set':
      return { body: (b) => (b.type === 'reveal' ? (once(() => ({ ...b, commitSet: '0'.repeat(64) })) ?? b) : b) };
    case 'layers-bad-box':
    case 'layers-bad-body':
    case 'layers-inside-differs': {
      // The owner's onion swapped for one it built wrong; the seed of that onion goes out with its reveal.
      let seed: string | null = null;
      let round: unknown = null;
      const withholds = cheat !== 'layers-inside-differs';
      return {
        body: (b, seat) => {
          if (b.type === 'commit' && b.onion !== undefined && seed === null) {
            round = b.round;
            const place = onionPlace(seat, b.round as number);
            const inside =
              cheat === 'layers-inside-differs'
                ? { nonce: '0'.repeat(64), value: 'not the committed value' }
                : (stateOf<{ mine: { opening: JsonValue } | null }>(seat, seat.referee.machine.protocol)?.mine?.opening ?? null);
            const fault =
              cheat === 'layers-bad-box'
                ? ({ depth: 1, what: 'box' } as const)
                : cheat === 'layers-bad-body'
                  ? ({ depth: 1, what: 'body' } as const)
                  : undefined;
            const onion = wrap(utf8(canonicalize(inside)), place.others, {
              context: place.context,
              keys: place.keys,
              random: deps.random,
              ...(fault === undefined ? {} : { fault }),
            });
            seed = onion.seed;
            return { ...b, onion: onion.head as unknown as JsonValue };
          }
          if (b.type === 'reveal' && seed !== null && b.round === round) return withholds ? null : { ...b, seed };
          return b;
        },
      };
    }
    case 'layers-refuse-peel':
      return { body: (b) => (b.type === 'peel' ? null : b) };
    case 'layers-bad-peel':
      // An exchange that is not a·E: its own key's point in place of the shared value.
      return { body: (b) => (b.type === 'peel' ? (once(() => ({ ...b, shared: toHex(deps.keys.publicKey) })) ?? b) : b) };
    case 'out-of-turn':
      return undefined; // acts through earlyMove
    case 'tamper':
      return undefined; // after the game (simulate.ts)
  }
}

/** The hex string with its first digit changed (a share stays below the group order: its low byte changes). */
const flipHex = (h: string): string => (h[0] === '0' ? '1' : '0') + h.slice(1);

function wrongOpening(body: Body): Body | null {
  const opening = body.opening as { nonce: string; value: unknown } | undefined;
  if (opening !== undefined) {
    const flipped = (opening.nonce[0] === '0' ? '1' : '0') + opening.nonce.slice(1);
    return { ...body, opening: { ...opening, nonce: flipped } };
  }
  if (body.type === 'reveal' && typeof body.payload === 'string') {
    // A Rochambeau Reveal whose nonce (after the 16-octet binding) is not the committed one.
    const at = 2 * (4 + 16);
    const p = body.payload;
    return { ...body, payload: p.slice(0, at) + (p[at] === '0' ? '1' : '0') + p.slice(at + 1) };
  }
  const roll = body.roll as { turn: number; draws: [number, number][] } | null | undefined;
  if (body.type === 'turn' && roll && roll.draws.length > 0) {
    // Seed 000: the roller claims a different roll than its stream gave; only the audit can tell.
    const [n, v] = roll.draws[0]!;
    return { ...body, roll: { ...roll, draws: [[n, (v + 1) % n], ...roll.draws.slice(1)] } };
  }
  return null;
}

function keySwap(body: Body, s: SignidiceState, deps: CheatDeps): Body {
  const other = ecvrfHouse('ecvrf-ell2', deps.random(32));
  const p = body.player as string;
  const alpha = signidiceAlpha(s.gameId, s.round, s.playerKeys[p]!, s.bets[p]!.r);
  return { ...body, key: other.key as unknown as JsonValue, pi: toHex(other.prove(alpha)) };
}

/** Where an owner's onion of `round` belongs: its context, the others in order, their keys (beacon: the round's roster; Diplomacy: every player). */
function onionPlace(seat: Seat, round: number): { context: string; others: string[]; keys: Record<string, string> } {
  const protocol = seat.referee.machine.protocol;
  const s = seat.referee.state as { gameId: string; keys: Record<string, string>; roster?: string[]; players?: string[]; stage?: string };
  const order = protocol === 'beacon' ? (s.roster ?? []) : (s.players ?? []);
  // Diplomacy's assignment round names its stage in the context (docs/spec/escrow.md §3.4).
  const stage = protocol === 'diplomacy' && s.stage === 'assign' ? 'powers/' : '';
  return { context: `${protocol}/${s.gameId}/${stage}${round}/${seat.id}`, others: order.filter((p) => p !== seat.id), keys: s.keys };
}

// Each protocol's typed view of a seat's state, for the cheats that need one.
const stateOf = <S>(seat: Seat, protocol: string): S | null => (seat.referee.machine.protocol === protocol ? (seat.referee.state as S) : null);
const signidiceState = (seat: Seat): SignidiceState => stateOf<SignidiceState>(seat, 'signidice')!;

/** out-of-turn: the message this seat would send later, sent now while it is not its place to. */
export function earlyMove(seat: Seat): Body | null {
  const beacon = stateOf<BeaconState>(seat, 'beacon');
  if (beacon !== null) {
    return beacon.phase === 'commit' && beacon.mine !== null
      ? { type: 'reveal', round: beacon.mine.round, commitSet: '0'.repeat(64), opening: beacon.mine.opening as unknown as JsonValue }
      : null;
  }
  const rps = stateOf<RochambeauState>(seat, 'rochambeau');
  if (rps !== null) return rps.phase === 'commit' && rps.mine !== null ? { type: 'reveal', attempt: rps.mine.attempt, payload: rps.mine.reveal } : null;
  const sd = stateOf<SignidiceState>(seat, 'signidice');
  if (sd !== null) {
    // Opens HR before the house has signed: the arbiter refuses it.
    return sd.phase === 'bet' && sd.mine !== null ? { type: 'hr', round: sd.mine.round, opening: sd.mine.opening as unknown as JsonValue } : null;
  }
  const chain = stateOf<ChainState>(seat, 'chain');
  if (chain !== null) {
    // A well-formed move (an opening of nothing, no draws), sent while it is another player's turn.
    const zero = '0'.repeat(64);
    return chain.phase === 'play' && chain.active[chain.mover % chain.active.length] !== seat.id
      ? { type: 'move', turn: chain.turn, opening: { nonce: zero, value: null }, commitment: zero, fresh: zero, action: null, draws: [] }
      : null;
  }
  const keyed = stateOf<KeyedState>(seat, 'keyed-stream');
  if (keyed !== null)
    return keyed.phase === 'play' && keyed.active[keyed.mover % keyed.active.length] !== seat.id ? { type: 'turn', turn: keyed.turn, x: 0, roll: null } : null;
  return null;
}

/** The tamper cheat: after the game, the cheater rewrites one of its earlier envelopes (not its last) and signs it again. */
export function tamperedCopy(unsigned: Omit<Envelope, 'sig'>, keys: KeyPair): Envelope {
  return signEnvelope({ ...unsigned, body: { ...unsigned.body, altered: toHex(concatBytes(utf8('x'))) } }, keys.secretKey);
}
