import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, renameSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { canonicalize, type JsonValue } from '@fairtable/core/jcs.js';
import type { Choices } from '@fairtable/core/protocols/machine.js';
import { RandomStream } from '@fairtable/core/stream.js';
import { randomChoice } from '@fairtable/core/testing';
import { runInProcess } from '../in-process.js';
import { asEmail, asQuotedReply } from './post-office.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-mail-cli-'));

/** The built command as a process of its own: its real start-up, exit status and standard input. */
function run(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', input, cwd: dir });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The same command line run inside this process (../in-process.ts): the steps of a long game, hundreds of
 * them, without a process's start-up each; status, stdout and stderr are checked as for a process.
 */
const here = (args: string[], input?: string) => runInProcess(args, { cwd: dir, ...(input === undefined ? {} : { input }) });

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

describe('fairtable mail, as a player runs it', () => {
  // Dozens of runs of the command: keygen, the invitation, standard input, the exit statuses and the audit
  // as processes of their own; the rounds of the game inside this process (a process each took minutes).
  it('two players play dice by mail with the commands the issue names, and the transcripts audit valid', async () => {
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
        const status = JSON.parse((await here(['mail', 'status', '--dir', me, '--json'])).stdout) as {
          decision: unknown;
          done: boolean;
          protocol: string;
          seat: string;
          outcome: unknown;
        };
        seen.push(status);
        if (status.decision !== null) {
          const d = await here(['mail', 'decide', '--dir', me, 'null']);
          expect(d.status, d.stderr).toBe(0);
        }
        const mails = outbox(me);
        if (mails.length > 0) {
          const r = await here(['mail', 'read', '--dir', other, '-'], mails.map((t) => asEmail(t, me, other)).join('\n'));
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
    expect((await here(['mail', 'transcript', '--dir', 'A', '--out', 'a.jsonl'])).status).toBe(0);
    expect((await here(['mail', 'transcript', '--dir', 'B', '--out', 'b.jsonl'])).status).toBe(0);
    expect(readFileSync(join(dir, 'b.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'a.jsonl'), 'utf8'));
    const audit = run(['audit', 'a.jsonl', '--json']);
    expect(audit.status).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ valid: true, violations: [] });
    // Nothing left to decide: an answer now is refused with a code.
    const late = run(['mail', 'decide', '--dir', 'A', 'null']);
    expect(late.status).toBe(2);
    expect(late.stderr).toMatch(/\[illegal_choice\]/);
  }, 300_000);
});

/**
 * The check (issue 11): three game folders, each driven only by `fairtable mail` command lines (run
 * inside this process, each reading its folder from disk as a process does; keygen, the audits and the
 * refused file as processes of their own), playing dice and then Monopoly to the end by passing the outbox
 * files around as a mailing list would: some wrapped in e-mails, some quoted once or twice in replies, some
 * delivered twice, some late (after later mail).
 * The transcripts come out identical, `fairtable audit` finds them valid, and the receipts each player holds
 * pass the independent Python checker of docs/spec/relay.md §2. A file altered in transit is refused and named.
 */
describe('the issue check: three folders play dice and then Monopoly by passing outbox files', () => {
  const names = ['ann', 'ben', 'cat'] as const;
  const choose = new RandomStream(new Uint8Array(32).fill(11), 'mail-cli-strategy');

  async function game(protocol: 'dice' | 'monopoly', turns: number, folder: (who: string) => string): Promise<{ lines: string[]; rounds: number }> {
    const created = await here([
      'mail',
      'new',
      protocol,
      '--dir',
      folder('ann'),
      '--key',
      'ann.json',
      '--players',
      names.map((n) => `${n}.pub.json`).join(','),
      '--turns',
      String(turns),
      '--timeout',
      '3d',
    ]);
    expect(created.status, created.stderr).toBe(0);
    // The mailing list: every file goes to the two others, wrapped, quoted, twice or late by its number.
    const inbox = new Map<string, { text: string; due: number }[]>(names.map((n) => [n, []]));
    let n = 0;
    let round = 0;
    const post = (from: string): void => {
      for (const text of outbox(folder(from))) {
        for (const to of names) {
          if (to === from) continue;
          const k = n++;
          const body = k % 3 === 0 ? asEmail(text, from, to) : k % 3 === 1 ? asQuotedReply(text, from, to, 1 + (k % 2)) : text;
          const due = round + (k % 5 === 0 ? 2 : 0);
          inbox.get(to)!.push({ text: body, due });
          if (k % 4 === 0) inbox.get(to)!.push({ text: body, due: due + 1 });
        }
      }
    };
    post('ann');
    const over = new Set<string>();
    for (; round < 200 && over.size < names.length; round++) {
      for (const me of names) {
        const box = inbox.get(me)!;
        const due = box.filter((m) => m.due <= round);
        if (due.length === 0) continue;
        inbox.set(
          me,
          box.filter((m) => m.due > round),
        );
        const files = due.map((m, i) => {
          const name = `${folder(me)}-in-${round}-${i}.eml`;
          writeFileSync(join(dir, name), m.text);
          return name;
        });
        let r = await here(['mail', 'read', '--dir', folder(me), '--key', `${me}.json`, ...files]);
        if (r.status === 2 && /holds no game yet/.test(r.stderr)) {
          // Mail that overtook the invitation: kept for later, as a person would.
          inbox.get(me)!.push(...due.map((m) => ({ text: m.text, due: round + 1 })));
          continue;
        }
        expect(r.status, r.stderr + r.stdout).toBe(0);
        while (/ decides: /.test(r.stdout)) {
          const s = JSON.parse((await here(['mail', 'status', '--dir', folder(me), '--json'])).stdout) as { decision: { choices: Choices } | null };
          if (s.decision === null) break;
          r = await here(['mail', 'decide', '--dir', folder(me), JSON.stringify(randomChoice(s.decision.choices, choose))]);
          expect(r.status, r.stderr).toBe(0);
        }
        if (/the game is over/.test(r.stdout)) over.add(me);
        post(me);
      }
    }
    expect(over.size).toBe(names.length);
    const texts: string[] = [];
    for (const me of names) {
      expect((await here(['mail', 'transcript', '--dir', folder(me), '--out', `${folder(me)}.jsonl`])).status).toBe(0);
      texts.push(readFileSync(join(dir, `${folder(me)}.jsonl`), 'utf8'));
    }
    expect(texts[1]).toBe(texts[0]);
    expect(texts[2]).toBe(texts[0]);
    const audit = run(['audit', `${folder('ann')}.jsonl`, '--json']);
    expect(audit.status, audit.stdout).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ valid: true, violations: [] });
    return { lines: texts[0]!.trimEnd().split('\n'), rounds: round };
  }

  /** The receipts a player's folder holds, through test/python/receipt_check.py (log hash chain, JCS, Ed25519 from RFC 8032). */
  function independentCheck(folder: string, lines: readonly string[]): void {
    const receipts = readFileSync(join(dir, folder, 'receipts.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, JsonValue>);
    expect(receipts.length).toBe(lines.length);
    const setup = JSON.parse(lines[0]!) as { game: string; body: { setup: { params: { recorder: { key: string } } } } };
    const vectors = {
      ordererPublicKey: setup.body.setup.params.recorder.key,
      game: setup.game,
      receipts: receipts.map((r) => {
        const { sig, ...unsigned } = r;
        void sig;
        return { receipt: r, signedText: canonicalize(unsigned) };
      }),
    };
    const file = join(dir, `${folder}-receipts.json`);
    writeFileSync(file, JSON.stringify(vectors));
    const py = spawnSync('python3', [join(root, 'test/python/receipt_check.py'), file], { encoding: 'utf8' });
    expect(py.status, py.stdout + py.stderr).toBe(0);
    expect(JSON.parse(py.stdout)).toMatchObject({ ok: true, receipts: lines.length });
  }

  it('dice, then Monopoly: identical transcripts that audit valid, receipts that pass the Python checker; an altered file is refused', async () => {
    for (const p of ['cat']) {
      const r = run(['keygen', '--name', p, '--out', `${p}.json`]);
      expect(r.status).toBe(0);
      writeFileSync(join(dir, `${p}.pub.json`), r.stdout);
    }
    const dice = await game('dice', 2, (who) => `dice-${who}`);
    expect(dice.lines.length).toBeGreaterThan(6);
    independentCheck('dice-ben', dice.lines);
    const monopoly = await game('monopoly', 2, (who) => `monopoly-${who}`);
    expect(JSON.parse(monopoly.lines[0]!).body.setup.game).toBe('monopoly');
    independentCheck('monopoly-cat', monopoly.lines);

    // A file altered in transit: one base64 character of a recorded message changed. The reader refuses it
    // (exit 1), names the file and why, and its folder is unchanged.
    const sent = readdirSync(join(dir, 'monopoly-ann', 'sent')).filter((f) => f.includes('entries'));
    const original = readFileSync(join(dir, 'monopoly-ann', 'sent', sent[sent.length - 1]!), 'utf8');
    const rows = original.split('\n');
    const at = rows.findIndex((l) => /^[A-Za-z0-9+/]{64}$/.test(l));
    rows[at] = rows[at]!.slice(0, 10) + (rows[at]![10] === 'A' ? 'B' : 'A') + rows[at]!.slice(11);
    writeFileSync(join(dir, 'altered.eml'), asEmail(rows.join('\n'), 'ann', 'ben'));
    const before = readFileSync(join(dir, 'monopoly-ben', 'transcript.jsonl'), 'utf8');
    const refused = run(['mail', 'read', '--dir', 'monopoly-ben', 'altered.eml']);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(/refused altered\.eml: \[bad_checksum\]/);
    expect(readFileSync(join(dir, 'monopoly-ben', 'transcript.jsonl'), 'utf8')).toBe(before);
  }, 600_000);
});
