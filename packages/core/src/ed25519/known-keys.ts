/**
 * The public keys a game reads over and over (every envelope, every talk message, every relay batch, every box
 * sealed to a player), each decoded once and, from its sixteenth use, multiplied through a table of its multiples
 * (noble's `precompute`, window 6: about 1,400 points, built by noble in ~30 ms, which a dozen multiplications
 * repay). Verification (verify.ts) and X25519 to a known player (x25519.ts) share the one remembered point, so a
 * player's table serves both. The memory is bounded: the last 32 keys used, least recently used dropped first.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { toHex } from '../bytes.js';

export type EdPoint = ReturnType<typeof ed25519.Point.fromBytes>;

export interface KnownKey {
  /** The decoded key; null for one the verification rule never accepts (not a canonical encoding of a point, or of small order). */
  readonly point: EdPoint | null;
  uses: number;
  /** Whether [L]point is the identity (no small-order component), found on first asking. */
  torsionFree: boolean | undefined;
}

/** Keys remembered, least recently used first (a Map keeps insertion order). */
const known = new Map<string, KnownKey>();
const MAX_KEYS = 32;
/** The use of a key from which its table is built: a key read a few times (a newcomer, a one-off check) costs no table. */
export const TABLE_FROM_USE = 16;
/** noble's window: 44 windows of 32 points, built in ~30 ms in Node 20; 8 would take ~4 times as long for a few percent. */
const WINDOW = 6;

/** The remembered entry for `publicKey` (32 bytes), counting this use. */
export function knownKey(publicKey: Uint8Array): KnownKey {
  const id = toHex(publicKey);
  let k = known.get(id);
  if (k === undefined) {
    let point: EdPoint | null;
    try {
      point = ed25519.Point.fromBytes(publicKey, false);
      if (point.isSmallOrder()) point = null;
    } catch {
      point = null;
    }
    k = { point, uses: 0, torsionFree: undefined };
    if (known.size >= MAX_KEYS) known.delete(known.keys().next().value!);
  } else known.delete(id);
  known.set(id, k);
  k.uses++;
  if (k.uses === TABLE_FROM_USE && k.point !== null) k.point.precompute(WINDOW, true);
  return k;
}

/** Whether the key's point has a table of its multiples yet. */
export const hasTable = (k: KnownKey): boolean => k.point !== null && k.uses >= TABLE_FROM_USE;

/** Forgets every key (for tests: the path without a table). */
export function forgetRememberedKeys(): void {
  known.clear();
}

/** How many keys are remembered now, and how many of them have a table (for tests). */
export function rememberedKeys(): { readonly keys: number; readonly tables: number } {
  let tables = 0;
  for (const k of known.values()) if (hasTable(k)) tables++;
  return { keys: known.size, tables };
}
