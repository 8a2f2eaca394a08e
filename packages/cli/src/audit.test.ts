/**
 * `fairtable audit` on hostile files (issue 8 §2 and §5; docs/SPEC.md §4.5, §9),
 * through the built binary: each damaged file exits 1 with `malformed` (or 0
 * where the line rule says the damage is only white space), never 2 or a crash,
 * and `--json` always prints one object. Peak memory is measured by
 * bench/audit-hostile.bench.ts, not here.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeHostile } from '../../../bench/lib/hostile-transcripts.js';
import { runInProcess, type InProcessRun } from './in-process.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-audit-'));

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', cwd: dir, maxBuffer: 1 << 26 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `fairtable ARGS` in this process (`runInProcess`), for the small files, which are audited on the calling
 * thread: the large ones (a thread of their own), deep nesting and a byte order mark go through the process.
 */
const here = (args: string[]): Promise<InProcessRun> => runInProcess(args, { cwd: dir });
const BY_PROCESS = new Set(['deep-nesting', 'bom', 'one-20mb-line', 'no-newline-20mb', 'many-malformed', 'wide-lines']);

const honestFile = join(dir, 'honest.jsonl');
const made = run(['simulate', 'dice', '--players', '3', '--seed', '05'.repeat(32), '--turns', '2', '--out', honestFile]);
const honest = readFileSync(honestFile, 'utf8').trimEnd().split('\n');

describe('fairtable audit on hostile input', () => {
  it('the honest transcript is valid', () => {
    expect(made.status).toBe(0);
    expect(run(['audit', honestFile]).status).toBe(0);
  });

  for (const h of writeHostile(dir, honest, true)) {
    it(`${h.name}: exit ${h.exit}${h.first !== undefined ? `, ${h.first} first` : ''}`, async () => {
      const r = BY_PROCESS.has(h.name) ? run(['audit', h.file, '--json']) : await here(['audit', h.file, '--json']);
      rmSync(h.file);
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
      expect(r.status).toBe(h.exit);
      const verdict = JSON.parse(r.stdout) as { valid: boolean; omitted: number; violations: { code: string; player: string | null }[] };
      expect(verdict.valid).toBe(h.exit === 0);
      if (h.first !== undefined) expect(verdict.violations[0]).toMatchObject({ code: h.first, player: null });
      if (h.name === 'many-malformed') {
        expect(verdict.violations.length).toBeLessThanOrEqual(1001);
        expect(verdict.violations.length + verdict.omitted).toBe(400_000);
      }
    }, 120_000);
  }

  it('--json on exit 2 prints {"valid": false, "error": {"code", "message"}}', async () => {
    const cases: [string[], string][] = [
      [['audit', join(dir, 'missing.jsonl'), '--json'], 'bad_input'],
      [['audit', honestFile, '--json', '--workers', 'abc'], 'out_of_range'],
      [['audit', honestFile, '--json', '--workers', '0'], 'out_of_range'],
      [['audit', honestFile, '--json', '--workers', '400'], 'out_of_range'],
    ];
    writeFileSync(join(dir, 'empty.jsonl'), '\n \n');
    cases.push([['audit', join(dir, 'empty.jsonl'), '--json'], 'bad_input']);
    writeFileSync(join(dir, 'junk.jsonl'), 'not json\n');
    cases.push([['audit', join(dir, 'junk.jsonl'), '--json'], 'bad_json']);
    const setup = JSON.parse(honest[0]!) as { seq: number };
    writeFileSync(join(dir, 'seq5.jsonl'), [JSON.stringify({ ...setup, seq: 5 }), ...honest.slice(1)].join('\n'));
    cases.push([['audit', join(dir, 'seq5.jsonl'), '--json'], 'bad_setup']);
    for (const [args, code] of cases) {
      // The first through the process, the rest in this one.
      const r = args === cases[0]![0] ? run(args) : await here(args);
      expect(r.status, args.join(' ')).toBe(2);
      const out = JSON.parse(r.stdout) as { valid: boolean; error: { code: string; message: string } };
      expect(out).toMatchObject({ valid: false, error: { code } });
      expect(out.error.message.length).toBeGreaterThan(0);
      expect(r.stderr).toMatch(new RegExp(`\\[${code}\\]`));
    }
  });
});
