/**
 * `fairtable talk`: a game's table talk through its relay (docs/spec/press.md). `fairtable talk --relay URL --game ID
 * --key FILE [--to SEAT,...] MESSAGE` writes a message from the key's seat, to the table or, sealed, to the seats
 * named; `fairtable talk read --relay URL --game ID [--key FILE]` prints the game's talk as the seat (or, without a
 * key, as an observer) reads it, each message checked, refused ones with their code and whom they name.
 */
import type { Command } from 'commander';
import { TableTalk, type TalkEntry } from '@fairtable/client';
import { isHex } from '@fairtable/core/bytes.js';
import type { GameSetup } from '@fairtable/core/setup.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import { SETUP_ROSTER, talkRosterOfLog, type TalkRoster } from '@fairtable/core/press/index.js';
import { cliRegistry } from '../registry.js';
import { fail, failWith } from '../io.js';
import { readKeyFile } from '../key-files.js';

interface Common {
  relay: string;
  game: string;
  key?: string;
}

/**
 * The game's setup, from line 0 of the transcript the relay serves, checked against the game id, and the talk
 * roster its log makes (press.md §10): when a `newcomer` line stands in it, the log is replayed with its
 * machine for its newcomers and hand-overs; otherwise only line 0 is read.
 */
async function gameOf(relay: string, game: string): Promise<{ setup: GameSetup; roster: TalkRoster }> {
  const res = await fetch(`${relay.replace(/\/+$/, '')}/games/${game}/transcript`);
  if (res.status === 404) fail(`[unknown_game] no game ${game} on this relay`);
  if (!res.ok || res.body === null) fail(`[connection_failed] the relay answered ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let setup: GameSetup | null = null;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (setup === null && text.includes('\n')) {
      const first = readSetupLine(text.split('\n')[0]!);
      if (first.gameId !== game) fail(`[wrong_game] the relay's line 0 is the setup of game ${first.gameId}, not ${game}`);
      setup = first.setup;
      // Talk that knows only the setup's players needs no more of the transcript.
      if (setup.protocol !== 'diplomacy') break;
    }
  }
  await reader.cancel().catch(() => {});
  if (setup === null) {
    const first = readSetupLine(text.split('\n')[0]!);
    if (first.gameId !== game) fail(`[wrong_game] the relay's line 0 is the setup of game ${first.gameId}, not ${game}`);
    setup = first.setup;
  }
  const lines = text.split('\n').filter((l) => l !== '');
  const roster = text.includes('"type":"newcomer"') ? talkRosterOfLog(lines, { registry: cliRegistry }) : SETUP_ROSTER;
  return { setup, roster };
}

async function open(opts: Common): Promise<{ talk: TableTalk; me: string | null }> {
  if (!isHex(opts.game, 32)) fail('[bad_hex] --game must be a game id (64 hex digits)');
  const { setup, roster } = await gameOf(opts.relay, opts.game);
  let me: { id: string; secretKey: Uint8Array } | undefined;
  if (opts.key !== undefined) {
    const { name, keys } = readKeyFile(opts.key);
    const publicKey = Buffer.from(keys.publicKey).toString('hex');
    // A newcomer's key is its seat from the line that introduced it (press.md §10).
    const seat = [...setup.players, ...roster.newcomers].find((p) => p.key === publicKey);
    if (seat === undefined) fail(`[unknown_player] the key in ${opts.key} (${name}) holds no seat of this game`);
    me = { id: seat.id, secretKey: keys.secretKey };
  }
  const talk = new TableTalk({
    relayUrl: opts.relay,
    gameId: opts.game,
    players: setup.players,
    params: setup.params,
    roster: () => roster,
    ...(me === undefined ? {} : { me }),
  });
  if (talk.rules === null) fail('[refused] this game has no talk (its params.press is not press rules)');
  return { talk, me: me?.id ?? null };
}

/** One message as a line of text. */
function line(e: TalkEntry): string {
  const when = new Date(e.at).toISOString();
  if (e.kind === 'refused') {
    const f = e.finding;
    return `#${e.index} ${when} REFUSED [${f.code}] ${f.message}; ${f.player === null ? 'names nobody' : `names ${f.player}${f.provable ? '' : ' (to this reader only)'}`}`;
  }
  const t = e.talk;
  const to = Array.isArray(t.to) ? `to ${t.to.join(', ')} (private)` : t.to === 'observers' ? 'to observers' : 'to the table';
  const proof = t.proof === 'signed' ? 'signed' : t.proof === 'deniable' ? 'deniable' : 'author not checked';
  const body = t.body ?? `[sealed for ${Array.isArray(t.to) ? t.to.join(', ') : 'others'}: ${(t.message.sealed?.box.length ?? 0) / 2} bytes]`;
  return `#${e.index} ${when} ${t.from} ${to}, ${proof}: ${body}`;
}

export function register(program: Command): void {
  program
    .command('talk')
    .description("a game's table talk through its relay: write a message (to the table, or sealed to --to seats); `talk read` prints the talk")
    .requiredOption('--relay <url>', 'the relay, e.g. http://localhost:8080')
    .requiredOption('--game <id>', 'the game id (64 hex digits)')
    .option('--key <file>', 'your key file (its public key is your seat in the game); to read without one is to read as an observer')
    .option('--to <seats>', 'seats to write to privately, separated by commas (default: the whole table)')
    .argument('[message...]', 'the message; `read` alone prints the talk instead')
    .action(async (words: string[], opts: Common & { to?: string }) => {
      try {
        // `fairtable talk read …`: a message that is the one word "read" is the reading command.
        if (words.length === 1 && words[0] === 'read') {
          if (opts.to !== undefined) fail('[bad_input] --to: reading takes no recipients');
          const { talk: t } = await open(opts);
          await t.load();
          for (const e of t.entries) process.stdout.write(line(e) + '\n');
          process.stderr.write(`${t.entries.length} messages\n`);
          return;
        }
        if (words.length === 0) fail('[bad_input] the message is missing: fairtable talk --relay URL --game ID --key FILE "message"');
        if (opts.key === undefined) fail('[bad_input] --key: writing needs your key file');
        const { talk: t, me } = await open(opts);
        const to =
          opts.to === undefined
            ? 'table'
            : opts.to
                .split(',')
                .map((s) => s.trim())
                .filter((s) => s !== '')
                .sort();
        const m = await t.send(to, words.join(' '));
        process.stdout.write(`${me} wrote ${to === 'table' ? 'to the table' : `to ${(to as string[]).join(', ')}, sealed`} (message ${m.seq})\n`);
      } catch (e) {
        failWith(e);
      }
    });
}
