/**
 * `fairtable fetch --relay URL --game GAME_ID --out FILE`: downloads a game's transcript and the relay's
 * receipts (docs/spec/relay.md §3) and checks them against each other ("The client") before writing FILE and
 * FILE.receipts.jsonl beside it, for `fairtable audit` and for anyone who wants to check the relay.
 * Receipts that do not fit the lines are still written (they are the evidence) and the command exits 1.
 * `--witness URL` also downloads what each witness relay holds of the game (relay.md §8) as evidence records
 * in FILE.witness.jsonl, for `fairtable audit FILE --relay-key KEY --witness FILE.witness.jsonl` (§9).
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { WebSocket } from 'ws';
import { fetchGame, relayKeyOf } from '@fairtable/client';
import { isHex } from '@fairtable/core/bytes.js';
import { fail, failWith } from '../io.js';

export function register(program: Command): void {
  program
    .command('fetch')
    .description("download a game's transcript and the relay's receipts; writes FILE and FILE.receipts.jsonl")
    .requiredOption('--relay <url>', 'the relay, e.g. http://localhost:8080')
    .requiredOption('--game <id>', 'the game id (64 hex digits)')
    .requiredOption('--out <file>', 'where to write the transcript (JSON Lines)')
    .option('--relay-key <hex>', "the relay's public key the receipts must verify under (default: the key the relay introduces itself with)")
    .option(
      '--witness <url>',
      'a witness relay of the game: its evidence records go to FILE.witness.jsonl; may be given several times',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .action(async (opts: { relay: string; game: string; out: string; relayKey?: string; witness?: string[] }) => {
      if (!isHex(opts.game, 32)) fail('[bad_hex] --game must be a game id (64 hex digits)');
      if (opts.relayKey !== undefined && !isHex(opts.relayKey, 32)) fail('[bad_hex] --relay-key must be 64 hex digits');
      let fetched: Awaited<ReturnType<typeof fetchGame>>;
      let key: string;
      try {
        key = opts.relayKey ?? (await relayKeyOf(opts.relay, opts.game, WebSocket));
        fetched = await fetchGame(opts.relay, opts.game, key);
      } catch (e) {
        failWith(e);
      }
      writeFileSync(opts.out, fetched.lines.map((l) => l + '\n').join(''));
      writeFileSync(`${opts.out}.receipts.jsonl`, fetched.receipts.map((r) => JSON.stringify(r) + '\n').join(''));
      if (opts.witness !== undefined) {
        const records: string[] = [];
        for (const w of opts.witness) {
          let res: Response;
          try {
            res = await fetch(`${w.replace(/\/+$/, '')}/witness/games/${opts.game}`);
          } catch (e) {
            fail(`[connection_failed] --witness ${w}: ${(e as Error).message}`);
          }
          if (res.status === 404) process.stderr.write(`witness ${w} holds nothing of game ${opts.game}\n`);
          else if (!res.ok) fail(`[connection_failed] --witness ${w} answered ${res.status}`);
          else records.push(...(await res.text()).split('\n').filter((l) => l.trim() !== ''));
        }
        // Written as served: the audit checks each record's receipt against the witnesses the setup names.
        writeFileSync(`${opts.out}.witness.jsonl`, records.map((r) => r + '\n').join(''));
      }
      if (fetched.lie !== null) {
        process.stderr.write(`fairtable: [relay_lied] ${fetched.lie.message}\n${JSON.stringify(fetched.lie)}\n`);
        process.exit(1);
      }
      process.stderr.write(
        `wrote ${fetched.lines.length} lines to ${opts.out} and their receipts to ${opts.out}.receipts.jsonl; every receipt verifies under the relay key ${key} and chains from the lines\n`,
      );
    });
}
