/**
 * The hello: how a connection to an orderer proves which player it speaks for (docs/SPEC.md §10.4,
 * docs/spec/relay.md §3). The orderer sends a fresh 32-byte nonce; the player signs
 *
 *   utf8("fairtable/table-hello/v1") ‖ 0x00 ‖ game id ‖ nonce
 *
 * with its game key. The relay checks these bytes (the TCP table that first used them is retired).
 */
import { concatBytes, fromHex, toHex, utf8 } from '../bytes.js';
import { sign, verify } from '../identity.js';

export function helloBytes(gameId: string, nonce: string): Uint8Array {
  return concatBytes(utf8('fairtable/table-hello/v1'), new Uint8Array([0]), fromHex(gameId, 'game', 32), fromHex(nonce, 'nonce', 32));
}

export function signHello(gameId: string, nonce: string, secretKey: Uint8Array, signFn: (m: Uint8Array, k: Uint8Array) => Uint8Array = sign): string {
  return toHex(signFn(helloBytes(gameId, nonce), secretKey));
}

export function verifyHello(
  gameId: string,
  nonce: string,
  sig: Uint8Array,
  publicKey: Uint8Array,
  verifyFn: (s: Uint8Array, m: Uint8Array, k: Uint8Array) => boolean = verify,
): boolean {
  return sig.length === 64 && verifyFn(sig, helloBytes(gameId, nonce), publicKey);
}

/**
 * The WebSocket close code an orderer answers an upgrade for a game it does not hold with (reason
 * `unknown_game`, docs/spec/relay.md §3): a client stops at once instead of reconnecting.
 */
export const UNKNOWN_GAME_CLOSE = 4404;
