/**
 * What a new user meets first, run through the built command: output cut short
 * by a pipe, the help of every command, and the audit's verdict in plain words.
 */
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const main = join(root, 'packages/cli/dist/main.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-new-user-'));

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', cwd: dir });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('output into a pipe that closes early (| head)', () => {
  it('stops quietly, with no stack trace', async () => {
    const file = join(dir, 'long.jsonl');
    expect(run(['simulate', 'dice', '--players', '2', '--turns', '2', '--seed', '05'.repeat(32), '--out', file]).status).toBe(0);
    // The reader is gone before the first write, as `head` is once it has its lines.
    const armored = join(dir, 'long.txt');
    const a = spawnSync('bash', ['-c', `"${process.execPath}" "${main}" armor "${file}" > "${armored}"`]);
    expect(a.status).toBe(0);
    const child = spawn(process.execPath, [main, 'dearmor', armored], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(err).toBe('');
    expect(code).toBe(0);
  });
});
