// Bundles the built command (packages/cli/dist/main.js and every module it loads) into packages/cli/bundle/,
// one file per command module (esbuild's code splitting keeps main.ts's lazy loading): see bin/fairtable.js.
//
//   node packages/cli/scripts/bundle.js            (after `tsc -b packages/cli`; `npm run build` runs both)
//   node packages/cli/scripts/bundle.js --if-stale (only when the bundle is older than the build)
//
// Packages with native parts or optional native requires (better-sqlite3, pg, ws) and OpenPGP.js (large,
// loaded only by the pgp commands) stay outside: Node loads them from node_modules as before.
import { rmSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_MAIN, bundleFresh } from '../bin/bundle-fresh.js';

if (process.argv.includes('--if-stale') && bundleFresh()) process.exit(0);
const outdir = fileURLToPath(new URL('.', BUNDLE_MAIN));
rmSync(outdir, { recursive: true, force: true });
await build({
  // The audit's and the relay's threads start from files beside the module that starts them
  // (new URL('./x.js', import.meta.url)): each is an entry point of its own, written next to the bundle's chunks
  // under the same name, so their names are unique across the packages. The relay finds the web app three
  // folders up from its module (packages/relay/src/page.ts), from bundle/ as from packages/relay/dist/.
  entryPoints: {
    main: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
    'audit-coordinator': fileURLToPath(new URL('../../node/dist/audit-coordinator.js', import.meta.url)),
    'verify-worker': fileURLToPath(new URL('../../node/dist/verify-worker.js', import.meta.url)),
    'relay-verify-worker': fileURLToPath(new URL('../../relay/dist/relay-verify-worker.js', import.meta.url)),
    'sqlite-append-thread': fileURLToPath(new URL('../../relay/dist/sqlite-append-thread.js', import.meta.url)),
  },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  external: ['better-sqlite3', 'pg', 'ws', 'openpgp'],
  // Modules written for CommonJS inside the bundle (commander) call require() for Node's own modules.
  banner: { js: "import { createRequire as fairtableRequire } from 'node:module'; const require = fairtableRequire(import.meta.url);" },
  logLevel: 'warning',
});
writeFileSync(new URL('README.txt', BUNDLE_MAIN), 'Made by packages/cli/scripts/bundle.js from packages/cli/dist; not edited by hand, not committed.\n');
