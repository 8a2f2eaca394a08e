/**
 * Escrow of the diplomacy machine's commitments (docs/spec/diplomacy.md §10.6, docs/spec/escrow.md §1 and
 * §3.4): the threshold scheme's dealing, shares and opening, and seed 003's layers (the head checked at the
 * commit, the background check at the reveal, the proven exchanges of a peel). One set of helpers serves
 * the orders of every phase and the preference values of the power-assignment round; every context names
 * the stage (`powers/` before the round number in the assignment round), so an escrow of one stage never
 * opens as one of the other.
 */
import { fromHex, utf8 } from '@fairtable/core/bytes.js';
import { opens, type Opening } from '@fairtable/core/commitment.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { canonicalize, type JsonValue } from '@fairtable/core/jcs.js';
import { intParam, type Ctx, type Stepper } from '@fairtable/core/protocols/machine.js';
import type { Accepted } from '@fairtable/core/transcript.js';
import { deal, openEscrowedValue, randomScalar, reconstruct, sealShares, sealValue, verifyShare, type SealedShare } from '@fairtable/core/escrow/vss.js';
import { exchangeContext, headProblem, layerPlan, onionProblem } from '@fairtable/core/escrow/layers.js';
import type { DiplomacyState } from './machine.js';

/** What a committer publishes with its commitment when escrow is on (docs/spec/escrow.md §1). */
export interface EscrowBody {
  /** Feldman commitments C_0 … C_{k−1}, hex. */
  readonly commitments: readonly string[];
  /** One sealed share per other player, in the setup's order (seat i is the i-th other player). */
  readonly shares: readonly SealedShare[];
  /** The opening, sealed under the key of the shared secret. */
  readonly sealed: string;
}

/** The commitment purpose of a round's value: `diplomacy/<round>`. */
export const purpose = (round: number): string => `diplomacy/${round}`;

/** The escrow parameter: `escrow: "threshold"` with `threshold` k (default: a majority of the other players), or `"layers"`. */
export function escrowParam(params: { readonly [key: string]: JsonValue }, players: number): { k: number } | null {
  const kind = params.escrow ?? 'none';
  if (kind === 'none') return null;
  if (kind === 'layers') {
    if (params.threshold !== undefined)
      throw new FairtableError('bad_input', 'parameter threshold is for escrow "threshold"; layers have none', { field: 'threshold' });
    if (players < 2) throw new FairtableError('out_of_range', 'escrow needs at least two players', { field: 'escrow' });
    return null;
  }
  if (kind !== 'threshold') throw new FairtableError('bad_input', 'parameter escrow must be "none", "threshold" or "layers"', { field: 'escrow' });
  const others = players - 1;
  if (others < 1) throw new FairtableError('out_of_range', 'escrow needs at least two players', { field: 'escrow' });
  return { k: intParam(params, 'threshold', Math.floor(others / 2) + 1, 1, others) };
}

/** `powers/` in the assignment round; nothing in a phase, whose context goes on with its (decimal) round number. */
const stage = (s: DiplomacyState): string => (s.stage === 'assign' ? 'powers/' : '');
/** The contexts of a sealed share and of the sealed value (docs/spec/diplomacy.md §10.5.1). */
export const shareContext = (s: DiplomacyState, round: number, dealer: string, seat: string): string =>
  `diplomacy/${s.gameId}/${stage(s)}${round}/${dealer}/${seat}`;
export const valueContext = (s: DiplomacyState, round: number, dealer: string): string => `diplomacy/${s.gameId}/${stage(s)}${round}/${dealer}`;
/** The context of an onion and of its exchanges (docs/spec/escrow.md §3.4). */
export const layerContext = (s: DiplomacyState, round: number, owner: string): string => `diplomacy/${s.gameId}/${stage(s)}${round}/${owner}`;
export const othersOf = (s: DiplomacyState, owner: string): string[] => s.players.filter((p) => p !== owner);

/** Whether `player`'s commitment this round is escrowed (shares dealt, or an onion). */
export const escrowed = (s: DiplomacyState, player: string): boolean =>
  (s.escrow !== null && s.escrows[player] !== undefined) || (s.layered && s.onions[player] !== undefined);

/** The local player's escrow of its opening: a fresh secret shared k of n among the others, the opening sealed under it. */
export function escrowOf(s: DiplomacyState, opening: Opening, ctx: Ctx): EscrowBody {
  const others = othersOf(s, s.me!);
  const secret = randomScalar(ctx.random);
  const dealing = deal(secret, s.escrow!.k, others.length, ctx.random);
  return {
    commitments: dealing.commitments,
    // One ephemeral key for the dealing: each box still has its own shared secret and context.
    shares: sealShares(
      dealing.shares,
      others.map((p) => fromHex(s.keys[p]!, 'key', 32)),
      others.map((p) => shareContext(s, s.round, s.me!, p)),
      ctx.random,
    ),
    sealed: sealValue(utf8(canonicalize(opening as unknown as JsonValue)), secret, valueContext(s, s.round, s.me!)),
  };
}

export function isEscrowBody(value: unknown, k: number, n: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const e = value as Partial<EscrowBody>;
  const hex = (x: unknown): boolean => typeof x === 'string' && /^(?:[0-9a-f]{2})+$/.test(x);
  return (
    Array.isArray(e.commitments) &&
    e.commitments.length === k &&
    e.commitments.every(hex) &&
    Array.isArray(e.shares) &&
    e.shares.length === n &&
    e.shares.every((x) => x !== null && typeof x === 'object' && hex(x.ephemeral) && hex(x.box)) &&
    hex(e.sealed)
  );
}

/** The local player's shares of every escrow being opened: decrypted, checked, published (null when its box does not open or its share is bad). */
export function sendShares(s: DiplomacyState, st: Stepper, ctx: Ctx | undefined): void {
  if (s.me === null || !s.active.includes(s.me) || ctx === undefined) return;
  for (const dealer of Object.keys(s.opening)) {
    if (dealer === s.me) continue;
    const seat = othersOf(s, dealer).indexOf(s.me) + 1;
    const sealed = s.escrows[dealer]!.shares[seat - 1]!;
    let share: string | null = null;
    try {
      share = ctx.openShare?.(sealed, shareContext(s, s.round, dealer, s.me)) ?? null;
    } catch (e) {
      if (!(e instanceof FairtableError)) throw e;
    }
    if (share !== null && !verifyShare(seat, share, s.escrows[dealer]!.commitments)) share = null;
    st.send({ type: 'share', round: s.round, dealer, share });
  }
}

/** A threshold opening: the dealer's opening when k valid shares open its commitment, else how many shares there were and why not. */
export type ThresholdOpened = { readonly opening: Opening } | { readonly shares: number; readonly short: boolean };

/** Opens `dealer`'s escrow from the first k valid shares published, and checks the opening against its commitment. */
export function openThreshold(s: DiplomacyState, dealer: string): ThresholdOpened {
  const others = othersOf(s, dealer);
  const shares = Object.entries(s.opening[dealer]!.shares)
    .slice(0, s.escrow!.k)
    .map(([p, share]) => ({ seat: others.indexOf(p) + 1, share }));
  if (shares.length < s.escrow!.k) return { shares: shares.length, short: true };
  let opening: unknown = null;
  try {
    opening = readOpening(openEscrowedValue(s.escrows[dealer]!.sealed, reconstruct(shares), valueContext(s, s.round, dealer)));
  } catch (e) {
    if (!(e instanceof FairtableError)) throw e;
  }
  return opens({ game: s.gameId, player: dealer, purpose: purpose(s.round) }, s.commits[dealer]!, opening)
    ? { opening: opening as Opening }
    : { shares: shares.length, short: false };
}

/** Why a commit's onion cannot be used, or null: checked by everyone as the commit arrives. */
export function onionAtCommit(s: DiplomacyState, owner: string, onion: unknown): string | null {
  if (onion === undefined)
    return `${owner}'s commitment carries no onion, and this game escrows every ${s.stage === 'assign' ? 'assignment' : 'orders'} commitment in layers`;
  const problem = headProblem(onion, layerPlan(othersOf(s, owner)), layerContext(s, s.round, owner));
  return problem === null ? null : `${owner}'s onion: ${problem}`;
}

/** The seed's background check on every reveal: the seed opens every box and layer, and the core is the opening revealed. */
export function backgroundCheck(s: DiplomacyState, st: Stepper, msg: Accepted, owner: string, body: { readonly [key: string]: unknown }): void {
  const o = body.opening as Opening;
  const problem = onionProblem(
    s.onions[owner]!.head,
    body.seed,
    othersOf(s, owner),
    s.keys,
    layerContext(s, s.round, owner),
    utf8(canonicalize({ nonce: o.nonce, value: o.value })),
  );
  // Its value opened its commitment and stands; the onion it sealed would not have opened it.
  if (problem !== null)
    st.violation('bad_layer', owner, msg, `${owner}'s onion of round ${s.round} fails the background check: ${problem}`, [
      { line: s.onions[owner]!.line, note: `${owner}'s commit, with the onion; the reveal publishes its seed` },
    ]);
}

/** Who may still peel: in the game, and not named this round for refusing or for a wrong exchange. */
export const ableToPeel = (s: DiplomacyState, m: string): boolean => s.active.includes(m) && !s.unwilling.includes(m);

/** The members asked to peel `owner`'s onion who have not answered. */
export function askedToPeel(s: DiplomacyState, owner: string): string[] {
  const p = s.peeling[owner];
  if (p === undefined || p.shut || p.value !== null) return [];
  return p.waiting.filter((m) => ableToPeel(s, m));
}

export function sendPeels(s: DiplomacyState, st: Stepper, ctx: Ctx | undefined): void {
  const me = s.me;
  if (me === null || ctx?.exchange === undefined) return;
  for (const owner of Object.keys(s.peeling)) {
    if (!askedToPeel(s, owner).includes(me)) continue;
    const x = ctx.exchange(s.onions[owner]!.head.ephemeral, exchangeContext(layerContext(s, s.round, owner), me));
    st.send({ type: 'peel', round: s.round, owner, shared: x.shared, proof: x.proof });
  }
}

/** Bytes as UTF-8 JSON, or null when they are not. */
export function readOpening(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return null;
  }
}
