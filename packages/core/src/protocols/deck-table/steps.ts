/**
 * The deck's messages as any card game carries them (docs/spec/deck.md, "Games on the deck"): key shares
 * with backups, shuffles in seat order, decryption shares for an opening, stand-in shares for a player who is
 * gone, and a card played from a hand. Each handler checks a message, names a cheater with the deck's codes
 * and records what is valid; what comes next is the game's machine.
 *
 * Messages: `key` {key, proof, backup}; `shuffle` {index, deck, proof}; `shares` {opening, shares};
 * `standin` {opening, leaver, shares}; a game's play from a hand carries {position, card, share}.
 */
import { fromHex } from '../../bytes.js';
import type { Body } from '../../envelope.js';
import type { JsonValue } from '../../jcs.js';
import type { Accepted } from '../../transcript.js';
import { verifyShare, type SealedShare } from '../../escrow/vss.js';
import { keyShareValid, makeKeyShare } from '../../deck/joint-key.js';
import { newDeck, type Ciphertext } from '../../deck/elgamal.js';
import { mul, pointFromHex, scalarFromHex, scalarHex } from '../../deck/group.js';
import { checkShuffle, shuffle, type ShuffleProof } from '../../deck/shuffle-proof.js';
import { cardUnder, decryptionShare, decryptionShareValid, type DecryptionShare } from '../../deck/decrypt.js';
import {
  backUpKey,
  backupContext,
  backupMatchesKey,
  combineStandIns,
  standInShare,
  standInShareValid,
  type KeyBackup,
  type StandInShare,
} from '../../deck/threshold.js';
import type { Ctx, Stepper } from '../machine.js';
import { deckTable, needStandIn, present, sharePositions, shuffler, type DeckTableState, type OpenedCard } from './state.js';

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const sameNumbers = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const positionsOf = (list: unknown[]): number[] => list.map((x) => (isRecord(x) ? Number(x.position) : -1));

/** A player out of the game from now on (named, or absent): the others stand in for its key. */
export function goneFor(s: DeckTableState, st: Stepper, player: string, code: DeckTableState['forfeits'][number]['code']): void {
  if (s.gone.includes(player)) return;
  s.gone.push(player);
  s.forfeits.push({ player, code });
  st.emit({ type: 'gone', player, code });
}

/** The local player's key message: its key share with its proof, and its secret backed up k of n to the seats. */
export function keyMessage(s: DeckTableState, ctx: Ctx): Body {
  const table = deckTable(s);
  const made = makeKeyShare(table, s.me!, ctx.random);
  s.secret = scalarHex(made.secret);
  const keys = s.players.map((p) => fromHex(s.keys[p]!, 'key', 32));
  const backup = backUpKey(table, s.me!, made.secret, s.threshold, keys, ctx.random);
  return { type: 'key', key: made.share.key, proof: made.share.proof, backup: backup as unknown as JsonValue };
}

/** A key message: a valid key bound to this game and seat, its backup bound to it; one key at two seats names both. */
export function stepKey(s: DeckTableState, st: Stepper, msg: Accepted): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  if (s.phase !== 'keys' || s.keyShares[from] !== undefined) {
    st.violation('unexpected_message', from, msg, `${from} sent a key share ${s.phase === 'keys' ? 'twice' : 'after the keys were set'}`);
    return;
  }
  const key = String(body.key);
  const backup = body.backup as unknown as KeyBackup;
  let good = false;
  try {
    good =
      keyShareValid(deckTable(s), { player: from, key, proof: String(body.proof) }) &&
      isRecord(backup) &&
      backup.player === from &&
      backupMatchesKey(deckTable(s), key, backup, s.threshold);
  } catch {
    good = false;
  }
  if (!good) {
    st.violation(
      'bad_key_share',
      from,
      msg,
      `${from}'s key share is not a valid key with a proof bound to this game and seat, or its backup is not bound to it`,
    );
    goneFor(s, st, from, 'bad_key_share');
    return;
  }
  const point = pointFromHex(key, 'key');
  const reused = Object.keys(s.keyShares).filter((p) => pointFromHex(s.keyShares[p]!, 'key').equals(point));
  if (reused.length > 0) {
    for (const p of [...reused, from]) {
      st.violation('reused_key', p, msg, `key share ${key} is published by ${reused.join(', ')} and ${from}`);
      goneFor(s, st, p, 'reused_key');
    }
    return;
  }
  s.keyShares[from] = key;
  s.backups[from] = backup;
}

/** Every player's key is in: the joint key is their sum (each share's proof was checked on arrival). */
export function jointKey(s: DeckTableState): string | null {
  if (s.players.some((p) => s.keyShares[p] === undefined)) return null;
  const sum = s.players.map((p) => pointFromHex(s.keyShares[p]!, 'key')).reduce((a, b) => a.add(b));
  return sum.is0() ? null : sum.toHex();
}

/** The local player's shuffle of the deck as it stands, with its proof; null when it is not its turn or it sent it. */
export function shuffleMessage(s: DeckTableState, ctx: Ctx): Body | null {
  if (s.me === null || shuffler(s) !== s.me || s.outbox.includes(`shuffle/${s.shuffles}`)) return null;
  s.outbox.push(`shuffle/${s.shuffles}`);
  const input = s.shuffles === 0 ? newDeck(s.size) : s.deck;
  const made = shuffle({ table: deckTable(s), shuffler: s.me, index: s.shuffles, key: s.jointKey!, input }, ctx.random, ctx.provedOnce);
  return { type: 'shuffle', index: s.shuffles, deck: made.output as unknown as JsonValue, proof: made.proof as unknown as JsonValue };
}

/** A shuffle: from the player whose turn it is, a permutation and re-encryption of the deck with a valid proof. */
export function stepShuffle(s: DeckTableState, st: Stepper, msg: Accepted): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  if (s.phase !== 'shuffle' || shuffler(s) !== from) {
    st.violation('out_of_turn', from, msg, `${from} shuffled when it was ${shuffler(s) ?? 'nobody'}'s turn to shuffle`);
    return;
  }
  const input = s.shuffles === 0 ? newDeck(s.size) : s.deck;
  const output = body.deck as unknown as Ciphertext[];
  let found: string | null = null;
  try {
    if (!Array.isArray(output) || output.length !== s.size) found = `${from}'s shuffled deck has not ${s.size} cards`;
    else if (from !== s.me) {
      // A seat does not check the shuffle it made itself; everyone else, and the auditor, does.
      const v = checkShuffle(
        { table: deckTable(s), shuffler: from, index: s.shuffles, key: s.jointKey!, input, output },
        body.proof as unknown as ShuffleProof,
      );
      if (v.length > 0) found = v[0]!.message;
    }
  } catch (e) {
    found = `${from}'s shuffle cannot be read: ${(e as Error).message}`;
  }
  s.shuffled.push(from);
  if (found !== null) {
    st.violation('bad_shuffle', from, msg, found);
    goneFor(s, st, from, 'bad_shuffle');
    return;
  }
  s.deck = output.map((c) => ({ a: c.a, b: c.b }));
  s.shuffles++;
}

/** Starts the next opening of `cards`; the game's phase becomes `open`. */
export function startOpening(s: DeckTableState, cards: OpenedCard[]): void {
  s.openings++;
  s.opening = { n: s.openings, cards };
  // A player with nothing to open (the drawer of a single card) has nothing to send.
  s.sent = s.players.filter((p) => sharePositions(s, p).length === 0);
  s.standins = {};
  s.phase = 'open';
}

/** The local seat's part in the opening: its shares, then its stand-ins for every gone player who needs them. */
export function sendMine(s: DeckTableState, st: Stepper, ctx: Ctx): void {
  if (s.me === null || s.gone.includes(s.me) || s.opening === null) return;
  const n = s.opening.n;
  const table = deckTable(s);
  if (!s.sent.includes(s.me) && !s.outbox.includes(`shares/${n}`)) {
    s.outbox.push(`shares/${n}`);
    const secret = scalarFromHex(s.secret!, 'secret');
    const shares = sharePositions(s, s.me).map((p) => decryptionShare(table, s.me!, secret, p, s.deck[p]!, ctx.random, ctx.provedOnce));
    st.send({ type: 'shares', opening: n, shares: shares as unknown as JsonValue });
  }
  for (const leaver of needStandIn(s)) {
    if (leaver === s.me || s.outbox.includes(`standin/${n}/${leaver}`)) continue;
    s.outbox.push(`standin/${n}/${leaver}`);
    const backup = s.backups[leaver];
    const seat = s.players.indexOf(s.me);
    if (backup === undefined || ctx.openShare === undefined) continue;
    let held: string;
    try {
      held = ctx.openShare(backup.sealed[seat] as SealedShare, backupContext(table, leaver, seat));
    } catch {
      continue;
    }
    if (!verifyShare(seat + 1, held, backup.commitments)) continue;
    const shares = sharePositions(s, leaver).map((p) => standInShare(table, backup, s.me!, held, p, s.deck[p]!, ctx.random, ctx.provedOnce));
    st.send({ type: 'standin', opening: n, leaver, shares: shares as unknown as JsonValue });
  }
}

/** Whether a `shares` or `standin` message is for an opening already closed: stale on a slow network, never held against its sender. */
export const staleOpening = (s: DeckTableState, body: Body): boolean =>
  typeof body.opening === 'number' && body.opening <= s.openings && body.opening !== s.opening?.n;

/** A seat's shares for the opening: exactly the positions it asks of it, each with a valid proof. */
export function stepShares(s: DeckTableState, st: Stepper, msg: Accepted): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  if (staleOpening(s, body)) return;
  if (s.opening === null || body.opening !== s.opening.n || s.sent.includes(from)) {
    st.violation('unexpected_message', from, msg, `${from} sent decryption shares for opening ${String(body.opening)} when none of its is open, or twice`);
    return;
  }
  const want = sharePositions(s, from);
  const shares = body.shares as unknown as DecryptionShare[];
  let bad: string | null = null;
  if (!Array.isArray(shares) || !sameNumbers(positionsOf(shares), want)) bad = `${from}'s decryption shares are not for positions [${want.join(', ')}]`;
  else {
    const wrong = shares.find((x) => x.player !== from || !decryptionShareValid(deckTable(s), s.keyShares[from]!, s.deck[x.position]!, x));
    if (wrong !== undefined) bad = `${from}'s decryption share for position ${wrong.position} does not check against its key share`;
  }
  if (bad !== null) {
    st.violation('bad_decryption_share', from, msg, bad);
    goneFor(s, st, from, 'bad_decryption_share');
    return;
  }
  s.sent.push(from);
  for (const x of shares) (s.parts[String(x.position)] ??= []).push(x.share);
}

/** A holder's stand-in shares for a gone player: every position it would have opened, each proved against the backup. */
export function stepStandIn(s: DeckTableState, st: Stepper, msg: Accepted): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  const leaver = String(body.leaver);
  // Stand-ins the opening no longer needs (a race with the leaver's own shares, or late) are harmless.
  if (s.opening === null || body.opening !== s.opening.n || !needStandIn(s).includes(leaver) || from === leaver || s.standins[leaver]?.[from] !== undefined)
    return;
  const shares = body.shares as unknown as StandInShare[];
  const backup = s.backups[leaver]!;
  const ok =
    Array.isArray(shares) &&
    sameNumbers(positionsOf(shares), sharePositions(s, leaver)) &&
    shares.every((x) => x.holder === from && standInShareValid(deckTable(s), backup, s.deck[x.position]!, x));
  if (!ok) {
    st.violation(
      'bad_decryption_share',
      from,
      msg,
      `${from}'s stand-in shares for ${leaver} in opening ${s.opening.n} do not check against ${leaver}'s backup`,
    );
    goneFor(s, st, from, 'bad_decryption_share');
    return;
  }
  (s.standins[leaver] ??= {})[from] = shares;
}

/** Whether the opening can still complete: every leaver it stands in for has enough holders left. */
export const openingPossible = (s: DeckTableState): boolean => needStandIn(s).every((l) => present(s).filter((p) => p !== l).length >= s.threshold);

/** Closes the opening once complete: each stood-in leaver's share rebuilt per position and added to the public parts. */
export function closeOpening(s: DeckTableState): boolean {
  if (s.opening === null || present(s).some((p) => !s.sent.includes(p))) return false;
  const leavers = needStandIn(s);
  if (leavers.some((l) => Object.keys(s.standins[l] ?? {}).length < s.threshold)) return false;
  for (const leaver of leavers) {
    const all = Object.values(s.standins[leaver]!).flat();
    for (const p of sharePositions(s, leaver)) {
      const c = combineStandIns(deckTable(s), s.backups[leaver]!, s.deck[p]!, p, all);
      (s.parts[String(p)] ??= []).push(c.share!.toHex());
    }
  }
  return true;
}

/** The card at `position` from its public parts and `own` share points (hex), or null. */
export function openCard(s: DeckTableState, position: number, own: readonly string[] = []): number | null {
  const parts = [...(s.parts[String(position)] ?? []), ...own].map((h) => pointFromHex(h, 'share'));
  return cardUnder(s.deck[position]!, parts, s.size);
}

/** A card dealt to the local player, opened with its own share computed privately. */
export function openOwn(s: DeckTableState, position: number): number | null {
  if (s.secret === null) return null;
  return openCard(s, position, [mul(pointFromHex(s.deck[position]!.a, 'a'), scalarFromHex(s.secret, 'secret')).toHex()]);
}

/** The local player's own decryption share for a position of its hand, to play the card face up. */
export function ownShare(s: DeckTableState, position: number, ctx: Ctx): DecryptionShare {
  return decryptionShare(deckTable(s), s.me!, scalarFromHex(s.secret!, 'secret'), position, s.deck[position]!, ctx.random, ctx.provedOnce);
}

/**
 * A card played from `hand` (the positions the rules dealt to its player): the position must be one of
 * them, the player's own share valid, and the card it names the one the shares open to. Names the player
 * `card_not_dealt` or `bad_decryption_share` (and it is gone) and returns null, or returns the card.
 */
export function checkPlayed(s: DeckTableState, st: Stepper, msg: Accepted, hand: readonly number[]): number | null {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  const fail = (code: 'card_not_dealt' | 'bad_decryption_share', why: string): null => {
    st.violation(code, from, msg, why);
    goneFor(s, st, from, code);
    return null;
  };
  const position = Number(body.position);
  if (!hand.includes(position)) return fail('card_not_dealt', `${from} played position ${String(body.position)}; its hand holds [${hand.join(', ')}]`);
  const share = body.share as unknown as DecryptionShare;
  let valid = false;
  try {
    valid =
      isRecord(share) &&
      share.player === from &&
      share.position === position &&
      decryptionShareValid(deckTable(s), s.keyShares[from]!, s.deck[position]!, share);
  } catch {
    valid = false;
  }
  if (!valid) return fail('bad_decryption_share', `${from}'s own decryption share for position ${position} does not check against its key share`);
  // A share is x·A, the same point each time: a card already shown (a refused play) has its owner's share public.
  const shown = (s.parts[String(position)] ?? []).includes(share.share);
  const card = openCard(s, position, shown ? [] : [share.share]);
  if (card === null || card !== body.card)
    return fail('card_not_dealt', `${from} named card ${String(body.card)} at position ${position}, which holds card ${String(card)}`);
  if (!shown) (s.parts[String(position)] ??= []).push(share.share);
  return card;
}
