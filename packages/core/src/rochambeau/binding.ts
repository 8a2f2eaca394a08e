/**
 * Fairtable's nonce binding (docs/spec/rochambeau.md, resolution 11): in
 * fairtable's own games the first 16 octets of every nonce are
 *
 *   B(game, player) = first 16 octets of SHA-256( "fairtable/rochambeau-nonce/v1" ‖ 0x00
 *                       ‖ u32be(len G) ‖ G ‖ u32be(len P) ‖ P )
 *
 * with G and P the UTF-8 encodings of the game id and the player id. The
 * lengths make the pair unambiguous ("ab" + "c" is not "a" + "bc"). A Reveal
 * still has the draft's layout (§4.6), so any draft implementation can play;
 * a fairtable receiver also checks the prefix, which ties every C-value to
 * one player in one game: a commitment copied from another player or replayed
 * from another game cannot be opened by the one who copied it.
 */
import { u32be, utf8 } from '../bytes.js';
import { taggedHash } from '../hash.js';

export const BINDING_OCTETS = 16;

export function nonceBinding(gameId: string, playerId: string): Uint8Array {
  const game = utf8(gameId);
  const player = utf8(playerId);
  return taggedHash('rochambeau-nonce', u32be(game.length), game, u32be(player.length), player).slice(0, BINDING_OCTETS);
}

/** Whether bytes[at, at + 16) equals the binding. */
export function startsWithBinding(bytes: Uint8Array, at: number, binding: Uint8Array): boolean {
  for (let i = 0; i < BINDING_OCTETS; i++) if (bytes[at + i] !== binding[i]) return false;
  return true;
}
