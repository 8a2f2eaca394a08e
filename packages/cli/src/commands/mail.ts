/**
 * `fairtable mail`: play any game by e-mail from a game folder (docs/spec/mail.md). `new` creates a game and
 * its invitation, `read` takes in received e-mails (files or standard input), `decide` answers the game's
 * question to the player, `status` says who acts next and until when (and posts a deadline claim once one is
 * due), `transcript` writes the log for `fairtable audit`. Every command writes what must be mailed into
 * `DIR/outbox/` and prints in plain words what happens next. Exit codes: 0 done, 1 a message was refused or
 * the folder holds evidence against the recorder, 2 bad input.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import {
  mailDecide,
  mailOrders,
  mailPrefs,
  mailPress,
  mailReady,
  pressLine,
  mailNew,
  mailNewChecked,
  mailReadChecked,
  mailStatus,
  mailTranscript,
  MAIL_PROTOCOLS,
  DEFAULT_TIMEOUT,
  resultsText,
  type MailResult,
} from '../mail/index.js';
import { failWith, fail } from '../io.js';
import { FairtableError } from '@fairtable/core/errors.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { describeChoices } from '../mail/choice-text.js';

/**
 * `--encrypt`: what the command wrote to the outbox is encrypted in place to every other participant's
 * OpenPGP key from the setup's bindings (docs/spec/mail.md §9), signed inside with `--pgp-key` when given.
 */
async function encrypted(dir: string, r: MailResult, o: Record<string, unknown>): Promise<MailResult> {
  if (o.encrypt !== true || r.written.length === 0) return r;
  const { encryptOutbox } = await import('../mail/pgp-mail.js');
  const { readSetupLine } = await import('@fairtable/core/transcript.js');
  const setupLine = readFileSync(join(dir, 'transcript.jsonl'), 'utf8').split('\n')[0]!;
  const passphrase = passphraseFrom(o.passphraseFile as string | undefined);
  await encryptOutbox(
    r.written.map((f) => join(dir, f)),
    readSetupLine(setupLine).setup,
    r.status.seat,
    {
      ...(typeof o.pgpKey === 'string' ? { signWith: new Uint8Array(readFileSync(o.pgpKey)) } : {}),
      ...(passphrase === undefined ? {} : { passphrase }),
    },
  );
  return { ...r, notes: [...r.notes, `encrypted with OpenPGP: ${r.written.join(', ')}`] };
}

function print(r: MailResult): void {
  for (const n of r.notes) process.stdout.write(`${n}\n`);
  if (r.status.problems.some((p) => p.code.startsWith('recorder_'))) process.exitCode = 1;
}

/** Repeated or comma-separated file options (`--binding a.json --binding b.json`, `--binding a.json,b.json`). */
function files(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').filter((f) => f.length > 0)];
}

/** The passphrase is the file's first line, so it never shows in the process list. */
function passphraseFrom(file: string | undefined): string | undefined {
  return file === undefined ? undefined : (readFileSync(file, 'utf8').split(/\r?\n/)[0] ?? '');
}

/** A binding entry as `fairtable pgp bind` prints it (JSON: {player, publicKey, binding, signature}). */
function bindingEntry(path: string): JsonValue {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as JsonValue;
  } catch (e) {
    if ((e as { code?: string }).code !== undefined) throw e;
    throw new FairtableError('bad_binding', `${path}: a binding is the JSON entry fairtable pgp bind prints`, { field: 'binding' });
  }
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
    .option('--roll <dice>', 'dice: the dice expression each turn rolls, e.g. 3d6+2, 2d20kh1, 4d6kh3 (default 2d6)')
    .option(
      '--sealed <types>',
      'message types the recorder collects sealed, comma-separated (e.g. commit; diplomacy: commit unless "none"): held until all are in',
    )
    .option('--years <y>', 'diplomacy: the game ends after this many game years (default: none; a solo or an agreed ending ends it)')
    .option('--assign <method>', 'diplomacy: power assignment, weighted | serial | fixed (seat order)')
    .option('--typos <rule>', 'diplomacy: a wrong unit letter is ignore-unit-letter | strict (the order is void)')
    .option(
      '--escrow <kind>',
      "diplomacy: none | threshold (k of the others open a withheld reveal) | layers (seed 003's onion, peeled by the others); default threshold (none with a gpg-only player)",
    )
    .option('--threshold <k>', 'diplomacy with --escrow threshold: shares needed to open (default: a majority of the others)')
    .option('--revisable', 'diplomacy: orders may be sent as drafts (decide --draft) that a later decide replaces until ready; commitments are then not sealed')
    .option('--press <rule>', 'press: full (to all, observers or privately) | public (to all only) | none; default public')
    .option('--press-mode <mode>', 'press: signed (anyone can check who wrote) | deniable (only the recipients can); default signed')
    .option(
      '--gpg-player <id=key.asc>',
      'diplomacy: a player with only gpg and a mail client, and the file of their OpenPGP public key (gpg --export --armor); repeated',
      files,
    )
    .option('--binding <files>', "players' OpenPGP bindings for the setup (fairtable pgp bind's JSON), repeated or comma-separated", files)
    .option('--pgp-key <file>', 'your OpenPGP key: your own binding must name it')
    .option('--passphrase-file <file>', "the OpenPGP key's passphrase (first line)")
    .option('--encrypt', "encrypt what goes to the outbox to the other participants' OpenPGP keys (their bindings in the setup)")
    .action(async (protocol: string, o: Record<string, string | string[] | undefined>) => {
      try {
        const turns = integer(o.turns as string | undefined, '--turns');
        const bindings = ((o.binding as string[] | undefined) ?? []).map(bindingEntry);
        const years = integer(o.years as string | undefined, '--years');
        const threshold = integer(o.threshold as string | undefined, '--threshold');
        const diplomacy = {
          ...(years === undefined ? {} : { years }),
          ...(o.assign === undefined ? {} : { assign: o.assign as string }),
          ...(o.typos === undefined ? {} : { typos: o.typos as string }),
          ...(o.escrow === undefined ? {} : { escrow: o.escrow as string }),
          ...(threshold === undefined ? {} : { threshold }),
          ...(o.revisable === undefined ? {} : { revisable: true }),
          ...(o.gpgPlayer === undefined ? {} : { gpgPlayers: (o.gpgPlayer as string[]).map(gpgPlayer) }),
        };
        const options = {
          protocol,
          dir: o.dir as string,
          key: o.key as string,
          players: (o.players as string).split(',').filter((p) => p.length > 0),
          timeout: o.timeout as string,
          ...(turns === undefined ? {} : { turns }),
          ...(o.recorder === undefined ? {} : { recorder: o.recorder as string }),
          ...(o.game === undefined ? {} : { game: o.game as string }),
          ...(o.roll === undefined ? {} : { roll: o.roll as string }),
          ...(o.sealed === undefined ? {} : { sealed: (o.sealed as string).split(',').filter((t) => t.length > 0) }),
          ...(bindings.length === 0 ? {} : { bindings }),
          ...(o.press === undefined && o.pressMode === undefined
            ? {}
            : { press: { rule: (o.press as string | undefined) ?? 'public', mode: (o.pressMode as string | undefined) ?? 'signed' } }),
          ...(Object.keys(diplomacy).length === 0 ? {} : { diplomacy }),
        };
        if (bindings.length === 0) print(await encrypted(options.dir, mailNew(options), o));
        else {
          const { pgpFingerprint } = await import('../mail/pgp-mail.js');
          const pgpKey = o.pgpKey as string | undefined;
          const fingerprint =
            pgpKey === undefined ? undefined : await pgpFingerprint(readFileSync(pgpKey), passphraseFrom(o.passphraseFile as string | undefined));
          print(await encrypted(options.dir, await mailNewChecked(options, fingerprint === undefined ? {} : { fingerprint }), o));
        }
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
    .option('--pgp-key <file>', 'your OpenPGP secret key: opens mail encrypted to you, and checks your own binding in an invitation')
    .option('--passphrase-file <file>', "the OpenPGP key's passphrase (first line)")
    .option('--encrypt', "encrypt what goes to the outbox to the other participants' OpenPGP keys (their bindings in the setup)")
    .action(async (files: string[], o: Record<string, string | undefined>) => {
      try {
        const texts = files.map((f) => ({ name: f, text: f === '-' ? readFileSync(0, 'utf8') : readFileSync(f, 'utf8') }));
        const passphrase = passphraseFrom(o.passphraseFile);
        const pgp = {
          ...(o.pgpKey === undefined ? {} : { secretKey: new Uint8Array(readFileSync(o.pgpKey)) }),
          ...(passphrase === undefined ? {} : { passphrase }),
        };
        const r = await mailReadChecked(o.dir!, texts, o.key, undefined, pgp);
        print(await encrypted(o.dir!, r, o));
        if (r.refused.length > 0) process.exitCode = 1;
      } catch (e) {
        failWith(e);
      }
    });
  mail
    .command('decide')
    .description(
      'answer the game\'s question to you (status shows it and its choices), as JSON: 2, null, {"kind":"straight",…}; Diplomacy: --orders FILE or --prefs LIST',
    )
    .argument('[choice]', 'the answer, as JSON')
    .requiredOption('--dir <dir>', 'the game folder')
    .option('--orders <file>', 'diplomacy: your orders file for this phase, one order a line (A Par-Bur, F Bre-MAO, A Mar S A Par-Bur, Build A Par)')
    .option('--prefs <list>', 'diplomacy: your preference list in seed 003\'s notation, e.g. "AE(GI)R", "%REG", or "" for none')
    .option('--draft', 'diplomacy with --revisable: send the orders as a draft that a later decide replaces (mail ready makes it final)')
    .option('--encrypt', "encrypt what goes to the outbox to the other participants' OpenPGP keys (their bindings in the setup)")
    .option('--pgp-key <file>', 'with --encrypt: your OpenPGP secret key, to sign inside')
    .option('--passphrase-file <file>', "the OpenPGP key's passphrase (first line)")
    .action(async (choice: string | undefined, o: Record<string, string | boolean | undefined>) => {
      const given = [choice !== undefined, o.orders !== undefined, o.prefs !== undefined].filter((x) => x).length;
      if (given !== 1) fail('[bad_input] give one answer: CHOICE_JSON, --orders FILE or --prefs LIST');
      if (o.draft === true && o.orders === undefined) fail('[bad_input] --draft goes with --orders FILE');
      let value: unknown;
      if (choice !== undefined)
        try {
          value = JSON.parse(choice);
        } catch {
          fail(`[bad_json] the choice must be JSON (a number, null, a string in quotes, an object): ${choice}`);
        }
      try {
        const dir = o.dir as string;
        const r =
          o.orders !== undefined
            ? mailOrders(dir, readFileSync(o.orders as string, 'utf8'), undefined, { draft: o.draft === true })
            : o.prefs !== undefined
              ? mailPrefs(dir, o.prefs as string)
              : mailDecide(dir, value as never);
        print(await encrypted(dir, r, o));
      } catch (e) {
        failWith(e);
      }
    });
  mail
    .command('status')
    .description('who acts next and until when; posts a deadline claim when one has passed')
    .requiredOption('--dir <dir>', 'the game folder')
    .option('--json', 'print {game, protocol, seat, next, done, outcome, …} as JSON')
    .option('--encrypt', "encrypt what goes to the outbox to the other participants' OpenPGP keys (their bindings in the setup)")
    .option('--pgp-key <file>', 'with --encrypt: your OpenPGP secret key, to sign inside')
    .option('--passphrase-file <file>', "the OpenPGP key's passphrase (first line)")
    .action(async (o: Record<string, string | boolean | undefined>) => {
      try {
        const r = await encrypted(o.dir as string, mailStatus(o.dir as string), o);
        if (o.json === true) {
          process.stdout.write(
            JSON.stringify({
              ...r.status,
              written: r.written,
              ...(r.board === '' ? {} : { board: r.board }),
              ...(r.results === null ? {} : { results: r.results }),
              ...(r.orders === null ? {} : { orders: r.orders }),
              ...(r.press === null ? {} : { press: r.press }),
            }) + '\n',
          );
          if (r.status.problems.some((p) => p.code.startsWith('recorder_'))) process.exitCode = 1;
        } else {
          const s = r.status;
          process.stdout.write(`game ${s.game} (${s.protocol}); you are ${s.seat} (${s.role}); recorder ${s.recorder}; ${s.lines} lines\n`);
          const board = s.protocol === 'diplomacy' ? r.board : '';
          if (board !== '') process.stdout.write(board);
          // The last phase's orders and what came of them (docs/spec/mail.md §11.1).
          if (r.results !== null) process.stdout.write(`\n${resultsText(r.results).join('\n')}\n\n`);
          if (r.orders !== null)
            process.stdout.write(
              r.orders === 'draft'
                ? 'your orders for this phase: a DRAFT (decide again to replace it; mail ready makes it final; at the deadline it is final)\n'
                : 'your orders for this phase: final\n',
            );
          const press = r.press;
          if (press !== null && press.rules !== null && (press.items.length > 0 || press.refused.length > 0)) {
            const shown = press.items.slice(-30);
            process.stdout.write(
              `\npress (${press.rules.rule}, ${press.rules.mode}): ${press.items.length} message(s), ${press.unread} unread${press.items.length > shown.length ? `; the last ${shown.length}` : ''}\n`,
            );
            for (const i of shown) process.stdout.write(`  ${pressLine(i, press.names)}\n`);
            for (const f of press.refused)
              process.stdout.write(`  #${f.index} refused [${f.code}] ${f.player === null ? 'names nobody' : `names ${f.player}`}: ${f.message}\n`);
            process.stdout.write('\n');
          }
          if (s.decision !== null)
            process.stdout.write(
              board === ''
                ? `decision: ${s.decision.kind}: ${s.decision.prompt}\n  answer: ${describeChoices(s.decision.choices)}\n`
                : `decision: ${s.decision.kind}: ${s.decision.prompt}\n`,
            );
          print(r);
        }
      } catch (e) {
        failWith(e);
      }
    });
  mail
    .command('press')
    .description("write press (docs/spec/mail.md §13): to all, to observers, or privately to powers or seats, as the game's press rules allow")
    .argument('<text...>', 'the message')
    .requiredOption('--dir <dir>', 'the game folder')
    .requiredOption('--to <list>', 'all | observers | powers or seats, comma-separated (england,france)')
    .option('--encrypt', "encrypt what goes to the outbox to the other participants' OpenPGP keys (their bindings in the setup)")
    .option('--pgp-key <file>', 'with --encrypt: your OpenPGP secret key, to sign inside')
    .option('--passphrase-file <file>', "the OpenPGP key's passphrase (first line)")
    .action(async (text: string[], o: Record<string, string | boolean | undefined>) => {
      try {
        print(await encrypted(o.dir as string, mailPress(o.dir as string, o.to as string, text.join(' ')), o));
      } catch (e) {
        failWith(e);
      }
    });
  mail
    .command('ready')
    .description('diplomacy with --revisable: your draft orders for this phase are final')
    .requiredOption('--dir <dir>', 'the game folder')
    .option('--encrypt', "encrypt what goes to the outbox to the other participants' OpenPGP keys (their bindings in the setup)")
    .option('--pgp-key <file>', 'with --encrypt: your OpenPGP secret key, to sign inside')
    .option('--passphrase-file <file>', "the OpenPGP key's passphrase (first line)")
    .action(async (o: Record<string, string | boolean | undefined>) => {
      try {
        print(await encrypted(o.dir as string, mailReady(o.dir as string), o));
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

/** `--gpg-player ann=ann.asc`: the id and the armored public key read from the file. */
function gpgPlayer(spec: string): { id: string; publicKey: string } {
  const at = spec.indexOf('=');
  if (at <= 0) fail(`[bad_input] --gpg-player takes ID=KEY.asc (the player's id, then their public key file), not "${spec}"`);
  return { id: spec.slice(0, at), publicKey: readFileSync(spec.slice(at + 1), 'utf8') };
}
