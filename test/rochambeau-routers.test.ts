/**
 * examples/rochambeau-routers: five router processes on 127.0.0.1 elect one
 * of themselves with M-party, N-state Rochambeau. Every router must name the
 * same winner, and it must be the winner the judge computes from the Commits
 * and Reveals they exchanged.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { fromHex } from '@fairtable/core/bytes.js';
import { judge } from '@fairtable/core/rochambeau/judge.js';

const main = fileURLToPath(new URL('../examples/rochambeau-routers/main.ts', import.meta.url));

interface Report {
  node: string;
  winner: string | null;
  players: { id: string; commit: string | null; reveal: string | null }[];
}

it('five routers name the same winner, the one the judge names', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', main, '--routers', '5', '--phase-ms', '20000', '--timeout-ms', '50000'], {
    encoding: 'utf8',
    timeout: 55_000,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const lines = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
  const summary = lines.pop() as { routers: number; game: string; states: string; winner: string; agree: boolean };
  const reports = lines as Report[];
  expect(summary).toMatchObject({ routers: 5, agree: true });
  expect(reports.map((r) => r.node).sort()).toEqual(['router-1', 'router-2', 'router-3', 'router-4', 'router-5']);
  for (const report of reports) {
    expect(report.winner).toBe(summary.winner);
    // Every router saw the same Commits and Reveals, all of them present.
    expect(report.players).toEqual(reports[0]!.players);
  }
  const players = reports[0]!.players.map((p) => ({ id: p.id, commit: fromHex(p.commit!), reveal: fromHex(p.reveal!) }));
  const verdict = judge({ N: summary.states, gameId: summary.game, players });
  expect(verdict.disqualified).toEqual([]);
  expect(verdict.winner).toBe(summary.winner);
});
