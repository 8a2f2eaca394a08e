/**
 * `fairtable diplomacy` end to end: runs `fairtable diplomacy ...` on DATC cases and on bad input, checking
 * output and exit codes (docs/spec/diplomacy.md §8). The built command runs as a process of its own where its
 * start-up, standard input and exit statuses are under test (the lottery, the refusals, exit 1); the DATC
 * cases and the rest run the same command lines inside this process (../in-process.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import cases from '../../../diplomacy/src/testdata/datc-v2.4.json' with { type: 'json' };
import { runInProcess } from '../in-process.js';

const MAIN = fileURLToPath(new URL('../../bin/fairtable.js', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'fairtable-diplomacy-'));

/** The built command as a process of its own. */
function spawned(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [MAIN, 'diplomacy', ...args], { encoding: 'utf8', input });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The same command line inside this process: status, stdout and stderr as a process gives them. */
async function cli(args: string[], input?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const run = await runInProcess(['diplomacy', ...args], input === undefined ? {} : { input });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

interface Unit {
  power: string;
  type: string;
  at: string;
}
const key = (u: Unit): string => `${u.power} ${u.type} ${u.at}`;

describe('fairtable diplomacy', () => {
  beforeAll(() => {
    // The build happens once, before the tests (test/global-setup.ts).
    if (!existsSync(fileURLToPath(new URL('../../dist/main.js', import.meta.url)))) throw new Error('no packages/cli/dist/main.js: run npm run build');
  });

  it('assign: the seed 003 example, its lottery numbers replayed', () => {
    const prefs = join(scratch, 'prefs.txt');
    writeFileSync(prefs, '1 AE(GI)R\n2 FRG\n3 (EFG)TI(AR)\n4 E\n5\n6 FRA\n7 GRA\n8 %REG\n');
    const r = spawned(['assign', '--prefs', prefs, '--numbers', '5,0,0', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      contests: { power: string; chances: Record<string, number>; outcomes: number; number: number; winner: number }[];
      assignment: Record<string, string>;
    };
    expect(out.contests[0]).toMatchObject({ power: 'france', chances: { '2': 3, '3': 1, '6': 3 }, outcomes: 7, number: 5, winner: 6 });
    expect(out.assignment).toMatchObject({ '1': 'austria', '2': 'russia', '6': 'france' });
    expect(out.assignment['8']).toBeUndefined();
    const few = spawned(['assign', '--prefs', prefs, '--numbers', '5']);
    expect(few.status).toBe(2);
    expect(few.stderr).toMatch(/\[bad_input\] too few lottery numbers/);
  });

  // Every seventh case, and each retreat and adjustment section's first, through the command (all run in-process in datc.test.ts).
  const chosen = cases.filter((c, i) => i % 7 === 0 || ['6.F.17', '6.F.24', '6.H.1', '6.I.1', '6.J.2'].includes(c.id));
  it.each(chosen.map((c) => [c.id, c] as const))('adjudicate: DATC %s', async (_id, c) => {
    const input = {
      phase: c.phase,
      units: c.pre.units,
      dislodged: c.pre.dislodged,
      supplyCenterOwners: c.pre.supplyCenterOwners,
      contested: 'contested' in c.pre ? c.pre.contested : [],
      orders: c.orders,
    };
    const run = await cli(['adjudicate', '-'], JSON.stringify(input));
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout) as { units: Unit[]; dislodged: Unit[]; results: unknown[]; hash: string; phase: unknown };
    expect({ units: out.units.map(key).sort(), dislodged: out.dislodged.map(key).sort() }).toEqual({
      units: (c.post.units as Unit[]).map(key).sort(),
      dislodged: (c.post.dislodged as Unit[]).map(key).sort(),
    });
    expect(out.results).toHaveLength(c.orders.length);
    expect(out.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each(cases.filter((c) => c.phase.type === 'retreat').map((c) => [c.id, c] as const))(
    'adjudicate: DATC %s from its movement results alone',
    async (_id, c) => {
      // Only the fields the issue names, plus the case's PRESTATE_RESULTS: no contested, no attackerFrom.
      const dislodged = (c.pre.dislodged as Unit[]).map((d) => ({ power: d.power, type: d.type, at: d.at }));
      const input = {
        phase: c.phase,
        units: c.pre.units,
        dislodged,
        supplyCenterOwners: c.pre.supplyCenterOwners,
        results: 'results' in c.pre ? c.pre.results : [],
        orders: c.orders,
      };
      const run = await cli(['adjudicate', '-'], JSON.stringify(input));
      expect(run.status).toBe(0);
      const out = JSON.parse(run.stdout) as { units: Unit[] };
      expect(out.units.map(key).sort()).toEqual((c.post.units as Unit[]).map(key).sort());
    },
  );

  it('adjudicate reads a file and is deterministic', async () => {
    const file = join(scratch, 'spring.json');
    writeFileSync(
      file,
      JSON.stringify({
        phase: { season: 'spring', year: 1901, type: 'movement' },
        units: [{ power: 'france', type: 'army', at: 'par' }],
        supplyCenterOwners: null,
        orders: [{ power: 'France', text: 'army paris moves to burgundy' }],
      }),
    );
    const a = await cli(['adjudicate', file]);
    const b = await cli(['adjudicate', file]);
    expect(a.status).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    const out = JSON.parse(a.stdout) as { phase: unknown; units: Unit[]; results: unknown[] };
    expect(out.phase).toEqual({ season: 'fall', year: 1901, type: 'movement' });
    expect(out.units).toEqual([{ power: 'france', type: 'army', at: 'bur' }]);
    expect(out.results).toEqual([{ power: 'france', text: 'army paris moves to burgundy', order: 'A par - bur', status: 'succeeded', reason: null }]);
  });

  it.each([
    ['not JSON', 'nope', 'bad_json'],
    ['no phase', '{"units": []}', 'bad_position'],
    [
      'a fleet inland',
      '{"phase": {"season": "spring", "year": 1901, "type": "movement"}, "units": [{"power": "france", "type": "fleet", "at": "par"}]}',
      'bad_position',
    ],
    ['orders not a list', '{"phase": {"season": "spring", "year": 1901, "type": "movement"}, "units": [], "orders": 3}', 'bad_input'],
  ])('adjudicate exits 2 on %s', async (_what, input, code) => {
    // Unreadable standard input through a process of its own; the other refusals inside this process.
    const run = code === 'bad_json' ? spawned(['adjudicate', '-'], input) : await cli(['adjudicate', '-'], input);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(new RegExp(`^fairtable: \\[${code}\\] `));
  });

  it('orders prints canonical forms, and errors with exit 1', async () => {
    const file = join(scratch, 'orders.txt');
    writeFileSync(file, 'A Par -> Burgundy\n# a comment\n\nF bre moves to mid-atlantic ocean\nA mar S A par - bur\n');
    expect(await cli(['orders', file, '--power', 'france', '--phase', 'S1901M'])).toEqual({
      status: 0,
      stdout: 'A par - bur\nF bre - mao\nA mar S A par - bur\n',
      stderr: '',
    });
    writeFileSync(file, 'A par - bur\nA mar - xyz\nA mun - ruh\n');
    const bad = spawned(['orders', file, '--power', 'france', '--phase', 'S1901M', '--json']);
    expect(bad.status).toBe(1);
    const out = JSON.parse(bad.stdout) as { order: string | null; error: { code: string } | null }[];
    expect(out.map((o) => o.error?.code ?? null)).toEqual([null, 'unknown_province', 'illegal_order']);
  });

  it('a wrong unit letter is corrected, or an error with --strict-unit-type', async () => {
    const file = join(scratch, 'typo.txt');
    writeFileSync(file, 'A Bre - MAO\n');
    expect(await cli(['orders', file, '--power', 'france', '--phase', 'S1901M'])).toEqual({ status: 0, stdout: 'F bre - mao\n', stderr: '' });
    const strict = await cli(['orders', file, '--power', 'france', '--phase', 'S1901M', '--strict-unit-type']);
    expect(strict.status).toBe(1);
    expect(strict.stdout).toContain('[illegal_order]');
    const input = JSON.stringify({
      phase: { season: 'spring', year: 1901, type: 'movement' },
      units: [{ power: 'france', type: 'fleet', at: 'bre' }],
      orders: [{ power: 'france', text: 'A Bre - MAO' }],
    });
    const held = JSON.parse((await cli(['adjudicate', '-', '--strict-unit-type'], input)).stdout) as { units: Unit[] };
    expect(held.units).toEqual([{ power: 'france', type: 'fleet', at: 'bre' }]);
  });

  it('orders checks against a given position and its phase', async () => {
    const position = join(scratch, 'retreat.json');
    writeFileSync(
      position,
      JSON.stringify({
        phase: { season: 'fall', year: 1903, type: 'retreat' },
        units: [{ power: 'germany', type: 'army', at: 'bur' }],
        dislodged: [{ power: 'france', type: 'army', at: 'mar', attackerFrom: 'bur', attackerViaConvoy: false }],
        supplyCenterOwners: null,
      }),
    );
    const file = join(scratch, 'retreat.txt');
    writeFileSync(file, 'A mar - gas\n');
    expect((await cli(['orders', file, '--power', 'france', '--phase', 'F1903R', '--position', position])).stdout).toBe('A mar R gas\n');
    const wrong = await cli(['orders', file, '--power', 'france', '--phase', 'S1901M', '--position', position]);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('[bad_input]');
    expect((await cli(['orders', file, '--power', 'france', '--phase', 'X1901M'])).status).toBe(2);
  });

  it('orders --offered lists every order the power is offered: a convoy through two fleets, the convoy of a fleet mid-chain, a support of the convoyed move', async () => {
    const position = join(scratch, 'lon-por.json');
    writeFileSync(
      position,
      JSON.stringify({
        phase: { season: 'fall', year: 1903, type: 'movement' },
        units: [
          { power: 'england', type: 'army', at: 'lon' },
          { power: 'england', type: 'fleet', at: 'eng' },
          { power: 'england', type: 'fleet', at: 'mao' },
          { power: 'france', type: 'army', at: 'spa' },
        ],
        dislodged: [],
        supplyCenterOwners: null,
      }),
    );
    const args = ['--phase', 'F1903M', '--position', position];
    const england = await cli(['orders', '--power', 'england', '--offered', ...args]);
    expect(england.status).toBe(0);
    const lines = england.stdout.split('\n');
    expect(lines).toEqual(expect.arrayContaining(['A lon:', '    A lon - por via convoy', 'F mao:', '    F mao C A lon - por', '    F eng C A lon - por']));
    expect((await cli(['orders', '--power', 'france', '--offered', ...args])).stdout.split('\n')).toContain('    A spa S A lon - por');
    const file = join(scratch, 'lon-por.txt');
    writeFileSync(file, 'A Lon - Por via convoy\nF MAO C A Lon - Por\nF ENG convoys A Lon - Por\n');
    expect((await cli(['orders', file, '--power', 'england', ...args])).stdout).toBe('A lon - por via convoy\nF mao C A lon - por\nF eng C A lon - por\n');
    const neither = await cli(['orders', '--power', 'england', ...args]);
    expect(neither.status).toBe(2);
    expect(neither.stderr).toContain('[bad_input]');
  });
});
