/**
 * Monopoly's rules (docs/SPEC.md §8) on scripted draws, against results worked
 * out by hand. Every seat runs the same game code, so honest-agreement tests
 * cannot catch a wrong rule; these can. A script is a list of `[n, value]`
 * draws: a die showing d is `[6, d − 1]`, the k-th of the Y cards left in a
 * pile (canonical order) is `[Y, k]`.
 */
import { describe, expect, it } from 'vitest';
import { ScriptedChance } from '../chance.js';
import { CHANCE, COMMUNITY_CHEST, monopolyChanceGame, type MonopolyState } from './monopoly-chance.js';

const die = (d: number): [number, number] => [6, d - 1];
const roll = (a: number, b: number): [number, number][] => [die(a), die(b)];

function state(over: Partial<MonopolyState> = {}, players = ['a', 'b', 'c']): MonopolyState {
  return { ...monopolyChanceGame.init(players, {}), ...over };
}

/** Plays a's turn on exactly the given draws (a script left over, or too short, fails the test). */
function play(s: MonopolyState, draws: [number, number][], mover = 'a'): MonopolyState {
  const chance = new ScriptedChance(draws);
  const next = monopolyChanceGame.play(s, mover, chance, null).state;
  expect(chance.exhausted).toBe(true);
  return next;
}

const chanceIndex = (prefix: string): number => CHANCE.findIndex((c) => c.text.startsWith(prefix));
const chestIndex = (prefix: string): number => COMMUNITY_CHEST.findIndex((c) => c.text.startsWith(prefix));

describe('the piles in canonical order', () => {
  it('sorts each pile by the wording, in UTF-16 order (capitals before small letters)', () => {
    expect(CHANCE.map((c) => c.text.slice(0, 14))).toEqual([
      'Advance to Boa',
      'Advance to Go ',
      'Advance to Ill',
      'Advance to St.',
      'Advance to the',
      'Advance to the',
      'Advance token ',
      'Bank pays you ',
      'Get Out of Jai',
      'Go Back 3 Spac',
      'Go to Jail. Go',
      'Make general r',
      'Speeding fine ',
      'Take a trip to',
      'You have been ',
      'Your building ',
    ]);
    expect(COMMUNITY_CHEST.map((c) => c.text.slice(0, 10))).toEqual([
      'Advance to',
      'Bank error',
      "Doctor's f",
      'From sale ',
      'Get Out of',
      'Go to Jail',
      'Holiday fu',
      'Income tax',
      'It is your',
      'Life insur',
      'Pay hospit',
      'Pay school',
      'Receive $2',
      'You are as',
      'You have w',
      'You inheri',
    ]);
  });
});

describe('moving and Go', () => {
  it('passing Go collects $200', () => {
    const s = play(state({ positions: { a: 36, b: 0, c: 0 } }), roll(2, 3));
    expect(s.positions.a).toBe(1);
    expect(s.cash.a).toBe(1700);
  });

  it('landing exactly on Go collects $200', () => {
    const s = play(state({ positions: { a: 37, b: 0, c: 0 } }), roll(1, 2));
    expect(s.positions.a).toBe(0);
    expect(s.cash.a).toBe(1700);
  });

  it('taxes: $200 on square 4, $100 on square 38', () => {
    expect(play(state(), roll(1, 3)).cash.a).toBe(1300);
    expect(play(state({ positions: { a: 35, b: 0, c: 0 } }), roll(1, 2)).cash.a).toBe(1400);
  });

  it('doubles roll again; a non-double ends the turn', () => {
    const s = play(state(), [...roll(3, 3), ...roll(1, 2)]);
    expect(s.positions.a).toBe(9);
    expect(s.turns).toBe(1);
  });

  it('the third double in one turn goes to jail without moving', () => {
    const s = play(state(), [...roll(3, 3), ...roll(4, 4), ...roll(5, 5)]);
    expect(s.positions.a).toBe(10);
    expect(s.inJail.a).toBe(0);
    expect(s.cash.a).toBe(1500);
  });

  it('Go To Jail (square 30) ends the turn even after a double', () => {
    const s = play(state({ positions: { a: 24, b: 0, c: 0 } }), roll(3, 3));
    expect(s.positions.a).toBe(10);
    expect(s.inJail.a).toBe(0);
    expect(s.cash.a).toBe(1500); // passing nothing, collecting nothing
  });

  it('a Go to Jail card ends the turn even after a double', () => {
    // 1 + 1 = 2 is Community Chest; the jail card is the 6th in canonical order.
    const s = play(state(), [...roll(1, 1), [16, chestIndex('Go to Jail')]]);
    expect(s.positions.a).toBe(10);
    expect(s.inJail.a).toBe(0);
  });
});

describe('jail', () => {
  const jailed = (tries: number): MonopolyState => state({ positions: { a: 10, b: 0, c: 0 }, inJail: { a: tries } });

  it('a failed try stays in jail and counts', () => {
    const s = play(jailed(0), roll(1, 2));
    expect(s.positions.a).toBe(10);
    expect(s.inJail.a).toBe(1);
    expect(play(s, roll(5, 6)).inJail.a).toBe(2);
  });

  it('doubles get out and move by that roll, with no extra roll', () => {
    const s = play(jailed(1), roll(3, 3));
    expect(s.inJail.a).toBeUndefined();
    expect(s.positions.a).toBe(16);
    expect(s.cash.a).toBe(1500);
  });

  it('the third failed try pays $50 and moves by the roll', () => {
    const s = play(jailed(2), roll(1, 2));
    expect(s.inJail.a).toBeUndefined();
    expect(s.positions.a).toBe(13);
    expect(s.cash.a).toBe(1450);
  });

  it('doubles on the third try get out without paying', () => {
    const s = play(jailed(2), roll(2, 2));
    expect(s.positions.a).toBe(14);
    expect(s.cash.a).toBe(1500);
  });

  it('paying out on the third try onto a card square draws the card', () => {
    // 10 + 3 + 4 = 17, Community Chest; "Bank error" is card 1.
    const out = play(jailed(2), [...roll(3, 4), [16, chestIndex('Bank error')]]);
    expect(out.positions.a).toBe(17);
    expect(out.cash.a).toBe(1500 - 50 + 200);
  });
});

describe('Get Out of Jail Free', () => {
  it('is kept when drawn, leaving the pile', () => {
    const k = chanceIndex('Get Out of Jail Free');
    const s = play(state(), [...roll(3, 4), [16, k]]);
    expect(s.positions.a).toBe(7);
    expect(s.held.a).toEqual([CHANCE[k]!.text]);
    expect(s.piles.chance).toHaveLength(15);
    expect(s.piles.chance).not.toContain(k);
  });

  it('is used in jail before any try, goes back to its pile, and the turn is a normal one', () => {
    const k = chanceIndex('Get Out of Jail Free');
    const drawn = play(state(), [...roll(3, 4), [16, k]]);
    const jailed: MonopolyState = { ...drawn, positions: { ...drawn.positions, a: 10 }, inJail: { a: 0 } };
    // A normal turn after the card: a double rolls again.
    const s = play(jailed, [...roll(2, 2), ...roll(2, 3)]);
    expect(s.inJail.a).toBeUndefined();
    expect(s.held.a).toEqual([]);
    expect(s.piles.chance).toEqual(CHANCE.map((_, i) => i));
    expect(s.positions.a).toBe(10 + 4 + 5);
  });

  it('a pile that runs out is refilled without the cards players hold', () => {
    const k = chanceIndex('Get Out of Jail Free');
    const s0 = state({ piles: { chance: [], chest: COMMUNITY_CHEST.map((_, i) => i) }, held: { b: [CHANCE[k]!.text] } });
    // 15 cards come back (the held one stays with b); the first is Advance to Boardwalk.
    const s = play(s0, [...roll(3, 4), [15, 0]]);
    expect(s.positions.a).toBe(39);
    expect(s.piles.chance).toHaveLength(14);
    expect(s.piles.chance).not.toContain(k);
    expect(s.piles.chance).not.toContain(chanceIndex('Advance to Boardwalk'));
  });

  it('the next draw is from the cards left: a drawn card is not drawn again until the refill', () => {
    const s1 = play(state(), [...roll(3, 4), [16, chanceIndex('Bank pays')]]);
    expect(s1.cash.a).toBe(1550);
    // From 7 again: 15 cards left; index 7 is now "Get Out of Jail Free" (Bank pays was 7).
    const back = { ...s1, positions: { ...s1.positions, b: 0 } };
    const s2 = play(back, [...roll(3, 4), [15, 7]], 'b');
    expect(s2.held.b).toEqual([CHANCE[chanceIndex('Get Out of Jail Free')]!.text]);
  });
});

describe('every Chance card', () => {
  // [card, start square, roll, expected square, expected cash of a, of b, in jail]
  type Row = [string, number, [number, number], number, number, number, boolean];
  const rows: Row[] = [
    ['Advance to Boardwalk', 0, [3, 4], 39, 1500, 1500, false],
    ['Advance to Go', 0, [3, 4], 0, 1700, 1500, false],
    ['Advance to Illinois', 0, [3, 4], 24, 1500, 1500, false],
    ['Advance to Illinois', 29, [3, 4], 24, 1700, 1500, false],
    ['Advance to St. Charles', 0, [3, 4], 11, 1500, 1500, false],
    ['Advance to St. Charles', 15, [3, 4], 11, 1700, 1500, false],
    ['Advance to the nearest Railroad (1)', 0, [3, 4], 15, 1500, 1500, false],
    ['Advance to the nearest Railroad (2)', 15, [3, 4], 25, 1500, 1500, false],
    ['Advance to the nearest Railroad (1)', 29, [3, 4], 5, 1700, 1500, false],
    ['Advance token to nearest Utility', 0, [3, 4], 12, 1500, 1500, false],
    ['Advance token to nearest Utility', 15, [3, 4], 28, 1500, 1500, false],
    ['Advance token to nearest Utility', 29, [3, 4], 12, 1700, 1500, false],
    ['Bank pays you dividend', 0, [3, 4], 7, 1550, 1500, false],
    ['Go Back 3 Spaces', 0, [3, 4], 4, 1300, 1500, false], // onto Income Tax
    ['Go Back 3 Spaces', 15, [3, 4], 19, 1500, 1500, false],
    ['Go to Jail', 0, [3, 4], 10, 1500, 1500, true],
    ['Make general repairs', 0, [3, 4], 7, 1500, 1500, false], // no buildings in this module
    ['Speeding fine', 0, [3, 4], 7, 1485, 1500, false],
    ['Take a trip to Reading', 0, [3, 4], 5, 1700, 1500, false],
    ['You have been elected Chairman', 0, [3, 4], 7, 1400, 1550, false],
    ['Your building loan', 0, [3, 4], 7, 1650, 1500, false],
  ];
  it.each(rows)('%s (from %i)', (text, start, [d1, d2], to, cashA, cashB, jail) => {
    const s = play(state({ positions: { a: start, b: 0, c: 0 } }), [...roll(d1, d2), [16, chanceIndex(text)]]);
    expect(s.positions.a).toBe(to);
    expect(s.cash).toEqual({ a: cashA, b: cashB, c: cashB });
    expect(s.inJail.a !== undefined).toBe(jail);
  });

  it('Go Back 3 Spaces from 36 lands on Community Chest 33 and draws from that pile', () => {
    const s = play(state({ positions: { a: 29, b: 0, c: 0 } }), [...roll(3, 4), [16, chanceIndex('Go Back 3')], [16, chestIndex('Bank error')]]);
    expect(s.positions.a).toBe(33);
    expect(s.cash.a).toBe(1700);
    expect(s.piles.chance).toHaveLength(15);
    expect(s.piles.chest).toHaveLength(15);
  });

  it('Get Out of Jail Free (Chance) is kept', () => {
    const s = play(state(), [...roll(3, 4), [16, chanceIndex('Get Out of Jail Free')]]);
    expect(s.held.a).toEqual(['Get Out of Jail Free (Chance)']);
  });
});

describe('every Community Chest card', () => {
  // From 10 (just visiting) a 3 and a 4 land on Community Chest 17.
  type Row = [string, number, number, number, boolean];
  const rows: Row[] = [
    ['Advance to Go', 0, 1700, 1500, false],
    ['Bank error', 17, 1700, 1500, false],
    ["Doctor's fee", 17, 1450, 1500, false],
    ['From sale of stock', 17, 1550, 1500, false],
    ['Go to Jail', 10, 1500, 1500, true],
    ['Holiday fund', 17, 1600, 1500, false],
    ['Income tax refund', 17, 1520, 1500, false],
    ['It is your birthday', 17, 1520, 1490, false],
    ['Life insurance', 17, 1600, 1500, false],
    ['Pay hospital', 17, 1400, 1500, false],
    ['Pay school', 17, 1450, 1500, false],
    ['Receive $25', 17, 1525, 1500, false],
    ['You are assessed for street repair', 17, 1500, 1500, false], // no buildings in this module
    ['You have won second prize', 17, 1510, 1500, false],
    ['You inherit', 17, 1600, 1500, false],
  ];
  it.each(rows)('%s', (text, to, cashA, cashOthers, jail) => {
    const s = play(state({ positions: { a: 10, b: 0, c: 0 } }), [...roll(3, 4), [16, chestIndex(text)]]);
    expect(s.positions.a).toBe(to);
    expect(s.cash).toEqual({ a: cashA, b: cashOthers, c: cashOthers });
    expect(s.inJail.a !== undefined).toBe(jail);
  });

  it('Get Out of Jail Free (Community Chest) is kept and returns to its own pile', () => {
    const s = play(state({ positions: { a: 10, b: 0, c: 0 } }), [...roll(3, 4), [16, chestIndex('Get Out of Jail Free')]]);
    expect(s.held.a).toEqual(['Get Out of Jail Free (Community Chest)']);
    const used = play({ ...s, positions: { ...s.positions, a: 10 }, inJail: { a: 0 } }, roll(1, 2));
    expect(used.piles.chest).toEqual(COMMUNITY_CHEST.map((_, i) => i));
    expect(used.piles.chance).toHaveLength(16);
  });
});

describe('the end', () => {
  it('after `rounds` rounds the most cash wins, ties share', () => {
    const s = state({ rounds: 1 }, ['a', 'b']);
    const s1 = play(s, roll(1, 2)); // a: 3, nothing happens
    expect(monopolyChanceGame.winners(s1)).toBeNull();
    const s2 = play(s1, roll(1, 2), 'b');
    expect(monopolyChanceGame.winners(s2)).toEqual(['a', 'b']);
    const s3 = play(s1, roll(1, 3), 'b'); // b pays income tax
    expect(monopolyChanceGame.winners(s3)).toEqual(['a']);
  });

  it('a player who leaves puts its Get Out of Jail Free cards back in their piles', () => {
    const k = chanceIndex('Get Out of Jail Free');
    const s = play(state(), [...roll(3, 4), [16, k]]);
    const left = monopolyChanceGame.forfeit(s, 'a');
    expect(left.players).toEqual(['b', 'c']);
    expect(left.held.a).toBeUndefined();
    expect(left.piles.chance).toContain(k);
  });
});
