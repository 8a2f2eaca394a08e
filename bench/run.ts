/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or those named on the command
 * line) in its own Node process, so that one benchmark's heap and worker
 * threads do not disturb the next. Each prints its own figures and the ratio
 * against a baseline measured in the same run.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

let failed = 0;
for (const file of files) {
  process.stdout.write(`\n=== ${file}\n`);
  const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(here, file)], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    process.stdout.write(`!!! ${file} exited with ${result.status}\n`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
