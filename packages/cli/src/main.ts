#!/usr/bin/env node
/**
 * The `fairtable` command. Each subcommand lives in `commands/<name>.ts` and
 * exports `register(program)`; this file only assembles them.
 */
import { Command } from 'commander';
import { useNativeSha256 } from '@fairtable/node/native-hash.js';
import { register as registerKeygen } from './commands/keygen.js';
import { register as registerRandom } from './commands/random.js';
import { register as registerArmor } from './commands/armor.js';
import { register as registerAudit } from './commands/audit.js';
import { register as registerSimulate } from './commands/simulate.js';
import { register as registerDemo } from './commands/demo.js';
import { register as registerVrf } from './commands/vrf.js';
import { register as registerRochambeau } from './commands/rochambeau.js';
import { register as registerSignidice } from './commands/signidice.js';
import { register as registerDiplomacy } from './commands/diplomacy.js';
import { register as registerMail } from './commands/mail.js';
import { register as registerPlay } from './commands/play.js';
import { register as registerFetch } from './commands/fetch.js';
import { register as registerPgp } from './commands/pgp.js';
import { register as registerRelay } from './commands/relay.js';
import { addExamples } from './examples.js';

// A reader that stops early (`fairtable dearmor m.txt | head`) is no error: stop quietly, as other tools do.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(process.exitCode ?? 0);
});

// Node's SHA-256 gives the same bytes as noble's, faster (packages/node/src/native-hash.ts).
useNativeSha256();

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

registerKeygen(program);
registerRandom(program);
registerArmor(program);
registerAudit(program);
registerSimulate(program);
registerDemo(program);
registerVrf(program);
registerRochambeau(program);
registerSignidice(program);
registerDiplomacy(program);
registerMail(program);
registerPlay(program);
registerFetch(program);
registerPgp(program);
registerRelay(program);
addExamples(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  const e = error as { code?: string; message?: string };
  process.stderr.write(`fairtable: ${e.code ? `[${e.code}] ` : ''}${e.message ?? String(error)}\n`);
  process.exitCode = 2;
});
