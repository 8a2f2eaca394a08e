import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Awaiting } from './awaiting.js';

describe('Awaiting: requests a thread has not answered yet', () => {
  it('gives back what was noted for each id, answered in order', () => {
    const a = new Awaiting<string>();
    a.add(1, 'one');
    a.add(2, 'two');
    a.add(3, 'three');
    expect(a.size).toBe(3);
    expect(a.take(1)).toBe('one');
    expect(a.take(2)).toBe('two');
    expect(a.size).toBe(1);
    expect(a.take(3)).toBe('three');
    expect(a.size).toBe(0);
  });

  it('answers undefined for an id it does not hold, or holds no longer, and changes nothing', () => {
    const a = new Awaiting<string>();
    a.add(7, 'seven');
    expect(a.take(8)).toBeUndefined();
    expect(a.take(7)).toBe('seven');
    expect(a.take(7)).toBeUndefined();
    expect(a.size).toBe(0);
  });

  it('takes an answer out of order without losing the others', () => {
    const a = new Awaiting<number>();
    for (let id = 0; id < 5; id++) a.add(id, id * 10);
    expect(a.take(3)).toBe(30);
    expect(a.takeAll()).toEqual([0, 10, 20, 40]);
    expect(a.size).toBe(0);
    expect(a.take(0)).toBeUndefined();
  });

  it('behaves as a Map keyed by id for any order of adds and takes', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant<'add'>('add'), fc.nat(40)), { maxLength: 200 }), (steps) => {
        const a = new Awaiting<string>();
        const m = new Map<number, string>();
        let next = 0;
        for (const step of steps) {
          if (step === 'add') {
            a.add(next, `v${next}`);
            m.set(next, `v${next}`);
            next++;
          } else {
            const want = m.get(step);
            m.delete(step);
            expect(a.take(step)).toBe(want);
          }
          expect(a.size).toBe(m.size);
        }
        expect(a.takeAll()).toEqual([...m.values()]);
      }),
    );
  });
});
