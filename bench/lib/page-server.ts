/**
 * A test page for the browser benchmarks (bench:web-diplomacy, bench:web-monopoly): `entry` (a .tsx under
 * apps/web/e2e) bundled by esbuild with every `@fairtable/*` import taken from the packages' sources, served
 * from 127.0.0.1 with the web app's styles and a global the page reads its data from, and Debian's Chromium
 * (never a downloaded browser) to open it, or null when it is missing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Serves `entry` bundled, with `globalThis[name] = data` set before it runs; resolves with its address and server. */
export async function servePage(entry: string, title: string, name: string, data: unknown): Promise<{ url: string; server: Server }> {
  const { build } = await import('esbuild');
  const src = (pkg: string, path: string): string => join(root, 'packages', pkg, 'src', `${path}.ts`);
  const bundle = await build({
    entryPoints: [join(root, entry)],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    plugins: [
      {
        name: 'fairtable-src',
        setup(b) {
          b.onResolve({ filter: /^@fairtable\/[a-z-]+\/.+\.js$/ }, (a) => {
            const m = /^@fairtable\/([a-z-]+)\/(.+)\.js$/.exec(a.path)!;
            return { path: src(m[1]!, m[2]!) };
          });
          b.onResolve({ filter: /^@fairtable\/[a-z-]+$/ }, (a) => ({ path: src(a.path.slice('@fairtable/'.length), 'index') }));
        },
      },
    ],
  });
  const script = bundle.outputFiles[0]!.text;
  const css = readFileSync(join(root, 'apps/web/src/styles.css'), 'utf8');
  const html = `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><link rel="stylesheet" href="/styles.css"><main><div id="root"></div></main><script>globalThis.${name} = ${JSON.stringify(data)};</script><script src="/page.js"></script></html>`;
  const server = createServer((req, res) => {
    if (req.url === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else if (req.url === '/styles.css') res.writeHead(200, { 'content-type': 'text/css' }).end(css);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** Debian's Chromium through playwright-core, or null when /usr/bin/chromium is missing. */
export async function launchChromium(): Promise<import('playwright-core').Browser | null> {
  if (!existsSync(CHROMIUM)) return null;
  // Named through a variable: playwright-core is the web app's dependency, and the benchmarks must typecheck without it.
  const name = 'playwright-core';
  const { chromium } = (await import(name)) as typeof import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}
