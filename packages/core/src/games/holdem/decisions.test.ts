/** A decision as a form, its refusals and a hand in words (docs/spec/holdem.md §4). */
import { describe, expect, it } from 'vitest';
import { parseCards } from './cards.js';
import { actionChoices, eventText, handText, TIMEOUT, whyIllegal } from './decisions.js';
import { act, deal, showdown, startHand } from './hand.js';
import type { HandState } from './state.js';

const three = (stacks = [1000, 1000, 1000]): HandState =>
  startHand({ seats: ['ann', 'bob', 'cy'], button: 'ann', stacks: { ann: stacks[0]!, bob: stacks[1]!, cy: stacks[2]! }, smallBlind: 50, bigBlind: 100 });

describe('the decision as a form', () => {
  it('fold, call or all-in, or a raise between the least raise and the stack', () => {
    const h = three();
    expect(actionChoices(h, 'ann')).toEqual({
      type: 'any-of',
      options: [
        { type: 'one-of', values: [{ do: 'fold' }, { do: 'call' }, { do: 'all-in' }] },
        { type: 'record', fields: { do: { type: 'one-of', values: ['raise'] }, to: { type: 'integer', min: '200', max: '1000' } } },
      ],
    });
    expect(actionChoices(h, 'bob')).toBeNull();
    for (const a of [{ do: 'fold' }, { do: 'call' }, { do: 'all-in' }, { do: 'raise', to: 200 }, { do: 'raise', to: 1000 }, TIMEOUT]) {
      expect(whyIllegal(h, 'ann', a)).toBeNull();
    }
    expect(whyIllegal(h, 'ann', { do: 'raise', to: 199 })).toBe('ann: the least raise is to 200 (or all-in)');
    expect(whyIllegal(h, 'bob', { do: 'call' })).toBe("bob: it is ann's turn to act");
  });

  it('after a short all-in, a player who acted may only fold or call', () => {
    let h = three([1000, 1000, 250]);
    h = act(h, 'ann', { do: 'call' });
    h = act(h, 'bob', { do: 'call' });
    h = act(h, 'cy', { do: 'check' });
    h = deal(h, parseCards('2c 7d 9h'));
    h = act(h, 'bob', { do: 'bet', to: 100 });
    h = act(h, 'cy', { do: 'all-in' });
    // ann had not acted: it may raise, to at least 150 + 100
    expect(actionChoices(h, 'ann')).toMatchObject({ type: 'any-of', options: [{}, { fields: { to: { min: '250', max: '900' } } }] });
    h = act(h, 'ann', { do: 'call' });
    expect(actionChoices(h, 'bob')).toEqual({ type: 'one-of', values: [{ do: 'fold' }, { do: 'call' }] });
    expect(whyIllegal(h, 'bob', { do: 'all-in' })).toMatch(/^bob: the betting was not reopened/);
  });

  it('a hand in words', () => {
    let h = three();
    h = act(h, 'ann', { do: 'raise', to: 300 });
    h = act(h, 'bob', { do: 'fold' });
    h = act(h, 'cy', { do: 'call' });
    expect(h.events.map(eventText)).toEqual([
      'bob posts the small blind of 50',
      'cy posts the big blind of 100',
      'ann raises to 300',
      'bob folds',
      'cy calls 200',
    ]);
    h = deal(h, parseCards('2c 7d 9h'));
    expect(handText(h)).toEqual(["Hold'em, flop: board 2♣ 7♦ 9♥; pot 650.", 'Chips: ann (button) 700; bob 950, folded; cy 700.', 'cy to act; 2 players in.']);
    h = act(h, 'cy', { do: 'bet', to: 700 });
    h = act(h, 'ann', { do: 'timeout' });
    expect(h.events.slice(-3).map(eventText)).toEqual(['cy bets 700', 'ann timed out and folds', '700 uncalled returned to cy']);
    expect(handText(h).at(-1)).toBe('The main pot of 650: cy 650.');
  });

  it('the showdown in words', () => {
    let h = startHand({ seats: ['ann', 'bob'], button: 'ann', stacks: { ann: 100, bob: 500 }, smallBlind: 5, bigBlind: 10 });
    h = act(h, 'ann', { do: 'all-in' });
    h = act(h, 'bob', { do: 'call' });
    h = deal(deal(deal(h, parseCards('2c 7d 9h')), parseCards('Jd')), parseCards('3s'));
    h = showdown(h, { ann: parseCards('Ah Ac'), bob: parseCards('Kh Kc') });
    expect(handText(h)).toEqual([
      "Hold'em, river: board 2♣ 7♦ 9♥ J♦ 3♠; pot 200.",
      'Chips: ann (button) 200; bob 400.',
      'The main pot of 200: ann 200 (one pair).',
    ]);
  });
});
