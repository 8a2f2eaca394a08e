/**
 * Lobbies (docs/spec/web.md §2): what a lobby's offer is, the secret each invite link carries for its own seat,
 * the creator's signature that binds a game to its lobby, the setup an offer makes, and how a game's setup
 * differs from the offer a player accepted.
 *
 *   seat secret:  16 random bytes, hex; the lobby keeps H("lobby-seat", secret) only
 *   game binding: Ed25519 over "fairtable/lobby-game/v1" ‖ 0x00 ‖ JCS({game, lobby}), by the creator's seat key
 *
 * Pure: randomness comes from the caller.
 */
import * as z from 'zod/mini';
import { concatBytes, fromHex, isHex, toHex } from './bytes.js';
import { domainPrefix, taggedHash } from './hash.js';
import { canonicalBytes, canonicalize, type JsonValue } from './jcs.js';
import { sign, verify } from './identity.js';
import { setupError, type GameSetup, type PlayerEntry } from './setup.js';
import { pressRulesSchema } from './press/rules.js';
import { parseDice } from './games/dice-expr.js';

/** The games a lobby offers (the web app's list). */
export const OFFER_GAMES = ['dice', 'snakes', 'monopoly', 'rochambeau', 'signidice', 'diplomacy', 'holdem'] as const;
/** The shortest and longest time to act an offer may give: 1 s to 7 days (docs/spec/web.md §2, "Deadlines"). */
export const MIN_OFFER_TIMEOUT_MS = 1_000;
export const MAX_OFFER_TIMEOUT_MS = 7 * 86_400_000;

const count = (min: number, max: number) => z.int().check(z.minimum(min), z.maximum(max));

/** An offer as the creator writes it: nothing more (unknown members are refused). */
export const offerSchema = z.strictObject({
  protocol: z.enum(OFFER_GAMES),
  /** Rounds; Snakes & Ladders: most rounds; Diplomacy: game years. */
  rounds: count(1, 100),
  /** Rochambeau: the number of states N (odd). */
  states: count(3, 999),
  timeoutMs: count(MIN_OFFER_TIMEOUT_MS, MAX_OFFER_TIMEOUT_MS),
  /** The game's press rules (docs/spec/press.md §2), when not table chat, signed; they go to the setup's `params.press`. */
  press: z.optional(pressRulesSchema),
  /** Dice: the dice expression each turn rolls (`3d6+2`, docs/spec/dice.md); absent: 2d6. */
  roll: z.optional(z.string().check(z.maxLength(200))),
  /** Hold'em: the big blind (the small blind is half of it, rounded down) and every player's starting chips. */
  bigBlind: z.optional(count(2, 1_000_000_000)),
  stack: z.optional(count(1, 1_000_000_000_000)),
});

export type Offer = z.infer<typeof offerSchema>;

/**
 * A lobby as the relay serves it (`GET /lobbies/:lobby`), its shape only: the offer is read apart (`readOffer`), so
 * that a page shows a lobby whose offer it cannot read as such.
 */
const lobbyViewSchema = z.object({
  lobby: z.string(),
  offer: z.unknown(),
  creator: z.string(),
  seats: z.array(z.object({ id: z.string(), key: z.nullable(z.string()) })),
  game: z.nullable(z.string()),
  gameSig: z.optional(z.nullable(z.string())),
});

export const isLobbyView = (value: unknown): boolean => lobbyViewSchema.safeParse(value).success;

/** Why `value` is not an offer, in one sentence; null when it is one. */
export function offerError(value: unknown): string | null {
  const r = offerSchema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0];
    return issue === undefined ? 'not an offer' : `offer${issue.path.map((p) => `.${String(p)}`).join('')}: ${issue.message}`;
  }
  if (r.data.protocol === 'rochambeau' && r.data.states % 2 === 0) return 'offer.states: the number of states must be odd';
  if ((r.data.bigBlind !== undefined || r.data.stack !== undefined) && r.data.protocol !== 'holdem')
    return "offer.bigBlind: only Hold'em has blinds and starting chips";
  if (r.data.roll !== undefined) {
    if (r.data.protocol !== 'dice') return 'offer.roll: only the dice game rolls a dice expression';
    try {
      parseDice(r.data.roll);
    } catch (e) {
      return `offer.roll: ${(e as Error).message}`;
    }
  }
  return null;
}

/** The offer in `value`, or null when it is not one. */
export const readOffer = (value: unknown): Offer | null => (offerError(value) === null ? (value as Offer) : null);

/** What the lobby keeps of a seat's invite secret (16 bytes, hex). */
export function seatSecretHash(secret: string): string {
  return toHex(taggedHash('lobby-seat', fromHex(secret, 'secret', 16)));
}

/** The bytes the creator signs to bind `game` to `lobby`. */
export function lobbyGameBytes(lobby: string, game: string): Uint8Array {
  return concatBytes(domainPrefix('lobby-game'), canonicalBytes({ game, lobby }));
}

export const signLobbyGame = (lobby: string, game: string, secretKey: Uint8Array): string => toHex(sign(lobbyGameBytes(lobby, game), secretKey));

/** Whether `sig` is the creator's (`key`, hex) signature binding `game` to `lobby`. */
export function verifyLobbyGame(lobby: string, game: string, sig: unknown, key: string): boolean {
  if (!isHex(sig, 64) || !isHex(key, 32)) return false;
  return verify(fromHex(sig), lobbyGameBytes(lobby, game), fromHex(key));
}

/** The part of a setup an offer decides: everything but the players, the nonce, the time and the creator's own parameters. */
export interface OfferedSetup {
  readonly protocol: string;
  readonly game: string | null;
  readonly params: Readonly<Record<string, JsonValue>>;
}

/** Parameters the creator's page makes itself (Signidice's wheel key): present in the setup, any value. */
export const CREATOR_PARAMS: Readonly<Record<string, readonly string[]>> = { signidice: ['houseKey'] };

/** Where a setup may carry the relay's key: checked against the relay's own key, never against the offer. */
const RELAY_KEY_NAMES = ['relay', 'relayKey'];

/** The setup an offer makes for `seats` players (without the creator's own parameters). */
export function offeredSetup(offer: Offer, seats: number): OfferedSetup {
  const params: Record<string, JsonValue> = { timeoutMs: offer.timeoutMs, ...(offer.press === undefined ? {} : { press: { ...offer.press } }) };
  switch (offer.protocol) {
    case 'diplomacy':
      // Powers by the seed's weighted lottery, commitments sealed by the relay (docs/spec/diplomacy.md §10.10).
      // Escrow on by default (docs/SPEC.md §7.4): a player who committed may close the page; the others open her orders.
      return {
        protocol: 'diplomacy',
        game: null,
        params: { ...params, years: offer.rounds, assign: 'weighted', sealed: { types: ['commit'] }, ...(seats >= 2 ? { escrow: 'threshold' } : {}) },
      };
    case 'rochambeau':
      // Reveals escrowed by default (docs/spec/rochambeau.md §11): a withheld Reveal is opened, so the last revealer steers nothing.
      return { protocol: 'rochambeau', game: null, params: { ...params, N: String(offer.states), hash: 'sha-256', escrow: { scheme: 'vss', threshold: 2 } } };
    case 'signidice':
      return { protocol: 'signidice', game: null, params: { ...params, rounds: offer.rounds, maxPlayers: Math.max(seats - 1, 1) } };
    case 'holdem': {
      // Hands on the deck nobody controls (docs/spec/holdem.md §11): `rounds` hands at most.
      const bigBlind = offer.bigBlind ?? 100;
      return {
        protocol: 'holdem',
        game: null,
        params: { ...params, bigBlind, smallBlind: Math.floor(bigBlind / 2), stack: offer.stack ?? 100 * bigBlind, hands: offer.rounds },
      };
    }
    case 'snakes':
      return { protocol: 'chain', game: 'snakes', params: { ...params, maxRounds: offer.rounds } };
    default:
      return {
        protocol: 'chain',
        game: offer.protocol,
        params: { ...params, rounds: offer.rounds, ...(offer.roll === undefined ? {} : { roll: parseDice(offer.roll).text }) },
      };
  }
}

/** A time in words: whole days or hours as such, anything else in seconds ("1.5 s", "120 s", "2 days"). */
export function durationWords(ms: number): string {
  if (ms >= 86_400_000 && ms % 86_400_000 === 0) return ms === 86_400_000 ? '1 day' : `${ms / 86_400_000} days`;
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return ms === 3_600_000 ? '1 hour' : `${ms / 3_600_000} hours`;
  return `${ms / 1000} s`;
}

const PARAM_WORDS: Readonly<Record<string, string>> = {
  timeoutMs: 'the deadline',
  decisionMs: 'the time to decide',
  rounds: 'the number of rounds',
  maxRounds: 'the most rounds',
  years: 'the number of game years',
  N: 'the number of states',
  press: 'the press rules',
  roll: 'the dice rolled each turn',
  bigBlind: 'the big blind',
  smallBlind: 'the small blind',
  stack: 'the starting chips',
  hands: 'the number of hands',
};

function valueWords(name: string, value: JsonValue | undefined): string {
  if (value === undefined) return 'nothing';
  if ((name === 'timeoutMs' || name === 'decisionMs') && typeof value === 'number') return durationWords(value);
  return typeof value === 'string' ? value : canonicalize(value);
}

const short = (key: string): string => `${key.slice(0, 8)}…`;

/**
 * How a game's setup differs from the offer a player accepted, with the lobby's players and the relay's key
 * (null when not known), one phrase each ("the deadline is 1.5 s, the offer said 120 s"); empty when it is
 * the game offered. Every member of the setup and of its parameters is compared: one the offer does not make
 * is a difference, unless it is the creator's own parameter or the relay's key (equal to `relayKey`).
 */
export function setupDifferences(
  setup: unknown,
  offer: Offer,
  players: readonly PlayerEntry[],
  relayKey: string | null,
  /** The witness relays this relay publishes (`GET /relay`, docs/spec/time.md §5), or null when not known. */
  relayWitnesses: readonly string[] | null = null,
): string[] {
  const problem = setupError(setup);
  if (problem !== null) return [`its setup is not readable (${problem})`];
  const s = setup as GameSetup;
  const want = offeredSetup(offer, players.length);
  const out: string[] = [];
  const relayKeyProblem = (where: string, value: unknown): string | null =>
    relayKey !== null && value === relayKey
      ? null
      : `${where} names the relay ${typeof value === 'string' ? short(value) : canonicalize(value)}, this relay is ${relayKey === null ? 'unknown' : short(relayKey)}`;
  if (s.protocol !== want.protocol) out.push(`the protocol is ${s.protocol}, the offer said ${want.protocol}`);
  if (s.game !== want.game) out.push(`the game is ${String(s.game)}, the offer said ${String(want.game)}`);
  const named = (ps: readonly PlayerEntry[]) => ps.map((p) => `${p.id} (key ${short(p.key)})`).join(', ');
  if (s.players.length !== players.length || s.players.some((p, i) => p.id !== players[i]?.id || p.key !== players[i]?.key))
    out.push(`the players are ${named(s.players)}, the lobby had ${named(players)}`);
  for (const [k, v] of Object.entries(s as unknown as Record<string, unknown>)) {
    if (['protocol', 'game', 'params', 'players', 'nonce', 'created'].includes(k)) continue;
    const p = RELAY_KEY_NAMES.includes(k) ? relayKeyProblem('the setup', v) : `the setup adds ${k} (${canonicalize(v)}), which the offer did not have`;
    if (p !== null) out.push(p);
  }
  const own = CREATOR_PARAMS[want.protocol] ?? [];
  const names = new Set([...Object.keys(s.params), ...Object.keys(want.params), ...own]);
  for (const k of names) {
    const got = s.params[k];
    if (own.includes(k)) {
      if (got === undefined) out.push(`the setup lacks ${k}`);
      continue;
    }
    if (k === 'witnesses' && !(k in want.params)) {
      // Witnesses from the relay's published list, each once, and no others (the creator's client leaves out one
      // it cannot reach: fewer witnesses, never a stranger the players' clients would post to).
      const urls = Array.isArray(got) ? got.map((w) => (w !== null && typeof w === 'object' && !Array.isArray(w) ? w.url : undefined)) : [];
      const same =
        relayWitnesses !== null &&
        Array.isArray(got) &&
        urls.every((u) => typeof u === 'string' && relayWitnesses.includes(u)) &&
        new Set(urls).size === urls.length;
      if (!same)
        out.push(
          `the setup names the witnesses ${canonicalize(got ?? null)}, this relay publishes ${relayWitnesses === null ? 'none known' : canonicalize([...relayWitnesses])}`,
        );
      continue;
    }
    if (RELAY_KEY_NAMES.includes(k) && !(k in want.params)) {
      const p = relayKeyProblem(`parameter ${k}`, got);
      if (p !== null) out.push(p);
      continue;
    }
    const wanted = want.params[k];
    if (got !== undefined && wanted !== undefined && canonicalize(got) === canonicalize(wanted)) continue;
    const words = PARAM_WORDS[k] ?? `parameter ${k}`;
    if (wanted === undefined) out.push(`the setup adds ${words} (${valueWords(k, got)}), which the offer did not have`);
    else out.push(`${words} is ${valueWords(k, got)}, the offer said ${valueWords(k, wanted)}`);
  }
  return out;
}
