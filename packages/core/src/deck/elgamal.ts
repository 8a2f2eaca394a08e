/**
 * Cards as ElGamal ciphertexts under the joint key (docs/spec/deck.md §4).
 *
 * Card i (0-based) is the point M_i = hashToCurve("fairtable/deck/card/<i>"), a public mapping anyone
 * recomputes. A ciphertext is (A, B) = (r·G, M + r·Y) for the joint key Y; re-encrypting adds
 * (r'·G, r'·Y), which changes both halves and keeps the card. The deck as made is the trivial encryption
 * (O, M_i) of each card in order; the first shuffle hides it.
 */
import { FairtableError } from '../errors.js';
import { ZERO, labelPoint, mul, mulBase, pointFromHex, pointHex, type RPoint } from './group.js';

/** A ciphertext on the wire: two points, hex. */
export interface Ciphertext {
  readonly a: string;
  readonly b: string;
}

/** A ciphertext decoded. */
export interface Pair {
  readonly a: RPoint;
  readonly b: RPoint;
}

export const MAX_CARDS = 1024;

/** The point of card i. */
export function cardPoint(i: number): RPoint {
  if (!Number.isSafeInteger(i) || i < 0 || i >= MAX_CARDS)
    throw new FairtableError('out_of_range', `card ${i}: cards are 0..${MAX_CARDS - 1}`, { field: 'card' });
  return labelPoint(`fairtable/deck/card/${i}`);
}

const tables = new Map<number, Map<string, number>>();
/** Which card of a deck of `size` a point is, or null when it is none. */
export function cardOf(m: RPoint, size: number): number | null {
  let table = tables.get(size);
  if (table === undefined) {
    table = new Map(Array.from({ length: size }, (_, i) => [pointHex(cardPoint(i)), i]));
    tables.set(size, table);
  }
  return table.get(pointHex(m)) ?? null;
}

/** The deck as made: card i at position i, encrypted with randomness 0 (public). */
export function newDeck(size: number): Ciphertext[] {
  if (!Number.isSafeInteger(size) || size < 2 || size > MAX_CARDS)
    throw new FairtableError('out_of_range', `a deck of ${size}: 2..${MAX_CARDS} cards`, { field: 'size' });
  return Array.from({ length: size }, (_, i) => ({ a: pointHex(ZERO), b: pointHex(cardPoint(i)) }));
}

export function decodeDeck(deck: readonly Ciphertext[]): Pair[] {
  return deck.map((c, i) => ({ a: pointFromHex(c.a, `deck[${i}].a`), b: pointFromHex(c.b, `deck[${i}].b`) }));
}

export const encodePair = (p: Pair): Ciphertext => ({ a: pointHex(p.a), b: pointHex(p.b) });

/** Encrypts card `card` to `key` with randomness r. */
export function encrypt(key: RPoint, card: number, r: bigint): Pair {
  return { a: mulBase(r), b: cardPoint(card).add(mul(key, r)) };
}

/** Re-encrypts with randomness r: (A + r·G, B + r·Y). */
export function reEncrypt(key: RPoint, c: Pair, r: bigint): Pair {
  return { a: c.a.add(mulBase(r)), b: c.b.add(mul(key, r)) };
}
