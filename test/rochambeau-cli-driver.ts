/**
 * Runs `fairtable rochambeau …` from source, without the other commands, so
 * test/rochambeau-cli.test.ts exercises exactly packages/cli/src/commands/rochambeau.ts.
 * Started with TSX_TSCONFIG_PATH=test/rochambeau-source.tsconfig.json, which maps
 * @fairtable/core/* to the core's source instead of its build.
 */
import { Command } from 'commander';
import { register } from '../packages/cli/src/commands/rochambeau.js';

const program = new Command().name('fairtable');
register(program);
await program.parseAsync(process.argv);
