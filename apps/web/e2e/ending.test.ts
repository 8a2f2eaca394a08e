/**
 * Why a game ended, in its own terms (apps/web/src/ending.ts, docs/spec/web.md §4): each game the lobby offers,
 * played by the simulator, ends with a sentence that ranks the players by the game's own measure, the winner
 * first, and names a player who left by running out of time, never an honest one.
 */
import { describe, expect, it } from 'vitest';
import { Referee } from '@fairtable/core/referee.js';
import { simulate, type SimOptions } from '@fairtable/core/testing';
import { taggedHash } from '@fairtable/core/hash.js';
import { utf8 } from '@fairtable/core/bytes.js';
import { endingWhy } from '../src/ending.js';
import { outcomeHeadline } from '../src/labels.js';

function ending(name: string, options: Omit<SimOptions, 'seed'>): { why: string | null; headline: string; winners: readonly string[] } {
  const res = simulate({ seed: taggedHash('ending', utf8(name)), ...options } as SimOptions);
  expect(res.outcome).not.toBeNull();
  const referee = new Referee(res.lines[0]!, null);
  for (let i = 1; i < res.lines.length; i++) referee.feedText(i, res.lines[i]!);
  const setup = referee.checker.setup;
  return {
    why: endingWhy(setup.protocol, setup.game, res.outcome!, referee.state),
    headline: outcomeHeadline(res.outcome!.winners, setup.protocol),
    winners: res.outcome!.winners,
  };
}

describe('the ending says why, in the game’s terms', () => {
  it('dice: the totals, the winner first', () => {
    const e = ending('dice', { protocol: 'dice', players: 3, turns: 3 });
    expect(e.why).toMatch(/^The highest total wins: p\d \d+, p\d \d+, p\d \d+\.$/);
    if (e.winners.length === 1) expect(e.why).toMatch(new RegExp(`^The highest total wins: ${e.winners[0]} `));
  });

  it('Snakes & Ladders: who reached 100, or the squares when the rounds ran out', () => {
    const e = ending('snakes', { protocol: 'snakes', players: 2, turns: 5 });
    expect(e.why).toMatch(
      /^(p\d reached square 100 first\.|Nobody reached square 100 in the rounds played: the furthest along wins\.) Squares: p\d \d+, p\d \d+\.$/,
    );
  });

  it('Monopoly: the net worths after the rounds, the winner first', () => {
    const e = ending('monopoly', { protocol: 'monopoly', players: 2, turns: 3 });
    expect(e.why).toMatch(/^(The richest after 3 rounds wins: net worth p\d \$[\d,]+, p\d \$[\d,]+\.|Everyone else went bankrupt\.)$/);
    if (e.winners.length === 1 && e.why!.startsWith('The richest')) expect(e.why).toContain(`net worth ${e.winners[0]} `);
  });

  it('Rochambeau: decided by the draft', () => {
    const e = ending('rochambeau', { protocol: 'rochambeau', players: 3 });
    expect(e.why).toMatch(/^Decided by the draft after \d+ rounds? of 3 states\.$/);
  });

  it('roulette: the balances, highest first', () => {
    const e = ending('signidice', { protocol: 'signidice', players: 3, turns: 2 });
    expect(e.why).toMatch(/^After 2 rounds the balances are \w+ -?\d+(, \w+ -?\d+)*\.$/);
    const values = [...e.why!.split(' are ')[1]!.matchAll(/\w+ (-?\d+)/g)].map((m) => Number(m[1]));
    expect(values).toEqual([...values].sort((a, b) => b - a));
  });

  it('a player who went silent is named as out of time, and nobody else', () => {
    const e = ending('dice-silent', { protocol: 'dice', players: 3, turns: 3, cheat: 'withhold', cheater: 'p2' });
    expect(e.why).toMatch(/ p2 ran out of time and left the game\.$/);
    expect(e.why).not.toMatch(/p0 ran out|p1 ran out|broke a rule/);
  });
});
