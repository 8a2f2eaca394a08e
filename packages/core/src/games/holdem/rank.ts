/**
 * Hand ranking (docs/spec/holdem.md §2): the best five of five to seven cards.
 *
 * A five-card hand's category is 0 high card, 1 one pair, 2 two pair, 3 three
 * of a kind, 4 straight, 5 flush, 6 full house, 7 four of a kind, 8 straight
 * flush (a royal flush is the ace-high straight flush). Its tie-break ranks
 * are its ranks grouped by how many times each appears, larger groups first
 * and higher ranks first within a size (two pair 9-9-4-4-K gives 9, 4, 13); a
 * straight's only tie-break is its top card, 5 for the wheel A-2-3-4-5. The
 * key `category × 16⁵ + Σ rᵢ × 16^(4 − i)` over the tie-breaks r₀, r₁, … orders
 * every hand: a higher key wins, equal keys tie (suits never break a tie).
 */
import { FairtableError } from '../../errors.js';
import { isCard } from './cards.js';

export const CATEGORIES = [
  'high card',
  'one pair',
  'two pair',
  'three of a kind',
  'straight',
  'flush',
  'full house',
  'four of a kind',
  'straight flush',
] as const;

export type Category = (typeof CATEGORIES)[number];

export interface HandRank {
  /** 0 high card .. 8 straight flush. */
  readonly category: number;
  readonly name: Category;
  /** The tie-break ranks, most significant first. */
  readonly ranks: readonly number[];
  /** Higher wins; equal keys split. */
  readonly key: number;
  /** The five cards that make the hand (the first best five, in the order the cards were given). */
  readonly cards: readonly number[];
}

function keyOf(category: number, ranks: readonly number[]): number {
  let key = category;
  for (let i = 0; i < 5; i++) key = key * 16 + (ranks[i] ?? 0);
  return key;
}

/** The category and tie-break ranks of five valid cards (no checks: the callers check). */
function score(cards: readonly number[]): { category: number; ties: number[] } {
  // ranks high to low (insertion sort of five), and whether all five share a suit
  const r: number[] = [];
  let flush = true;
  for (const c of cards) {
    const x = (c >> 2) + 2;
    let i = r.length;
    while (i > 0 && r[i - 1]! < x) i--;
    r.splice(i, 0, x);
    if ((c & 3) !== (cards[0]! & 3)) flush = false;
  }
  // runs of equal ranks, then the larger runs first (stable: higher ranks first within a size)
  const groups: [number, number][] = [];
  for (const x of r) {
    const last = groups[groups.length - 1];
    if (last !== undefined && last[0] === x) last[1]++;
    else groups.push([x, 1]);
  }
  groups.sort((a, b) => b[1] - a[1]);
  const ties = groups.map((g) => g[0]);
  if (groups.length === 5) {
    const top = r[0]! - r[4]! === 4 ? r[0]! : r[0] === 14 && r[1] === 5 ? 5 : 0;
    if (top > 0) return { category: flush ? 8 : 4, ties: [top] };
    return { category: flush ? 5 : 0, ties };
  }
  if (flush) return { category: 5, ties };
  const most = groups[0]![1];
  const category = most === 4 ? 7 : most === 3 ? (groups.length === 2 ? 6 : 3) : groups.length === 3 ? 2 : 1;
  return { category, ties };
}

/** The rank of exactly five cards. */
export function rankFive(cards: readonly number[]): HandRank {
  if (cards.length !== 5) throw new FairtableError('bad_length', `a poker hand is five cards, not ${cards.length}`, { field: 'cards' });
  if (!cards.every(isCard)) throw new FairtableError('out_of_range', 'a card is an integer in [0, 51]', { field: 'cards' });
  const { category, ties } = score(cards);
  return { category, name: CATEGORIES[category]!, ranks: ties, key: keyOf(category, ties), cards: [...cards] };
}

/** The best five of five to seven distinct cards. */
export function bestHand(cards: readonly number[]): HandRank {
  if (cards.length < 5 || cards.length > 7)
    throw new FairtableError('bad_length', `the best hand is chosen from 5 to 7 cards, not ${cards.length}`, { field: 'cards' });
  if (!cards.every(isCard)) throw new FairtableError('out_of_range', 'a card is an integer in [0, 51]', { field: 'cards' });
  if (new Set(cards).size !== cards.length) throw new FairtableError('bad_input', 'the same card appears twice', { field: 'cards' });
  const n = cards.length;
  let best: HandRank | null = null;
  for (let a = 0; a < n; a++)
    for (let b = a + 1; b < n; b++)
      for (let c = b + 1; c < n; c++)
        for (let d = c + 1; d < n; d++)
          for (let e = d + 1; e < n; e++) {
            const five = [cards[a]!, cards[b]!, cards[c]!, cards[d]!, cards[e]!];
            const { category, ties } = score(five);
            const key = keyOf(category, ties);
            if (best === null || key > best.key) best = { category, name: CATEGORIES[category]!, ranks: ties, key, cards: five };
          }
  return best!;
}

/** `two pair, nines and fours, king kicker`-style words are left to a UI; this is `two pair (9 4 K)`. */
export function describeRank(r: HandRank): string {
  const names = r.ranks.map((x) => (x <= 10 ? String(x) : 'JQKA'[x - 11]!));
  return `${r.name} (${names.join(' ')})`;
}
