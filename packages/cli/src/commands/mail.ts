/**
 * `fairtable mail`: play any game by e-mail from a game folder (docs/spec/mail.md). `new` creates a game and
 * its invitation, `read` takes in received e-mails (files or standard input), `decide` answers the game's
 * question to the player, `status` says who acts next and until when (and posts a deadline claim once one is
 * due), `transcript` writes the log for `fairtable audit`. Every command writes what must be mailed into
 * `DIR/outbox/` and prints in plain words what happens next. Exit codes: 0 done, 1 a message was refused or
 * the folder holds evidence against the recorder, 2 bad input.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { mailDecide, mailNew, mailRead, mailStatus, mailTranscript, MAIL_PROTOCOLS, DEFAULT_TIMEOUT, type MailResult } from '../mail/index.js';
import { failWith, fail } from '../io.js';

function print(r: MailResult): void {
  for (const n of r.notes) process.stdout.write(`${n}\n`);
  if (r.status.problems.some((p) => p.code.startsWith('recorder_'))) process.exitCode = 1;
}

function integer(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1 || n > 1_000_000) fail(`[out_of_range] ${name} must be an integer from 1 to 1000000`);
  return n;
}

export function register(program: Command): void {
  const mail = program.command('mail').description('play a game by e-mail from a game folder: armored messages, a recorder, deadlines in days');
  mail
    .command('new')
    .description(`create a game and write its invitation to DIR/outbox (protocols: ${MAIL_PROTOCOLS.join(', ')})`)
    .argument('<protocol>', MAIL_PROTOCOLS.join(' | '))
    .requiredOption('--dir <dir>', 'the new game folder')
    .requiredOption('--key <file>', 'your key file (keygen --out)')
    .requiredOption('--players <files>', 'public key files of the participants, comma-separated (yours may be left out)')
    .option('--turns <n>', 'rounds of the game')
    .option('--timeout <duration>', 'how long each phase waits for a player: 3d, 12h, 90m, 30s, 1d12h', DEFAULT_TIMEOUT)
    .option('--recorder <id>', 'who orders the lines: a participant of --players who does not play (default: you)')
    .option('--game <name>', 'chain, keyed-stream: the game played (dice, snakes, monopoly)')
    .option('--sealed <types>', 'message types the recorder collects sealed, comma-separated (e.g. commit): held until all are in')
    .action((protocol: string, o: Record<string, string | undefined>) => {
      try {
        const turns = integer(o.turns, '--turns');
        print(
          mailNew({
            protocol,
            dir: o.dir!,
            key: o.key!,
            players: o.players!.split(',').filter((p) => p.length > 0),
            timeout: o.timeout!,
            ...(turns === undefined ? {} : { turns }),
            ...(o.recorder === undefined ? {} : { recorder: o.recorder }),
            ...(o.game === undefined ? {} : { game: o.game }),
            ...(o.sealed === undefined ? {} : { sealed: o.sealed.split(',').filter((t) => t.length > 0) }),
          }),
        );
      } catch (e) {
        failWith(e);
      }
    });
  mail
    .command('read')
    .description('read received e-mails (saved whole: headers, quoting and other text are fine) into the game folder')
    .argument('<files...>', 'saved e-mails or message files, or - for standard input')
    .requiredOption('--dir <dir>', 'the game folder')
    .option('--key <file>', 'your key file: needed when an invitation opens a new folder')
    .action((files: string[], o: Record<string, string | undefined>) => {
      try {
        const texts = files.map((f) => ({ name: f, text: f === '-' ? readFileSync(0, 'utf8') : readFileSync(f, 'utf8') }));
        const r = mailRead(o.dir!, texts, o.key);
        print(r);
        if (r.refused.length > 0) process.exitCode = 1;
      } catch (e) {
        failWith(e);
      }
    });
  mail
    .command('decide')
    .description('answer the game\'s question to you (status shows it and its choices), as JSON: 2, null, {"kind":"straight",…}')
    .argument('<choice>', 'the answer, as JSON')
    .requiredOption('--dir <dir>', 'the game folder')
    .action((choice: string, o: Record<string, string | undefined>) => {
      let value: unknown;
      try {
        value = JSON.parse(choice);
      } catch {
        fail(`[bad_json] the choice must be JSON (a number, null, a string in quotes, an object): ${choice}`);
      }
      try {
        print(mailDecide(o.dir!, value as never));
      } catch (e) {
        failWith(e);
      }
    });
  mail
    .command('status')
    .description('who acts next and until when; posts a deadline claim when one has passed')
    .requiredOption('--dir <dir>', 'the game folder')
    .option('--json', 'print {game, protocol, seat, next, done, outcome, …} as JSON')
    .action((o: Record<string, string | boolean | undefined>) => {
      try {
        const r = mailStatus(o.dir as string);
        if (o.json === true) {
          process.stdout.write(JSON.stringify({ ...r.status, written: r.written }) + '\n');
          if (r.status.problems.some((p) => p.code.startsWith('recorder_'))) process.exitCode = 1;
        } else {
          const s = r.status;
          process.stdout.write(`game ${s.game} (${s.protocol}); you are ${s.seat} (${s.role}); recorder ${s.recorder}; ${s.lines} lines\n`);
          if (s.decision !== null)
            process.stdout.write(`decision: ${s.decision.kind}: ${s.decision.prompt}\n  choices: ${JSON.stringify(s.decision.choices)}\n`);
          print(r);
        }
      } catch (e) {
        failWith(e);
      }
    });
  mail
    .command('transcript')
    .description('write the transcript as this folder holds it (for fairtable audit)')
    .requiredOption('--dir <dir>', 'the game folder')
    .requiredOption('--out <file>', 'where to write it (JSON Lines)')
    .action((o: Record<string, string | undefined>) => {
      try {
        const n = mailTranscript(o.dir!, o.out!);
        process.stdout.write(`wrote ${n} lines to ${o.out}\n`);
      } catch (e) {
        failWith(e);
      }
    });
}
