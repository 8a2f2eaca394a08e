/**
 * The home page's "Your games" summaries (docs/spec/web.md §3.1), on simulated games: opponents with their keys'
 * fingerprints, whose turn or the result, the time left from receipt times, and the offer a rematch makes. No
 * browser: the module is plain TypeScript over the core's referee.
 */
import { describe, expect, it } from 'vitest';
import { utf8 } from '@fairtable/core/bytes.js';
import { offeredSetup, type Offer } from '@fairtable/core/lobby.js';
import { simulate } from '@fairtable/core/testing';
import type { GameSetup } from '@fairtable/core/setup.js';
import { offerOf, summarize, timeLeftWords } from '../src/your-games.js';

const setupOf = (lines: readonly string[]): GameSetup => (JSON.parse(lines[0]!) as { body: { setup: GameSetup } }).body.setup;
const receipts = (n: number) => Array.from({ length: n }, (_, i) => ({ time: 1_000_000 + 10 * i }));

describe('your games', () => {
  it('a finished dice game: the opponents by name and fingerprint, the result from this seat, a rematch of the same offer', () => {
    const sim = simulate({ protocol: 'dice', players: 3, seed: utf8('your-games-dice'), turns: 2, params: { roll: '3d6+2' } });
    const s = summarize('g1', 'p0', sim.lines, receipts(sim.lines.length));
    const setup = setupOf(sim.lines);
    expect(s.finished).toBe(true);
    expect(s.opponents).toEqual(setup.players.filter((p) => p.id !== 'p0').map((p) => ({ id: p.id, fingerprint: p.key.slice(0, 8) })));
    const winners = sim.outcome!.winners;
    const expected =
      winners.length === 1
        ? winners[0] === 'p0'
          ? 'You won'
          : `${winners[0]!} won`
        : `A tie: ${winners
            .map((w) => (w === 'p0' ? 'you' : w))
            .join(', ')
            .replace(/, ([^,]*)$/, ' and $1')} share the win`;
    expect(s.state).toBe(expected);
    expect(s.deadline).toBeNull();
    expect(s.label).toBe('Dice (highest total wins)');
    expect(s.rematch).toEqual({ offer: { protocol: 'dice', rounds: 2, states: 3, timeoutMs: 2000, roll: '3d6+2' }, seats: ['p0', 'p1', 'p2'] });
    // The rematch's offer makes the same kind of setup again.
    const again = offeredSetup(s.rematch!.offer, 3);
    expect([again.protocol, again.game, again.params.rounds, again.params.roll]).toEqual([setup.protocol, setup.game, 2, '3d6+2']);
  });

  it('a game in progress: whose turn, and the time left counted from the receipt times', () => {
    const sim = simulate({ protocol: 'dice', players: 2, seed: utf8('your-games-turn'), turns: 3 });
    // The log cut after the first moves: the game is still on.
    const cut = sim.lines.slice(0, 6);
    const s = summarize('g2', 'p1', cut, receipts(cut.length));
    expect(s.finished).toBe(false);
    expect(s.state).toMatch(/^(Your turn|p0's turn)$/);
    expect(s.deadline).not.toBeNull();
    expect(s.deadline!).toBeGreaterThan(1_000_000);
    expect(summarize('g2', 'p0', cut, receipts(cut.length)).state).toBe(s.state === 'Your turn' ? "p1's turn" : 'Your turn');
  });

  it('Rochambeau before every pick is in: who has not picked; roulette: only the house may rematch', () => {
    const r = simulate({ protocol: 'rochambeau', players: 3, seed: utf8('your-games-hands') });
    expect(summarize('g3', 'p0', r.lines.slice(0, 1), []).state).toBe('Your move');
    const full = summarize('g3', 'p2', r.lines, []);
    expect(full.finished).toBe(true);
    expect(full.rematch?.offer).toEqual({ protocol: 'rochambeau', rounds: 3, states: 3, timeoutMs: 2000 });
    const wheel = simulate({ protocol: 'signidice', players: 2, seed: utf8('your-games-wheel'), turns: 1 });
    const players = setupOf(wheel.lines).players.map((p) => p.id);
    const player = players.find((p) => p !== 'house')!;
    expect(summarize('g4', player, wheel.lines, []).rematch).toBeNull();
    expect(summarize('g4', 'house', wheel.lines, []).rematch?.offer.protocol).toBe('signidice');
  });

  it('a setup no lobby offer makes has no rematch', () => {
    const setup = setupOf(simulate({ protocol: 'dice', players: 2, seed: utf8('your-games-odd'), turns: 1 }).lines);
    expect(offerOf({ ...setup, params: { ...setup.params, timeoutMs: 10 } })).toBeNull();
    expect(offerOf({ ...setup, params: { ...setup.params, rounds: 500 } })).toBeNull();
    const ok: Offer = { protocol: 'dice', rounds: 1, states: 3, timeoutMs: 2000 };
    expect(offerOf(setup)).toEqual(ok);
  });

  it('time left in words', () => {
    expect(timeLeftWords(10_000, 0)).toBe('10 s left');
    expect(timeLeftWords(150_000, 0)).toBe('2 min left');
    expect(timeLeftWords(3 * 86_400_000, 0)).toBe('3 days left');
    expect(timeLeftWords(0, 5)).toBe('time is up');
  });
});
