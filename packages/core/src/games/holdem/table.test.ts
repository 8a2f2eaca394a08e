/**
 * A table across hands (docs/spec/holdem.md §7) and random legal games of 2 to
 * 9 players (§9): chips are never made or lost, no stack goes negative, every
 * street's betting ends, every pot goes to a player who did not fold, a legal
 * action (every one the decision's form offers) is never refused and an illegal
 * one is refused naming the player who tried it, never another. States are
 * deep-frozen (a rule that wrote into its input would throw) and now and then
 * sent through JSON.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { legalActions } from './betting.js';
import { actionChoices, whyIllegal } from './decisions.js';
import { parseCards } from './cards.js';
import { waiting } from './hand.js';
import { randomAction, shuffledDeck, simulateTable, type Pick } from './policy.js';
import { HoldemError, type Action, type HandState } from './state.js';
import { createTable, nextHand, seated, tableAct, tableDeal, tableOver, tableShowdown, tableWinners, type TableState } from './table.js';

/** A seeded generator for the tests (mulberry32): `pick(n)` in [0, n). */
function seeded(seed: number): Pick {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const x = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return Math.floor(x * n);
  };
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

function chipsOnTable(t: TableState): number {
  let sum = 0;
  for (const p of t.players) {
    const h = t.hand;
    if (h !== null && h.seats.includes(p)) sum += (h.stacks[p] ?? 0) + (h.committed[p] ?? 0);
    else sum += t.stacks[p] ?? 0;
  }
  return sum;
}

function refusedAs(f: () => unknown): HoldemError {
  try {
    f();
  } catch (e) {
    if (e instanceof HoldemError) return e;
    throw e;
  }
  throw new Error('an illegal action was accepted');
}

/** Illegal actions tried at a state where `mover` is to act: each refused, naming the one who tried. */
function tryCheats(t: TableState, h: HandState, mover: string, pick: Pick): void {
  const legal = legalActions(h, mover)!;
  const bystanders = h.seats.filter((p) => p !== mover && !h.folded.includes(p));
  if (bystanders.length > 0) {
    const other = bystanders[pick(bystanders.length)]!;
    const e = refusedAs(() => tableAct(t, other, { do: 'call' }));
    expect([e.player, e.reason]).toEqual([other, 'out_of_turn']);
  }
  const stack = h.stacks[mover]!;
  const bet = h.bets[mover]!;
  const kind = h.currentBet === 0 ? 'bet' : 'raise';
  expect(refusedAs(() => tableAct(t, mover, { do: kind, to: bet + stack + 1 }))).toMatchObject({ player: mover, reason: 'over_stack' });
  if (legal.raise !== null && legal.raise.min < legal.raise.max && legal.raise.min - 1 > h.currentBet) {
    expect(refusedAs(() => tableAct(t, mover, { do: kind, to: legal.raise!.min - 1 }))).toMatchObject({ player: mover, reason: `${kind}_too_small` });
  }
  if (legal.check) expect(refusedAs(() => tableAct(t, mover, { do: 'call' }))).toMatchObject({ player: mover, reason: 'nothing_to_call' });
  else expect(refusedAs(() => tableAct(t, mover, { do: 'check' }))).toMatchObject({ player: mover, reason: 'cannot_check' });
}

/** Every action the decision's form offers at this state is accepted: an honest player is never refused. */
function tryLegal(h: HandState, mover: string): void {
  const form = actionChoices(h, mover)!;
  const options = form.type === 'any-of' ? form.options : [form];
  for (const o of options) {
    if (o.type === 'one-of') for (const v of o.values) expect(whyIllegal(h, mover, v)).toBeNull();
    else {
      const kindField = o.type === 'record' ? o.fields['do'] : undefined;
      const toField = o.type === 'record' ? o.fields['to'] : undefined;
      if (kindField?.type !== 'one-of' || toField?.type !== 'integer') throw new Error(`an unexpected form ${JSON.stringify(o)}`);
      const kind = kindField.values[0]!;
      const [min, max] = [Number(toField.min), Number(toField.max)];
      for (const to of [min, max, Math.floor((min + max) / 2)]) expect(whyIllegal(h, mover, { do: kind, to })).toBeNull();
    }
  }
}

/** Plays a random legal table, checking every rule of the header after every step. */
function playChecked(n: number, stack: number, blinds: [number, number], maxHands: number, seed: number): TableState {
  const pick = seeded(seed);
  const players = Array.from({ length: n }, (_, i) => `p${i + 1}`);
  let t = createTable({ players, startingStack: stack, smallBlind: blinds[0], bigBlind: blinds[1], maxHands });
  const chips = n * stack;
  while (!tableOver(t)) {
    t = nextHand(t);
    const deck = shuffledDeck(pick);
    const seats = t.hand!.seats;
    const holes = Object.fromEntries(seats.map((p, i) => [p, [deck[2 * i]!, deck[2 * i + 1]!]]));
    let next = 2 * seats.length;
    let steps = 0;
    const handNo = t.handsPlayed;
    while (t.hand !== null) {
      const h = t.hand;
      expect(++steps).toBeLessThan(40 * seats.length + 20);
      const w = waiting(h);
      if (w.kind === 'act') {
        if (pick(4) === 0) tryCheats(t, h, w.player, pick);
        if (pick(4) === 0) tryLegal(h, w.player);
        const a: Action = randomAction(h, w.player, pick);
        t = tableAct(t, w.player, a);
      } else if (w.kind === 'deal') {
        t = tableDeal(t, deck.slice(next, next + w.count));
        next += w.count;
      } else if (w.kind === 'showdown') {
        expect([...w.order].sort()).toEqual(h.seats.filter((p) => !h.folded.includes(p)).sort());
        t = tableShowdown(t, holes);
      }
      // states are plain data: a JSON round trip plays on the same; a frozen state is never written to
      if (pick(8) === 0) t = JSON.parse(JSON.stringify(t)) as TableState;
      deepFreeze(t);
      expect(chipsOnTable(t)).toBe(chips);
      const now = t.hand ?? t.lastHand!;
      for (const p of now.seats) expect(now.stacks[p]).toBeGreaterThanOrEqual(0);
      for (const p of now.seats) expect(now.bets[p]).toBeGreaterThanOrEqual(0);
    }
    const done = t.lastHand!;
    expect(t.handsPlayed).toBe(handNo + 1);
    const result = done.result!;
    let paid = 0;
    for (const pot of result.pots) {
      expect(pot.winners.length).toBeGreaterThan(0);
      for (const w of pot.winners) {
        expect(done.folded).not.toContain(w);
        expect(pot.eligible).toContain(w);
      }
      const shares = Object.values(pot.shares);
      expect(shares.reduce((s, x) => s + x, 0)).toBe(pot.amount);
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
      paid += pot.amount;
    }
    expect(paid).toBe(done.seats.reduce((s, p) => s + done.committed[p]!, 0));
    for (const p of t.players) expect(t.stacks[p]).toBeGreaterThanOrEqual(0);
  }
  return t;
}

describe('random legal games', () => {
  it('2 to 9 players: chips conserved, no stack below zero, betting ends, pots to players still in, cheats named', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 9 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.constantFrom<[number, number]>([1, 2], [5, 10], [25, 50], [50, 100], [7, 13]),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (n, stack, blinds, seed) => {
          const t = playChecked(n, stack, blinds, 12, seed);
          const total = t.players.reduce((s, p) => s + t.stacks[p]!, 0);
          expect(total).toBe(n * stack);
          expect(tableWinners(t)!.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('played until one player holds every chip', () => {
    for (const seed of [1, 2, 3]) {
      const t = playChecked(4, 200, [10, 20], 0, seed);
      expect(seated(t)).toHaveLength(1);
      expect(t.stacks[seated(t)[0]!]).toBe(800);
      expect(tableWinners(t)).toEqual(seated(t));
    }
  });

  it('the simulator plays a whole table', () => {
    const sim = simulateTable({ players: ['a', 'b', 'c'], startingStack: 300, smallBlind: 5, bigBlind: 10 }, seeded(42), 500);
    expect(sim.results).toHaveLength(sim.table.handsPlayed);
    expect(Object.values(sim.table.stacks).reduce((s, x) => s + x, 0)).toBe(900);
  });
});

describe('the table', () => {
  const c = parseCards;

  it('the button moves one seat clockwise each hand, skipping busted players, who leave', () => {
    let t = createTable({ players: ['a', 'b', 'c'], startingStack: 100, smallBlind: 5, bigBlind: 10, button: 'b' });
    t = nextHand(t);
    // c is the small blind, a the big blind, b (the button) acts first: all-in, called by a; c folds
    t = tableAct(t, 'b', { do: 'all-in' });
    t = tableAct(t, 'c', { do: 'fold' });
    t = tableAct(t, 'a', { do: 'call' });
    t = tableDeal(tableDeal(tableDeal(t, c('2c 7d 9h')), c('Jd')), c('3s'));
    t = tableShowdown(t, { a: c('Ah Ac'), b: c('Kh Kc') });
    expect(t.stacks).toEqual({ a: 205, b: 0, c: 95 });
    expect(t.button).toBe('c');
    expect(seated(t)).toEqual(['a', 'c']);
    t = nextHand(t);
    // heads-up now: c is the button and small blind
    expect(t.hand!.seats).toEqual(['a', 'c']);
    expect(t.hand!.bets).toEqual({ a: 10, c: 5 });
    t = tableAct(t, 'c', { do: 'fold' });
    expect(t.button).toBe('a');
    expect(t.stacks).toEqual({ a: 210, b: 0, c: 90 });
    expect(tableWinners(t)).toBeNull();
  });

  it('ends after the agreed number of hands; the most chips win', () => {
    let t = createTable({ players: ['a', 'b', 'c'], startingStack: 100, smallBlind: 5, bigBlind: 10, maxHands: 1 });
    t = nextHand(t);
    t = tableAct(t, 'a', { do: 'fold' });
    t = tableAct(t, 'b', { do: 'fold' });
    expect(tableOver(t)).toBe(true);
    expect(tableWinners(t)).toEqual(['c']);
    expect(() => nextHand(t)).toThrow(/over/);
  });

  it('refuses bad tables and moves with no hand in play', () => {
    expect(() => createTable({ players: ['a'], startingStack: 100, smallBlind: 5, bigBlind: 10 })).toThrow(/2 to 9/);
    expect(() => createTable({ players: ['a', 'b'], startingStack: 0, smallBlind: 5, bigBlind: 10 })).toThrow(/starting stack/);
    expect(() => createTable({ players: ['a', 'b'], startingStack: 100, smallBlind: 5, bigBlind: 10, button: 'x' })).toThrow(/button/);
    expect(() => createTable({ players: ['a', 'b'], startingStack: 100, smallBlind: 0, bigBlind: 10 })).toThrow(/smallBlind/);
    const t = createTable({ players: ['a', 'b'], startingStack: 100, smallBlind: 5, bigBlind: 10 });
    expect(refusedAs(() => tableAct(t, 'a', { do: 'check' })).reason).toBe('hand_over');
    expect(refusedAs(() => nextHand(nextHand(t))).reason).toBe('out_of_turn');
  });
});
