/**
 * Commitments (docs/SPEC.md §5).
 *
 *   commitment = H("commit", JCS({game, player, purpose, nonce, value}))
 *
 * Hiding: the 32-byte nonce comes from a CSPRNG, so the commitment says nothing
 * about `value` even when the value has little entropy (a die face, an order).
 * Binding: SHA-256 collision resistance. Bound to game, player and purpose, so a
 * commitment copied from another player (or game, or purpose) cannot be opened
 * by the copier: the opening is checked with the opener's own id.
 */
import { FairtableError } from './errors.js';
import { isHex, randomBytes, toHex } from './bytes.js';
import { hashCanonical } from './hash.js';
import { canonicalShape } from './jcs.js';
import type { JsonValue } from './jcs.js';

export interface Opening {
  readonly nonce: string; // 64 hex digits
  readonly value: JsonValue;
}

export interface CommitmentContext {
  readonly game: string;
  readonly player: string;
  readonly purpose: string;
}

/** JCS({game, player, purpose, nonce, value}): an audit takes one a move. */
const commitmentText = canonicalShape(['game', 'player', 'purpose', 'nonce', 'value']);

export function commitmentOf(ctx: CommitmentContext, opening: Opening): string {
  if (!isHex(opening.nonce, 32)) throw new FairtableError('bad_input', 'nonce must be 32 bytes of lowercase hex', { field: 'nonce' });
  return toHex(
    hashCanonical('commit', commitmentText({ game: ctx.game, player: ctx.player, purpose: ctx.purpose, nonce: opening.nonce, value: opening.value })),
  );
}

/** A fresh opening for `value` with a CSPRNG nonce (or the `random` source a test injects). */
export function newOpening(value: JsonValue, random: (n: number) => Uint8Array = randomBytes): Opening {
  return { nonce: toHex(random(32)), value };
}

export function commit(ctx: CommitmentContext, value: JsonValue, random?: (n: number) => Uint8Array): { commitment: string; opening: Opening } {
  const opening = newOpening(value, random);
  return { commitment: commitmentOf(ctx, opening), opening };
}

export function isOpening(value: unknown): value is Opening {
  if (value === null || typeof value !== 'object') return false;
  const o = value as Record<string, unknown>;
  return isHex(o.nonce, 32) && 'value' in o && Object.keys(o).length === 2;
}

/** True when `opening` opens `commitment` for this game, player and purpose. Never throws. */
export function opens(ctx: CommitmentContext, commitment: string, opening: unknown): boolean {
  if (!isOpening(opening)) return false;
  try {
    return commitmentOf(ctx, opening) === commitment;
  } catch {
    return false;
  }
}
