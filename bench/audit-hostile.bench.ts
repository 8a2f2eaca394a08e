/**
 * Peak memory of `fairtable audit` on hostile files (issue 8 §5, docs/SPEC.md
 * §9): the reproductions of bench/lib/hostile-transcripts.ts, each audited by
 * the built binary in its own process, with the exit status, the first
 * violation and the whole process's peak RSS (worker threads included).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeHostile } from './lib/hostile-transcripts.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const main = join(root, 'packages/cli/dist/main.js');
const dir = join(root, '.bench-tmp', 'hostile');
mkdirSync(dir, { recursive: true });
const honestFile = join(dir, 'honest.jsonl');
spawnSync(process.execPath, [main, 'simulate', 'dice', '--players', '3', '--turns', '2', '--seed', '03'.repeat(32), '--out', honestFile]);
const honest = readFileSync(honestFile, 'utf8').trimEnd().split('\n');

// process.resourceUsage() in a small driver: the figure covers the CLI's own process and its threads.
const driver = join(dir, 'driver.mjs');
const { writeFileSync } = await import('node:fs');
writeFileSync(
  driver,
  `process.argv.splice(1, 1);
   process.on('exit', () => process.stderr.write('\\nmaxRSS ' + process.resourceUsage().maxRSS + '\\n'));
   await import(${JSON.stringify(main)});`,
);

for (const h of writeHostile(dir, honest, true)) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [driver, main, 'audit', h.file, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = (performance.now() - t) / 1000;
  const rss = Number(/maxRSS (\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024;
  let first = '';
  try {
    const j = JSON.parse(r.stdout) as { violations?: { code: string }[]; omitted?: number; error?: { code: string } };
    first = j.error !== undefined ? `error ${j.error.code}` : `${j.violations?.[0]?.code ?? 'none'}${j.omitted ? ` (+${j.omitted} counted)` : ''}`;
  } catch {
    first = `unparsable output: ${r.stderr.slice(0, 200)}`;
  }
  process.stdout.write(
    `${h.name.padEnd(18)} exit ${r.status} (expected ${h.exit})  first: ${first.padEnd(28)} peak RSS ${rss.toFixed(0)} MB  ${seconds.toFixed(1)} s\n`,
  );
  rmSync(h.file);
}
