/**
 * A seat this page plays (docs/spec/web.md §4): the setup built from a lobby's offer, and the relay client started
 * from the stored record (resumed from its lines and receipts after a reload), with every verified line, decision
 * and outgoing envelope written back to the record as it happens. The seat's secrets come from the player's key
 * (docs/SPEC.md §10.2, "A seat follows its key"): a key imported in another browser continues the seat from the
 * relay's log, its player's decisions read back from her envelopes; two browsers open at once sign the same.
 */
import { joinGame, type RelayGame } from '@fairtable/client';
import { fromHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { fromKeyFile, generateKeyPair, toKeyFile, type KeyPair } from '@fairtable/core/identity.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { OutgoingHook } from '@fairtable/core/seat/seat.js';
import { seatRandom } from '@fairtable/core/seat/seat.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { HOUSE } from '@fairtable/core/signidice/arbiter.js';
import { ecvrfHouse } from '@fairtable/core/signidice/house-key.js';
import type { Registry } from '@fairtable/core/registry.js';
import { offeredSetup, type Offer } from '@fairtable/core/lobby.js';
import { getKey, loadJournal, putGame, putKey, saveJournal, type GameRecord } from './store.js';

export { HOUSE };

/** The player's key for a name, made (and kept in the browser) the first time it is asked for. */
export async function keyFor(name: string): Promise<{ name: string; keys: KeyPair }> {
  const held = await getKey(name);
  if (held !== undefined) return fromKeyFile(held);
  const keys = generateKeyPair();
  await putKey(toKeyFile(name, keys));
  return { name, keys };
}

/**
 * The machines a protocol needs beyond the core's: Diplomacy's registry, loaded only for a Diplomacy game (its map
 * and adjudicator are a chunk of their own, kept out of the first load), Hold'em's (its deck likewise); the
 * client's default otherwise.
 */
export async function registryFor(protocol: string): Promise<Registry | undefined> {
  if (protocol === 'diplomacy') return (await import('@fairtable/diplomacy/protocol/index.js')).diplomacyRegistry;
  if (protocol === 'holdem') return (await import('@fairtable/core/protocols/holdem/registry.js')).holdemRegistry;
  return undefined;
}

/** The setup line of a new game from a lobby's offer (core's `offeredSetup`) and the keys gathered there, signed by the creator. */
export function setupLine(
  offer: Offer,
  players: readonly { id: string; key: string }[],
  creator: { name: string; keys: KeyPair },
  /** The relay's key and witnesses (`bindToRelay`, docs/spec/time.md §5), put in the params. */
  bound: { readonly [key: string]: JsonValue } = {},
): { line: string; vrfSecret: string | null } {
  const offered = offeredSetup(offer, players.length);
  const params: Record<string, JsonValue> = { ...bound, ...offered.params };
  let vrfSecret: string | null = null;
  if (offer.protocol === 'signidice') {
    // The house's unique-signature key is made by the house's own page and never leaves it.
    vrfSecret = toHex(randomBytes(32));
    params.houseKey = ecvrfHouse('ecvrf-ell2', fromHex(vrfSecret, 'vrfSecret', 32)).key as unknown as JsonValue;
  }
  const setup: GameSetup = { protocol: offered.protocol, game: offered.game, params, players, nonce: toHex(randomBytes(32)), created: Date.now() };
  return { line: envelopeLine(createSetupEnvelope(setup, creator.name, creator.keys)), vrfSecret };
}

/** A fresh record for a seat this page is about to play. */
export async function newRecord(
  game: string,
  me: string,
  protocol: string,
  relayKey: string,
  lobby: string | null,
  vrfSecret: string | null,
  /** A newcomer's seat (docs/spec/diplomacy.md §10.15), whose id the setup does not name. */
  newcomer = false,
): Promise<GameRecord> {
  const record: GameRecord = {
    game,
    me,
    protocol,
    relayKey,
    lobby,
    secret: toHex(randomBytes(32)),
    follows: true,
    vrfSecret,
    lines: [],
    receipts: [],
    journal: [],
    inFlight: null,
    created: Date.now(),
    ...(newcomer ? { newcomer: true as const } : {}),
  };
  await putGame(record);
  return record;
}

/** Starts (or resumes) the seat of `record`. `outgoing` is the e2e tests' cheating hook, never set by the app itself. */
export async function startSeat(record: GameRecord, outgoing?: OutgoingHook): Promise<RelayGame> {
  const me = await keyFor(record.me);
  const registry = await registryFor(record.protocol);
  Object.assign(record, loadJournal(record));
  const prover = record.vrfSecret === null ? undefined : ecvrfHouse('ecvrf-ell2', fromHex(record.vrfSecret, 'vrfSecret', 32)).prove;
  // A seat that follows its key reads its decisions back from the log (Seat.follow); the journal serves the answers
  // that cannot be read back (a Monopoly trade), and a record made before seats followed their key.
  const resume =
    record.lines.length > 0 ? { resume: { lines: record.lines, receipts: record.receipts, journal: record.journal, inFlight: record.inFlight } } : {};
  const game = joinGame({
    relayUrl: location.origin,
    gameId: record.game,
    id: record.me,
    keys: me.keys,
    ...(record.follows === true ? {} : { random: seatRandom(fromHex(record.secret, 'secret', 32), record.game) }),
    WebSocket: globalThis.WebSocket,
    relayKey: record.relayKey,
    ...(registry === undefined ? {} : { registry }),
    ...resume,
    ...(prover === undefined ? {} : { prover }),
    ...(outgoing === undefined ? {} : { outgoing }),
    ...(record.newcomer === true ? { newcomer: true } : {}),
    onLine: (line, text, receipt) => {
      if (line !== record.lines.length) return;
      record.lines.push(text);
      record.receipts.push(receipt);
      void putGame(record);
    },
    onDecision: (entry) => {
      record.journal.push(entry);
      saveJournal(record);
      void putGame(record);
    },
    onSubmit: (text) => {
      record.inFlight = text;
      saveJournal(record);
      void putGame(record);
    },
  });
  return game;
}
