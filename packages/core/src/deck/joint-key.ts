/**
 * The deck's joint key (docs/spec/deck.md §3): each player picks a secret scalar x, publishes its key share
 * Y = x·G with a Schnorr proof of knowledge bound to the game and its seat, and the deck's key is the sum
 * of the shares. Cards encrypted to it open only with every player's share (or, for one who left, with a
 * threshold of stand-ins: threshold.ts).
 *
 * The proof is what keeps anyone from choosing the joint key: a player who published
 * Y' − Σ(other shares) ("rogue key") or a copy of someone else's share would have to know its discrete
 * logarithm. A share that is the identity, is not a canonical encoding, or comes without a valid proof is
 * `bad_key_share`; the same share at two seats is `reused_key`.
 */
import type { Violation } from '../errors.js';
import { FairtableError } from '../errors.js';
import { ZERO, Transcript, mulBase, pointFromHex, pointHex, randomScalar, seatOf, type DeckTable, type RPoint } from './group.js';
import { checkKnowledge, proveKnowledge } from './proofs.js';

/** A player's published share of the deck key. */
export interface KeyShare {
  readonly player: string;
  /** Y = x·G, hex. */
  readonly key: string;
  /** Schnorr proof (c, z) of knowledge of x, hex. */
  readonly proof: string;
}

function keyTranscript(table: DeckTable, player: string): Transcript {
  return new Transcript('key-share').text(table.game).int(seatOf(table, player)).text(player);
}

/** A fresh key share for `player`: its secret (keep it) and the share to publish. */
export function makeKeyShare(table: DeckTable, player: string, random: (n: number) => Uint8Array): { secret: bigint; share: KeyShare } {
  const secret = randomScalar(random);
  const y = mulBase(secret);
  return { secret, share: { player, key: pointHex(y), proof: proveKnowledge(keyTranscript(table, player), y, secret, random) } };
}

/** Whether a share is a valid key for its seat: a canonical non-identity point with a valid proof. */
export function keyShareValid(table: DeckTable, share: KeyShare): boolean {
  if (!table.players.includes(share.player)) return false;
  let y: RPoint;
  try {
    y = pointFromHex(share.key, 'key');
  } catch {
    return false;
  }
  if (y.is0()) return false;
  return checkKnowledge(keyTranscript(table, share.player), y, share.proof);
}

export interface JointKey {
  /** The joint key Σ Y_i, hex (only when every seat's share is valid). */
  readonly key: string | null;
  /** Each seat's key share point, hex, in seat order (as published; null where missing). */
  readonly shares: readonly (string | null)[];
  readonly violations: readonly Violation[];
}

const violation = (code: Violation['code'], player: string, message: string, seq: number): Violation => ({
  code,
  player,
  seq,
  message,
  evidence: [{ note: message }],
});

/**
 * Checks every seat's key share and sums them. A seat that published an invalid share is named
 * `bad_key_share`; a share published at two seats names each seat holding it with a valid proof
 * `reused_key` (a valid proof means the seat knows the secret, so every such seat took part). A missing
 * share names nobody here: the caller's deadline decides. Two different shares from one player are
 * `equivocation` (the first one stands for the sum, and the key is not made). `seq` is the transcript line the findings cite.
 */
export function combineKeyShares(table: DeckTable, shares: readonly KeyShare[], seq = 0): JointKey {
  const bySeat: (KeyShare | null)[] = table.players.map(() => null);
  const violations: Violation[] = [];
  const equivocators = new Set<string>();
  for (const share of shares) {
    if (!table.players.includes(share.player))
      throw new FairtableError('bad_input', `a key share from a player not at this table: ${share.player}`, { field: 'player' });
    const seat = seatOf(table, share.player);
    const first = bySeat[seat] ?? null;
    if (first === null) bySeat[seat] = share;
    else if (first.key !== share.key || first.proof !== share.proof) equivocators.add(share.player);
  }
  for (const player of equivocators) {
    violations.push(violation('equivocation', player, `${player} published two different key shares for seat ${seatOf(table, player)}`, seq));
  }
  const valid = bySeat.map((s) => s !== null && keyShareValid(table, s));
  bySeat.forEach((s, seat) => {
    if (s !== null && !valid[seat])
      violations.push(violation('bad_key_share', s.player, `seat ${seat}'s key share is not a valid key with a proof bound to this game and seat`, seq));
  });
  const holders = new Map<string, number[]>();
  bySeat.forEach((s, seat) => {
    if (s === null || !valid[seat]) return;
    const canonical = pointHex(pointFromHex(s.key, 'key'));
    holders.set(canonical, [...(holders.get(canonical) ?? []), seat]);
  });
  for (const [key, seats] of holders) {
    if (seats.length < 2) continue;
    for (const seat of seats) violations.push(violation('reused_key', table.players[seat]!, `key share ${key} is published at seats ${seats.join(', ')}`, seq));
  }
  const complete = violations.length === 0 && bySeat.every((s, seat) => s !== null && valid[seat]);
  const key = complete ? bySeat.reduce((sum, s) => sum.add(pointFromHex(s!.key, 'key')), ZERO) : null;
  return { key: key === null || key.is0() ? null : pointHex(key), shares: bySeat.map((s) => s?.key ?? null), violations };
}
