/**
 * One hand's rules (docs/spec/holdem.md §3–§6) on scripted actions: blinds and
 * who acts when, the least bet and raise, all-ins that do not reopen the
 * betting, uncalled bets, timeouts, the showdown. Every refused action names
 * the player who tried it and says why; the honest players around it are
 * never named.
 */
import { describe, expect, it } from 'vitest';
import { parseCards } from './cards.js';
import { act, deal, showdown, startHand, waiting } from './hand.js';
import { legalActions } from './betting.js';
import { HoldemError, type Action, type HandState, type HoldemReason } from './state.js';

const c = parseCards;

function hand(seats: string[], stacks: number[] | number = 1000, button = seats[0]!, blinds: [number, number] = [50, 100]): HandState {
  const s = typeof stacks === 'number' ? seats.map(() => stacks) : stacks;
  return startHand({ seats, button, stacks: Object.fromEntries(seats.map((p, i) => [p, s[i]!])), smallBlind: blinds[0], bigBlind: blinds[1] });
}

function play(h: HandState, ...steps: [string, Action][]): HandState {
  for (const [p, a] of steps) h = act(h, p, a);
  return h;
}

const fold: Action = { do: 'fold' };
const check: Action = { do: 'check' };
const call: Action = { do: 'call' };
const allIn: Action = { do: 'all-in' };
const raise = (to: number): Action => ({ do: 'raise', to });
const bet = (to: number): Action => ({ do: 'bet', to });

/** The refusal `f` throws: its reason and the player it names. */
function refusal(f: () => unknown): { reason: HoldemReason; player: string | null; code: string } {
  try {
    f();
  } catch (e) {
    if (e instanceof HoldemError) return { reason: e.reason, player: e.player, code: e.code };
    throw e;
  }
  throw new Error('the action was accepted');
}

const total = (h: HandState): number => h.seats.reduce((s, p) => s + (h.stacks[p] ?? 0) + (h.result === null ? (h.committed[p] ?? 0) : 0), 0);

describe('blinds and the order of action', () => {
  it('heads-up: the button posts the small blind and acts first before the flop, last after it', () => {
    let h = hand(['a', 'b'], 1000, 'a');
    expect(h.bets).toEqual({ a: 50, b: 100 });
    expect(waiting(h)).toEqual({ kind: 'act', player: 'a' });
    h = play(h, ['a', call]);
    expect(waiting(h)).toEqual({ kind: 'act', player: 'b' });
    expect(legalActions(h, 'b')).toEqual({ player: 'b', check: true, call: 0, raise: { kind: 'raise', min: 200, max: 1000 }, allIn: 900 });
    h = play(h, ['b', check]);
    expect(waiting(h)).toEqual({ kind: 'deal', street: 'flop', count: 3 });
    h = deal(h, c('2c 7d 9h'));
    expect(waiting(h)).toEqual({ kind: 'act', player: 'b' });
  });

  it('three or more: small blind left of the button, big blind next, the next seat first before the flop; first left of the button after', () => {
    let h = hand(['a', 'b', 'c', 'd'], 1000, 'b');
    expect(h.bets).toEqual({ a: 0, b: 0, c: 50, d: 100 });
    expect(waiting(h)).toEqual({ kind: 'act', player: 'a' });
    h = play(h, ['a', call], ['b', call], ['c', call]);
    // the big blind's option
    expect(waiting(h)).toEqual({ kind: 'act', player: 'd' });
    h = play(h, ['d', check]);
    h = deal(h, c('2c 7d 9h'));
    expect(waiting(h)).toEqual({ kind: 'act', player: 'c' });
  });

  it('the big blind may raise when the others only called', () => {
    let h = hand(['a', 'b', 'c'], 1000, 'a');
    h = play(h, ['a', call], ['b', call], ['c', raise(300)]);
    expect(waiting(h)).toEqual({ kind: 'act', player: 'a' });
  });

  it('a big blind short of chips posts all it has; the others still call the full big blind', () => {
    let h = hand(['a', 'b', 'c'], [1000, 1000, 30], 'a');
    expect(h.bets).toEqual({ a: 0, b: 50, c: 30 });
    expect(legalActions(h, 'a')!.call).toBe(100);
    h = play(h, ['a', call], ['b', call]);
    expect(waiting(h).kind).toBe('deal');
    expect(h.committed).toEqual({ a: 100, b: 100, c: 30 });
  });

  it('heads-up, a small blind all-in for less than the big blind: the excess goes back and the board is dealt', () => {
    const h = hand(['a', 'b'], [30, 1000], 'a');
    expect(h.committed).toEqual({ a: 30, b: 30 });
    expect(h.stacks).toEqual({ a: 0, b: 970 });
    expect(h.events.at(-1)).toEqual({ street: 'preflop', player: 'b', what: 'returned', chips: 70, total: 30 });
    expect(waiting(h)).toEqual({ kind: 'deal', street: 'flop', count: 3 });
  });
});

describe('the least bet and raise', () => {
  it('a raise adds at least the last full raise; a bet is at least the big blind', () => {
    let h = hand(['a', 'b', 'c'], 5000, 'a');
    expect(refusal(() => act(h, 'a', raise(150)))).toEqual({ reason: 'raise_too_small', player: 'a', code: 'illegal_choice' });
    h = play(h, ['a', raise(300)]);
    // the last raise added 200: the next raise goes to at least 500
    expect(legalActions(h, 'b')!.raise).toEqual({ kind: 'raise', min: 500, max: 5000 });
    expect(refusal(() => act(h, 'b', raise(450)))).toMatchObject({ reason: 'raise_too_small', player: 'b' });
    h = play(h, ['b', raise(900)]);
    // the last raise added 600: at least 1500
    expect(legalActions(h, 'c')!.raise!.min).toBe(1500);
    h = play(h, ['c', fold], ['a', call]);
    h = deal(h, c('2c 7d 9h'));
    expect(refusal(() => act(h, 'b', bet(99)))).toMatchObject({ reason: 'bet_too_small', player: 'b' });
    expect(refusal(() => act(h, 'b', raise(200)))).toMatchObject({ reason: 'use_bet', player: 'b' });
    h = play(h, ['b', bet(100)]);
    expect(refusal(() => act(h, 'a', bet(300)))).toMatchObject({ reason: 'use_raise', player: 'a' });
    expect(legalActions(h, 'a')!.raise!.min).toBe(200);
  });

  it('nobody bets more than its stack, checks facing a bet, or calls nothing', () => {
    let h = hand(['a', 'b', 'c'], [1000, 1000, 1000], 'a');
    expect(refusal(() => act(h, 'a', raise(1001)))).toMatchObject({ reason: 'over_stack', player: 'a' });
    expect(refusal(() => act(h, 'a', check))).toMatchObject({ reason: 'cannot_check', player: 'a' });
    h = play(h, ['a', call], ['b', call]);
    expect(refusal(() => act(h, 'c', call))).toMatchObject({ reason: 'nothing_to_call', player: 'c' });
    expect(refusal(() => act(h, 'c', { do: 'raise', to: 250.5 }))).toMatchObject({ reason: 'bad_action', player: 'c' });
    expect(refusal(() => act(h, 'c', { do: 'shove' } as unknown as Action))).toMatchObject({ reason: 'bad_action', player: 'c' });
  });

  it('acting out of turn, after folding or for a stranger is refused and names who tried', () => {
    let h = hand(['a', 'b', 'c'], 1000, 'a');
    expect(refusal(() => act(h, 'b', call))).toMatchObject({ reason: 'out_of_turn', player: 'b' });
    h = play(h, ['a', fold]);
    expect(refusal(() => act(h, 'a', call))).toMatchObject({ reason: 'not_in_hand', player: 'a' });
    expect(refusal(() => act(h, 'zed', call))).toMatchObject({ reason: 'not_in_hand', player: 'zed' });
    h = play(h, ['b', call], ['c', check]);
    expect(refusal(() => act(h, 'b', check))).toMatchObject({ reason: 'out_of_turn', player: 'b' });
    h = deal(h, c('2c 7d 9h'));
    h = play(h, ['b', bet(100)], ['c', fold]);
    expect(h.phase).toBe('over');
    expect(refusal(() => act(h, 'b', check))).toMatchObject({ reason: 'hand_over', player: 'b' });
  });
});

describe('all-ins', () => {
  it('an all-in raise of less than a full raise does not reopen the betting for those who acted', () => {
    // flop: a bets 100, b calls, c goes all-in for 150 (50 more: short), d has not acted yet
    let h = hand(['a', 'b', 'c', 'd'], [2000, 2000, 250, 2000], 'd');
    h = play(h, ['c', call], ['d', call], ['a', call], ['b', check]);
    h = deal(h, c('2c 7d 9h'));
    h = play(h, ['a', bet(100)], ['b', call], ['c', allIn]);
    expect(h.currentBet).toBe(150);
    // d had not acted: it may raise, to at least 150 + 100
    expect(legalActions(h, 'd')!.raise).toEqual({ kind: 'raise', min: 250, max: 1900 });
    h = play(h, ['d', call]);
    // a and b acted before the short all-in: call or fold only
    expect(legalActions(h, 'a')!.raise).toBeNull();
    expect(refusal(() => act(h, 'a', raise(400)))).toMatchObject({ reason: 'raise_not_reopened', player: 'a' });
    expect(refusal(() => act(h, 'a', allIn))).toMatchObject({ reason: 'raise_not_reopened', player: 'a' });
    h = play(h, ['a', call], ['b', call]);
    expect(waiting(h)).toEqual({ kind: 'deal', street: 'turn', count: 1 });
  });

  it('an all-in that is a full raise reopens the betting', () => {
    let h = hand(['a', 'b', 'c'], [2000, 2000, 400], 'c');
    h = play(h, ['c', call], ['a', call], ['b', check]);
    h = deal(h, c('2c 7d 9h'));
    h = play(h, ['a', bet(100)], ['b', call], ['c', allIn]);
    expect(h.currentBet).toBe(300);
    expect(h.minRaise).toBe(200);
    expect(legalActions(h, 'a')!.raise).toEqual({ kind: 'raise', min: 500, max: 1900 });
  });

  it('with every other player all-in, a player may call or fold but not raise', () => {
    let h = hand(['a', 'b'], [300, 2000], 'a');
    h = play(h, ['a', allIn]);
    expect(legalActions(h, 'b')!.raise).toBeNull();
    expect(refusal(() => act(h, 'b', raise(1000)))).toMatchObject({ reason: 'no_opponent', player: 'b' });
    h = play(h, ['b', call]);
    // nobody can bet: the board comes out street by street with no action
    h = deal(h, c('2c 7d 9h'));
    expect(waiting(h)).toEqual({ kind: 'deal', street: 'turn', count: 1 });
    h = deal(deal(h, c('Jd')), c('Qs'));
    expect(waiting(h)).toEqual({ kind: 'showdown', order: ['b', 'a'] });
    h = showdown(h, { a: c('As Ah'), b: c('Kc Kd') });
    expect(h.result!.won).toEqual({ a: 600 });
    expect(h.stacks).toEqual({ a: 600, b: 1700 });
  });

  it('an uncalled bet goes back to the player who made it', () => {
    let h = hand(['a', 'b', 'c'], [1000, 1000, 1000], 'a');
    h = play(h, ['a', raise(400)], ['b', fold], ['c', fold]);
    expect(h.events.at(-1)).toEqual({ street: 'preflop', player: 'a', what: 'returned', chips: 300, total: 100 });
    expect(h.result!.won).toEqual({ a: 250 });
    expect(h.stacks).toEqual({ a: 1150, b: 950, c: 900 });
    expect(h.result!.hands).toEqual({});
  });
});

describe('timeouts', () => {
  it('a player who times out folds, even when it could check', () => {
    let h = hand(['a', 'b', 'c'], 1000, 'a');
    h = play(h, ['a', call], ['b', call], ['c', { do: 'timeout' }]);
    expect(h.folded).toEqual(['c']);
    expect(h.events.at(-1)).toEqual({ street: 'preflop', player: 'c', what: 'timeout', chips: 0, total: 100 });
    expect(waiting(h).kind).toBe('deal');
    h = deal(h, c('2c 7d 9h'));
    h = play(h, ['b', check], ['a', { do: 'timeout' }]);
    expect(h.phase).toBe('over');
    expect(h.result!.won).toEqual({ b: 300 });
  });
});

describe('the showdown', () => {
  function toRiver(h: HandState): HandState {
    for (const cards of ['2c 7d 9h', 'Jd', 'Qs']) {
      h = deal(h, c(cards));
      while (waiting(h).kind === 'act') {
        const w = waiting(h) as { player: string };
        h = act(h, w.player, check);
      }
    }
    return h;
  }

  it('the river bettor shows first; without a river bet, the first player left of the button', () => {
    let h = hand(['a', 'b', 'c'], 1000, 'a');
    h = play(h, ['a', call], ['b', call], ['c', check]);
    h = toRiver(h);
    expect(waiting(h)).toEqual({ kind: 'showdown', order: ['b', 'c', 'a'] });

    let g = hand(['a', 'b', 'c'], 1000, 'a');
    g = play(g, ['a', call], ['b', call], ['c', check]);
    for (const cards of ['2c 7d 9h', 'Jd']) {
      g = deal(g, c(cards));
      g = play(g, ['b', check], ['c', check], ['a', check]);
    }
    g = deal(g, c('Qs'));
    g = play(g, ['b', check], ['c', bet(200)], ['a', call], ['b', call]);
    expect(waiting(g)).toEqual({ kind: 'showdown', order: ['c', 'a', 'b'] });
  });

  it('the best hand takes the pot; a tie splits it with the odd chip left of the button', () => {
    let h = hand(['a', 'b', 'c'], 1000, 'a', [25, 51]);
    h = play(h, ['a', call], ['b', call], ['c', check]);
    h = toRiver(h);
    // board 2c 7d 9h Jd Qs: b and c both hold K-10 for the king-high straight; a has aces
    h = showdown(h, { a: c('Ah Ac'), b: c('Kh Td'), c: c('Ks Th') });
    expect(h.result!.hands['b']!.name).toBe('straight');
    expect(h.result!.pots).toEqual([{ amount: 153, eligible: ['a', 'b', 'c'], winners: ['b', 'c'], shares: { b: 77, c: 76 } }]);
    expect(h.stacks).toEqual({ a: 949, b: 1026, c: 1025 });
  });

  it('side pots at the showdown: three all-ins at different sizes', () => {
    let h = hand(['a', 'b', 'c', 'd'], [100, 250, 600, 2000], 'd');
    h = play(h, ['c', allIn], ['d', call], ['a', allIn], ['b', allIn]);
    expect(waiting(h).kind).toBe('deal');
    h = deal(deal(deal(h, c('2c 7d 9h')), c('Jd')), c('3s'));
    expect(waiting(h)).toEqual({ kind: 'showdown', order: ['a', 'b', 'c', 'd'] });
    h = showdown(h, { a: c('Ah Ac'), b: c('Kh Kc'), c: c('4h 5h'), d: c('Qh Qc') });
    expect(h.result!.pots.map((p) => [p.amount, p.winners])).toEqual([
      [400, ['a']],
      [450, ['b']],
      [700, ['d']],
    ]);
    expect(h.stacks).toEqual({ a: 400, b: 450, c: 0, d: 2100 });
    expect(total(h)).toBe(2950);
  });

  it('nine players: three all-ins preflop, folds, a bet on the flop, four pots, the last one split', () => {
    const seats = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9'];
    const stacks = [1000, 1000, 40, 80, 200, 1000, 1000, 1000, 1000];
    let h = hand(seats, stacks, 'p9', [5, 10]);
    h = play(h, ['p3', allIn], ['p4', allIn], ['p5', allIn], ['p6', call], ['p7', fold], ['p8', call], ['p9', fold], ['p1', fold], ['p2', call]);
    expect(h.minRaise).toBe(120);
    h = deal(h, c('2c 7d 9h'));
    h = play(h, ['p2', check], ['p6', bet(300)], ['p8', fold], ['p2', call]);
    h = deal(h, c('Jd'));
    h = play(h, ['p2', check], ['p6', check]);
    h = deal(h, c('3s'));
    h = play(h, ['p2', check], ['p6', check]);
    expect(waiting(h)).toEqual({ kind: 'showdown', order: ['p2', 'p3', 'p4', 'p5', 'p6'] });
    h = showdown(h, { p2: c('4c 5c'), p3: c('Ah Ac'), p4: c('Kh Kc'), p5: c('Qh Qc'), p6: c('4d 5d') });
    expect(h.result!.pots.map((p) => [p.amount, p.eligible, p.shares])).toEqual([
      [245, ['p2', 'p3', 'p4', 'p5', 'p6'], { p3: 245 }],
      [200, ['p2', 'p4', 'p5', 'p6'], { p4: 200 }],
      [480, ['p2', 'p5', 'p6'], { p5: 480 }],
      [600, ['p2', 'p6'], { p2: 300, p6: 300 }],
    ]);
    expect(h.stacks).toEqual({ p1: 995, p2: 800, p3: 245, p4: 200, p5: 480, p6: 800, p7: 1000, p8: 800, p9: 1000 });
    expect(total(h)).toBe(6320);
  });

  it('refuses missing, repeated or extra cards, naming the player who showed them', () => {
    let h = hand(['a', 'b'], 1000, 'a');
    h = play(h, ['a', call], ['b', check]);
    expect(refusal(() => deal(h, c('2c 7d')))).toMatchObject({ reason: 'bad_cards', player: null });
    expect(refusal(() => deal(h, c('2c 7d 2c')))).toMatchObject({ reason: 'bad_cards', player: null });
    expect(refusal(() => deal(h, [1, 2, 52]))).toMatchObject({ reason: 'bad_cards', player: null });
    h = toRiver(h);
    expect(refusal(() => deal(h, c('As')))).toMatchObject({ reason: 'not_dealing' });
    expect(refusal(() => act(h, 'b', check))).toMatchObject({ reason: 'out_of_turn', player: 'b' });
    expect(refusal(() => showdown(h, { a: c('Ah Ac') }))).toMatchObject({ reason: 'bad_cards', player: 'b' });
    expect(refusal(() => showdown(h, { a: c('Ah Ac'), b: c('Ah Kc') }))).toMatchObject({ reason: 'bad_cards', player: 'a' });
    expect(refusal(() => showdown(h, { a: c('Ah Ac'), b: c('Qs Kc') }))).toMatchObject({ reason: 'bad_cards', player: 'b' });
    expect(refusal(() => showdown(h, { a: c('Ah Ac Kd'), b: c('Ks Kc') }))).toMatchObject({ reason: 'bad_cards', player: 'a' });
    h = showdown(h, { a: c('Ah Ac'), b: c('Ks Kc') });
    expect(h.result!.won).toEqual({ a: 200 });
  });
});

describe('starting a hand', () => {
  it('refuses bad tables', () => {
    expect(() => hand(['a'])).toThrow(/2 to 9/);
    expect(() => hand(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'])).toThrow(/2 to 9/);
    expect(() => hand(['a', 'a'])).toThrow(/twice/);
    expect(() => hand(['a', 'b'], [1000, 0])).toThrow(/positive/);
    expect(() => hand(['a', 'b'], 1000, 'z')).toThrow(/button/);
    expect(() => hand(['a', 'b'], 1000, 'a', [100, 50])).toThrow(/small blind/);
  });
});
