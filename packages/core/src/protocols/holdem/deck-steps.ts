/**
 * The deck's messages in a Hold'em game (docs/spec/holdem.md §11): key shares with backups, shuffles,
 * decryption shares per deal step, stand-in shares for a player who is gone, and hole cards shown. Each
 * handler checks a message and records it; what a message starts next is the machine's (machine.ts).
 */
import { fromHex } from '../../bytes.js';
import type { Body } from '../../envelope.js';
import type { JsonValue } from '../../jcs.js';
import type { Accepted } from '../../transcript.js';
import { verifyShare, type SealedShare } from '../../escrow/vss.js';
import { keyShareValid, makeKeyShare, type KeyShare } from '../../deck/joint-key.js';
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
import { DECK_SIZE, deckTable, holePositions, needStandIn, present, sharePositions, shuffler, type HoldemState } from './state.js';

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const sameNumbers = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** A player out of the game from now on: its stack is forfeited once the hand ends. */
export function goneFor(s: HoldemState, st: Stepper, player: string, code: HoldemState['forfeits'][number]['code']): void {
  if (s.gone.includes(player)) return;
  s.gone.push(player);
  s.forfeits.push({ player, code });
  st.emit({ type: 'gone', player, code, hand: s.hand });
}

/** The local player's key message: its key share with its proof, and its secret backed up k of n to the seats. */
export function keyMessage(s: HoldemState, ctx: Ctx): Body {
  const table = deckTable(s);
  const made = makeKeyShare(table, s.me!, ctx.random);
  s.secret = scalarHex(made.secret);
  const keys = s.players.map((p) => fromHex(s.keys[p]!, 'key', 32));
  const backup = backUpKey(table, s.me!, made.secret, s.threshold, keys, ctx.random);
  return { type: 'key', key: made.share.key, proof: made.share.proof, backup: backup as unknown as JsonValue };
}

/** A key message: the share must be a valid key bound to this game and seat, its backup bound to it. */
export function stepKey(s: HoldemState, st: Stepper, msg: Accepted): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  if (s.phase !== 'keys' || s.keyShares[from] !== undefined) {
    st.violation('unexpected_message', from, msg, `${from} sent a key share ${s.phase === 'keys' ? 'twice' : 'after the keys were set'}`);
    return;
  }
  const share: KeyShare = { player: from, key: String(body.key), proof: String(body.proof) };
  const backup = body.backup as unknown as KeyBackup;
  let good = false;
  try {
    good = keyShareValid(deckTable(s), share) && isRecord(backup) && backup.player === from && backupMatchesKey(deckTable(s), share.key, backup, s.threshold);
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
  // The same key at two seats: both are named, as combineKeyShares names them (each proved it knows the secret).
  const shares = Object.entries(s.keyShares).map(([player, key]) => ({ player, key, proof: '' }));
  const reused = shares.filter((x) => pointFromHex(x.key, 'key').equals(pointFromHex(share.key, 'key')));
  if (reused.length > 0) {
    for (const p of [...reused.map((x) => x.player), from]) {
      st.violation('reused_key', p, msg, `key share ${share.key} is published by ${reused.map((x) => x.player).join(', ')} and ${from}`);
      goneFor(s, st, p, 'reused_key');
    }
    return;
  }
  s.keyShares[from] = share.key;
  s.backups[from] = backup;
}

/** Every player's key is in: the joint key is their sum (each share's proof was checked on arrival). */
export function jointKey(s: HoldemState): string | null {
  if (s.players.some((p) => s.keyShares[p] === undefined)) return null;
  const sum = s.players.map((p) => pointFromHex(s.keyShares[p]!, 'key')).reduce((a, b) => a.add(b));
  return sum.is0() ? null : sum.toHex();
}

/** The local player's shuffle of the deck as it stands, with its proof. */
export function shuffleMessage(s: HoldemState, ctx: Ctx): Body {
  const input = s.shuffles === 0 ? newDeck(DECK_SIZE) : s.deck;
  const made = shuffle({ table: deckTable(s), shuffler: s.me!, index: s.shuffles, key: s.jointKey!, input }, ctx.random, ctx.provedOnce);
  return { type: 'shuffle', hand: s.hand, deck: made.output as unknown as JsonValue, proof: made.proof as unknown as JsonValue };
}

/** A shuffle: from the player whose turn it is, a permutation and re-encryption of the deck with a valid proof. */
export function stepShuffle(s: HoldemState, st: Stepper, msg: Accepted): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  if (s.phase !== 'shuffle' || shuffler(s) !== from) {
    st.violation('out_of_turn', from, msg, `${from} shuffled when it was ${shuffler(s) ?? 'nobody'}'s turn to shuffle`);
    return;
  }
  const input = s.shuffles === 0 ? newDeck(DECK_SIZE) : s.deck;
  const output = body.deck as unknown as Ciphertext[];
  let found: string | null = null;
  try {
    if (!Array.isArray(output) || output.length !== DECK_SIZE) found = `${from}'s shuffled deck has not ${DECK_SIZE} cards`;
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

/** The local player's decryption shares for this step's positions. */
export function sharesMessage(s: HoldemState, ctx: Ctx): Body {
  const table = deckTable(s);
  const secret = scalarFromHex(s.secret!, 'secret');
  const shares = sharePositions(s, s.step!, s.me!).map((p) => decryptionShare(table, s.me!, secret, p, s.deck[p]!, ctx.random, ctx.provedOnce));
  return { type: 'shares', hand: s.hand, step: s.step!, shares: shares as unknown as JsonValue };
}

/** A seat's shares for the step: exactly the positions the step asks of it, each with a valid proof. */
export function stepShares(s: HoldemState, st: Stepper, msg: Accepted): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  if (s.phase !== 'deal' || body.step !== s.step || s.sent.includes(from)) {
    st.violation('unexpected_message', from, msg, `${from} sent decryption shares for ${String(body.step)} when the hand is not dealing them, or twice`);
    return;
  }
  const want = sharePositions(s, s.step!, from);
  const shares = body.shares as unknown as DecryptionShare[];
  const table = deckTable(s);
  const key = s.keyShares[from]!;
  let bad: string | null = null;
  if (
    !Array.isArray(shares) ||
    !sameNumbers(
      shares.map((x) => (isRecord(x) ? Number(x.position) : -1)),
      want,
    )
  )
    bad = `${from}'s decryption shares for the ${s.step} are not for positions [${want.join(', ')}]`;
  else {
    const wrong = shares.find((x) => x.player !== from || !decryptionShareValid(table, key, s.deck[x.position]!, x));
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

/** The positions a leaver's stand-ins cover at this step: what it would have published. */
const standInPositions = (s: HoldemState, leaver: string): number[] => sharePositions(s, s.step!, leaver);

/** The local seat's stand-in shares for `leaver` at this step, from its share of the leaver's backup; null if it holds none. */
export function standInMessage(s: HoldemState, leaver: string, ctx: Ctx): Body | null {
  const backup = s.backups[leaver];
  const seat = s.players.indexOf(s.me!);
  if (backup === undefined || ctx.openShare === undefined) return null;
  let held: string;
  try {
    held = ctx.openShare(backup.sealed[seat] as SealedShare, backupContext(deckTable(s), leaver, seat));
  } catch {
    return null;
  }
  if (!verifyShare(seat + 1, held, backup.commitments)) return null;
  const shares = standInPositions(s, leaver).map((p) => standInShare(deckTable(s), backup, s.me!, held, p, s.deck[p]!, ctx.random, ctx.provedOnce));
  return { type: 'standin', hand: s.hand, step: s.step!, leaver, shares: shares as unknown as JsonValue };
}

/** A holder's stand-in shares for a gone player: every position it would have opened, each proved against the backup. */
export function stepStandIn(s: HoldemState, st: Stepper, msg: Accepted): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  const leaver = String(body.leaver);
  if (s.phase !== 'deal' || body.step !== s.step || !needStandIn(s).includes(leaver) || from === leaver || s.standins[leaver]?.[from] !== undefined) {
    // Stand-ins that come after the step no longer needs them (a race with the leaver's own shares) are harmless.
    return;
  }
  const want = standInPositions(s, leaver);
  const shares = body.shares as unknown as StandInShare[];
  const backup = s.backups[leaver]!;
  const ok =
    Array.isArray(shares) &&
    sameNumbers(
      shares.map((x) => (isRecord(x) ? Number(x.position) : -1)),
      want,
    ) &&
    shares.every((x) => x.holder === from && standInShareValid(deckTable(s), backup, s.deck[x.position]!, x));
  if (!ok) {
    st.violation('bad_decryption_share', from, msg, `${from}'s stand-in shares for ${leaver} at the ${s.step} do not check against ${leaver}'s backup`);
    goneFor(s, st, from, 'bad_decryption_share');
    return;
  }
  (s.standins[leaver] ??= {})[from] = shares;
}

/** When the step is complete: each stood-in leaver's share rebuilt per position and added to the public parts. */
export function closeStep(s: HoldemState): boolean {
  if (present(s).some((p) => !s.sent.includes(p))) return false;
  const leavers = needStandIn(s);
  if (leavers.some((l) => Object.keys(s.standins[l] ?? {}).length < s.threshold)) return false;
  for (const leaver of leavers) {
    const all = Object.values(s.standins[leaver]!).flat();
    for (const p of standInPositions(s, leaver)) {
      const c = combineStandIns(deckTable(s), s.backups[leaver]!, s.deck[p]!, p, all);
      (s.parts[String(p)] ??= []).push(c.share!.toHex());
    }
  }
  return true;
}

/** Whether the step can still complete: every leaver it stands in for has enough holders left. */
export const stepPossible = (s: HoldemState): boolean => needStandIn(s).every((l) => present(s).filter((p) => p !== l).length >= s.threshold);

/** The card at `position` from its public parts (and, for a hole card, its owner's own share point). */
export function openCard(s: HoldemState, position: number, own: readonly string[] = []): number | null {
  const parts = [...(s.parts[String(position)] ?? []), ...own].map((h) => pointFromHex(h, 'share'));
  return cardUnder(s.deck[position]!, parts, DECK_SIZE);
}

/** The local player's hole cards, opened with its own shares. */
export function openMine(s: HoldemState): number[] | null {
  const mine = holePositions(s)[s.me!];
  if (mine === undefined || s.secret === null) return null;
  const x = scalarFromHex(s.secret, 'secret');
  const cards = mine.map((p) => openCard(s, p, [mul(pointFromHex(s.deck[p]!.a, 'a'), x).toHex()]));
  return cards.every((c) => c !== null) ? (cards as number[]) : null;
}

/** The local player's showdown: its two positions, the cards it names and its own decryption shares. */
export function showMessage(s: HoldemState, ctx: Ctx): Body {
  const table = deckTable(s);
  const x = scalarFromHex(s.secret!, 'secret');
  const positions = holePositions(s)[s.me!]!;
  const cards = positions.map((p, i) => ({
    position: p,
    card: s.mine![i]!,
    share: decryptionShare(table, s.me!, x, p, s.deck[p]!, ctx.random, ctx.provedOnce),
  }));
  return { type: 'show', hand: s.hand, cards: cards as unknown as JsonValue };
}

/**
 * A hand shown: both positions dealt to the player, its own shares valid, and the cards it names the ones
 * its shares and the others' open (`card_not_dealt` for a position not its own or a card substituted).
 */
export function stepShow(s: HoldemState, st: Stepper, msg: Accepted): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  if (s.phase !== 'show' || s.shown[from] !== undefined || !(s.table.hand?.seats.includes(from) ?? false) || s.table.hand!.folded.includes(from)) {
    st.violation('out_of_turn', from, msg, `${from} showed cards when it has no hand at a showdown to show`);
    return;
  }
  const mine = holePositions(s)[from]!;
  const cards = body.cards as unknown as { position: number; card: number; share: DecryptionShare }[];
  const fail = (code: 'card_not_dealt' | 'bad_decryption_share', why: string): void => {
    st.violation(code, from, msg, why);
    goneFor(s, st, from, code);
  };
  if (!Array.isArray(cards) || cards.length !== 2 || !cards.every(isRecord)) return fail('card_not_dealt', `${from} did not show two cards`);
  const positions = cards.map((c) => Number(c.position));
  if (
    !sameNumbers(
      [...positions].sort((a, b) => a - b),
      mine,
    )
  )
    return fail('card_not_dealt', `${from} showed positions [${positions.join(', ')}]; its hand was dealt [${mine.join(', ')}]`);
  const opened: number[] = [];
  for (const c of cards) {
    const share = c.share;
    let valid = false;
    try {
      valid =
        isRecord(share) &&
        share.player === from &&
        share.position === c.position &&
        decryptionShareValid(deckTable(s), s.keyShares[from]!, s.deck[c.position]!, share);
    } catch {
      valid = false;
    }
    if (!valid) return fail('bad_decryption_share', `${from}'s own decryption share for position ${c.position} does not check against its key share`);
    const card = openCard(s, c.position, [share.share]);
    if (card === null || card !== c.card)
      return fail('card_not_dealt', `${from} named card ${String(c.card)} at position ${c.position}, which holds card ${String(card)}`);
    opened.push(card);
  }
  s.shown[from] = opened;
}
