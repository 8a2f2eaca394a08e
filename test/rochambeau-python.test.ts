/**
 * Differential test: the TypeScript judge (packages/core/src/rochambeau) and
 * an independent Python judge written from docs/spec/rochambeau.md
 * (test/python/rochambeau_judge.py, standard library only, literal O(M²))
 * print the same verdict for the same game, down to every tweak, state,
 * score and disqualification detail.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { HASH_NAMES, type HashName } from '@fairtable/core/rochambeau/hashes.js';
import { judge, toPlayerTable } from '@fairtable/core/rochambeau/judge.js';
import { judgeInputChunks, judgeOutput } from '@fairtable/core/rochambeau/judge-json.js';
import { CONDUCTS, seededRandom, simulateGame, type Conduct, type SimulatedPlayer } from '@fairtable/core/rochambeau/simulation.js';
import vectors from '../packages/core/src/rochambeau/vectors/judge-vectors.json' with { type: 'json' };

const script = fileURLToPath(new URL('./python/rochambeau_judge.py', import.meta.url));

function python(input: Uint8Array | string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync('python3', [script], { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.error) throw run.error;
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Every game's verdict from the Python judge, one process for the lot (`--lines`). */
function pythonLines(games: readonly Uint8Array[]): unknown[] {
  const newline = Uint8Array.of(10);
  const run = spawnSync('python3', [script, '--lines'], { input: Buffer.concat(games.flatMap((g) => [g, newline])), encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.error) throw run.error;
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const lines = run.stdout.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(games.length);
  return lines.map((line) => JSON.parse(line) as unknown);
}

interface Case {
  readonly N: number | bigint | string;
  readonly hash: HashName;
  readonly gameId?: string;
  readonly lineup: readonly SimulatedPlayer[];
  readonly seed: string;
}

/** Judges every game both ways and compares; returns the TypeScript verdicts so callers can say what the games exercised. */
function agree(cases: readonly Case[]): ReturnType<typeof judge>[] {
  const judged = cases.map((c) => {
    const players = toPlayerTable(
      simulateGame(c.lineup, { N: c.N, hash: c.hash, random: seededRandom(c.seed), ...(c.gameId === undefined ? {} : { gameId: c.gameId }) }),
    );
    const game = { N: c.N, hash: c.hash, players, ...(c.gameId === undefined ? {} : { gameId: c.gameId }) };
    // One line per game: the JSON text never holds a raw newline.
    return { verdict: judge(game), ids: players.ids, text: Buffer.concat([...judgeInputChunks(game)]).subarray(0, -1) };
  });
  const verdicts = pythonLines(judged.map((j) => j.text));
  judged.forEach((j, k) => expect(verdicts[k], `game ${k}`).toEqual(judgeOutput(j.ids, j.verdict)));
  return judged.map((j) => j.verdict);
}

const honest = (count: number, prefix = 'p'): SimulatedPlayer[] => Array.from({ length: count }, (_, k) => ({ id: `${prefix}${k}` }));
const everyCheat: SimulatedPlayer[] = CONDUCTS.map((conduct, k) => ({ id: `${conduct}-${k}`, conduct }));

describe('the TypeScript and Python judges agree', () => {
  it('on honest games for N = 3, 5, 101, 2^31 - 1, 2^32 + 1 and 2^127 - 1, with every hash', () => {
    const cases = [3, 5, 101, 2 ** 31 - 1, 2n ** 32n + 1n, (2n ** 127n - 1n).toString()].flatMap((N) =>
      HASH_NAMES.map((hash) => ({ N, hash, lineup: honest(6), seed: `honest ${N} ${hash}` })),
    );
    expect(agree(cases).every((v) => v.outcome === 'winner')).toBe(true);
  });

  it('on games with every kind of disqualification, plain and fairtable', () => {
    const cases = [3, 257, 2 ** 31 - 1, 2n ** 64n + 1n].flatMap((N) =>
      [undefined, 'fair-1'].map((gameId) => ({
        N,
        hash: 'sha-256' as const,
        lineup: [...honest(3, 'h'), ...everyCheat, ...honest(3, 'k')],
        seed: `cheats ${N} ${gameId}`,
        ...(gameId === undefined ? {} : { gameId }),
      })),
    );
    const verdicts = agree(cases);
    verdicts.forEach((v, k) => expect(v.disqualified.length).toBe(cases[k]!.gameId === undefined ? 13 : 14));
  });

  it('on ties that force several rounds (N = 3)', () => {
    const cases = Array.from({ length: 12 }, (_, i) => ({ N: 3, hash: HASH_NAMES[i % 4]!, lineup: honest(3 + (i % 5)), seed: `ties ${i}` }));
    expect(Math.max(...agree(cases).map((v) => v.rounds.length))).toBeGreaterThanOrEqual(3);
  });

  it('on many players', () => {
    const twice = [...everyCheat, ...everyCheat.map((p) => ({ ...p, id: `${p.id}'` }))];
    const [crowd] = agree([
      { N: 3, hash: 'sha-256', lineup: honest(200), seed: 'crowd' },
      { N: 2 ** 31 - 1, hash: 'sha-512', gameId: 'crowd', lineup: [...honest(120), ...twice], seed: 'crowd 2' },
    ]);
    expect(crowd!.rounds[0]!.players.length).toBe(200);
  });

  it('on random games', () => {
    const conduct = fc.oneof({ weight: 8, arbitrary: fc.constant<Conduct>('honest') }, { weight: 2, arbitrary: fc.constantFrom(...CONDUCTS) });
    const game = fc.record({
      N: fc.oneof(
        fc.integer({ min: 1, max: 2 ** 30 }).map((h) => 2 * h + 1),
        fc.bigInt({ min: 2n ** 31n, max: 2n ** 90n }).map((h) => 2n * h + 1n),
      ),
      hash: fc.constantFrom(...HASH_NAMES),
      gameId: fc.option(fc.string({ unit: 'grapheme', maxLength: 8 })),
      conducts: fc.array(conduct, { maxLength: 10 }),
      seed: fc.string(),
    });
    const cases = fc.sample(game, { numRuns: 150, seed: 20260401 }).map(({ N, hash, gameId, conducts, seed }) => ({
      N,
      hash,
      seed,
      lineup: conducts.map((c, k) => ({ id: `player ${k} ✓`, conduct: c })),
      ...(gameId === null ? {} : { gameId }),
    }));
    agree(cases);
  });

  it('on the frozen vectors', () => {
    const verdicts = pythonLines(vectors.games.map((v) => new TextEncoder().encode(JSON.stringify(v.input))));
    vectors.games.forEach((v, k) => expect(verdicts[k], v.name).toEqual(v.output));
  });

  it('and the Python judge refuses unreadable input with exit code 2', () => {
    for (const text of ['nope', '{"N": 4, "players": []}', '{"N": 5, "players": [{"id": "a", "commit": "abc"}]}', '{"N": 5, "N": 7, "players": []}']) {
      const run = python(text);
      expect(run.status, text).toBe(2);
      expect(run.stderr, text).not.toBe('');
    }
  });
});
