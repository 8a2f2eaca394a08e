/**
 * The command run inside the test's process (in-process.ts) answers as the built command run as a process
 * does: the same exit status, stdout and stderr, byte for byte, for help, refused command lines, errors the
 * commands report, standard input, and a refused mail (exit 1); and it puts back what it swapped.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInProcess } from './in-process.js';
import { asEmail } from './mail/post-office.js';

const main = fileURLToPath(new URL('../bin/fairtable.js', import.meta.url));

function asProcess(args: readonly string[], cwd: string, input?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', input, cwd });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('fairtable run inside the process', () => {
  it('gives the status, stdout and stderr a process gives, and puts back what it swapped', async () => {
    // One folder made ready, then copied: the process runs in one copy, the in-process run in the other.
    const ready = mkdtempSync(join(tmpdir(), 'fairtable-in-process-'));
    for (const p of ['ann', 'ben']) {
      const r = await runInProcess(['keygen', '--name', p, '--out', `${p}.json`], { cwd: ready });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`^wrote ${p}\\.json; fingerprint `));
      writeFileSync(join(ready, `${p}.pub.json`), r.stdout);
    }
    const created = await runInProcess(['mail', 'new', 'dice', '--dir', 'A', '--key', 'ann.json', '--players', 'ann.pub.json,ben.pub.json'], { cwd: ready });
    expect(created.status, created.stderr).toBe(0);
    const invitation = readdirSync(join(ready, 'A', 'outbox')).sort()[0]!;
    const text = readFileSync(join(ready, 'A', 'outbox', invitation), 'utf8');
    writeFileSync(join(ready, 'invitation.eml'), asEmail(text, 'ann', 'ben'));
    const rows = text.split('\n');
    const at = rows.findIndex((l) => /^[A-Za-z0-9+/]{64}$/.test(l));
    rows[at] = rows[at]!.slice(0, 10) + (rows[at]![10] === 'A' ? 'B' : 'A') + rows[at]!.slice(11);
    writeFileSync(join(ready, 'altered.eml'), asEmail(rows.join('\n'), 'ann', 'ben'));
    const there = mkdtempSync(join(tmpdir(), 'fairtable-as-process-'));
    const here = mkdtempSync(join(tmpdir(), 'fairtable-in-process-'));
    cpSync(ready, there, { recursive: true });
    cpSync(ready, here, { recursive: true });

    const before = { write: process.stdout.write, exit: process.exit, cwd: process.cwd(), exitCode: process.exitCode };
    const lines: { args: string[]; input?: string; status: number }[] = [
      { args: ['keygen', '--help'], status: 0 },
      { args: ['keygen', '--nam', 'x'], status: 2 },
      { args: ['nonsense'], status: 2 },
      { args: ['random', '--seed', '01'.repeat(32), '--label', 'dice', '--dice', '6', '--count', '5'], status: 0 },
      { args: ['random', '--seed', 'zz', '--label', 'dice', '--dice', '6'], status: 2 },
      { args: ['mail', 'status', '--dir', 'nowhere'], status: 2 },
      { args: ['mail', 'read', '--dir', 'B', '--key', 'ben.json', '-'], input: 'no message here', status: 2 },
      { args: ['mail', 'read', '--dir', 'B', '--key', 'ben.json', '-'], input: readFileSync(join(ready, 'invitation.eml'), 'utf8'), status: 0 },
      { args: ['mail', 'read', '--dir', 'B', 'altered.eml'], status: 1 },
      { args: ['mail', 'decide', '--dir', 'B', '{'], status: 2 },
      { args: ['mail', 'status', '--dir', 'B', '--json'], status: 0 },
      { args: ['mail', 'transcript', '--dir', 'B', '--out', 'b.jsonl'], status: 0 },
    ];
    for (const { args, input, status } of lines) {
      const expected = asProcess(args, there, input);
      const got = await runInProcess(args, { cwd: here, ...(input === undefined ? {} : { input }) });
      expect(got, args.join(' ')).toEqual(expected);
      expect(got.status, args.join(' ')).toBe(status);
    }
    // The game folders the two wrote are alike: the same transcript.
    expect(readFileSync(join(here, 'b.jsonl'), 'utf8')).toBe(readFileSync(join(there, 'b.jsonl'), 'utf8'));
    expect(process.stdout.write).toBe(before.write);
    expect(process.exit).toBe(before.exit);
    expect(process.cwd()).toBe(before.cwd);
    expect(process.exitCode).toBe(before.exitCode);
  }, 120_000);

  it('takes one run at a time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairtable-in-process-'));
    const first = runInProcess(['keygen', '--name', 'ann', '--out', 'ann.json'], { cwd: dir });
    await expect(runInProcess(['keygen', '--help'], { cwd: dir })).rejects.toThrow(/one run at a time/);
    expect((await first).status).toBe(0);
  });
});
