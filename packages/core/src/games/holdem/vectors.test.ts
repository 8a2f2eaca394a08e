/**
 * The vectors of docs/spec/holdem.md §8 (`vectors/holdem-hands.json`): card
 * names, best hands with their keys, and showdowns' pots and shares, each
 * recomputed from its inputs and compared value by value; the file itself is
 * checked to be the one the spec describes, line by line.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cardCode, cardName, parseCard } from './cards.js';
import { awardPots, buildPots } from './pots.js';
import { bestHand, CATEGORIES } from './rank.js';

interface Vectors {
  cards: { index: number; code: string; name: string }[];
  rankings: { description: string; cards: string[]; indices: number[]; category: number; name: string; ranks: number[]; key: number; best: string[] }[];
  showdowns: {
    description: string;
    seats: string[];
    button: string;
    board: string[];
    holes: Record<string, string[]>;
    committed: Record<string, number>;
    folded: string[];
    pots: { amount: number; eligible: string[]; winners: string[]; shares: Record<string, number> }[];
    won: Record<string, number>;
  }[];
}

const text = readFileSync(new URL('../../vectors/holdem-hands.json', import.meta.url), 'utf8');
const vectors = JSON.parse(text) as Vectors;

describe('holdem vectors', () => {
  it('card indices, ASCII codes and names', () => {
    expect(vectors.cards.length).toBeGreaterThan(0);
    for (const v of vectors.cards) {
      expect(cardCode(v.index)).toBe(v.code);
      expect(cardName(v.index)).toBe(v.name);
      expect(parseCard(v.code)).toBe(v.index);
      expect(parseCard(v.name)).toBe(v.index);
    }
  });

  it('best five of seven: category, tie-break ranks, key and the five cards', () => {
    expect(vectors.rankings.length).toBeGreaterThanOrEqual(15);
    for (const v of vectors.rankings) {
      expect(v.cards.map(parseCard), v.description).toEqual(v.indices);
      const r = bestHand(v.indices);
      expect({ category: r.category, name: r.name, ranks: r.ranks, key: r.key, best: r.cards.map(cardCode) }, v.description).toEqual({
        category: v.category,
        name: v.name,
        ranks: v.ranks,
        key: v.key,
        best: v.best,
      });
      // the key is the formula of §2, so another language can rebuild it from the category and ranks
      expect(v.key).toBe([v.category, ...v.ranks, 0, 0, 0, 0, 0].slice(0, 6).reduce((k, x) => k * 16 + x, 0));
      expect(CATEGORIES[v.category]).toBe(v.name);
    }
  });

  it('showdowns: pots, winners and shares', () => {
    for (const v of vectors.showdowns) {
      const live = v.seats.filter((p) => !v.folded.includes(p));
      const board = v.board.map(parseCard);
      const keys = Object.fromEntries(live.map((p) => [p, bestHand([...v.holes[p]!.map(parseCard), ...board]).key]));
      const { awards, won } = awardPots(buildPots(v.seats, v.committed, live), keys, v.seats, v.button);
      expect(awards, v.description).toEqual(v.pots);
      expect(won, v.description).toEqual(v.won);
      const paid = Object.values(v.won).reduce((s, x) => s + x, 0);
      expect(paid).toBe(Object.values(v.committed).reduce((s, x) => s + x, 0));
    }
  });

  it('the file is laid out one vector a line, as published', () => {
    const lines = text.split('\n');
    expect(lines.at(-1)).toBe('');
    const oneLine = lines.filter((l) => l.startsWith('    {'));
    expect(oneLine).toHaveLength(vectors.cards.length + vectors.rankings.length + vectors.showdowns.length);
    for (const l of oneLine) expect(() => JSON.parse(l.trim().replace(/,$/, '')) as unknown).not.toThrow();
  });
});
