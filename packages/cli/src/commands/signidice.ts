/**
 * `fairtable signidice house` and `fairtable signidice play`: Signidice (seed
 * 002) as two programs. The house opens the contract, serves the table on
 * 127.0.0.1 (or --host) and plays its seat; each player connects with its key
 * and plays its own. Every seat runs the same arbiter, so each program prints
 * the same balances. The house appends each line to the transcript as its
 * table accepts it (docs/SPEC.md §10.4), so a crash loses nothing any player
 * saw, and `--resume` continues the same game from that file; a player can
 * keep its own copy (`play --out`). Failures end a program with one coded line
 * and exit 2: a refused connection, a server that is not a table, a table
 * that goes silent or away for longer than the player waits for it.
 */
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { randomBytes, toHex } from '@fairtable/core/bytes.js';
import type { KeyPair } from '@fairtable/core/identity.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { canonicalize, type JsonValue } from '@fairtable/core/jcs.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { SimPlayer, CHEATS, simStrategy, type Cheat, type Strategy } from '@fairtable/core/testing';
import { checkChoice } from '@fairtable/core';
import { ecvrfHouse, checkHouseKey, type HouseKey } from '@fairtable/core/signidice/house-key.js';
import { HOUSE } from '@fairtable/core/signidice/arbiter.js';
import { isHex, fromHex } from '@fairtable/core/bytes.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { generateRsaVrfKeyPair, createRsaVrfProver } from '@fairtable/node/rsa-vrf.js';
import { serveTable, connectTable, reopenDoor, type Door, type TableServer } from '@fairtable/node/tcp-table.js';
import { fail, failWith } from '../io.js';
import { readKeyFile, readPublicKeyFile } from '../key-files.js';

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
  /** The player's own copy of the transcript, appended as lines arrive. */
  readonly copyTo?: string;
  readonly silenceMs: number;
  readonly reconnectMs: number;
}

/**
 * Plays a seat until the game is over and the client has nothing left to
 * send; throws a coded error when the table cannot be reached, refuses the
 * connection, goes silent or goes away for good before the game ends.
 */
async function playSeat(
  host: string,
  port: number,
  id: string,
  keys: KeyPair,
  cheat: Cheat | null,
  options: SeatOptions,
  prover?: (a: Uint8Array) => Uint8Array,
  resumeFrom?: readonly string[],
  strategy?: Strategy,
): Promise<SimPlayer> {
  const conn = await connectTable(host, port, id, keys.secretKey, {
    silenceMs: options.silenceMs,
    reconnectMs: options.reconnectMs,
    ...(options.copyTo === undefined ? {} : { copyTo: options.copyTo }),
    onRefused: (code, message) => process.stderr.write(`${id}: the table refused a line of ours: [${code}] ${message}\n`),
  });
  // A resumed seat replays the log it wrote and sends nothing that already stands in it (Seat.resume).
  const player = new SimPlayer(id, keys, conn.setupLine, randomBytes, cheat, () => Date.now(), nativeVerify, prover, nativeSign, {
    ...(resumeFrom === undefined ? {} : { resume: { lines: resumeFrom } }),
    ...(strategy === undefined ? {} : { strategy }),
  });
  conn.attach(player);
  player.tick(conn.link);
  let check: NodeJS.Timeout | undefined;
  const finished = new Promise<void>((resolve) => {
    let doneSince = 0;
    check = setInterval(() => {
      if (player.referee.outcome() === null || !player.idle) return;
      doneSince ||= Date.now();
      if (Date.now() - doneSince > 300) resolve();
    }, 50);
  });
  try {
    const failure = await Promise.race([finished.then(() => null), conn.failed]);
    // A table that closes once this seat has seen the end of the game has done its job.
    if (failure !== null && player.referee.outcome() === null) throw failure;
  } finally {
    clearInterval(check);
    conn.close();
  }
  return player;
}

function positive(value: string | undefined, name: string, min: number, max: number): number {
  const n = Number(value);
  if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max)
    fail(`[out_of_range] ${name} must be an integer from ${min} to ${max}`);
  return n;
}

function report(player: SimPlayer): string {
  const o = player.referee.outcome();
  const summary = (o?.summary ?? {}) as { balances?: Record<string, number> };
  return JSON.stringify({
    player: player.id,
    balances: summary.balances ?? null,
    forfeits: o?.forfeits ?? [],
    violations: player.referee.violations.map((v) => ({ code: v.code, player: v.player, seq: v.seq })),
  });
}

const WHEELS = ['roulette', 'dice'] as const;

/** Reads back the transcript a house appended, checks it is this house's game, and recovers its unique-signature key. */
function resumeGame(file: string, keys: KeyPair): { setupLine: string; prove: (alpha: Uint8Array) => Uint8Array; door: Door } {
  let door: Door;
  try {
    const text = readFileSync(file, 'utf8');
    door = reopenDoor(text);
    // A last line cut short by the crash is dropped from the file too, so the next line starts on a line of its own.
    const valid = Buffer.byteLength(door.log.join('\n') + '\n');
    if (Buffer.byteLength(text) > valid) truncateSync(file, valid);
  } catch (e) {
    failWith(e);
  }
  const setupLine = door.log[0]!;
  const { setup } = readSetupLine(setupLine);
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
  return { setupLine, prove: h.prove, door };
}

export function register(program: Command): void {
  const cmd = program.command('signidice').description('Signidice (seed 002): roulette or dice against a house that cannot choose the outcome');
  cmd
    .command('house')
    .description('open a contract, serve the table and play the house; every accepted line is appended to --out as it is accepted')
    .requiredOption('--key <file>', "the house's identity key file (fairtable keygen)")
    .option('--players <files>', "comma-separated public key files of the players (fairtable keygen's output); required unless --resume")
    .option('--scheme <scheme>', 'unique signature: ecvrf-ell2, ecvrf-tai or rsa-fdh-vrf', 'ecvrf-ell2')
    .option('--vrf-secret <hex>', 'ECVRF secret key (random if absent)')
    .option('--rounds <n>', 'rounds to play (1..10000)', '3')
    .option('--wheel <wheel>', 'roulette or dice', 'roulette')
    .option('--bounty <n>', 'bounty the house sets aside', '1000')
    .option('--timeout-ms <ms>', 'deadline of each phase', '30000')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0: any free one, printed)', '0')
    .option('--out <file>', 'the transcript, appended line by line as the table accepts them', 'signidice.jsonl')
    .option('--hello-timeout-ms <ms>', 'time a new connection has to prove its player', '10000')
    .option('--max-connections <n>', 'connections open at once', '64')
    .option(
      '--resume <file>',
      "continue the game in this transcript (one this house appended), after a crash or restart; the game's own setup replaces --players, --rounds and the rest",
    )
    .option('--cheat <kind>', 'make the house cheat (for demonstrations and tests)')
    .action(async (opts: Record<string, string | undefined>) => {
      const me = loadKey(opts.key!);
      if (opts.resume === undefined && opts.players === undefined) fail("[bad_input] --players: the players' public key files (or --resume FILE)");
      const players = opts.resume === undefined ? opts.players!.split(',').filter(Boolean).map(loadPublic) : [];
      if (opts.resume === undefined && players.length === 0) fail('[bad_input] --players: at least one player');
      if (players.some((p) => p.id === HOUSE)) fail(`[bad_input] a player may not be named "${HOUSE}"`);
      if (new Set(players.map((p) => p.id)).size !== players.length) fail('[bad_input] --players: two key files have the same name');
      if (!(WHEELS as readonly string[]).includes(opts.wheel!)) fail(`[bad_input] --wheel must be ${WHEELS.join(' or ')}, not "${opts.wheel}"`);
      const cheat = cheatOption(opts.cheat);
      if (cheat !== null && !HOUSE_CHEATS.has(cheat)) fail(`[bad_cheater] the house cannot commit "${cheat}": choose one of ${[...HOUSE_CHEATS].join(', ')}`);
      let setupLine: string;
      let prove: (alpha: Uint8Array) => Uint8Array;
      let door: Door | undefined;
      const journal = opts.resume ?? opts.out!;
      if (opts.resume !== undefined) {
        ({ setupLine, prove, door } = resumeGame(opts.resume, me.keys));
      } else {
        const h = house(opts.scheme!, opts.vrfSecret);
        prove = h.prove;
        const setup: GameSetup = {
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
        setupLine = envelopeLine(createSetupEnvelope(setup, HOUSE, me.keys));
        try {
          if (h.keep !== undefined) writeFileSync(secretPath(journal), JSON.stringify(h.keep) + '\n', { mode: 0o600 });
        } catch (e) {
          failWith(e);
        }
      }
      let server: TableServer;
      try {
        server = await serveTable(setupLine, {
          host: opts.host!,
          port: positive(opts.port, '--port', 0, 65535),
          journal,
          ...(door === undefined ? {} : { resume: door }),
          limits: {
            helloTimeoutMs: positive(opts.helloTimeoutMs, '--hello-timeout-ms', 1, 3_600_000),
            maxConnections: positive(opts.maxConnections, '--max-connections', 2, 10_000),
          },
          onEvent: (e) => {
            if (e.type === 'disconnected') process.stderr.write(`table: disconnected ${e.player ?? 'a connection before hello'}: [${e.code}] ${e.message}\n`);
            else if (e.type === 'refused') process.stderr.write(`table: refused a line from ${e.player}: [${e.code}] ${e.message}\n`);
            else if (e.type === 'journal_failed') process.stderr.write(`table: cannot append to ${journal}, the line waits: ${e.message}\n`);
          },
        });
      } catch (e) {
        failWith(e);
      }
      process.stdout.write(`PORT ${server.port}\n`);
      process.stderr.write(
        `table listening on ${opts.host}:${server.port}; waiting for ${readSetupLine(setupLine)
          .setup.players.map((p) => p.id)
          .filter((p) => p !== HOUSE)
          .join(', ')}; ${door === undefined ? 'appending' : `resuming at line ${door.log.length}, appending`} the transcript to ${journal}\n`,
      );
      let seat: SimPlayer;
      try {
        const log = door?.log.slice();
        seat = await playSeat(opts.host!, server.port, HOUSE, me.keys, cheat, { silenceMs: 60_000, reconnectMs: 0 }, prove, log);
      } catch (e) {
        await server.close();
        failWith(e);
      }
      await new Promise((r) => setTimeout(r, 500)); // let the players fetch the last lines
      await server.close();
      process.stdout.write(report(seat) + '\n');
      process.stderr.write(`wrote ${server.log.length} lines to ${journal}\n`);
    });
  cmd
    .command('play')
    .description("join a house's table and play a seat")
    .requiredOption('--key <file>', 'your identity key file; its name is your player id')
    .requiredOption('--port <port>', "the table's port")
    .option('--host <host>', "the table's address", '127.0.0.1')
    .option('--out <file>', 'keep your own copy of the transcript, appended line by line as it arrives')
    .option('--silence-ms <ms>', 'give up when the table sends nothing for this long', '15000')
    .option('--reconnect-ms <ms>', 'when the connection drops, keep trying to reconnect for this long (a restarted house)', '30000')
    .option('--bet <bet>', 'your bet every round: red:10, dozen:2:10, straight:17:5, face:3:10, pass … (default: a random bet of at most 10)')
    .option('--cheat <kind>', 'cheat (for demonstrations and tests)')
    .action(async (opts: Record<string, string | undefined>) => {
      const me = loadKey(opts.key!);
      const port = positive(opts.port, '--port', 1, 65535);
      const cheat = cheatOption(opts.cheat);
      if (cheat !== null && HOUSE_CHEATS.has(cheat)) fail(`[bad_cheater] "${cheat}" is a cheat of the house; a player cannot commit it`);
      const options: SeatOptions = {
        silenceMs: positive(opts.silenceMs, '--silence-ms', 100, 86_400_000),
        reconnectMs: positive(opts.reconnectMs, '--reconnect-ms', 0, 86_400_000),
        ...(opts.out === undefined ? {} : { copyTo: opts.out }),
      };
      try {
        const seat = await playSeat(
          opts.host!,
          port,
          me.name,
          me.keys,
          cheat,
          options,
          undefined,
          undefined,
          opts.bet === undefined ? undefined : betStrategy(opts.bet, me.name),
        );
        process.stdout.write(report(seat) + '\n');
      } catch (e) {
        failWith(e);
      }
    });
}
