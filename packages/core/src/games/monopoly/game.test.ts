/**
 * A whole scripted game of two players, turn by turn on fixed dice and
 * cards, every figure worked out by hand (docs/spec/monopoly.md): buying,
 * auctions (one tied), doubles, Go to Jail, bail, a rent paid from jail, a
 * trade, jail tries and the third failure's fine, a Chance card drawn from a
 * pile one card short, passing Go. After each turn the state must match.
 */
import { describe, expect, it } from 'vitest';
import { answer, chanceCard, dice, game, roll, turn } from './testkit.js';
import { boardSummary } from './view.js';
import { monopolyGame } from './index.js';
import type { MonopolyState } from './state.js';

const owners = (s: MonopolyState): Record<string, number[]> => {
  const out: Record<string, number[]> = {};
  for (const [q, h] of Object.entries(s.deeds)) (out[h.owner] ??= []).push(Number(q));
  for (const v of Object.values(out)) v.sort((x, y) => x - y);
  return out;
};

describe('a scripted game', () => {
  it('reproduces every turn', () => {
    let s = game({}, ['a', 'b']);
    const check = (cash: [number, number], position: [number, number], mover: string, round: number) => {
      expect([s.cash.a, s.cash.b]).toEqual(cash);
      expect([s.position.a, s.position.b]).toEqual(position);
      expect(s.mover).toBe(mover);
      expect(s.round).toBe(round);
    };
    // 1. a: 3 + 4 to Chance, "Bank pays you dividend of $50".
    s = roll(answer(s, { a: { do: 'roll' } }), [...dice(3, 4), [16, chanceCard('Bank pays')]]);
    check([1550, 1500], [7, 0], 'b', 0);
    // 2. b: 1 + 2 to Baltic Avenue, bought for $60.
    s = answer(turn(s, dice(1, 2)), { b: { do: 'buy' } });
    check([1550, 1440], [7, 3], 'a', 1);
    // 3. a: doubles 2 + 2 to St. Charles Place, bought ($140); again 1 + 3 to Pennsylvania Railroad, declined, b wins the auction at $150.
    s = answer(turn(s, dice(2, 2)), { a: { do: 'buy' } });
    expect(s.stage).toEqual({ kind: 'turn' });
    s = answer(answer(turn(s, dice(1, 3)), { a: { do: 'decline' } }), { a: 0, b: 150 });
    check([1410, 1290], [15, 3], 'b', 1);
    // 4. b: 5 + 6 to Virginia Avenue, bought ($160).
    s = answer(turn(s, dice(5, 6)), { b: { do: 'buy' } });
    check([1410, 1130], [15, 14], 'a', 2);
    // 5. a: doubles 6 + 6 to Ventnor Avenue, declined and nobody bids; again 1 + 2 to Go to Jail.
    s = answer(answer(turn(s, dice(6, 6)), { a: { do: 'decline' } }), { a: 0, b: 0 });
    s = turn(s, dice(1, 2));
    check([1410, 1130], [10, 14], 'b', 2);
    expect(s.jail).toEqual({ a: 0 });
    // 6. b: 2 + 3 to New York Avenue, bought ($200).
    s = answer(turn(s, dice(2, 3)), { b: { do: 'buy' } });
    check([1410, 930], [10, 19], 'a', 3);
    // 7. a pays $50 bail, rolls 4 + 5 to New York Avenue: $16 rent to b.
    s = roll(answer(s, { a: { do: 'bail' } }), dice(4, 5));
    check([1344, 946], [19, 19], 'b', 3);
    // 8. b: 6 + 5 to Go to Jail.
    s = turn(s, dice(6, 5));
    check([1344, 946], [19, 10], 'a', 4);
    // 9. a sells St. Charles Place to b for $200, then 1 + 3 to Indiana Avenue, bought ($220).
    s = answer(s, { a: { do: 'trade', to: 'b', give: { squares: [11], cash: 0, cards: [] }, get: { squares: [], cash: 200, cards: [] } } });
    s = answer(s, { b: { do: 'accept' } });
    s = answer(turn(s, dice(1, 3)), { a: { do: 'buy' } });
    check([1324, 746], [23, 10], 'b', 4);
    // 10. b in jail: 1 + 2, no doubles: stays.
    s = turn(s, dice(1, 2));
    check([1324, 746], [23, 10], 'a', 5);
    expect(s.jail).toEqual({ b: 1 });
    // 11. a: 5 + 6 to Pennsylvania Avenue, declined; a tied auction at $100 goes to the mover.
    s = answer(answer(turn(s, dice(5, 6)), { a: { do: 'decline' } }), { a: 100, b: 100 });
    check([1224, 746], [34, 10], 'b', 5);
    // 12. b rolls doubles 3 + 3 out of jail to St. James Place, bought ($180); no roll again.
    s = answer(turn(s, dice(3, 3)), { b: { do: 'buy' } });
    check([1224, 566], [34, 16], 'a', 6);
    // 13. a: 2 + 5 past Go ($200) to Mediterranean Avenue, bought ($60).
    s = answer(turn(s, dice(2, 5)), { a: { do: 'buy' } });
    check([1364, 566], [1, 16], 'b', 6);
    // 14. b: 1 + 2 to its own New York Avenue.
    s = turn(s, dice(1, 2));
    check([1364, 566], [1, 19], 'a', 7);
    // 15. a: doubles 1 + 1 to Baltic ($4: the brown group is split); again 2 + 2 to Chance: "Go to Jail",
    //     the 10th card of the 15 left (the dividend card is out).
    s = turn(s, dice(1, 1));
    s = roll(answer(s, { a: { do: 'roll' } }), [...dice(2, 2), [15, chanceCard('Go to Jail') - 1]]);
    check([1360, 570], [10, 19], 'b', 7);
    // 16. b: 4 + 6 to Marvin Gardens, declined; a buys it at auction for $50.
    s = answer(answer(turn(s, dice(4, 6)), { b: { do: 'decline' } }), { a: 50, b: 0 });
    check([1310, 570], [10, 29], 'a', 8);
    // 17. a in jail: 1 + 2 fails. 18. b: 2 + 1 to North Carolina Avenue, bought ($300).
    s = turn(s, dice(1, 2));
    s = answer(turn(s, dice(2, 1)), { b: { do: 'buy' } });
    check([1310, 270], [10, 32], 'a', 9);
    // 19. a: 2 + 4 fails again. 20. b: 3 + 4 to Boardwalk, which it cannot afford; a wins it at auction for $401.
    s = turn(s, dice(2, 4));
    s = turn(s, dice(3, 4));
    expect(monopolyGame.whyIllegal(s, 'b', { do: 'buy' })).not.toBeNull();
    s = answer(answer(s, { b: { do: 'decline' } }), { a: 401, b: 270 });
    check([909, 270], [10, 39], 'a', 10);
    // 21. a's third failure 1 + 3: $50 fine, then to Virginia Avenue, $12 rent to b.
    s = turn(s, dice(1, 3));
    check([847, 282], [14, 39], 'b', 10);
    expect(s.jail).toEqual({});
    expect(owners(s)).toEqual({ a: [1, 23, 29, 34, 39], b: [3, 11, 14, 15, 16, 19, 32] });
    expect(s.piles.chance).toHaveLength(14);
    expect(s.bank).toEqual({ houses: 32, hotels: 12 });

    const text = boardSummary(s, 'b');
    expect(text).toContain('a: $847, on Virginia Avenue (14)');
    expect(text).toContain('b (to move): $282, on Boardwalk (39)');
    expect(text).toContain('Boardwalk (39): a');
    expect(text).toContain('1. Roll the dice: {"do":"roll"}');
  });
});
