import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, renameSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { asEmail, asQuotedReply } from './post-office.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const main = join(root, 'packages/cli/dist/main.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-mail-cli-'));

function run(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', input, cwd: dir });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Moves every outbox file of `folder` out, returning their texts. */
function outbox(folder: string): string[] {
  const from = join(dir, folder, 'outbox');
  const to = join(dir, folder, 'sent');
  mkdirSync(to, { recursive: true });
  return readdirSync(from)
    .sort()
    .map((f) => {
      const text = readFileSync(join(from, f), 'utf8');
      renameSync(join(from, f), join(to, f));
      return text;
    });
}

describe('fairtable mail, as separate processes', () => {
  it('two players play dice by mail with the commands the issue names, and the transcripts audit valid', () => {
    // keygen prints the public part on stdout.
    for (const p of ['ann', 'ben']) {
      const r = run(['keygen', '--name', p, '--out', `${p}.json`]);
      expect(r.status).toBe(0);
      writeFileSync(join(dir, `${p}.pub.json`), r.stdout);
    }
    const created = run([
      'mail',
      'new',
      'dice',
      '--dir',
      'A',
      '--key',
      'ann.json',
      '--players',
      'ann.pub.json,ben.pub.json',
      '--turns',
      '2',
      '--timeout',
      '2d',
    ]);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/send to every other participant/);
    expect(created.stdout).toMatch(/deadlines 2d/);
    const badTimeout = run(['mail', 'new', 'dice', '--dir', 'X', '--key', 'ann.json', '--players', 'ann.pub.json,ben.pub.json', '--timeout', '2 days']);
    expect(badTimeout.status).toBe(2);
    expect(badTimeout.stderr).toMatch(/\[bad_input\]/);

    // Ben saves Ann's mails whole and reads them from standard input, with --key naming his seat.
    const first = outbox('A').map((t, i) => (i === 0 ? asEmail(t, 'ann', 'ben') : asQuotedReply(t, 'ann', 'ben', 2)));
    const joined = run(['mail', 'read', '--dir', 'B', '--key', 'ben.json', '-'], first.join('\n\n'));
    expect(joined.status, joined.stderr).toBe(0);
    expect(joined.stdout).toMatch(/joined game/);

    let rounds = 0;
    for (; rounds < 40; rounds++) {
      const seen: { done: boolean; protocol: string; seat: string; outcome: unknown }[] = [];
      for (const [me, other] of [
        ['A', 'B'],
        ['B', 'A'],
      ] as const) {
        const status = JSON.parse(run(['mail', 'status', '--dir', me, '--json']).stdout) as {
          decision: unknown;
          done: boolean;
          protocol: string;
          seat: string;
          outcome: unknown;
        };
        seen.push(status);
        if (status.decision !== null) {
          const d = run(['mail', 'decide', '--dir', me, 'null']);
          expect(d.status, d.stderr).toBe(0);
        }
        const mails = outbox(me);
        if (mails.length > 0) {
          const r = run(['mail', 'read', '--dir', other, '-'], mails.map((t) => asEmail(t, me, other)).join('\n'));
          expect(r.status, r.stderr).toBe(0);
        }
      }
      if (seen.every((x) => x.done)) {
        expect(seen[1]).toMatchObject({ protocol: 'chain/dice', seat: 'ben', done: true });
        expect(seen[1]!.outcome).not.toBeNull();
        break;
      }
    }
    expect(rounds).toBeLessThan(40);
    expect(run(['mail', 'transcript', '--dir', 'A', '--out', 'a.jsonl']).status).toBe(0);
    expect(run(['mail', 'transcript', '--dir', 'B', '--out', 'b.jsonl']).status).toBe(0);
    expect(readFileSync(join(dir, 'b.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'a.jsonl'), 'utf8'));
    const audit = run(['audit', 'a.jsonl', '--json']);
    expect(audit.status).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ valid: true, violations: [] });
    // Nothing left to decide: an answer now is refused with a code.
    const late = run(['mail', 'decide', '--dir', 'A', 'null']);
    expect(late.status).toBe(2);
    expect(late.stderr).toMatch(/\[illegal_choice\]/);
  });
});
