/**
 * `fairtable rochambeau judge FILE` end to end: files and stdin, the verdict
 * it prints against the core's, node:crypto for the hashes where the CLI
 * takes it, and exit code 2 with a message for unreadable input. The command
 * is the built one a player runs (brought up to date for the run by
 * test/global-setup.ts): it starts from the bundle in a third of the CPU time a
 * start from source through tsx takes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HASH_NAMES } from '@fairtable/core/rochambeau/hashes.js';
import { judge, toPlayerTable } from '@fairtable/core/rochambeau/judge.js';
import { judgeInputChunks, judgeOutput } from '@fairtable/core/rochambeau/judge-json.js';
import { CONDUCTS, seededRandom, simulateGame } from '@fairtable/core/rochambeau/simulation.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const scratch = mkdtempSync(join(tmpdir(), 'rochambeau-cli-'));

function fairtable(args: string[], stdin?: string | Uint8Array) {
  const run = spawnSync(process.execPath, [main, ...args], {
    cwd: root,
    input: stdin ?? '',
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (run.error) throw run.error;
  return run;
}

function gameFile(name: string, hash: (typeof HASH_NAMES)[number], gameId?: string) {
  const lineup = [{ id: 'ann' }, { id: 'bo' }, ...CONDUCTS.map((conduct, k) => ({ id: `c${k}`, conduct })), { id: 'zed' }];
  const players = toPlayerTable(simulateGame(lineup, { N: 1001, hash, random: seededRandom(name), ...(gameId === undefined ? {} : { gameId }) }));
  const game = { N: 1001, hash, players, ...(gameId === undefined ? {} : { gameId }) };
  const text = Buffer.concat([...judgeInputChunks(game)]);
  const file = join(scratch, `${name}.json`);
  writeFileSync(file, text);
  return { file, text, expected: judgeOutput(players.ids, judge(game)) };
}

describe('fairtable rochambeau judge', () => {
  it('prints the core’s verdict for every hash, node:crypto or noble', () => {
    for (const hash of HASH_NAMES) {
      const { file, expected } = gameFile(`game-${hash}`, hash, 'cli-game');
      const run = fairtable(['rochambeau', 'judge', file]);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout.endsWith('}\n')).toBe(true);
      expect(JSON.parse(run.stdout)).toEqual(expected);
    }
  });

  it('reads stdin when FILE is -', () => {
    const { text, expected } = gameFile('stdin', 'sha-256');
    const run = fairtable(['rochambeau', 'judge', '-'], text);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(expected);
  });

  it('exits 0 with winner null when nobody is left', () => {
    const run = fairtable(['rochambeau', 'judge', '-'], '{"N": "7", "players": [{"id": "a", "commit": null, "reveal": null}]}');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ winner: null, disqualified: [{ id: 'a', code: 'no_commit', detail: 'no Commit arrived' }], rounds: [] });
  });

  it('exits 2 with a message on unreadable input', () => {
    const cases: [string, string[], string, RegExp][] = [
      ['a missing file', ['rochambeau', 'judge', join(scratch, 'nope.json')], '', /ENOENT|no such file/],
      ['not JSON', ['rochambeau', 'judge', '-'], '{"N": 5, players: []}', /\[bad_json\]/],
      ['an even N', ['rochambeau', 'judge', '-'], '{"N": 8, "players": []}', /\[out_of_range\] N: must be odd/],
      ['N below 3', ['rochambeau', 'judge', '-'], '{"N": 1, "players": []}', /at least 3/],
      ['an unknown hash', ['rochambeau', 'judge', '-'], '{"N": 5, "hash": "sha-1", "players": []}', /\[bad_input\] hash/],
      ['duplicate ids', ['rochambeau', 'judge', '-'], '{"N": 5, "players": [{"id": "a"}, {"id": "a"}]}', /appears twice/],
      ['bad hex', ['rochambeau', 'judge', '-'], '{"N": 5, "players": [{"id": "a", "commit": "0g"}]}', /hex/],
    ];
    for (const [name, args, stdin, message] of cases) {
      const run = fairtable(args, stdin);
      expect(run.status, name).toBe(2);
      expect(run.stdout, name).toBe('');
      expect(run.stderr, name).toMatch(message);
    }
  });
});
