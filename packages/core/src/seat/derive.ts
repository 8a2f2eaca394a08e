/**
 * A seat's secrets derived from its player's secret key (docs/SPEC.md §10.2, "Secrets from the key").
 *
 * Every random value a seat's machine draws (commitment nonces and openings, beacon values, stream keys,
 * escrow dealer secrets, Rochambeau states) comes from a stream seeded by
 *
 *   seed = H("seat-secret", JCS({game, key, player, step}))
 *
 * where `key` is the player's 32-byte Ed25519 secret seed in hex, `game` the game id, `player` the seat's
 * id, and `step` names what the seat was doing when its machine drew: starting (`{kind: "start"}`),
 * reading log line `i` (`{kind: "line", line: i}`), answering its player's `n`-th decision of the game
 * (`{kind: "decision", n}`, from 0), or a clock tick on a log of `lines` lines (`{kind: "tick", lines}`).
 * The draws of one step are the successive bytes of `RandomStream(seed, "seat-secret")` (§6).
 *
 * So any device holding the key and the log draws the same secrets at the same step, in any order of
 * steps, with no state of its own: a seat rebuilt on another device from the key and the log alone
 * reproduces every body its player signed. Nobody without the key learns anything new: the seed is a
 * hash over the secret key, which never leaves the device, and each value drawn is used exactly as a
 * fresh random one was before.
 */
import { toHex } from '../bytes.js';
import { FairtableError } from '../errors.js';
import { hashJson } from '../hash.js';
import { RandomStream } from '../stream.js';

/** What a seat was doing when its machine drew randomness: the derivation's position and purpose. */
export type SeatStep =
  | { readonly kind: 'start' }
  | { readonly kind: 'line'; readonly line: number }
  | { readonly kind: 'decision'; readonly n: number }
  | { readonly kind: 'tick'; readonly lines: number };

/** The 32-byte seed of one step's draws. */
export function seatSecretSeed(secretKey: Uint8Array, gameId: string, player: string, step: SeatStep): Uint8Array {
  if (secretKey.length !== 32) throw new FairtableError('bad_length', 'seat secrets: the secret key must be 32 bytes', { field: 'secretKey' });
  return hashJson('seat-secret', { game: gameId, key: toHex(secretKey), player, step });
}

/** One step's random source: successive draws are successive bytes of the step's stream. */
export function seatSecretSource(secretKey: Uint8Array, gameId: string, player: string, step: SeatStep): (length: number) => Uint8Array {
  const stream = new RandomStream(seatSecretSeed(secretKey, gameId, player, step), 'seat-secret');
  return (length) => stream.bytes(length);
}
