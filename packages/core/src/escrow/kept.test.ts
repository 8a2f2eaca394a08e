import { describe, expect, it } from 'vitest';
import { answersKept } from './kept.js';

describe('answersKept', () => {
  it('checks each value once, tells different values apart, and checks afresh what has no canonical text', () => {
    const kept = answersKept<string>(8);
    let checks = 0;
    const check = (v: unknown[]) => kept(v, () => `answer ${++checks}`);
    expect(check([{ a: '1', b: ['x'] }, 'ctx'])).toBe('answer 1');
    // The same value, its members in another order: one canonical text, one answer.
    expect(check([{ b: ['x'], a: '1' }, 'ctx'])).toBe('answer 1');
    expect(check([{ a: '1', b: ['x'] }, 'other ctx'])).toBe('answer 2');
    expect(check([{ a: 1, b: ['x'] }, 'ctx'])).toBe('answer 3');
    expect(check([undefined, 'ctx'])).toBe('answer 4');
    expect(check([undefined, 'ctx'])).toBe('answer 5');
    expect(checks).toBe(5);
  });

  it('keeps at most its limit, and checks again what it let go', () => {
    const kept = answersKept<number>(2);
    let checks = 0;
    for (const v of ['a', 'b', 'c', 'a']) kept([v], () => ++checks);
    expect(checks).toBe(4);
  });
});
