/**
 * Builds the web app (docs/spec/web.md) into dist/, which the relay serves at `/`. The workspace packages are
 * read from their sources, as the tests read them, so the app never runs against a stale dist.
 */
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

const src = (pkg: string): string => fileURLToPath(new URL(`../../packages/${pkg}/src/`, import.meta.url));

export default defineConfig({
  plugins: [preact()],
  resolve: {
    alias: [
      { find: /^@fairtable\/([a-z][a-z-]*)$/, replacement: `${src('$1')}index.ts` },
      { find: /^@fairtable\/([a-z][a-z-]*)\/testing$/, replacement: `${src('$1')}testing.ts` },
      { find: /^@fairtable\/([a-z][a-z-]*)\/(.+)\.js$/, replacement: `${src('$1')}$2.ts` },
    ],
  },
  build: { target: 'es2022', sourcemap: true, reportCompressedSize: true },
  server: { proxy: { '/games': { target: 'http://localhost:8080', ws: true }, '/lobbies': 'http://localhost:8080' } },
});
