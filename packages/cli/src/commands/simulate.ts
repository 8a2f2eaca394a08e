/** `fairtable simulate PROTOCOL`: honest or cheating players on the in-memory network; writes the transcript. */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { fromHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { simulate, SIM_PROTOCOLS, type SimProtocol } from '@fairtable/core/sim/simulate.js';
import { CHEATS, type Cheat } from '@fairtable/core/sim/player.js';
import { GAMES } from '@fairtable/core/games/index.js';
import { fail } from '../io.js';

function num(value: string | undefined, name: string, min: number, max: number, integer = true): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) fail(`[out_of_range] ${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
  return n;
}

export function register(program: Command): void {
  program
    .command('simulate')
    .description(`run simulated players on the in-memory network and write the transcript (protocols: ${SIM_PROTOCOLS.join(', ')})`)
    .argument('<protocol>', SIM_PROTOCOLS.join(' | '))
    .requiredOption('--players <n>', 'number of players, named p0 … p{n-1}')
    .requiredOption('--out <file>', 'where to write the transcript (JSON Lines)')
    .option('--seed <hex>', '32-byte seed (64 hex digits) that fixes keys, moves and the network; random if absent')
    .option('--turns <t>', 'rounds of the game (beacon: how many joint numbers)')
    .option('--states <n>', 'rochambeau: the number of states N (odd, at least 3)', '3')
    .option('--hash <name>', 'rochambeau: sha-256, sha-384, sha-512 or sha3-256', 'sha-256')
    .option('--game <name>', `keyed-stream, chain: the game played (${Object.keys(GAMES).join(', ')}; default dice)`)
    .option('--audit-every <k>', 'keyed-stream: honest players ask for an audit of the last roller every k turns (default: never)')
    .option('--cheat <kind>', `one of: ${CHEATS.join(', ')}`)
    .option('--cheater <id>', 'which player cheats (default p1)')
    .option('--drop <p>', 'probability a message is lost', '0')
    .option('--duplicate <p>', 'probability a message is delivered twice', '0')
    .option('--max-delay <ms>', 'largest network delay; a spread reorders messages', '20')
    .action((protocol: string, opts: Record<string, string | undefined>) => {
      if (!(SIM_PROTOCOLS as readonly string[]).includes(protocol)) fail(`[unknown_protocol] "${protocol}": choose one of ${SIM_PROTOCOLS.join(', ')}`);
      if (opts.cheat !== undefined && !(CHEATS as readonly string[]).includes(opts.cheat)) fail(`[bad_input] unknown cheat "${opts.cheat}": choose one of ${CHEATS.join(', ')}`);
      if (opts.cheater !== undefined && opts.cheat === undefined) fail('[bad_input] --cheater needs --cheat');
      if (opts.game !== undefined && protocol !== 'keyed-stream' && protocol !== 'chain') fail('[bad_input] --game is for keyed-stream and chain');
      if (opts.game !== undefined && GAMES[opts.game] === undefined) fail(`[bad_input] unknown game "${opts.game}": choose one of ${Object.keys(GAMES).join(', ')}`);
      if (opts.auditEvery !== undefined && protocol !== 'keyed-stream') fail('[bad_input] --audit-every is for keyed-stream');
      let seed: Uint8Array;
      try {
        seed = opts.seed === undefined ? randomBytes(32) : fromHex(opts.seed, '--seed', 32);
      } catch (e) {
        fail(`[bad_hex] ${(e as Error).message}`);
      }
      try {
        const turns = num(opts.turns, '--turns', 1, 1_000_000);
        const auditEvery = num(opts.auditEvery, '--audit-every', 1, 1_000_000);
        const result = simulate({
          protocol: protocol as SimProtocol,
          players: num(opts.players, '--players', 2, 1000)!,
          seed,
          ...(turns !== undefined ? { turns } : {}),
          ...(opts.cheat !== undefined ? { cheat: opts.cheat as Cheat, cheater: opts.cheater ?? 'p1' } : {}),
          drop: num(opts.drop, '--drop', 0, 0.9, false)!,
          duplicate: num(opts.duplicate, '--duplicate', 0, 0.9, false)!,
          maxDelay: num(opts.maxDelay, '--max-delay', 1, 10_000)!,
          ...(protocol === 'rochambeau' ? { params: { N: opts.states!, hash: opts.hash! } } : {}),
          ...(opts.game !== undefined ? { game: opts.game } : {}),
          ...(auditEvery !== undefined ? { params: { auditEvery } } : {}),
        });
        writeFileSync(opts.out!, result.lines.join('\n') + '\n');
        const o = result.outcome;
        process.stderr.write(
          `seed ${toHex(seed)}\nwrote ${result.lines.length} lines to ${opts.out}; ${o === null ? 'the game did not finish' : `winners: ${o.winners.join(', ') || '(none)'}`}` +
            `${o && o.forfeits.length ? `; forfeited: ${o.forfeits.map((f) => `${f.player} (${f.code})`).join(', ')}` : ''}\n` +
            `${result.messages.sent} messages sent, ${result.messages.dropped} dropped, ${result.simulatedMs} ms simulated\n`,
        );
      } catch (e) {
        const err = e as { code?: string; message: string };
        fail(`[${err.code ?? 'bad_input'}] ${err.message}`);
      }
    });
}
