/**
 * `fairtable signidice house` and `fairtable signidice play`: Signidice (seed
 * 002) as separate programs through a relay (docs/spec/relay.md). The house
 * opens the contract by posting its setup to a relay, which orders the game:
 * the house never orders its own game, so it cannot drop a player's HR after
 * seeing it (relay.md §9). Every seat, the house's included, is a client of
 * the relay, runs the same arbiter and prints the same balances; each keeps
 * its own copy with the relay's receipts (`--out`), and the house resumes its
 * seat from its copy (`--resume`). Witness relays (`--witness`) are named in
 * the setup, and every seat publishes its envelopes there too. A relay that
 * cannot be reached ends a program with one coded line and exit 2; a relay
 * caught lying, with exit 1 and the finding.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { WebSocket } from 'ws';
import { bindToRelay, ClientError, createGame, joinGame, relayKeyOf, type RelayGame } from '@fairtable/client';
import { randomBytes, toHex, isHex, fromHex } from '@fairtable/core/bytes.js';
import type { KeyPair } from '@fairtable/core/identity.js';
import { envelopeLine, envelopeShapeError } from '@fairtable/core/envelope.js';
import { canonicalize, type JsonValue } from '@fairtable/core/jcs.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { CHEATS, cheatHook, simStrategy, type Cheat, type Strategy } from '@fairtable/core/testing';
import { checkChoice } from '@fairtable/core';
import { ecvrfHouse, checkHouseKey, type HouseKey } from '@fairtable/core/signidice/house-key.js';
import { HOUSE } from '@fairtable/core/signidice/arbiter.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { generateRsaVrfKeyPair, createRsaVrfProver } from '@fairtable/node/rsa-vrf.js';
import { fail, failWith } from '../io.js';
import { readKeptCopy } from '../kept-copy.js';
import { readKeyFile, readPublicKeyFile } from '../key-files.js';
import { ALLOW_HTTP_WITNESS_HELP, collect, httpWitnessHosts, witnessesFrom } from '../witnesses.js';

const loadKey = (path: string): { name: string; keys: KeyPair } => readKeyFile(path);
const loadPublic = (path: string): { id: string; key: string } => readPublicKeyFile(path);

function house(scheme: string, vrfSecret: string | undefined): { key: HouseKey; prove: (alpha: Uint8Array) => Uint8Array; keep?: HouseSecretFile } {
  if (scheme === 'rsa-fdh-vrf') {
    const pair = generateRsaVrfKeyPair(2048);
    const prover = createRsaVrfProver(pair.privateKey);
    return { key: checkHouseKey({ scheme, publicKey: pair.publicKey }), prove: (a) => prover.prove(a) };
  }
  if (scheme !== 'ecvrf-ell2' && scheme !== 'ecvrf-tai') {
    try {
      checkHouseKey({ scheme, publicKey: '' });
    } catch (e) {
      fail(`[${(e as { code?: string }).code ?? 'bad_input'}] ${(e as Error).message}`);
    }
    fail(`[bad_input] --scheme must be ecvrf-ell2, ecvrf-tai or rsa-fdh-vrf`);
  }
  const secret = vrfSecret === undefined ? randomBytes(32) : isHex(vrfSecret, 32) ? fromHex(vrfSecret) : fail('[bad_hex] --vrf-secret must be 64 hex digits');
  return { ...ecvrfHouse(scheme, secret), keep: { scheme, secret: toHex(secret) } };
}

/**
 * What a restarted house needs besides its identity key: its unique-signature
 * secret, kept beside the transcript (mode 0600) when the game opens, so that
 * the same contract key goes on signing. Only the ECVRF schemes are kept: an
 * RSA house cannot resume.
 */
interface HouseSecretFile {
  readonly scheme: 'ecvrf-ell2' | 'ecvrf-tai';
  readonly secret: string;
}

const secretPath = (transcript: string): string => `${transcript}.house-secret.json`;

/**
 * `--bet`: the player's own bet, every round: `red:10`, `black:10`, `odd:10`, `even:10`, `dozen:2:10`,
 * `straight:17:5`, `face:3:10` (the dice wheel), or `pass`. A bet the round does not allow (more than the
 * balance, say) sits that round out, and says so.
 */
export function betStrategy(spec: string, id: string): Strategy {
  const m = /^(?:(pass)|(red|black|odd|even):(\d+)|(dozen|straight|face):(\d+):(\d+))$/.exec(spec);
  if (m === null)
    fail(
      `[bad_input] --bet "${spec}": write red:AMOUNT, black:AMOUNT, odd:AMOUNT, even:AMOUNT, dozen:1-3:AMOUNT, straight:0-36:AMOUNT, face:1-6:AMOUNT or pass`,
    );
  const bet: JsonValue =
    m[1] !== undefined
      ? null
      : m[2] !== undefined
        ? { kind: m[2], pick: null, amount: Number(m[3]) }
        : { kind: m[4]!, pick: Number(m[5]), amount: Number(m[6]) };
  const automatic = simStrategy(randomBytes(32));
  return (decision) => {
    if (decision.kind !== 'bet') return automatic(decision);
    try {
      checkChoice(decision.choices, bet, 'bet');
      return bet;
    } catch (e) {
      process.stderr.write(`${id}: this round does not take --bet ${spec} (${(e as Error).message}); sitting it out\n`);
      return null;
    }
  };
}

/** The cheats only the house can commit (it alone signs outcomes). */
const HOUSE_CHEATS: ReadonlySet<Cheat> = new Set<Cheat>(['house-wrong-signature', 'house-withhold', 'house-key-swap']);

function cheatOption(value: string | undefined): Cheat | null {
  if (value === undefined) return null;
  if (!(CHEATS as readonly string[]).includes(value)) fail(`[bad_input] unknown cheat "${value}": choose one of ${CHEATS.join(', ')}`);
  return value as Cheat;
}

export interface SeatOptions {
  /** The player's own copy of the transcript, appended as lines arrive (receipts in FILE.receipts.jsonl). */
  readonly copyTo?: string;
  /** Gives up (`connection_closed`) after this long without a connection the relay welcomed. */
  readonly reconnectMs: number;
  readonly relayKey?: string;
  readonly resume?: { readonly lines: readonly string[]; readonly receipts: readonly unknown[]; readonly inFlight?: string | null };
  /** Hosts the setup's witnesses may use plain http on, besides this machine (relay.md §8). */
  readonly httpWitnessHosts?: readonly string[];
}

/**
 * Plays a seat through the relay until the game is over and the seat has nothing left to send (the client
 * of docs/spec/relay.md, "The client"). A relay caught lying ends it with exit 1 and the finding on stderr;
 * a relay that cannot be reached for `reconnectMs`, or refuses the player, with a coded error (exit 2).
 */
async function playSeat(
  relayUrl: string,
  gameId: string,
  id: string,
  keys: KeyPair,
  cheat: Cheat | null,
  options: SeatOptions,
  prover?: (a: Uint8Array) => Uint8Array,
  strategy?: Strategy,
): Promise<RelayGame> {
  const random = randomBytes;
  const hook = cheat === null ? undefined : cheatHook(cheat, { keys, random, sign: nativeSign, ...(prover === undefined ? {} : { prover }) });
  const copy = options.copyTo;
  if (copy !== undefined && options.resume === undefined) {
    writeFileSync(copy, '');
    writeFileSync(`${copy}.receipts.jsonl`, '');
    writeFileSync(`${copy}.inflight`, '');
  }
  const held = options.resume?.lines.length ?? 0;
  const game = joinGame({
    relayUrl,
    gameId,
    id,
    keys,
    random,
    WebSocket,
    verify: nativeVerify,
    sign: nativeSign,
    strategy: strategy ?? simStrategy(randomBytes(32)),
    giveUpMs: options.reconnectMs,
    httpWitnessHosts: options.httpWitnessHosts ?? [],
    ...(options.relayKey === undefined ? {} : { relayKey: options.relayKey }),
    ...(prover === undefined ? {} : { prover }),
    ...(hook === undefined ? {} : { outgoing: hook }),
    ...(options.resume === undefined ? {} : { resume: options.resume }),
    ...(copy === undefined
      ? {}
      : {
          onLine: (line: number, text: string, receipt: unknown) => {
            if (line < held) return;
            appendFileSync(copy, text + '\n');
            appendFileSync(`${copy}.receipts.jsonl`, JSON.stringify(receipt) + '\n');
          },
          onEvidence: (record: unknown) => appendFileSync(`${copy}.evidence.jsonl`, JSON.stringify(record) + '\n'),
          // Kept before it goes out: a seat that stops before its line comes back sends the same bytes again.
          onSubmit: (text: string) => writeFileSync(`${copy}.inflight`, text),
        }),
  });
  game.on('refused', (r) => process.stderr.write(`${id}: a line of ours was refused: [${r.code}] ${r.message}\n`));
  game.on('violation', (v) => process.stderr.write(`${id}: violation at line ${v.seq}: ${v.code}${v.player === null ? '' : ` by ${v.player}`}\n`));
  try {
    await game.finished;
  } catch (e) {
    if (e instanceof ClientError && e.lie !== null) {
      process.stderr.write(`fairtable: [relay_lied] ${e.message}\n${JSON.stringify(e.lie)}\n`);
      process.exit(1);
    }
    throw e;
  } finally {
    game.close();
  }
  return game;
}

function positive(value: string | undefined, name: string, min: number, max: number): number {
  const n = Number(value);
  if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max)
    fail(`[out_of_range] ${name} must be an integer from ${min} to ${max}`);
  return n;
}

function report(player: RelayGame): string {
  const o = player.outcome();
  const summary = (o?.summary ?? {}) as { balances?: Record<string, number> };
  return JSON.stringify({
    player: player.id,
    game: player.gameId,
    balances: summary.balances ?? null,
    forfeits: o?.forfeits ?? [],
    violations: player.violations.map((v) => ({ code: v.code, player: v.player, seq: v.seq })),
  });
}

const WHEELS = ['roulette', 'dice'] as const;

/** An envelope the house wrote whole: a write cut short, or anything else, is not one. */
function isEnvelope(text: string): boolean {
  try {
    return envelopeShapeError(JSON.parse(text)) === null;
  } catch {
    return false;
  }
}

/**
 * Reads back the copy a house kept (`--out`, with its receipts), checks it is this house's game, and recovers
 * its unique-signature key. The relay holds the log; the copy is what the house resumes its seat from.
 */
function resumeGame(
  file: string,
  keys: KeyPair,
): { gameId: string; prove: (alpha: Uint8Array) => Uint8Array; lines: string[]; receipts: unknown[]; inFlight: string | null } {
  const { lines, receipts } = readKeptCopy(file, "the house's copy");
  let setup: GameSetup;
  let gameId: string;
  try {
    ({ setup, gameId } = readSetupLine(lines[0]!));
  } catch (e) {
    failWith(e);
  }
  const me = setup.players.find((p) => p.id === HOUSE);
  if (setup.protocol !== 'signidice' || me === undefined || me.key !== toHex(keys.publicKey))
    fail(`[bad_journal] ${file} is not a Signidice game of this house's key`);
  let kept: HouseSecretFile;
  try {
    kept = JSON.parse(readFileSync(secretPath(file), 'utf8')) as HouseSecretFile;
  } catch (e) {
    fail(
      `[bad_journal] ${secretPath(file)}: the house's signing secret kept when the game opened is unreadable (${(e as Error).message}); an RSA house cannot resume`,
    );
  }
  const h =
    kept.scheme === 'ecvrf-ell2' || kept.scheme === 'ecvrf-tai' ? (isHex(kept.secret, 32) ? ecvrfHouse(kept.scheme, fromHex(kept.secret)) : null) : null;
  if (h === null || canonicalize(h.key as unknown as JsonValue) !== canonicalize(setup.params.houseKey ?? null)) {
    fail(`[bad_journal] ${secretPath(file)} does not hold the secret of the game's house key`);
  }
  // The envelope on its way when the house stopped (written whole before it was sent), if any.
  // A write the crash cut short was never sent (the file is written before the envelope goes out).
  const flight = `${file}.inflight`;
  const inFlight = existsSync(flight) ? readFileSync(flight, 'utf8') : '';
  return { gameId, prove: h.prove, lines, receipts, inFlight: isEnvelope(inFlight) ? inFlight : null };
}

export function register(program: Command): void {
  const cmd = program.command('signidice').description('Signidice (seed 002): roulette or dice against a house that cannot choose the outcome');
  cmd
    .command('house')
    .description('open a contract on a relay and play the house; the relay orders the game, never the house')
    .requiredOption('--relay <url>', 'the relay that orders the game, e.g. http://localhost:8080')
    .requiredOption('--key <file>', "the house's identity key file (fairtable keygen)")
    .option('--players <files>', "comma-separated public key files of the players (fairtable keygen's output); required unless --resume")
    .option('--scheme <scheme>', 'unique signature: ecvrf-ell2, ecvrf-tai or rsa-fdh-vrf', 'ecvrf-ell2')
    .option('--vrf-secret <hex>', 'ECVRF secret key (random if absent)')
    .option('--rounds <n>', 'rounds to play (1..10000)', '3')
    .option('--wheel <wheel>', 'roulette or dice', 'roulette')
    .option('--bounty <n>', 'bounty the house sets aside', '1000')
    .option('--timeout-ms <ms>', 'deadline of each phase', '30000')
    .option('--witness <url>', 'a witness relay the setup names (every seat publishes its envelopes there too); may be given several times', collect)
    .option('--allow-http-witness <host>', ALLOW_HTTP_WITNESS_HELP, collect)
    .option('--out <file>', "the house's copy of the transcript, appended as lines arrive (receipts in FILE.receipts.jsonl)", 'signidice.jsonl')
    .option('--relay-key <hex>', "the relay's public key, when known: a relay showing another is refused")
    .option('--reconnect-ms <ms>', 'how long to keep trying to reach the relay before giving up (exit 2)', '30000')
    .option(
      '--resume <file>',
      "continue the game whose copy this house kept (--out), after a crash or restart: the game's own setup replaces the other options",
    )
    .option('--cheat <kind>', 'make the house cheat (for demonstrations and tests)')
    .action(async (opts: Record<string, string | undefined> & { witness?: string[]; allowHttpWitness?: string[] }) => {
      const me = loadKey(opts.key!);
      if (opts.resume === undefined && opts.players === undefined) fail("[bad_input] --players: the players' public key files (or --resume FILE)");
      const players = opts.resume === undefined ? opts.players!.split(',').filter(Boolean).map(loadPublic) : [];
      if (opts.resume === undefined && players.length === 0) fail('[bad_input] --players: at least one player');
      if (players.some((p) => p.id === HOUSE)) fail(`[bad_input] a player may not be named "${HOUSE}"`);
      if (new Set(players.map((p) => p.id)).size !== players.length) fail('[bad_input] --players: two key files have the same name');
      if (!(WHEELS as readonly string[]).includes(opts.wheel!)) fail(`[bad_input] --wheel must be ${WHEELS.join(' or ')}, not "${opts.wheel}"`);
      if (opts.relayKey !== undefined && !isHex(opts.relayKey, 32)) fail('[bad_hex] --relay-key must be 64 hex digits');
      const cheat = cheatOption(opts.cheat);
      if (cheat !== null && !HOUSE_CHEATS.has(cheat)) fail(`[bad_cheater] the house cannot commit "${cheat}": choose one of ${[...HOUSE_CHEATS].join(', ')}`);
      const reconnectMs = positive(opts.reconnectMs, '--reconnect-ms', 0, 86_400_000);
      const httpHosts = httpWitnessHosts(opts.allowHttpWitness);
      let seat: RelayGame;
      if (opts.resume !== undefined) {
        const r = resumeGame(opts.resume, me.keys);
        process.stderr.write(`house: resuming game ${r.gameId} at line ${r.lines.length} on ${opts.relay}\n`);
        try {
          const relayKey = opts.relayKey ?? (await relayKeyOf(opts.relay!, r.gameId, WebSocket));
          seat = await playSeat(
            opts.relay!,
            r.gameId,
            HOUSE,
            me.keys,
            cheat,
            { copyTo: opts.resume, reconnectMs, relayKey, resume: r, httpWitnessHosts: httpHosts },
            r.prove,
          );
        } catch (e) {
          failWith(e);
        }
        process.stdout.write(report(seat) + '\n');
        return;
      }
      const h = house(opts.scheme!, opts.vrfSecret);
      const witnesses = opts.witness === undefined ? undefined : await witnessesFrom(opts.witness, httpHosts);
      const made: GameSetup = {
        protocol: 'signidice',
        game: null,
        params: {
          houseKey: h.key as unknown as JsonValue,
          rounds: positive(opts.rounds, '--rounds', 1, 10_000),
          wheel: opts.wheel!,
          bounty: positive(opts.bounty, '--bounty', 0, Number.MAX_SAFE_INTEGER),
          timeoutMs: positive(opts.timeoutMs, '--timeout-ms', 1, 86_400_000),
          maxPlayers: players.length,
        },
        players: [{ id: HOUSE, key: toHex(me.keys.publicKey) }, ...players.map((p) => ({ id: p.id, key: p.key }))],
        nonce: toHex(randomBytes(32)),
        created: Date.now(),
      };
      const out = opts.out!;
      let created: { game: string; relay: string; invite: string };
      try {
        if (h.keep !== undefined) writeFileSync(secretPath(out), JSON.stringify(h.keep) + '\n', { mode: 0o600 });
        // Bound to the relay's key, with the witnesses named here or else the relay's own (docs/spec/time.md §5).
        const bound = await bindToRelay(made.params, opts.relay!, witnesses === undefined ? {} : { witnesses });
        if (bound.relay === null) process.stderr.write(`house: the relay publishes no key (GET /relay): the game is not bound to it\n`);
        for (const url of bound.skipped) process.stderr.write(`house: the relay's witness ${url} cannot be reached: the game does without it\n`);
        if (bound.params.witnesses === undefined)
          process.stderr.write(`house: no witness relay: a move the relay drops leaves no evidence (the relay's word only)\n`);
        const setup: GameSetup = { ...made, params: bound.params };
        created = await createGame(opts.relay!, envelopeLine(createSetupEnvelope(setup, HOUSE, me.keys)));
      } catch (e) {
        failWith(e);
      }
      if (opts.relayKey !== undefined && created.relay !== opts.relayKey) fail(`[bad_challenge] the relay's key is ${created.relay}, not --relay-key`);
      process.stdout.write(`${created.game} ${created.invite}\n`);
      process.stderr.write(
        `house: opened game ${created.game} on ${opts.relay}; players join with: fairtable signidice play --relay ${opts.relay} --game ${created.game} --key KEY\n`,
      );
      try {
        seat = await playSeat(
          opts.relay!,
          created.game,
          HOUSE,
          me.keys,
          cheat,
          { copyTo: out, reconnectMs, relayKey: created.relay, httpWitnessHosts: httpHosts },
          h.prove,
        );
      } catch (e) {
        failWith(e);
      }
      process.stdout.write(report(seat) + '\n');
      process.stderr.write(`house: kept ${seat.lines.length} lines and their receipts in ${out}\n`);
    });
  cmd
    .command('play')
    .description("join a house's game on its relay and play a seat")
    .requiredOption('--relay <url>', 'the relay that orders the game')
    .requiredOption('--game <id>', 'the game id the house printed')
    .requiredOption('--key <file>', 'your identity key file; its name is your player id')
    .option('--out <file>', 'keep your own copy of the transcript (receipts in FILE.receipts.jsonl, witness evidence in FILE.evidence.jsonl)')
    .option('--relay-key <hex>', "the relay's public key, when known: a relay showing another is refused")
    .option('--reconnect-ms <ms>', 'how long to keep trying to reach the relay before giving up (exit 2)', '30000')
    .option('--bet <bet>', 'your bet every round: red:10, dozen:2:10, straight:17:5, face:3:10, pass … (default: a random bet of at most 10)')
    .option('--cheat <kind>', 'cheat (for demonstrations and tests)')
    .option('--allow-http-witness <host>', ALLOW_HTTP_WITNESS_HELP, collect)
    .action(async (opts: Record<string, string | undefined> & { allowHttpWitness?: string[] }) => {
      const me = loadKey(opts.key!);
      if (!isHex(opts.game, 32)) fail('[bad_hex] --game must be a game id (64 hex digits)');
      if (opts.relayKey !== undefined && !isHex(opts.relayKey, 32)) fail('[bad_hex] --relay-key must be 64 hex digits');
      const cheat = cheatOption(opts.cheat);
      if (cheat !== null && HOUSE_CHEATS.has(cheat)) fail(`[bad_cheater] "${cheat}" is a cheat of the house; a player cannot commit it`);
      const options: SeatOptions = {
        reconnectMs: positive(opts.reconnectMs, '--reconnect-ms', 0, 86_400_000),
        httpWitnessHosts: httpWitnessHosts(opts.allowHttpWitness),
        ...(opts.out === undefined ? {} : { copyTo: opts.out }),
        ...(opts.relayKey === undefined ? {} : { relayKey: opts.relayKey }),
      };
      try {
        const seat = await playSeat(
          opts.relay!,
          opts.game!,
          me.name,
          me.keys,
          cheat,
          options,
          undefined,
          opts.bet === undefined ? undefined : betStrategy(opts.bet, me.name),
        );
        process.stdout.write(report(seat) + '\n');
      } catch (e) {
        failWith(e);
      }
    });
}
