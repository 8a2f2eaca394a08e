/**
 * What the relay serves at `/` (docs/spec/relay.md §3, docs/spec/web.md §1): the web app from apps/web/dist when it
 * has been built, otherwise a page saying what this relay is and how to play through it with the `fairtable` command.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';

/**
 * Where `npm run build` puts the web app, seen from this module: three folders up from src/ or dist/ of
 * packages/relay, and from packages/cli/bundle/, where the command's bundle has this module (scripts/bundle.js).
 */
export function defaultWebDir(): string {
  return fileURLToPath(new URL('../../../apps/web/dist/', import.meta.url));
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
};

/**
 * Serves `/` and the app's files. The app's assets carry a content hash in their names, so they are cached for
 * good; index.html is read on each request, so a rebuild shows without a restart.
 */
export function servePage(app: Hono, relayKey: string, webDir: string = defaultWebDir()): void {
  const root = resolve(webDir);
  const index = resolve(root, 'index.html');
  app.get('/', async (c) => {
    if (!existsSync(index)) return c.html(homePage(relayKey));
    return c.html(await readFile(index, 'utf8'), 200, { 'cache-control': 'no-cache' });
  });
  // An invite the CLI prints is the game's address (/games/ID): a browser following it gets the app, which
  // shows the game; every other client gets the JSON of docs/spec/relay.md §3 from the route after this one.
  app.get('/games/:game', async (c, next) => {
    if (!/^[0-9a-f]{64}$/.test(c.req.param('game')) || !(c.req.header('accept') ?? '').includes('text/html') || !existsSync(index)) return next();
    return c.html(await readFile(index, 'utf8'), 200, { 'cache-control': 'no-cache', vary: 'accept' });
  });
  app.get('/assets/*', async (c) => {
    const path = resolve(root, '.' + decodeURIComponent(c.req.path));
    const type = TYPES[extname(path)];
    // Only files under the app's directory, of the kinds a build makes.
    if (!path.startsWith(root + sep) || type === undefined) return c.notFound();
    try {
      return c.body(await readFile(path), 200, { 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' });
    } catch {
      return c.notFound();
    }
  });
}

export function homePage(relayKey: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>fairtable relay</title>
<style>body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;line-height:1.5}code,pre{background:#f3f3f3;padding:.1rem .3rem}pre{padding:.6rem;overflow-x:auto}</style>
</head>
<body>
<h1>fairtable relay</h1>
<p>This relay orders, stores and passes on signed moves for games played with <strong>fairtable</strong>.
It is not trusted: every player checks every line, and the relay signs a receipt for each line it stores,
which is evidence against it if it lies.</p>
<p>The relay's key: <code>${relayKey}</code></p>
<h2>Play with the command line</h2>
<pre>npx fairtable keygen --name ann --out ann.key.json
# each player sends the creator their public key file, then the creator starts the game:
npx fairtable play dice --relay URL --key ann.key.json --players ann.pub.json,bob.pub.json
# the others join with the game id it prints:
npx fairtable play --relay URL --key bob.key.json --join GAME_ID
# anyone can fetch and audit the transcript:
npx fairtable fetch --relay URL --game GAME_ID --out game.jsonl
npx fairtable audit game.jsonl</pre>
<p>Endpoints: <code>POST /games</code>, <code>GET /games/:game</code>, <code>/games/:game/transcript</code>,
<code>/games/:game/receipts</code>, WebSocket <code>/games/:game/ws</code>, <code>/health</code>, <code>/metrics</code>.</p>
</body>
</html>
`;
}
