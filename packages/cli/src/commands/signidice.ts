/**
 * `fairtable signidice house` and `fairtable signidice play`: Signidice (seed
 * 002) as two programs. The house opens the contract, serves the table on
 * 127.0.0.1 (or --host) and plays its seat; each player connects with its key
 * and plays its own. Every seat runs the same arbiter, so each program prints
 * the same balances, and the house writes the transcript for anyone to audit.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { randomBytes, toHex } from '@fairtable/core/bytes.js';
import { fromKeyFile, type KeyPair } from '@fairtable/core/identity.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { SimPlayer, CHEATS, type Cheat } from '@fairtable/core/sim/player.js';
import { ecvrfHouse, checkHouseKey, type HouseKey } from '@fairtable/core/signidice/house-key.js';
import { HOUSE } from '@fairtable/core/signidice/arbiter.js';
import { isHex, fromHex } from '@fairtable/core/bytes.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { generateRsaVrfKeyPair, createRsaVrfProver } from '@fairtable/node/rsa-vrf.js';
import { serveTable, connectTable } from '@fairtable/node/tcp-table.js';
import { fail } from '../io.js';

function loadKey(path: string): { name: string; keys: KeyPair } {
  try {
    return fromKeyFile(JSON.parse(readFileSync(path, 'utf8')));
  } catch (e) {
    fail(`[bad_key_file] ${path}: ${(e as Error).message}`);
  }
}

function loadPublic(path: string): { id: string; key: string } {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown; publicKey?: unknown };
    if (typeof v.name !== 'string' || !isHex(v.publicKey, 32)) throw new Error('expected {"name", "publicKey"} (the output of fairtable keygen)');
    return { id: v.name, key: v.publicKey };
  } catch (e) {
    fail(`[bad_key_file] ${path}: ${(e as Error).message}`);
  }
}

function house(scheme: string, vrfSecret: string | undefined): { key: HouseKey; prove: (alpha: Uint8Array) => Uint8Array } {
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
  return ecvrfHouse(scheme, secret);
}

function cheatOption(value: string | undefined): Cheat | null {
  if (value === undefined) return null;
  if (!(CHEATS as readonly string[]).includes(value)) fail(`[bad_input] unknown cheat "${value}": choose one of ${CHEATS.join(', ')}`);
  return value as Cheat;
}

/** Plays a seat until the game is over and the client has nothing left to send. */
async function playSeat(host: string, port: number, id: string, keys: KeyPair, cheat: Cheat | null, prover?: (a: Uint8Array) => Uint8Array): Promise<SimPlayer> {
  const conn = await connectTable(host, port, id, keys.secretKey);
  const player = new SimPlayer(id, keys, conn.setupLine, randomBytes, cheat, () => Date.now(), nativeVerify, prover, nativeSign);
  conn.attach(player);
  player.tick(conn.link);
  await new Promise<void>((resolve) => {
    let doneSince = 0;
    const check = setInterval(() => {
      if (player.referee.outcome() === null || !player.idle) return;
      doneSince ||= Date.now();
      if (Date.now() - doneSince > 300) {
        clearInterval(check);
        resolve();
      }
    }, 50);
  });
  conn.close();
  return player;
}

function report(player: SimPlayer): string {
  const o = player.referee.outcome();
  const summary = (o?.summary ?? {}) as { balances?: Record<string, number> };
  return JSON.stringify({ player: player.id, balances: summary.balances ?? null, forfeits: o?.forfeits ?? [], violations: player.referee.violations.map((v) => ({ code: v.code, player: v.player, seq: v.seq })) });
}

export function register(program: Command): void {
  const cmd = program.command('signidice').description('Signidice (seed 002): roulette or dice against a house that cannot choose the outcome');
  cmd
    .command('house')
    .description('open a contract, serve the table and play the house')
    .requiredOption('--key <file>', "the house's identity key file (fairtable keygen)")
    .requiredOption('--players <files>', "comma-separated public key files of the players (fairtable keygen's output)")
    .option('--scheme <scheme>', 'unique signature: ecvrf-ell2, ecvrf-tai or rsa-fdh-vrf', 'ecvrf-ell2')
    .option('--vrf-secret <hex>', 'ECVRF secret key (random if absent)')
    .option('--rounds <n>', 'rounds to play', '3')
    .option('--wheel <wheel>', 'roulette or dice', 'roulette')
    .option('--bounty <n>', 'bounty the house sets aside', '1000')
    .option('--timeout-ms <ms>', 'deadline of each phase', '30000')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0: any free one, printed)', '0')
    .option('--out <file>', 'where to write the transcript', 'signidice.jsonl')
    .option('--cheat <kind>', 'make the house cheat (for demonstrations and tests)')
    .action(async (opts: Record<string, string>) => {
      const me = loadKey(opts.key!);
      const players = opts.players!.split(',').filter(Boolean).map(loadPublic);
      if (players.length === 0) fail('[bad_input] --players: at least one player');
      if (players.some((p) => p.id === HOUSE)) fail(`[bad_input] a player may not be named "${HOUSE}"`);
      const h = house(opts.scheme!, opts.vrfSecret);
      const num = (v: string | undefined, name: string): number => {
        const n = Number(v);
        if (!Number.isSafeInteger(n) || n < 0) fail(`[out_of_range] ${name} must be a non-negative integer`);
        return n;
      };
      const setup: GameSetup = {
        protocol: 'signidice',
        game: null,
        params: {
          houseKey: h.key as unknown as JsonValue,
          rounds: Math.max(1, num(opts.rounds, '--rounds')),
          wheel: opts.wheel === 'dice' ? 'dice' : 'roulette',
          bounty: num(opts.bounty, '--bounty'),
          timeoutMs: Math.max(1, num(opts.timeoutMs, '--timeout-ms')),
          maxPlayers: players.length,
        },
        players: [{ id: HOUSE, key: toHex(me.keys.publicKey) }, ...players.map((p) => ({ id: p.id, key: p.key }))],
        nonce: toHex(randomBytes(32)),
        created: Date.now(),
      };
      const setupLine = envelopeLine(createSetupEnvelope(setup, HOUSE, me.keys));
      const server = await serveTable(setupLine, opts.host, num(opts.port, '--port'));
      process.stdout.write(`PORT ${server.port}\n`);
      process.stderr.write(`table listening on ${opts.host}:${server.port}; waiting for ${players.map((p) => p.id).join(', ')}\n`);
      const seat = await playSeat(opts.host!, server.port, HOUSE, me.keys, cheatOption(opts.cheat), h.prove);
      await new Promise((r) => setTimeout(r, 500)); // let the players fetch the last lines
      writeFileSync(opts.out!, server.table.log.join('\n') + '\n');
      await server.close();
      process.stdout.write(report(seat) + '\n');
      process.stderr.write(`wrote ${server.table.log.length} lines to ${opts.out}\n`);
    });
  cmd
    .command('play')
    .description("join a house's table and play a seat")
    .requiredOption('--key <file>', 'your identity key file; its name is your player id')
    .requiredOption('--port <port>', "the table's port")
    .option('--host <host>', "the table's address", '127.0.0.1')
    .option('--cheat <kind>', 'cheat (for demonstrations and tests)')
    .action(async (opts: Record<string, string>) => {
      const me = loadKey(opts.key!);
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 1 || port > 65535) fail('[out_of_range] --port must be 1..65535');
      try {
        const seat = await playSeat(opts.host!, port, me.name, me.keys, cheatOption(opts.cheat));
        process.stdout.write(report(seat) + '\n');
      } catch (e) {
        fail(`[bad_input] ${(e as Error).message}`);
      }
    });
}
