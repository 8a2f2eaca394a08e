/**
 * A player who leaves cannot block the hand (docs/spec/deck.md §7).
 *
 * When the deck is made, each player deals its key share's secret x as a Feldman k-of-n sharing
 * (escrow/vss.ts) over the seats: commitments C_0..C_{k−1} with C_0 = Y (its key share, so the sharing is
 * bound to the key) and one share f(j) per seat j (1-based), sealed to that seat's fairtable key. Each seat
 * checks its share against the commitments, as in escrow.
 *
 * If the player leaves, for each card the rules need opened, k holders j publish a stand-in share
 * E_j = f(j)·A with a Chaum–Pedersen proof against P_j = f(j)·G = Σ_l j^l·C_l, which anyone computes from
 * the commitments. The leaver's decryption share is x·A = Σ λ_j·E_j (Lagrange at 0, in the exponent): the
 * leaver's key is never rebuilt, and its hidden cards are opened only if k holders give stand-in shares
 * for them. A stand-in share whose proof fails is `bad_decryption_share` naming its holder.
 */
import { FairtableError, type Violation } from '../errors.js';
import { deal, openShare, sealShares, verifyShare, type SealedShare } from '../escrow/vss.js';
import type { Ciphertext } from './elgamal.js';
import { BASE, Fn, ZERO, Transcript, msm, mul, mulPublic, pointFromHex, pointHex, scalarFromHex, seatOf, type DeckTable, type RPoint } from './group.js';
import { checkEqual, NONCE_BYTES, proveEqual } from './proofs.js';
import { replayOnce, type ProvedOnce } from './proved-once.js';
import { toHex } from '../bytes.js';

/** A player's key, backed up k of n when the deck is made. */
export interface KeyBackup {
  readonly player: string;
  /** The threshold k. */
  readonly threshold: number;
  /** C_0..C_{k−1}, hex; C_0 is the player's key share. */
  readonly commitments: readonly string[];
  /** f(j) sealed to seat j − 1's fairtable key, in seat order. */
  readonly sealed: readonly SealedShare[];
}

/** The context a backup share is sealed under. */
export const backupContext = (table: DeckTable, dealer: string, holderSeat: number): string =>
  `fairtable/deck-backup/${table.game}/${seatOf(table, dealer)}/${holderSeat}`;

/** Backs up `secret` (the dealer's key share's secret) k of n over the table's seats. `playerKeys` are the seats' fairtable keys. */
export function backUpKey(
  table: DeckTable,
  player: string,
  secret: bigint,
  threshold: number,
  playerKeys: readonly Uint8Array[],
  random: (n: number) => Uint8Array,
): KeyBackup {
  const n = table.players.length;
  if (playerKeys.length !== n) throw new FairtableError('bad_input', 'one fairtable key per seat', { field: 'playerKeys' });
  const dealing = deal(secret, threshold, n, random);
  const contexts = table.players.map((_, seat) => backupContext(table, player, seat));
  return { player, threshold, commitments: dealing.commitments, sealed: sealShares(dealing.shares, playerKeys, contexts, random) };
}

/** Whether a backup has the table's shape and is bound to the player's key share (C_0 = Y). */
export function backupMatchesKey(table: DeckTable, key: string, backup: KeyBackup, threshold: number): boolean {
  try {
    return (
      backup.threshold === threshold &&
      backup.commitments.length === threshold &&
      backup.sealed.length === table.players.length &&
      backup.commitments.every((c, i) => pointFromHex(c, `commitments[${i}]`) !== null) &&
      pointFromHex(backup.commitments[0]!, 'commitments[0]').equals(pointFromHex(key, 'key'))
    );
  } catch {
    return false;
  }
}

/** The holder at `seat` opens its share of `backup` (its fairtable secret key); null when it does not open or does not fit the commitments (the dealer's fault). */
export function openBackupShare(table: DeckTable, backup: KeyBackup, seat: number, secretKey: Uint8Array): string | null {
  const sealed = backup.sealed[seat];
  if (sealed === undefined) return null;
  try {
    const share = openShare(sealed, secretKey, backupContext(table, backup.player, seat));
    return verifyShare(seat + 1, share, backup.commitments) ? share : null;
  } catch {
    return null;
  }
}

/** P_j = f(j)·G = Σ_l j^l·C_l for seat j − 1 (public). */
export function holderPoint(commitments: readonly string[], seat: number): RPoint {
  const x = BigInt(seat + 1);
  let power = 1n;
  const scalars: bigint[] = [];
  for (let l = 0; l < commitments.length; l++) {
    scalars.push(power);
    power = Fn.mul(power, x);
  }
  return msm(
    commitments.map((c, l) => pointFromHex(c, `commitments[${l}]`)),
    scalars,
  );
}

/** A holder's stand-in share for a player who left: f(j)·A for the card at `position`, with its proof. */
export interface StandInShare {
  readonly leaver: string;
  readonly holder: string;
  readonly position: number;
  readonly share: string;
  readonly proof: string;
}

function standInTranscript(table: DeckTable, leaver: string, holder: string, position: number): Transcript {
  return new Transcript('stand-in-share').text(table.game).int(seatOf(table, leaver)).int(seatOf(table, holder)).text(holder).int(position);
}

export function standInShare(
  table: DeckTable,
  backup: KeyBackup,
  holder: string,
  heldShare: string,
  position: number,
  card: Ciphertext,
  random: (n: number) => Uint8Array,
  kept?: ProvedOnce,
): StandInShare {
  const f = scalarFromHex(heldShare, 'heldShare');
  const a = pointFromHex(card.a, 'a');
  if (kept !== undefined) {
    const drawn = random(NONCE_BYTES);
    return kept(['stand-in-share', table, backup.player, holder, heldShare, position, card, toHex(drawn)], () =>
      standInShare(table, backup, holder, heldShare, position, card, replayOnce(drawn)),
    );
  }
  const e = mul(a, f);
  const proof = proveEqual(standInTranscript(table, backup.player, holder, position), BASE, mul(BASE, f), a, e, f, random);
  return { leaver: backup.player, holder, position, share: pointHex(e), proof };
}

export function standInShareValid(table: DeckTable, backup: KeyBackup, card: Ciphertext, s: StandInShare): boolean {
  try {
    if (s.leaver !== backup.player || !table.players.includes(s.holder)) return false;
    const p = holderPoint(backup.commitments, seatOf(table, s.holder));
    return checkEqual(standInTranscript(table, s.leaver, s.holder, s.position), BASE, p, pointFromHex(card.a, 'a'), pointFromHex(s.share, 'share'), s.proof);
  } catch {
    return false;
  }
}

/** λ_j for interpolation at 0 over the 1-based points `xs`. */
function lagrangeAtZero(xs: readonly bigint[], j: number): bigint {
  let num = 1n;
  let den = 1n;
  xs.forEach((x, m) => {
    if (m === j) return;
    num = Fn.mul(num, x);
    den = Fn.mul(den, Fn.sub(x, xs[j]!));
  });
  return Fn.div(num, den);
}

/**
 * The leaver's decryption share for the card at `position`, from its holders' stand-in shares: each is
 * checked (a bad one names its holder), and the first `threshold` valid ones from distinct holders are
 * combined. `share` is null when fewer than `threshold` are valid.
 */
export function combineStandIns(
  table: DeckTable,
  backup: KeyBackup,
  card: Ciphertext,
  position: number,
  shares: readonly StandInShare[],
  seq = 0,
): { share: RPoint | null; violations: Violation[] } {
  const violations: Violation[] = [];
  const used = new Map<number, RPoint>();
  for (const s of shares) {
    // The leaver holds a share of its own key too; whatever it sends in its name is not used.
    if (s.holder === backup.player) continue;
    if (s.position === position && standInShareValid(table, backup, card, s)) {
      const seat = seatOf(table, s.holder);
      if (!used.has(seat) && used.size < backup.threshold) used.set(seat, pointFromHex(s.share, 'share'));
    } else if (table.players.includes(s.holder)) {
      const message = `${s.holder}'s stand-in share for ${backup.player} at position ${position} does not check against the backup's commitments`;
      violations.push({ code: 'bad_decryption_share', player: s.holder, seq, message, evidence: [{ note: message }] });
    }
  }
  if (used.size < backup.threshold) return { share: null, violations };
  const seats = [...used.keys()];
  const xs = seats.map((seat) => BigInt(seat + 1));
  const share = seats.reduce((sum, seat, j) => sum.add(mulPublic(used.get(seat)!, lagrangeAtZero(xs, j))), ZERO);
  return { share, violations };
}

/** The finding for a player who left mid-hand: an absence, never a rule broken. */
export function leftTheHand(player: string, seq = 0): Violation {
  const message = `${player} left during the hand; the others finished it with stand-in shares`;
  return { code: 'withheld', kind: 'absence', player, seq, message, evidence: [{ note: message }] };
}
