/**
 * `simulate`: a whole game among simulated players on the in-memory network
 * (docs/SPEC.md §10.3), honest or with one cheater, returning the transcript.
 * Everything is derived from one seed (keys, players' randomness, the
 * network's losses and delays), so a run can be replayed exactly.
 */
import { toHex, u32be, utf8 } from '../bytes.js';
import { taggedHash } from '../hash.js';
import { generateKeyPair, verify as verifySignature, type KeyPair } from '../identity.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '../envelope.js';
import { createSetupEnvelope, type GameSetup } from '../setup.js';
import { RandomStream } from '../stream.js';
import { FairtableError } from '../errors.js';
import type { Outcome } from '../protocols/machine.js';
import { DEFAULT_SKIP_LIMIT } from '../protocols/keyed-stream.js';
import type { Violation } from '../errors.js';
import type { JsonValue } from '../jcs.js';
import type { VerifyFn } from '../transcript.js';
import { ecvrfHouse, type HouseKey } from '../signidice/house-key.js';
import { HOUSE } from '../signidice/arbiter.js';
import { MemoryNetwork } from './network.js';
import { verifiedOnce } from './verified-once.js';
import { provedOnce as proofKeeper } from '../deck/proved-once.js';
import { Table, type Refusal } from './table.js';
import { SimPlayer } from './player.js';
import { CHEATS, cheatApplies, tamperedCopy, type Cheat } from './cheats.js';
import type { Registry } from '../registry.js';
import type { Strategy } from './strategies.js';
import type { Body } from '../envelope.js';
import type { OutgoingHook, Seat } from '../seat/seat.js';
import type { CheatDeps } from './cheats.js';

/**
 * A protocol from outside the core, simulated without the core knowing it (docs/SPEC.md §10.3): its
 * machine is in the `registry` passed with it; it brings its own cheats (each a hook on what the cheater's
 * seat sends) and its out-of-turn message. The generic cheats apply to it as to any protocol.
 */
export interface SimExtension {
  readonly protocol: string;
  readonly cheats?: Readonly<Record<string, (deps: CheatDeps) => OutgoingHook>>;
  /** The message the out-of-turn cheater sends early, read from its seat's state; null while it has none. */
  readonly earlyMove?: (seat: Seat) => Body | null;
}
import { monopolyStrategy } from './monopoly-strategy.js';

/** The deck proofs this process's simulations made, by their inputs (deck/proved-once.ts): a few hands' worth. */
const simProofs = proofKeeper(4096);

export const SIM_PROTOCOLS = ['beacon', 'chain', 'keyed-stream', 'dice', 'snakes', 'monopoly', 'signidice', 'rochambeau'] as const;
export type SimProtocol = (typeof SIM_PROTOCOLS)[number];

export interface SimOptions {
  /** One of SIM_PROTOCOLS, or the protocol of `extension`. */
  readonly protocol: SimProtocol | (string & { readonly __protocol?: never });
  readonly extension?: SimExtension;
  readonly players: number;
  readonly seed: Uint8Array;
  readonly turns?: number;
  /** A cheat of CHEATS, or one of the extension's. */
  readonly cheat?: Cheat | (string & { readonly __cheat?: never });
  readonly cheater?: string;
  /** More cheaters, each with its own cheat (escrow tests: a withholder and a share-holder who lies). */
  readonly accomplices?: Readonly<Record<string, Cheat>>;
  readonly drop?: number;
  readonly duplicate?: number;
  readonly minDelay?: number;
  readonly maxDelay?: number;
  readonly timeoutMs?: number;
  readonly game?: string;
  readonly params?: { readonly [key: string]: JsonValue };
  /** Signature check for the players' referees; Node passes its native fast path (same answers, docs/SPEC.md §3.2). */
  readonly verify?: VerifyFn;
  /** Envelope signing for the players; Node passes its native Ed25519 (same bytes). */
  readonly sign?: (message: Uint8Array, secretKey: Uint8Array) => Uint8Array;
  /** Signidice: the house's unique-signature key and prover (default: ECVRF-ELL2 from the seed). */
  readonly house?: { readonly key: HouseKey; readonly prove: (alpha: Uint8Array) => Uint8Array };
  /** The machines (default: the built-ins), for games and protocols from outside fairtable. */
  readonly registry?: Registry;
  /** How the automatic players decide (default: simStrategy, seeded per player). */
  readonly strategy?: (player: string) => Strategy;
  /** A CPU clock for the per-player figures (the bench passes performance.now; the core has no clock). */
  readonly cpuClock?: () => number;
}

export interface SimResult {
  readonly lines: string[];
  readonly outcome: Outcome | null;
  /** What an honest player's referee recorded. */
  readonly violations: readonly Violation[];
  readonly simulatedMs: number;
  /** CPU ms per player (referee and signing). */
  readonly cpuMs: readonly number[];
  readonly messages: { readonly sent: number; readonly dropped: number };
  /** What the table refused at its door, each naming the player who submitted it (docs/SPEC.md §10.1). */
  readonly refusals: readonly Refusal[];
}

export function simKeys(seed: Uint8Array, index: number): KeyPair {
  return generateKeyPair(taggedHash('sim-key', seed, u32be(index)));
}

function setupFor(options: SimOptions, keys: KeyPair[], ids: readonly string[], houseKey: HouseKey | null): GameSetup {
  const turns = options.turns;
  const params: Record<string, JsonValue> = { timeoutMs: options.timeoutMs ?? 2000, ...(options.params ?? {}) };
  let protocol: string = options.protocol;
  let game: string | null = options.game ?? null;
  if (options.protocol === 'beacon') {
    if (turns !== undefined) params.rounds = turns;
  } else if (options.protocol === 'rochambeau') {
    params.N ??= '3';
  } else if (options.extension !== undefined && options.protocol === options.extension.protocol) {
    game = options.game ?? null;
  } else if (options.protocol === 'signidice') {
    params.houseKey = houseKey as unknown as JsonValue;
    params.rounds = turns ?? 3;
    params.maxPlayers ??= Math.max(ids.length - 1, 1);
  } else {
    if (options.protocol === 'dice' || options.protocol === 'snakes' || options.protocol === 'monopoly') {
      game = options.protocol;
      protocol = 'chain';
    }
    game ??= 'dice';
    if (turns !== undefined) params[game === 'snakes' ? 'maxRounds' : 'rounds'] = turns;
    if (protocol === 'keyed-stream') params.skipLimit ??= DEFAULT_SKIP_LIMIT;
  }
  return {
    protocol,
    game,
    params,
    players: keys.map((k, i) => ({ id: ids[i]!, key: toHex(k.publicKey) })),
    nonce: toHex(taggedHash('sim-nonce', options.seed)),
    created: 0,
  };
}

export function simulate(options: SimOptions): SimResult {
  const fewest = options.protocol === 'signidice' ? 1 : 2;
  if (!Number.isInteger(options.players) || options.players < fewest || options.players > 1000) {
    throw new FairtableError('out_of_range', `--players must be an integer from ${fewest} to 1000`, { field: 'players' });
  }
  const external = options.extension !== undefined && options.protocol === options.extension.protocol;
  if (!external && !(SIM_PROTOCOLS as readonly string[]).includes(options.protocol)) {
    throw new FairtableError('unknown_protocol', `unknown protocol "${options.protocol}" (known: ${SIM_PROTOCOLS.join(', ')})`, { field: 'protocol' });
  }
  const extensionCheats = external ? (options.extension?.cheats ?? {}) : {};
  const isCoreCheat = (c: string): c is Cheat => (CHEATS as readonly string[]).includes(c);
  if (options.cheat !== undefined && !isCoreCheat(options.cheat) && !Object.hasOwn(extensionCheats, options.cheat)) {
    const known = [...CHEATS, ...Object.keys(extensionCheats)];
    throw new FairtableError('bad_input', `unknown cheat "${options.cheat}" (known: ${known.join(', ')})`, { field: 'cheat' });
  }
  const isSignidice = options.protocol === 'signidice';
  const houseCheat = options.cheat?.startsWith('house-') === true;
  const cheater = options.cheat === undefined ? null : (options.cheater ?? (houseCheat ? HOUSE : 'p1'));
  const ids = [...(isSignidice ? [HOUSE] : []), ...Array.from({ length: options.players }, (_, i) => `p${i}`)];
  const keys = ids.map((_, i) => simKeys(options.seed, i));
  if (cheater !== null && !ids.includes(cheater))
    throw new FairtableError('bad_input', `--cheater must be one of ${ids[0]} … ${ids[ids.length - 1]}`, { field: 'cheater' });
  if (cheater !== null && options.cheat !== undefined && isCoreCheat(options.cheat)) {
    const why = cheatApplies(options.cheat, options.protocol === 'signidice' ? 'signidice' : options.protocol, cheater);
    if (why !== null) throw new FairtableError('bad_cheater', `--cheat ${options.cheat}: ${why}`, { field: 'cheat' });
  }
  const house = isSignidice ? (options.house ?? ecvrfHouse('ecvrf-ell2', taggedHash('sim-house', options.seed))) : null;
  const setup = setupFor(options, keys, ids, house?.key ?? null);
  const setupLine = envelopeLine(createSetupEnvelope(setup, ids[0]!, keys[0]!));
  const net = new MemoryNetwork({
    seed: taggedHash('sim-network', options.seed),
    drop: options.drop ?? 0,
    duplicate: options.duplicate ?? 0,
    minDelay: options.minDelay ?? 1,
    maxDelay: options.maxDelay ?? 20,
  });
  // Every seat and the door check each line's signature; in one process the first answer serves them all
  // (verified-once.ts). A bench that measures each player's CPU (cpuClock) has each check its own, as on its own machine.
  const verify = options.cpuClock === undefined ? verifiedOnce(options.verify ?? verifySignature) : options.verify;
  const table = new Table(setupLine, ids, verify === undefined ? {} : { verify });
  // Simulations from one seed make the same deck proofs until their games part: the process keeps them
  // (deck/proved-once.ts). A bench that measures each player's CPU has each seat make its own.
  const provedOnce = options.cpuClock === undefined ? simProofs : undefined;
  net.add(table);
  // Monopoly's automatic players read the board; other games draw uniformly among the legal answers.
  const strategyFor =
    options.strategy ??
    (setup.game === 'monopoly' ? (id: string): Strategy => monopolyStrategy(id, taggedHash('sim-strategy', options.seed, utf8(id))) : undefined);
  const players = ids.map((id, i) => {
    const stream = new RandomStream(taggedHash('sim-random', options.seed, utf8(id)), 'player');
    const chosen = id === cheater && options.cheat !== 'tamper' ? (options.cheat ?? null) : (options.accomplices?.[id] ?? null);
    const cheat = chosen !== null && isCoreCheat(chosen) ? chosen : null;
    const extensionHook = chosen !== null && !isCoreCheat(chosen) ? extensionCheats[chosen] : undefined;
    const prover = id === HOUSE ? house?.prove : undefined;
    const player = new SimPlayer(
      id,
      keys[i]!,
      setupLine,
      (n) => stream.bytes(n),
      cheat,
      () => net.now,
      verify,
      prover,
      options.sign,
      {
        ...(strategyFor === undefined ? {} : { strategy: strategyFor(id) }),
        ...(options.registry === undefined ? {} : { registry: options.registry }),
        ...(options.cpuClock === undefined ? {} : { cpuClock: options.cpuClock }),
        ...(extensionHook === undefined ? {} : { hook: extensionHook({ keys: keys[i]!, random: (n) => stream.bytes(n) }) }),
        ...(external && options.extension?.earlyMove !== undefined ? { earlyMove: options.extension.earlyMove } : {}),
        ...(provedOnce === undefined ? {} : { provedOnce }),
      },
    );
    net.add(player);
    return player;
  });
  // Players send their first messages as the game starts.
  for (const p of players) p.tick(net);
  const dishonest = (id: string): boolean => id === cheater || options.accomplices?.[id] !== undefined;
  const observer = players.find((p) => !dishonest(p.id))!;
  const timeout = (options.timeoutMs ?? 2000) * 4;
  let quietSince = -1;
  net.run(() => {
    if (observer.referee.outcome() === null) return false;
    // Let in-flight messages land so every honest player has the full log.
    if (quietSince < 0) quietSince = net.now;
    return net.now - quietSince > 500 && players.every((p) => p.idle || dishonest(p.id));
  }, 10_000_000 + timeout);
  let lines = table.log.slice();
  if (options.cheat === 'tamper' && cheater !== null) lines = tamper(lines, cheater, keys[ids.indexOf(cheater)]!);
  return {
    lines,
    outcome: observer.referee.outcome(),
    violations: observer.referee.violations,
    simulatedMs: net.now,
    cpuMs: players.map((p) => p.cpuMs),
    messages: { sent: net.sent, dropped: net.dropped },
    refusals: table.refusals,
  };
}

/** The tamper cheat: after the game, the cheater rewrites one of its earlier envelopes (not its last) and signs it again. */
export function tamper(lines: string[], cheater: string, keys: KeyPair): string[] {
  const mine = lines.map((t, i) => [i, JSON.parse(t) as Envelope] as const).filter(([i, e]) => i > 0 && e.from === cheater);
  const target = mine[0];
  if (target === undefined || mine.length < 2)
    throw new FairtableError('bad_input', `tamper: ${cheater} has too few envelopes to alter one that has a successor`);
  const [line, envelope] = target;
  const { sig: _sig, ...unsigned } = envelope;
  const altered = tamperedCopy(unsigned, keys);
  const out = lines.slice();
  out[line] = envelopeLine(altered);
  return out;
}

/**
 * An equivocation as it stands in a log that was not built through a door (a file, mail): the cheater
 * signs a second, different envelope for the position of its first one and it is appended at the end.
 */
export function appendEquivocation(lines: readonly string[], cheater: string, keys: KeyPair): string[] {
  const first = lines.map((t) => JSON.parse(t) as Envelope).find((e, i) => i > 0 && e.from === cheater);
  if (first === undefined) throw new FairtableError('bad_input', `equivocation: ${cheater} has no envelope to contradict`);
  const { sig: _sig, ...unsigned } = first;
  const last = JSON.parse(lines[lines.length - 1]!) as Envelope;
  const second = signEnvelope({ ...unsigned, at: lines.length, head: envelopeHash(last), body: { ...first.body, variant: true } }, keys.secretKey);
  return [...lines, envelopeLine(second)];
}
