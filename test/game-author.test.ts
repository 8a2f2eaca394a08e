/**
 * A game author adds a game from outside fairtable, through the package's public entry points only: a
 * `ChanceGame` with its own actions, a registry that plays it on the chain protocol, the simulator's
 * automatic players choosing the actions, and the auditor checking the result with the same registry.
 */
import { describe, expect, it } from 'vitest';
import { Auditor, createRegistry, FairtableError, type ChanceGame } from '@fairtable/core';
import { simulate } from '@fairtable/core/testing';

interface Guessing {
  readonly players: readonly string[];
  readonly points: Readonly<Record<string, number>>;
  readonly turns: number;
}

/** Each turn the mover calls a coin and scores a point when the fair coin agrees; three rounds. */
const guessing: ChanceGame<Guessing> = {
  name: 'guessing',
  init: (players) => ({ players: [...players], points: Object.fromEntries(players.map((p) => [p, 0])), turns: 0 }),
  actions: () => ({ type: 'one-of', values: ['heads', 'tails'] }),
  play(state, mover, chance, action) {
    if (action !== 'heads' && action !== 'tails') throw new FairtableError('illegal_choice', 'call heads or tails');
    const coin = chance.below(2) === 0 ? 'heads' : 'tails';
    const scored = coin === action ? 1 : 0;
    return {
      state: { ...state, points: { ...state.points, [mover]: state.points[mover]! + scored }, turns: state.turns + 1 },
      summary: { call: action, coin, scored },
    };
  },
  winners(state) {
    if (state.turns < 3 * state.players.length) return null;
    const best = Math.max(...state.players.map((p) => state.points[p]!));
    return state.players.filter((p) => state.points[p] === best);
  },
  forfeit: (state, player) => ({ ...state, players: state.players.filter((p) => p !== player) }),
};

describe('a game from outside fairtable', () => {
  const registry = createRegistry({ games: [guessing as ChanceGame<unknown>] });

  it('is played on the chain protocol, its players choosing their calls, and audited with the same registry', () => {
    const r = simulate({ protocol: 'chain', game: 'guessing', players: 2, seed: new Uint8Array(32).fill(5), registry });
    const moves = r.lines.map((l) => JSON.parse(l) as { body: { type: string; action?: unknown } }).filter((e) => e.body.type === 'move');
    expect(moves).toHaveLength(6);
    for (const m of moves) expect(['heads', 'tails']).toContain(m.body.action);
    const auditor = new Auditor(r.lines[0]!, { registry });
    for (const line of r.lines.slice(1)) auditor.add(line);
    const v = auditor.verdict();
    expect(v.valid).toBe(true);
    expect((v.outcome!.summary as { game: string }).game).toBe('guessing');
  });

  it('is unknown to a registry that does not hold it', () => {
    const r = simulate({ protocol: 'chain', game: 'guessing', players: 2, seed: new Uint8Array(32).fill(5), registry });
    expect(() => new Auditor(r.lines[0]!)).toThrow(/unknown game "guessing"/);
  });
});
