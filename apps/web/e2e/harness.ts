/**
 * What the browser tests stand on (docs/spec/web.md §7): the app built once, a real relay (the `fairtable relay`
 * command, on a free port, with a fresh data directory) serving it, and Debian's Chromium driven by playwright-core.
 * No browser is ever downloaded: the tests use /usr/bin/chromium (or $CHROMIUM), which `.ci/run` installs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Builds apps/web into its dist, which the relay serves. */
export function buildApp(): void {
  const vite = join(ROOT, 'node_modules/vite/bin/vite.js');
  const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: join(ROOT, 'apps/web'), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building the web app failed:\n${r.stdout}${r.stderr}`);
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
  const child = spawn(process.execPath, [join(ROOT, 'packages/cli/dist/main.js'), ...args], {
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

/** A player: a browser context of its own (its own IndexedDB, so its own keys) and one page. */
export async function player(browser: Browser, viewport = { width: 900, height: 1000 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  return { context, page };
}
