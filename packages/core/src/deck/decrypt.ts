/**
 * Opening cards (docs/spec/deck.md §6): decryption shares with Chaum–Pedersen proofs.
 *
 * For the ciphertext (A, B) at a deck position, player i's decryption share is D_i = x_i·A with a proof
 * that log_G(Y_i) = log_A(D_i), bound to the game, the seat and the position. The card is
 * M = B − Σ D_i, looked up among the deck's card points.
 *
 * - Dealt to one player: every other player publishes its share; the owner adds its own privately, so only
 *   the owner learns the card.
 * - Face up: every player publishes its share.
 * - Played from a hand: the owner publishes its own share for the position it was dealt; everyone checks
 *   that the position was dealt to that hand and that the shares open to the card it names.
 *
 * A share whose proof fails is `bad_decryption_share` naming its player; a card shown from a position not
 * dealt to that player, or a card other than the one the shares open to, is `card_not_dealt`.
 */
import type { Violation } from '../errors.js';
import { answersKept } from '../escrow/kept.js';
import { cardOf, type Ciphertext } from './elgamal.js';
import { BASE, ZERO, Transcript, fixedPointFromHex, mul, pointFromHex, pointHex, scalarHex, seatOf, type DeckTable, type RPoint } from './group.js';
import { checkEqual, NONCE_BYTES, proveEqual } from './proofs.js';
import { replayOnce, type ProvedOnce } from './proved-once.js';
import { toHex } from '../bytes.js';

/** A published decryption share. */
export interface DecryptionShare {
  readonly player: string;
  /** The deck position of the card (0-based). */
  readonly position: number;
  /** D = x·A, hex. */
  readonly share: string;
  /** Chaum–Pedersen proof (c, z), hex. */
  readonly proof: string;
}

function shareTranscript(table: DeckTable, player: string, position: number): Transcript {
  return new Transcript('decryption-share').text(table.game).int(seatOf(table, player)).text(player).int(position);
}

/**
 * Player `player`'s share for the card at `position`, with its proof (`secret` is its key share's secret). With
 * a simulation's keeper (proved-once.ts), the same share from the same random bytes is made once.
 */
export function decryptionShare(
  table: DeckTable,
  player: string,
  secret: bigint,
  position: number,
  card: Ciphertext,
  random: (n: number) => Uint8Array,
  kept?: ProvedOnce,
): DecryptionShare {
  const a = pointFromHex(card.a, 'a');
  if (kept !== undefined) {
    const drawn = random(NONCE_BYTES);
    return kept(['decryption-share', table, player, scalarHex(secret), position, card, toHex(drawn)], () =>
      decryptionShare(table, player, secret, position, card, replayOnce(drawn)),
    );
  }
  const d = mul(a, secret);
  const proof = proveEqual(shareTranscript(table, player, position), BASE, mul(BASE, secret), a, d, secret, random);
  return { player, position, share: pointHex(d), proof };
}

/**
 * The answers of the last decryption-share checks, by the canonical text of their inputs (escrow/kept.ts): the
 * replicas of a table in one process (the seats, the audit of a seat's copy) check the same shares. Enough for
 * every share of a few hands, so that an audit at a game's end still finds the seats' answers.
 */
const sharesChecked = answersKept<boolean>(2048);

/** Whether `share` is its player's decryption share of `card` at its position, against its key share `key` (hex). */
export function decryptionShareValid(table: DeckTable, key: string, card: Ciphertext, share: DecryptionShare): boolean {
  return sharesChecked([table, key, card, share], () => {
    try {
      if (!table.players.includes(share.player)) return false;
      const y = fixedPointFromHex(key, 'key');
      const a = pointFromHex(card.a, 'a');
      const d = pointFromHex(share.share, 'share');
      return checkEqual(shareTranscript(table, share.player, share.position), BASE, y, a, d, share.proof);
    } catch {
      return false;
    }
  });
}

/** The card under `card` once the decryption shares `parts` (points) of every key share are removed, or null. */
export function cardUnder(card: Ciphertext, parts: readonly RPoint[], size: number): number | null {
  const m = pointFromHex(card.b, 'b').subtract(parts.reduce((sum, p) => sum.add(p), ZERO));
  return cardOf(m, size);
}

const finding = (code: Violation['code'], player: string, message: string, seq: number): Violation => ({
  code,
  player,
  seq,
  message,
  evidence: [{ note: message }],
});

/**
 * Checks published shares for the card at `position`: each must be its player's, for this position, with a
 * valid proof against that player's key share (`keys`, hex, in seat order). Returns the valid ones and a
 * `bad_decryption_share` for each other.
 */
export function checkShares(
  table: DeckTable,
  keys: readonly string[],
  card: Ciphertext,
  position: number,
  shares: readonly DecryptionShare[],
  seq = 0,
): { valid: DecryptionShare[]; violations: Violation[] } {
  const valid: DecryptionShare[] = [];
  const violations: Violation[] = [];
  for (const s of shares) {
    const seat = table.players.indexOf(s.player);
    const key = seat < 0 ? undefined : keys[seat];
    if (s.position === position && key !== undefined && decryptionShareValid(table, key, card, s)) valid.push(s);
    else if (seat >= 0)
      violations.push(
        finding('bad_decryption_share', s.player, `${s.player}'s decryption share for position ${position} does not check against its key share`, seq),
      );
  }
  return { valid, violations };
}

/** The owner's view of a card dealt to it: the others' shares (already checked) and its own, computed privately. */
export function openOwnCard(card: Ciphertext, secret: bigint, others: readonly DecryptionShare[], size: number): number | null {
  const own = mul(pointFromHex(card.a, 'a'), secret);
  return cardUnder(card, [own, ...others.map((s) => pointFromHex(s.share, 'share'))], size);
}

/**
 * A card turned face up: every seat's share (or, for a player who left, the share its stand-ins rebuilt:
 * `extra`) is checked and the card opened. `card` is null when a share is missing or wrong.
 */
export function openFaceUp(
  table: DeckTable,
  keys: readonly string[],
  ciphertext: Ciphertext,
  position: number,
  shares: readonly DecryptionShare[],
  size: number,
  extra: readonly RPoint[] = [],
  seq = 0,
): { card: number | null; violations: Violation[] } {
  const { valid, violations } = checkShares(table, keys, ciphertext, position, shares, seq);
  const seats = new Set(valid.map((s) => s.player));
  if (violations.length > 0 || seats.size + extra.length !== table.players.length) return { card: null, violations };
  return { card: cardUnder(ciphertext, [...valid.map((s) => pointFromHex(s.share, 'share')), ...extra], size), violations };
}

/** A card a player shows from its hand: the position it was dealt, the card it names, and its own share. */
export interface PlayedCard {
  readonly player: string;
  readonly position: number;
  readonly card: number;
  readonly share: DecryptionShare;
}

/**
 * Checks a card played from a hand. `dealtTo` says which player the rules dealt each position to;
 * `dealShares` are the other players' shares published when the card was dealt. The player is named
 * `card_not_dealt` when the position was not dealt to it or the shares open to another card than the one it
 * names, and `bad_decryption_share` when its share does not check.
 */
export function checkPlay(
  table: DeckTable,
  keys: readonly string[],
  deck: readonly Ciphertext[],
  dealtTo: (position: number) => string | null,
  dealShares: readonly DecryptionShare[],
  play: PlayedCard,
  seq = 0,
): { card: number | null; violations: Violation[] } {
  const ciphertext = deck[play.position];
  if (ciphertext === undefined || dealtTo(play.position) !== play.player || play.share.player !== play.player) {
    return {
      card: null,
      violations: [finding('card_not_dealt', play.player, `${play.player} showed position ${play.position}, which was not dealt to its hand`, seq)],
    };
  }
  const opened = openFaceUp(table, keys, ciphertext, play.position, [...dealShares.filter((s) => s.player !== play.player), play.share], deck.length, [], seq);
  if (opened.violations.length > 0 || opened.card === null) return opened;
  if (opened.card !== play.card) {
    return {
      card: opened.card,
      violations: [
        finding('card_not_dealt', play.player, `${play.player} named card ${play.card} at position ${play.position}, which holds card ${opened.card}`, seq),
      ],
    };
  }
  return opened;
}
