/**
 * `fairtable audit` reads any file whose first line the line rule accepts (docs/SPEC.md §4.5: a byte order
 * mark, blank lines before the setup) for every protocol, Diplomacy's included (its machine is found from
 * the setup by the same rule), and names a path that is not a transcript file in words with a code, exit 2.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, type InProcessRun } from './in-process.js';

const MAIN = fileURLToPath(new URL('../bin/fairtable.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fairtable-audit-paths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', cwd: dir });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/**
 * `fairtable ARGS` in this process (`runInProcess`): the small files here are audited on the calling thread.
 * One audit per transcript, the folder, and the file too large for one thread go through a process.
 */
const here = (args: string[]): Promise<InProcessRun> => runInProcess(args, { cwd: dir });

/** The ways to start a file the line rule reads the same as the plain one. */
const STARTS: [string, string][] = [
  ['a byte order mark', '\uFEFF'],
  ['leading blank lines', '\n\n  \t\r\n\n'],
  ['a byte order mark and blank lines', '\uFEFF\r\n \n'],
];

describe('fairtable audit: what it reads', () => {
  for (const [protocol, args] of [
    ['diplomacy', ['simulate', 'diplomacy', '--players', '7', '--years', '1', '--seed', '09'.repeat(32)]],
    ['chain', ['simulate', 'dice', '--players', '3', '--turns', '2', '--seed', '0a'.repeat(32)]],
  ] as const) {
    it(`a ${protocol} transcript with a BOM or leading blank lines audits as the plain file does`, async () => {
      const plain = join(dir, `${protocol}.jsonl`);
      const made = await here([...args, '--out', plain]);
      expect(made.status, made.stderr).toBe(0);
      const reference = cli(['audit', plain, '--json']);
      expect(reference.status, reference.stderr).toBe(0);
      const verdict = JSON.parse(reference.stdout) as { valid: boolean; protocol: string; lines: number; game: string };
      expect(verdict).toMatchObject({ valid: true, protocol });
      const text = readFileSync(plain, 'utf8');
      for (const [name, start] of STARTS) {
        const file = join(dir, `${protocol}-${name.replace(/ /g, '-')}.jsonl`);
        writeFileSync(file, start + text);
        const r = await here(['audit', file, '--json']);
        expect(r.status, `${name}: ${r.stderr}`).toBe(0);
        expect(JSON.parse(r.stdout), name).toEqual(JSON.parse(reference.stdout));
      }
      // The words too, without --json.
      const human = await here(['audit', join(dir, `${protocol}-a-byte-order-mark-and-blank-lines.jsonl`)]);
      expect(human.status).toBe(0);
      expect(human.stdout).toContain(`game ${verdict.game} (${protocol}), ${verdict.lines} lines`);
    }, 120_000);
  }

  it('a folder is named as one, with not_a_file, exit 2; a missing file with bad_input', async () => {
    const folder = join(dir, 'games');
    mkdirSync(folder);
    for (const extra of [[], ['--relay-key', 'ab'.repeat(32)]]) {
      const r = extra.length === 0 ? cli(['audit', folder]) : await here(['audit', folder, ...extra]);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`fairtable: [not_a_file] ${folder} is a folder: give a transcript file\n`);
      expect(r.stderr).not.toMatch(/EISDIR/);
    }
    const json = await here(['audit', folder, '--json']);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ valid: false, error: { code: 'not_a_file', message: `${folder} is a folder: give a transcript file` } });

    const missing = join(dir, 'nowhere.jsonl');
    const m = await here(['audit', missing]);
    expect(m.status).toBe(2);
    expect(m.stderr).toBe(`fairtable: [bad_input] ${missing}: no such file\n`);

    // Only a BOM and blank lines; a first line over the 1 MiB a line may be, after them: coded, exit 2.
    for (const [name, text, code] of [
      ['blank.jsonl', '\uFEFF\n \n\r\n', 'bad_input'],
      ['huge-first.jsonl', '\uFEFF\n\n' + 'x'.repeat(3_000_000), 'bad_json'],
    ] as const) {
      writeFileSync(join(dir, name), text);
      // The file too large for one thread through a process (its audit would start threads).
      const r = name === 'blank.jsonl' ? await here(['audit', name, '--json']) : cli(['audit', name, '--json']);
      expect(r.status, name).toBe(2);
      expect(JSON.parse(r.stdout), name).toMatchObject({ valid: false, error: { code } });
    }

    // A witness file that is a folder is named the same way.
    writeFileSync(join(dir, 'one.jsonl'), readFileSync(join(dir, 'chain.jsonl')));
    const w = await here(['audit', join(dir, 'one.jsonl'), '--relay-key', 'ab'.repeat(32), '--witness', folder]);
    expect(w.status).toBe(2);
    expect(w.stderr).toContain(`[not_a_file] ${folder} is a folder`);
  });
});
