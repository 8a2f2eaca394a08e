/**
 * The `fairtable` command's program: each subcommand lives in `commands/<name>.ts` and exports
 * `register(program)`; `runFairtable` assembles them for one command line and runs it. `main.ts` runs it
 * for the process's own command line; `in-process.ts` runs it inside a test's process.
 *
 * Only the module of the command named on the command line is loaded: each module pulls in its protocols,
 * the relay or OpenPGP, and loading all of them costs about 0.7 s before any work, on every
 * `fairtable mail read` a player runs. `fairtable --help`, `fairtable help`, no command and a command that is
 * not one load them all, so the help lists every command and commander can suggest the nearest name.
 */
import { Command } from 'commander';
import { addExamples } from './examples.js';

type Module = { register(program: Command): void };
/** Each module's loader, in the order `fairtable --help` lists them. */
const MODULES = {
  keygen: () => import('./commands/keygen.js'),
  random: () => import('./commands/random.js'),
  armor: () => import('./commands/armor.js'),
  audit: () => import('./commands/audit.js'),
  simulate: () => import('./commands/simulate.js'),
  demo: () => import('./commands/demo.js'),
  vrf: () => import('./commands/vrf.js'),
  rochambeau: () => import('./commands/rochambeau.js'),
  signidice: () => import('./commands/signidice.js'),
  diplomacy: () => import('./commands/diplomacy.js'),
  mail: () => import('./commands/mail.js'),
  play: () => import('./commands/play.js'),
  fetch: () => import('./commands/fetch.js'),
  talk: () => import('./commands/talk.js'),
  pgp: () => import('./commands/pgp.js'),
  relay: () => import('./commands/relay.js'),
} satisfies Record<string, () => Promise<Module>>;
/** The module of each top-level command: each module's own name, and `dearmor`, which `armor` registers. */
const MODULE_OF: Readonly<Record<string, keyof typeof MODULES>> = {
  ...(Object.fromEntries(Object.keys(MODULES).map((k) => [k, k])) as Record<keyof typeof MODULES, keyof typeof MODULES>),
  dearmor: 'armor',
};

/**
 * Runs one command line, `argv` as `process.argv` holds it (`node`, the script, then the command and its
 * arguments), with a program of its own. Bad input ends the process through `process.exit` (exit 2, or 0
 * for `--help`); an error thrown by a command comes back as the promise's rejection, for `reportFailure`.
 */
export async function runFairtable(argv: readonly string[]): Promise<void> {
  const program = new Command();
  program
    .name('fairtable')
    .description('Fair remote games with no trusted game master: play through a relay or by e-mail, simulate, audit, keys, OpenPGP.')
    .version('0.1.0')
    // One line, not the whole help: the error stays on screen above it.
    .showHelpAfterError('(add --help for the options and examples)')
    // A command line commander refuses (a missing option, an unknown one) is bad input: exit 2, as for every
    // other bad input, never 1, which audit and verify keep for "checked, and it does not hold".
    .exitOverride((e) => process.exit(e.exitCode === 0 ? 0 : 2));
  const named = argv[2];
  const only = named !== undefined && Object.hasOwn(MODULE_OF, named) ? MODULE_OF[named] : undefined;
  const loaders: (() => Promise<Module>)[] = only !== undefined ? [MODULES[only]] : Object.values(MODULES);
  for (const module of await Promise.all(loaders.map((load) => load()))) module.register(program);
  addExamples(program);
  await program.parseAsync([...argv]);
}

/** An error a command threw, as the command reports it: one line on stderr, `[code] message`, and exit code 2. */
export function reportFailure(error: unknown): void {
  const e = error as { code?: string; message?: string };
  process.stderr.write(`fairtable: ${e.code ? `[${e.code}] ` : ''}${e.message ?? String(error)}\n`);
  process.exitCode = 2;
}
