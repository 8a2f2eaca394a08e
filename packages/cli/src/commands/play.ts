/**
 * `fairtable play`: plays one seat of a game through a relay (docs/spec/relay.md, "The client"), with the
 * @fairtable/client over Node's `ws`.
 *
 *   fairtable play PROTOCOL --relay URL --key KEY --players A.pub.json,B.pub.json[,…] [--turns N]
 *     creates the game (the setup signed by KEY's player, who must be among the players), prints
 *     "GAME_ID INVITE_URL" as the first line of stdout, and plays the creator's seat;
 *   fairtable play --relay URL --key KEY --join GAME_ID
 *     plays another seat;
 *   fairtable play --relay URL --key KEY --resume FILE
 *     continues a seat from its copy (`--out FILE` and its receipts), on this machine or another: the seat's
 *     secrets are derived from KEY (docs/SPEC.md §10.2, "A seat follows its key"), so the key and the copy
 *     are all it needs.
 *
 *   fairtable play --relay URL --key KEY --join GAME_ID --as-newcomer
 *     a newcomer takes over an absent Diplomacy power once a player proposed it (`--propose-newcomer FILE`,
 *     `--approve-newcomer KEY`: diplomacy-handover.ts, docs/spec/diplomacy.md §10.15).
 *
 * Both print the outcome as one JSON line on stdout and exit 0 when the game ends. Decisions: `--hand`
 * (Rochambeau), `--bet` (Signidice) and `--prefs` (Diplomacy's power assignment) answer them; `--orders
 * DIR|-` has a person give Diplomacy's orders and `--ask` asks every other decision on stdin
 * (diplomacy-orders.ts, docs/spec/diplomacy-by-hand.md); anything else is answered at random through the
 * simulator's strategies (docs/spec/diplomacy.md §10.10). Every seat knows Diplomacy's machine, and a Diplomacy game seals its
 * commitments. A relay caught lying ends the seat with exit 1 and the finding, with the relay's receipts as evidence, on stderr; a relay that cannot be reached or refuses the player, exit 2. Progress
 * goes to stderr.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { WebSocket } from 'ws';
import { bindToRelay, createGame, joinGame, relayKeyOf, ClientError, type RelayGame } from '@fairtable/client';
import { newcomerIn, readSetupLine } from '@fairtable/core/transcript.js';
import { isHex, randomBytes, toHex, fromHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import type { KeyPair } from '@fairtable/core/identity.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { checkChoice, type Decision } from '@fairtable/core';
import { BUILTIN_GAMES } from '@fairtable/core/games/index.js';
import { parseDice } from '@fairtable/core/games/dice-expr.js';
import { DEFAULT_SKIP_LIMIT } from '@fairtable/core/protocols/keyed-stream.js';
import { HOUSE } from '@fairtable/core/signidice/arbiter.js';
import { ecvrfHouse } from '@fairtable/core/signidice/house-key.js';
import { SIM_PROTOCOLS, monopolyStrategy, simStrategy, type Strategy } from '@fairtable/core/testing';
import { holdemStrategy } from '@fairtable/core/protocols/holdem/sim.js';
import { eightsStrategy } from '@fairtable/core/protocols/crazy-eights/sim.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { fail, failWith } from '../io.js';
import { readKeptCopy } from '../kept-copy.js';
import { readKeyFile, readPublicKeyFile } from '../key-files.js';
import { betStrategy } from './signidice.js';
import { ALLOW_HTTP_WITNESS_HELP, collect, httpWitnessHosts, witnessesFrom } from '../witnesses.js';
import { cliRegistry } from '../registry.js';
import { personFor } from './diplomacy-orders.js';
import { progressLine } from '../progress.js';
import { TurnNarrator } from '../mail/chance-text.js';
import { followDiplomacy } from './diplomacy-progress.js';
import { attachHandover, handoverPlan, waitToBeIntroduced } from './diplomacy-handover.js';

/** What `play` creates: the simulator's protocols and Diplomacy. */
const PLAY_PROTOCOLS: readonly string[] = [...SIM_PROTOCOLS, 'diplomacy', 'holdem', 'crazy-eights'];

const loadKey = (path: string): { name: string; keys: KeyPair } => readKeyFile(path);
const loadPublic = (path: string): { id: string; key: string } => readPublicKeyFile(path);

function integer(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) fail(`[out_of_range] ${name} must be an integer from ${min} to ${max}`);
  return n;
}

/** `--roll`'s dice expression, canonical (docs/spec/dice.md), or the reader's coded refusal with its position. */
function diceExpression(text: string): string {
  try {
    return parseDice(text).text;
  } catch (e) {
    return fail(`[bad_dice_expression] --roll ${JSON.stringify(text)}: ${(e as Error).message}`);
  }
}

/** The setup of a new game, as `fairtable simulate` would build it for the same protocol and options. */
function setupFor(
  protocol: string,
  opts: Record<string, string | undefined>,
  players: readonly { id: string; key: string }[],
): { setup: GameSetup; prove?: (alpha: Uint8Array) => Uint8Array } {
  const turns = integer(opts.turns, '--turns', 1, 1_000_000);
  const params: Record<string, JsonValue> = { timeoutMs: integer(opts.timeoutMs, '--timeout-ms', 100, 86_400_000)! };
  let name = protocol;
  let game: string | null = opts.game ?? null;
  let prove: ((alpha: Uint8Array) => Uint8Array) | undefined;
  if (opts.game !== undefined && protocol !== 'chain' && protocol !== 'keyed-stream') fail('[bad_input] --game is for chain and keyed-stream');
  if (opts.game !== undefined && !BUILTIN_GAMES.has(opts.game))
    fail(`[bad_input] unknown game "${opts.game}": choose one of ${[...BUILTIN_GAMES.keys()].join(', ')}`);
  const rollable = protocol === 'dice' || ((protocol === 'chain' || protocol === 'keyed-stream') && (opts.game ?? 'dice') === 'dice');
  if (opts.roll !== undefined && !rollable) fail('[bad_input] --roll is for the dice game (play dice, or --game dice)');
  const diplomacyOnly = ['years', 'assign', 'typos', 'escrow', 'threshold', 'absentAfter'].filter((k) => opts[k] !== undefined);
  if (protocol !== 'diplomacy' && diplomacyOnly.length > 0)
    fail(`[bad_input] --${diplomacyOnly[0]!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is for diplomacy`);
  if (protocol === 'diplomacy') {
    if (turns !== undefined) fail('[bad_input] diplomacy counts game years: give --years, not --turns');
    if (!['weighted', 'serial', 'fixed'].includes(opts.assign ?? 'weighted')) fail('[bad_input] --assign must be weighted, serial or fixed');
    if (!['ignore-unit-letter', 'strict'].includes(opts.typos ?? 'ignore-unit-letter')) fail('[bad_input] --typos must be ignore-unit-letter or strict');
    if (!['none', 'threshold', 'layers'].includes(opts.escrow ?? 'none')) fail('[bad_input] --escrow must be none, threshold or layers');
    if (opts.threshold !== undefined && opts.escrow !== 'threshold') fail('[bad_input] --threshold needs --escrow threshold');
    params.years = integer(opts.years, '--years', 1, 200) ?? 2;
    params.assign = opts.assign ?? 'weighted';
    params.typos = opts.typos ?? 'ignore-unit-letter';
    // Escrow on by default (docs/SPEC.md §7.4): a committed player who leaves still has its orders counted.
    params.escrow = opts.escrow ?? (players.length >= 2 ? 'threshold' : 'none');
    // Phases in a row without orders before a player is out and its power in civil disorder (§10.13).
    const absentAfter = integer(opts.absentAfter, '--absent-after', 0, 1000);
    if (absentAfter !== undefined) params.absentAfter = absentAfter;
    const k = integer(opts.threshold, '--threshold', 1, 15);
    if (k !== undefined) params.threshold = k;
    game = null;
  } else if (protocol === 'holdem') {
    // No-limit Hold'em on the deck (docs/spec/holdem.md §11): --turns hands, 10,000 chips, blinds 50/100.
    params.hands = turns ?? 1;
    game = null;
  } else if (protocol === 'crazy-eights') {
    // Crazy Eights on the deck (docs/spec/crazy-eights.md): one game, first to empty its hand.
    if (turns !== undefined) fail('[bad_input] crazy-eights is one game: leave out --turns');
    game = null;
  } else if (protocol === 'beacon') {
    if (turns !== undefined) params.rounds = turns;
    // Threshold escrow on by default (docs/SPEC.md §7.4): a withheld value is opened by the others.
    params.escrow = { scheme: 'vss', threshold: 2 };
  } else if (protocol === 'rochambeau') {
    params.N = opts.states!;
    params.hash = opts.hash!;
    // Reveals escrowed by default (docs/spec/rochambeau.md §11): a withheld Reveal is opened, so the last revealer
    // steers nothing. A Reveal is escrowed as one scalar, which holds N below 2^120.
    if (/^[0-9]{1,40}$/.test(opts.states!) && BigInt(opts.states!) < 2n ** 120n) params.escrow = { scheme: 'vss', threshold: 2 };
  } else if (protocol === 'signidice') {
    if (!players.some((p) => p.id === HOUSE)) fail(`[bad_input] a Signidice game needs the house among the players (a key named "${HOUSE}")`);
    // The house's unique-signature key is made here and held by this process: only the house creates.
    const h = ecvrfHouse('ecvrf-ell2', opts.vrfSecret === undefined ? randomBytes(32) : fromHex(opts.vrfSecret, '--vrf-secret', 32));
    prove = h.prove;
    params.houseKey = h.key as unknown as JsonValue;
    params.rounds = turns ?? 3;
    params.maxPlayers = Math.max(players.length - 1, 1);
  } else {
    if (protocol === 'dice' || protocol === 'snakes' || protocol === 'monopoly') {
      game = protocol;
      name = 'chain';
    }
    game ??= 'dice';
    if (turns !== undefined) params[game === 'snakes' ? 'maxRounds' : 'rounds'] = turns;
    if (opts.roll !== undefined) params.roll = diceExpression(opts.roll);
    if (name === 'keyed-stream') params.skipLimit = DEFAULT_SKIP_LIMIT;
  }
  // Sealed mode (docs/spec/sealed.md): the relay holds these message types until every player's is in.
  // Diplomacy seals its commitments unless told otherwise: seed 003's third party that collects the hashes.
  const sealed = opts.sealed ?? (protocol === 'diplomacy' ? 'commit' : undefined);
  if (sealed !== undefined && sealed !== 'none') params.sealed = { types: sealed.split(',').filter((t) => t.length > 0) };
  const setup: GameSetup = { protocol: name, game, params, players, nonce: toHex(randomBytes(32)), created: Date.now() };
  return prove === undefined ? { setup } : { setup, prove };
}

/**
 * How this seat answers its decisions: the player's own flags first; Monopoly's decisions (buy, bid, build,
 * trade, jail) by the automatic player that reads the board; a uniformly random legal answer otherwise.
 */
function strategyFor(opts: Record<string, string | undefined>, id: string): Strategy {
  const random = simStrategy(randomBytes(32));
  const monopoly = monopolyStrategy(id, randomBytes(32));
  // Hold'em's automatic player never folds, so a hand reaches its showdown.
  const holdem = holdemStrategy(randomBytes(32));
  // Crazy Eights' automatic player plays a card whenever it can.
  const eights = eightsStrategy(randomBytes(32));
  const automatic = (decision: Decision): JsonValue => {
    const v = decision.view;
    const record = v !== null && typeof v === 'object' && !Array.isArray(v);
    if (record && 'deeds' in v && 'stage' in v) return monopoly(decision);
    if (record && 'top' in v && 'stock' in v) return eights(decision);
    return record && 'board' in v && 'cards' in v ? holdem(decision) : random(decision);
  };
  const bet = opts.bet === undefined ? null : betStrategy(opts.bet, id);
  const hand = opts.hand;
  const prefs = opts.prefs;
  if (hand !== undefined && !/^\d+$/.test(hand)) fail(`[bad_input] --hand must be a whole number`);
  return (decision: Decision): JsonValue => {
    if (decision.kind === 'hand' && hand !== undefined) {
      const value = Number.isSafeInteger(Number(hand)) ? Number(hand) : hand;
      try {
        checkChoice(decision.choices, value, 'hand');
      } catch (e) {
        fail(`[illegal_choice] --hand ${hand}: ${(e as Error).message}`);
      }
      return value;
    }
    if (decision.kind === 'bet' && bet !== null) return bet(decision);
    if (decision.kind === 'preferences' && prefs !== undefined) {
      try {
        checkChoice(decision.choices, prefs, 'preferences');
      } catch (e) {
        fail(`[illegal_choice] --prefs ${prefs}: ${(e as Error).message}`);
      }
      return prefs;
    }
    return automatic(decision);
  };
}

function outcomeLine(game: RelayGame): string {
  const o = game.outcome();
  return JSON.stringify({
    game: game.gameId,
    player: game.id,
    winners: o?.winners ?? null,
    forfeits: o?.forfeits ?? [],
    summary: o?.summary ?? null,
    violations: game.violations.map((v) => ({ code: v.code, player: v.player, seq: v.seq })),
    lines: game.lines.length,
  });
}

/** A copy kept by `--out`: its complete lines and their receipts, cut to what both hold and written back so. */
function readCopy(file: string, keys: KeyPair, name: string, asNewcomer = false): { gameId: string; protocol: string; lines: string[]; receipts: unknown[] } {
  const { lines, receipts } = readKeptCopy(file);
  let read: ReturnType<typeof readSetupLine>;
  try {
    read = readSetupLine(lines[0]!);
  } catch (e) {
    failWith(e);
  }
  const key = toHex(keys.publicKey);
  // A newcomer's seat (--as-newcomer) is introduced by a `newcomer` line of the copy (docs/SPEC.md §4.6), not by the setup.
  const mine = asNewcomer
    ? lines.slice(1).some((text) => {
        if (!text.includes('"newcomer"')) return false;
        try {
          const body = (JSON.parse(text) as { body?: unknown }).body;
          const n = body !== null && typeof body === 'object' ? newcomerIn(body as { type: string }) : null;
          return n !== null && n.id === name && n.key === key;
        } catch {
          return false; // a line that is not JSON introduces nobody; the seat's replay says what is wrong with it
        }
      })
    : read.setup.players.some((p) => p.id === name && p.key === key);
  if (!mine) fail(`[bad_journal] ${file} is not a game of ${name} with this key${asNewcomer ? ' (no newcomer line in it introduces this key)' : ''}`);
  if (read.setup.protocol === 'signidice' && name === HOUSE) fail('[bad_input] the Signidice house resumes with: fairtable signidice house --resume FILE');
  return { gameId: read.gameId, protocol: read.setup.protocol, lines, receipts };
}

async function playSeat(
  relayUrl: string,
  gameId: string,
  me: { name: string; keys: KeyPair },
  opts: Record<string, string | undefined> & { allowHttpWitness?: string[] },
  relayKey: string | undefined,
  prove: ((alpha: Uint8Array) => Uint8Array) | undefined,
  protocol?: string,
  resume?: { readonly lines: readonly string[]; readonly receipts: readonly unknown[] },
): Promise<void> {
  const out = resume === undefined ? opts.out : opts.resume;
  const held = resume?.lines.length ?? 0;
  if (out !== undefined && resume === undefined) {
    writeFileSync(out, '');
    writeFileSync(`${out}.receipts.jsonl`, '');
  }
  const say = (text: string): void => void process.stderr.write(`${me.name}: ${text}\n`);
  // --propose-newcomer / --approve-newcomer (diplomacy-handover.ts): read, and their consents checked, before the seat plays.
  const handover = handoverPlan(opts as { proposeNewcomer?: string; approveNewcomer?: string[] }, gameId);
  // --orders / --ask: a person answers (diplomacy-orders.ts); the seat's automatic player otherwise.
  const person = personFor(opts, protocol, say);
  const game = joinGame({
    relayUrl,
    gameId,
    id: me.name,
    keys: me.keys,
    // No random source: the seat's secrets come from the key, so that it can be resumed anywhere (--resume).
    WebSocket,
    verify: nativeVerify,
    sign: nativeSign,
    ...(person === null ? { strategy: strategyFor(opts, me.name) } : {}),
    registry: cliRegistry,
    httpWitnessHosts: httpWitnessHosts(opts.allowHttpWitness),
    giveUpMs: integer(opts.reconnectMs, '--reconnect-ms', 0, 86_400_000)!,
    ...(relayKey === undefined ? {} : { relayKey }),
    ...(prove === undefined ? {} : { prover: prove }),
    ...(resume === undefined ? {} : { resume }),
    ...((opts as { asNewcomer?: boolean }).asNewcomer === true ? { newcomer: true } : {}),
    // The player's own copy, line by line with its receipt, so that the game can be judged on another copy.
    ...(out === undefined
      ? {}
      : {
          onLine: (line: number, text: string, receipt: unknown) => {
            if (line < held) return;
            appendFileSync(out, text + '\n');
            appendFileSync(`${out}.receipts.jsonl`, JSON.stringify(receipt) + '\n');
          },
        }),
  });
  person?.attach(game, strategyFor(opts, me.name));
  attachHandover(game, handover, say);
  // Diplomacy: who has done each step, and every phase's orders with what came of them.
  followDiplomacy(game, say);
  game.on('status', (s) => say(`${s.status}${s.reason === undefined ? '' : ` (${s.reason})`}`));
  game.on('refused', (r) => say(`the relay refused a line of ours: [${r.code}] ${r.message}`));
  game.on('unacknowledged', (u) =>
    say(
      `the relay has not acknowledged our envelope ${u.hash.slice(0, 12)}… for ${Math.round(u.waitedMs / 1000)} s: it may be dropping it; ${u.witnessed > 0 ? `${u.witnessed} witness receipt(s) show it was sent` : "no witness holds it, so only the relay's word says whether it came"}`,
    ),
  );
  game.on('violation', (v) => say(`violation at line ${v.seq}: ${v.code}${v.player === null ? '' : ` by ${v.player}`}: ${v.message}`));
  // Each turn of a game of chance in its own words, from the lines as they come, in order (after --resume the
  // lines held before are replayed without a word, so that the next turn is told from the right state).
  let narrator: TurnNarrator | null = null;
  let narrated = 0;
  game.on('line', ({ line, text }) => {
    if (line === 0) narrator = new TurnNarrator(text);
    else if (narrator === null && game.lines[0] !== undefined) {
      narrator = new TurnNarrator(game.lines[0]);
      for (; narrated + 1 < line && game.lines[narrated + 1] !== undefined; narrated++) narrator.feed(narrated + 1, game.lines[narrated + 1]!);
    }
    if (narrator === null || line !== narrated + 1) return;
    narrated = line;
    for (const turn of narrator.feed(line, text)) say(turn);
  });
  game.on('event', (e) => {
    const line = progressLine(e);
    if (line !== null) say(line);
  });
  try {
    await game.finished;
  } catch (e) {
    if (e instanceof ClientError && e.lie !== null) {
      process.stderr.write(`fairtable: [relay_lied] ${e.message}\n${JSON.stringify(e.lie)}\n`);
      process.exit(1);
    }
    failWith(e);
  }
  say(`the game is over after ${game.lines.length} lines, each with a receipt that checks`);
  process.stdout.write(outcomeLine(game) + '\n');
  game.close();
}

export function register(program: Command): void {
  program
    .command('play')
    .description(`play a seat of a game through a relay: create one (PROTOCOL: ${PLAY_PROTOCOLS.join(', ')}) or --join one`)
    .argument('[protocol]', PLAY_PROTOCOLS.join(' | '))
    .requiredOption('--relay <url>', 'the relay, e.g. http://localhost:8080')
    .requiredOption('--key <file>', "this player's key file (fairtable keygen)")
    .option('--players <files>', "comma-separated public key files of every player, this player's among them (creating a game)")
    .option('--join <game>', 'the id of a game to join')
    .option(
      '--resume <file>',
      "continue this player's seat from its copy (--out FILE, with FILE.receipts.jsonl), here or on another machine; the copy goes on growing",
    )
    .option('--turns <n>', 'rounds of the game (beacon: how many joint numbers; signidice: rounds; holdem: hands)')
    .option('--game <name>', `chain, keyed-stream: the game played (${[...BUILTIN_GAMES.keys()].join(', ')}; default dice)`)
    .option('--roll <dice>', 'dice: the dice expression each turn rolls, e.g. 3d6+2, 2d20kh1, 4d6kh3, 1d20+1d4-1 (default 2d6)')
    .option('--states <n>', 'rochambeau: the number of states N (odd, at least 3)', '3')
    .option('--hash <name>', 'rochambeau: sha-256, sha-384, sha-512 or sha3-256', 'sha-256')
    .option('--timeout-ms <ms>', 'deadline of each phase', '30000')
    .option('--sealed <types>', 'message types the relay holds until every player has sent one, comma-separated (e.g. commit; diplomacy: commit unless "none")')
    .option('--years <y>', "diplomacy: game years to play (default 2); orders are random legal ones, drawn from each phase's choices")
    .option('--assign <method>', 'diplomacy: power assignment, weighted | serial | fixed (seat order)')
    .option('--typos <rule>', 'diplomacy: a wrong unit letter is ignore-unit-letter | strict (the order is void)')
    .option(
      '--escrow <kind>',
      "diplomacy: none | threshold (k of the others open a withheld reveal) | layers (seed 003's onion, peeled by the others); default threshold",
    )
    .option('--threshold <k>', 'diplomacy with --escrow threshold: shares needed to open (default: a majority of the others)')
    .option('--absent-after <n>', 'diplomacy: phases in a row without orders before a player is out and its power in civil disorder (default 0: never)')
    .option('--prefs <list>', 'diplomacy: this player\'s preference list in seed 003\'s notation, e.g. "AE(GI)R" or "%REG" (default: random)')
    .option('--orders <dir>', 'diplomacy: a person gives the orders: read DIR/<PHASE>.txt each phase (e.g. S1901M.txt), or "-" to be asked on stdin')
    .option('--ask', 'ask every other decision on stdin (diplomacy: the orders too, unless --orders DIR)')
    .option('--hand <n>', 'rochambeau: the state this player plays (default: random)')
    .option('--bet <bet>', 'signidice: the bet every round, e.g. red:10, straight:17:5, pass (default: random)')
    .option('--vrf-secret <hex>', 'signidice, the house creating: its ECVRF secret key (random if absent)')
    .option('--relay-key <hex>', "the relay's public key, when known: a relay showing another is refused")
    .option('--reconnect-ms <ms>', 'how long to keep trying to reach the relay before giving up (exit 2)', '30000')
    .option('--out <file>', "this player's copy of the transcript, appended as lines arrive (receipts in FILE.receipts.jsonl)")
    .option('--witness <url>', 'creating: a witness relay the setup names, where every seat also publishes (docs/spec/relay.md §8); repeatable', collect)
    .option('--allow-http-witness <host>', ALLOW_HTTP_WITNESS_HELP, collect)
    .option(
      '--propose-newcomer <file>',
      'diplomacy: propose the newcomer of this file (fairtable diplomacy newcomer-consent) once its power is held by nobody (docs/spec/diplomacy.md §10.15)',
    )
    .option(
      '--approve-newcomer <key>',
      "diplomacy: approve a proposal of this newcomer (its key's 64 hex digits, its public key file or its newcomer file); repeatable",
      collect,
    )
    .option(
      '--as-newcomer',
      'diplomacy, with --join: play as a newcomer, once a player has proposed this key (waits for the proposal); with --resume: continue a newcomer seat from its copy',
    )
    .option('--newcomer-wait-ms <ms>', 'with --as-newcomer: how long to wait for a proposal before giving up (exit 2)', '3600000')
    .action(async (protocol: string | undefined, opts: Record<string, string | undefined> & { allowHttpWitness?: string[] }) => {
      const me = loadKey(opts.key!);
      if (opts.relayKey !== undefined && !isHex(opts.relayKey, 32)) fail('[bad_hex] --relay-key must be 64 hex digits');
      if (opts.resume !== undefined) {
        if (protocol !== undefined || opts.players !== undefined || opts.join !== undefined)
          fail('[bad_input] --resume continues a game from its copy: give no PROTOCOL, --players or --join');
        const r = readCopy(opts.resume, me.keys, me.name, (opts as { asNewcomer?: boolean }).asNewcomer === true);
        process.stderr.write(`${me.name}: resuming game ${r.gameId} at line ${r.lines.length} on ${opts.relay}\n`);
        let relayKey: string;
        try {
          relayKey = opts.relayKey ?? (await relayKeyOf(opts.relay!, r.gameId, WebSocket));
        } catch (e) {
          failWith(e);
        }
        return playSeat(opts.relay!, r.gameId, me, opts, relayKey, undefined, r.protocol, r);
      }
      if (opts.join !== undefined) {
        if (protocol !== undefined || opts.players !== undefined) fail('[bad_input] --join plays a game that exists: give no PROTOCOL or --players');
        if (!isHex(opts.join, 32)) fail('[bad_hex] --join must be a game id (64 hex digits)');
        if ((opts as { asNewcomer?: boolean }).asNewcomer === true) {
          // The relay welcomes a newcomer only once a proposal naming it stands in the log (docs/spec/relay.md §3).
          const say = (text: string): void => void process.stderr.write(`${me.name}: ${text}\n`);
          const waitMs = integer(opts.newcomerWaitMs, '--newcomer-wait-ms', 0, 2_592_000_000)!;
          await waitToBeIntroduced(opts.relay!, opts.join, me.name, toHex(me.keys.publicKey), waitMs, say);
          return playSeat(opts.relay!, opts.join, me, opts, opts.relayKey, undefined, 'diplomacy');
        }
        return playSeat(opts.relay!, opts.join, me, opts, opts.relayKey, undefined);
      }
      if (protocol === undefined) fail('[bad_input] give a PROTOCOL to create a game, or --join GAME_ID');
      if ((opts as { asNewcomer?: boolean }).asNewcomer === true) fail('[bad_input] --as-newcomer joins a game that exists: give --join GAME_ID');
      handoverPlan(opts as { proposeNewcomer?: string; approveNewcomer?: string[] }, undefined);
      if (!PLAY_PROTOCOLS.includes(protocol)) fail(`[unknown_protocol] "${protocol}": choose one of ${PLAY_PROTOCOLS.join(', ')}`);
      if (opts.orders !== undefined && protocol !== 'diplomacy') fail('[bad_input] --orders is for diplomacy');
      if (opts.players === undefined) fail('[bad_input] --players: the public key files of every player');
      const players = opts.players.split(',').map(loadPublic);
      const mine = players.find((p) => p.id === me.name);
      if (mine === undefined || mine.key !== toHex(me.keys.publicKey))
        fail(`[bad_input] --key's player ${me.name} must be among --players, with the same key: the creator signs the setup as a player`);
      if (opts.vrfSecret !== undefined && !isHex(opts.vrfSecret, 32)) fail('[bad_hex] --vrf-secret must be 64 hex digits');
      if (protocol === 'signidice' && me.name !== HOUSE) fail(`[bad_input] a Signidice game is created by its house (the key named "${HOUSE}")`);
      let created: { game: string; relay: string; invite: string };
      let prove: ((alpha: Uint8Array) => Uint8Array) | undefined;
      try {
        const s = setupFor(protocol, opts, players);
        prove = s.prove;
        // Bound to the relay's key, with the witnesses named here or else the relay's own (docs/spec/time.md §5).
        const named = (opts as { witness?: string[] }).witness;
        const witnesses = named === undefined ? undefined : await witnessesFrom(named, httpWitnessHosts(opts.allowHttpWitness));
        const bound = await bindToRelay(s.setup.params, opts.relay!, witnesses === undefined ? {} : { witnesses });
        if (bound.relay === null) process.stderr.write(`${me.name}: the relay publishes no key (GET /relay): the game is not bound to it\n`);
        for (const url of bound.skipped) process.stderr.write(`${me.name}: the relay's witness ${url} cannot be reached: the game does without it\n`);
        if (bound.params.witnesses === undefined)
          process.stderr.write(`${me.name}: no witness relay: a move the relay drops leaves no evidence (the relay's word only)\n`);
        const setup = { ...s.setup, params: bound.params };
        created = await createGame(opts.relay!, envelopeLine(createSetupEnvelope(setup, me.name, me.keys)));
      } catch (e) {
        failWith(e);
      }
      if (opts.relayKey !== undefined && created.relay !== opts.relayKey) fail(`[bad_challenge] the relay's key is ${created.relay}, not --relay-key`);
      process.stdout.write(`${created.game} ${created.invite}\n`);
      process.stderr.write(
        `${me.name}: created game ${created.game} on ${opts.relay}; others join with: fairtable play --relay ${opts.relay} --key KEY --join ${created.game}\n`,
      );
      return playSeat(opts.relay!, created.game, me, opts, created.relay, prove, protocol);
    });
}
