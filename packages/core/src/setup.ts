/**
 * Game setup and game id (docs/SPEC.md §4.1).
 *
 * Line 0 of every transcript is the setup envelope: body `{type: "setup",
 * setup}`, signed by the creator (who must be one of the players), with
 * `game = H("game", JCS(setup))`. The game id is therefore self-certifying:
 * changing a player, a key, a rule or a parameter changes the id, and every
 * later envelope, which carries the id under its signature, stops fitting.
 */
import { FairtableError } from './errors.js';
import { fromHex, isHex, toHex } from './bytes.js';
import { isStrictPublicKey } from './identity.js';
import { hashJsonHex } from './hash.js';
import { isPlayerId, signEnvelope, ZERO_HASH, type Envelope } from './envelope.js';
import type { JsonValue } from './jcs.js';
import type { KeyPair } from './identity.js';

export interface PlayerEntry {
  readonly id: string;
  readonly key: string; // Ed25519 public key, hex
}

export interface GameSetup {
  /** The protocol the game runs: 'beacon', 'chain', 'keyed-stream', … */
  readonly protocol: string;
  /** The game played on top, when there is one: 'dice', 'snakes', 'monopoly', … */
  readonly game: string | null;
  readonly params: { readonly [key: string]: JsonValue };
  readonly players: readonly PlayerEntry[];
  /** 32 random bytes so that two games with the same players and rules get different ids. */
  readonly nonce: string;
  readonly created: number;
}

export interface SetupBody {
  readonly type: 'setup';
  readonly setup: GameSetup;
  readonly [key: string]: unknown;
}

export function gameIdOf(setup: GameSetup): string {
  return hashJsonHex('game', setup);
}

export function setupError(value: unknown): string | null {
  if (value === null || typeof value !== 'object') return 'setup must be an object';
  const s = value as Record<string, unknown>;
  if (typeof s.protocol !== 'string' || s.protocol.length === 0) return 'setup.protocol must be a name';
  if (s.game !== null && typeof s.game !== 'string') return 'setup.game must be a name or null';
  if (s.params === null || typeof s.params !== 'object' || Array.isArray(s.params)) return 'setup.params must be an object';
  if (!Array.isArray(s.players) || s.players.length < 1) return 'setup.players must be a non-empty list';
  const ids = new Set<string>();
  for (const p of s.players as unknown[]) {
    const entry = p as Record<string, unknown> | null;
    if (entry === null || typeof entry !== 'object' || !isPlayerId(entry.id) || !isHex(entry.key, 32)) {
      return 'each player must be {id, key} with a player id and a 32-byte hex public key';
    }
    if (!isStrictPublicKey(fromHex(entry.key))) return `player ${entry.id}'s key is not a usable Ed25519 public key (non-canonical or of small order)`;
    if (ids.has(entry.id)) return `player id ${entry.id} appears twice`;
    ids.add(entry.id);
  }
  if (!isHex(s.nonce, 32)) return 'setup.nonce must be 32 bytes of hex';
  if (typeof s.created !== 'number' || !Number.isSafeInteger(s.created) || s.created < 0) return 'setup.created must be a time in ms';
  return null;
}

/** Signs the setup envelope (line 0) as the creator, who must be listed among the players. */
export function createSetupEnvelope(setup: GameSetup, creator: string, keys: KeyPair): Envelope<SetupBody> {
  const problem = setupError(setup);
  if (problem !== null) throw new FairtableError('bad_input', problem, { field: 'setup' });
  const entry = setup.players.find((p) => p.id === creator);
  if (entry === undefined || entry.key !== toHex(keys.publicKey)) {
    throw new FairtableError('bad_input', `creator ${creator} must be a player whose key is the signing key`, { field: 'creator' });
  }
  const game = gameIdOf(setup);
  return signEnvelope(
    { v: 1, game, from: creator, seq: 0, prev: game, at: 0, head: ZERO_HASH, time: setup.created, body: { type: 'setup', setup } },
    keys.secretKey,
  );
}
