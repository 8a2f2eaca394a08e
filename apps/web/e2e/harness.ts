/**
 * What the browser tests stand on (docs/spec/web.md §7): the app built once, a real relay (the `fairtable relay`
 * command, on a free port, with a fresh data directory) serving it, and Debian's Chromium driven by playwright-core.
 * No browser is ever downloaded: the tests use /usr/bin/chromium (or $CHROMIUM), which `.ci/run` installs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** What the web app's build reads: its own sources and those of the packages it bundles (vite.config.ts). */
const BUILD_INPUTS = [
  'apps/web/src',
  'apps/web/index.html',
  'apps/web/vite.config.ts',
  'packages/core/src',
  'packages/client/src',
  'packages/diplomacy/src',
  'package-lock.json',
];
/** Written into dist once a build has finished: the build is current while no input is newer. */
const BUILT = 'apps/web/dist/.built';

/** The newest modification time under `path` (a file or a folder), in milliseconds. */
function newest(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let n = st.mtimeMs;
  for (const e of readdirSync(path)) n = Math.max(n, newest(join(path, e)));
  return n;
}

const current = (): boolean =>
  existsSync(join(ROOT, BUILT)) && statSync(join(ROOT, BUILT)).mtimeMs >= Math.max(...BUILD_INPUTS.map((p) => newest(join(ROOT, p))));

/**
 * Builds apps/web into its dist, which the relay serves, unless the last build is newer than everything it reads.
 * The browser test files run in parallel workers: one builds while the others wait on a lock (a folder, made
 * atomically), so no relay serves a dist that another file's build is emptying, and the app is built once a run.
 */
export async function buildApp(): Promise<void> {
  if (current()) return;
  const lock = join(tmpdir(), `fairtable-web-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 16)}.lock`);
  const until = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // A lock left by a build killed midway is older than any build takes.
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > 120_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > until) throw new Error(`another test file's build of the web app did not finish (${lock})`, { cause: e });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    if (current()) return;
    // The stamp takes the time the build started: a source saved while it ran makes the next run build again.
    const started = new Date();
    const vite = join(ROOT, 'node_modules/vite/bin/vite.js');
    const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: join(ROOT, 'apps/web'), encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`building the web app failed:\n${r.stdout}${r.stderr}`);
    writeFileSync(join(ROOT, BUILT), '');
    utimesSync(join(ROOT, BUILT), started, started);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface RunningRelay {
  readonly url: string;
  readonly process: ChildProcess;
  /** Stops the relay; its data directory is removed unless `keepData` (a restart on it follows). */
  stop(keepData?: boolean): Promise<void>;
}

/** A relay on a fresh data directory and a free port, or on `dataDir` and `port` (a restart). */
export async function startRelay(options: { dataDir?: string; port?: number } = {}): Promise<RunningRelay> {
  const data = options.dataDir ?? mkdtempSync(join(tmpdir(), 'fairtable-web-'));
  const args = ['relay', '--port', String(options.port ?? 0), '--host', '127.0.0.1', '--data', data];
  const child = spawn(process.execPath, [join(ROOT, 'packages/cli/bin/fairtable.js'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the relay did not start:\n${out}`)), 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*"relay listening"/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`the relay exited (${code}):\n${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    stop: async (keepData = false) => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      if (!keepData) rmSync(data, { recursive: true, force: true });
    },
  };
}

/**
 * A name that resolves to this machine but is not "localhost": pages loaded through it are not a secure context,
 * as on a LAN address over plain HTTP, so the browser offers them no `crypto.subtle`.
 */
export const LAN_HOST = 'fairtable-lan.test';

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', `--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1`] });
}

/**
 * Contexts that players have left, per browser, ready for the next player with their storage cleared. Chromium
 * spends about a second of CPU on a new context's first page, most of it in the renderer that holds the tab's
 * first, blank document, and a fifth of that on a page opened beside one still open in the same context
 * (docs/BENCHMARKS.md, "Browser contexts kept for the next player"). Each context therefore keeps a blank page
 * open, its keeper, from its first player on.
 */
const spare = new WeakMap<Browser, BrowserContext[]>();
/** Each context's keeper page and the origins its players' pages have loaded: what `leave` clears. */
const kept = new WeakMap<BrowserContext, { readonly keeper: Page; readonly origins: Set<string> }>();

/**
 * A player: a browser context of its own (its own IndexedDB, so its own keys) and one page. The context is either
 * new or one that an earlier player left (`leave`): no page of that player is open any more and every origin its
 * pages loaded has had its storage cleared, so the new player starts with none of its keys, games or settings.
 * Only the page is the player's to change: an init script or a route goes on the page, never on the context.
 */
export async function player(browser: Browser, viewport = { width: 900, height: 1000 }): Promise<{ page: Page }> {
  let context = spare.get(browser)?.pop();
  if (context === undefined) {
    context = await browser.newContext({ viewport });
    const origins = new Set<string>();
    context.on('page', (p) =>
      p.on('framenavigated', (frame) => {
        const origin = new URL(frame.url()).origin;
        if (origin !== 'null') origins.add(origin);
      }),
    );
    kept.set(context, { keeper: await context.newPage(), origins });
  }
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  return { page };
}

/**
 * The player of `page` leaves for good: every page of its context closes, as a closed browser would, and the
 * context's storage is cleared (Chromium's Storage.clearDataForOrigin, every kind: IndexedDB, local storage,
 * cookies, caches) for each origin its pages loaded; the context then waits for the next `player` of its browser.
 * Closing a context that `player` did not make is all that is done for it.
 */
export async function leave(page: Page): Promise<void> {
  const context = page.context();
  const browser = context.browser();
  const own = kept.get(context);
  if (browser === null || own === undefined) return context.close();
  for (const p of context.pages()) if (p !== own.keeper) await p.close();
  const cdp = await context.newCDPSession(own.keeper);
  for (const origin of own.origins) await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
  own.origins.clear();
  await cdp.detach();
  const pool = spare.get(browser) ?? [];
  spare.set(browser, pool);
  pool.push(context);
}

/** One accessibility finding of axe-core, as much of it as a failing test needs to say. */
export interface AxeFinding {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: readonly string[];
}

/**
 * The serious and critical findings of axe-core (WCAG 2 A and AA rules, colour contrast included) on the page as
 * it stands (docs/spec/web.md §7, "Accessibility"). axe-core is injected from node_modules; nothing is fetched.
 */
export async function axeFindings(page: Page): Promise<AxeFinding[]> {
  const loaded = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe !== 'undefined');
  if (!loaded) await page.addScriptTag({ path: join(ROOT, 'node_modules/axe-core/axe.min.js') });
  return page.evaluate(async () => {
    type Result = { violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] };
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<Result> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  });
}
