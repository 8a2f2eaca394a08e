import { describe, expect, it } from 'vitest';
import vectors from './vectors/judge-vectors.json' with { type: 'json' };
import { fromHex, toHex } from '../bytes.js';
import { nonceBinding } from './binding.js';
import { judge, judgePairwise } from './judge.js';
import { judgeOutput, readJudgeInput } from './judge-json.js';

/** The frozen vectors (vectors/judge-vectors.json; source named in the file) still come out the same. */
describe('judge vectors', () => {
  it('cover several rounds, every disqualification code, large N and every hash', () => {
    const outputs = vectors.games.map((g) => g.output);
    expect(Math.max(...outputs.map((o) => o.rounds.length))).toBeGreaterThanOrEqual(3);
    expect(new Set(outputs.flatMap((o) => o.disqualified.map((d) => d.code))).size).toBe(10);
    expect(new Set(vectors.games.map((g) => g.input.hash))).toEqual(new Set(['sha-256', 'sha-384', 'sha-512', 'sha3-256']));
  });

  for (const vector of vectors.games) {
    it(`${vector.name}: ${vector.description}`, () => {
      const players = vector.input.players.map((p) => ({
        id: p.id,
        commit: p.commit === null ? null : fromHex(p.commit),
        reveal: p.reveal === null ? null : fromHex(p.reveal),
      }));
      const game = { N: vector.input.N, hash: vector.input.hash as 'sha-256', players, ...('game' in vector.input ? { gameId: vector.input.game } : {}) };
      const ids = players.map((p) => p.id);
      expect(judgeOutput(ids, judge(game))).toEqual(vector.output);
      expect(judgeOutput(ids, judgePairwise(game))).toEqual(vector.output);
      const input = readJudgeInput(new TextEncoder().encode(JSON.stringify(vector.input)));
      expect(judgeOutput(input.players.ids, judge(input))).toEqual(vector.output);
    });
  }

  it('bindings', () => {
    for (const { game, player, binding } of vectors.bindings) expect(toHex(nonceBinding(game, player))).toBe(binding);
  });
});
