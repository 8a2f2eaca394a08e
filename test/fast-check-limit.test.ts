/**
 * Every fast-check property runs under a time limit that also stops its shrinking (test/fast-check-setup.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROPERTY_TIME_LIMIT_MS } from './fast-check-setup.js';

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('the time limit on fast-check properties', () => {
  it('is set for every test file by the setup file', () => {
    expect(fc.readConfigureGlobal()).toMatchObject({ interruptAfterTimeLimit: PROPERTY_TIME_LIMIT_MS, markInterruptAsFailure: true });
  });

  it('stops a synchronous property that keeps shrinking, and still reports the failure with its seed', () => {
    // Every array of 10 or more fails, and each run takes 20 ms: shrinking an array of 60 to 200 numbers
    // down to 10 would take far more runs than fit in 300 ms.
    let runs = 0;
    const property = fc.property(fc.array(fc.integer(), { minLength: 60, maxLength: 200 }), (a) => {
      runs++;
      busy(20);
      return a.length < 10;
    });
    expect(() => fc.assert(property, { interruptAfterTimeLimit: 300, seed: 1 })).toThrow(/Property failed[\s\S]*seed: 1/);
    expect(runs).toBeGreaterThan(1);
    expect(runs).toBeLessThanOrEqual(300 / 20 + 1);
  });

  it('fails a property with no counterexample that is still running at the limit', () => {
    const property = fc.property(fc.integer(), () => {
      busy(20);
      return true;
    });
    expect(() => fc.assert(property, { interruptAfterTimeLimit: 200, numRuns: 1000 })).toThrow(/interrupted/);
  });
});
