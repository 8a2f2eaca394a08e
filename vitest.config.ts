import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Node 20 reads the certificates a machine names in NODE_EXTRA_CA_CERTS when each process starts, about 50 ms of
// CPU (this machine's sandbox sets it for every process); no test makes a TLS connection, and a run starts some
// 400 Node processes. The test workers and every process they start go without it (docs/BENCHMARKS.md, "Node's
// start without the extra certificates").
delete process.env.NODE_EXTRA_CA_CERTS;

const src = (pkg: string): string => fileURLToPath(new URL(`./packages/${pkg}/src/`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests import the packages by name, as users do, but run against src: a
    // stale dist can then never make a test pass or fail, and core and node share
    // one instance of each core module (one platform hook, one hash). @fairtable/NAME is packages/NAME.
    alias: [
      { find: /^@fairtable\/([a-z][a-z-]*)$/, replacement: `${src('$1')}index.ts` },
      { find: /^@fairtable\/([a-z][a-z-]*)\/testing$/, replacement: `${src('$1')}testing.ts` },
      { find: /^@fairtable\/([a-z][a-z-]*)\/(.+)\.js$/, replacement: `${src('$1')}$2.ts` },
    ],
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts', 'apps/web/e2e/**/*.test.ts'],
    // The CLI tests run the built command; the build happens once, here, not in parallel workers.
    globalSetup: ['test/global-setup.ts'],
    // A time limit on every fast-check property, shrinking included (test/fast-check-setup.ts).
    setupFiles: ['test/fast-check-setup.ts'],
    // One test file per core and one more (vitest's default leaves one core idle): many files wait on child
    // processes, relays, deadlines and a browser rather than compute, and the extra file fills those waits
    // (docs/BENCHMARKS.md, "Three files at once on two cores").
    maxWorkers: availableParallelism() + 1,
    // Each worker keeps the modules it has loaded from one test file to the next (vitest's isolation off):
    // loading noble, zod and the packages' sources again for every one of ~240 files cost about a fifth of the
    // suite's CPU (docs/BENCHMARKS.md, "Modules loaded once per worker"). Tests restore what they change in
    // the process (mocks, the platform's hashes, the working directory), and the core's caches hold pure
    // results only, each a function of its whole input, the same whichever file asks.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
