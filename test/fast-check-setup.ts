/**
 * Vitest setup, run in every test worker before its files: a time limit on every fast-check property.
 *
 * Once a property fails, fast-check shrinks the counterexample, running the property again for each
 * smaller candidate. When the property is synchronous (a whole simulated game, say), nothing can stop
 * that loop: vitest's own timeout only fires when the test yields. A CI run once spent over ten minutes
 * shrinking one such failure. With this limit, fast-check stops starting new runs after
 * `PROPERTY_TIME_LIMIT_MS` and reports what it has: the failure with its seed and path, as shrunk so far,
 * which replays it; or, for a property with no failure that was still running, a failure saying it was
 * interrupted (`markInterruptAsFailure`), so a property too slow for its test is never passed quietly.
 */
import fc from 'fast-check';

/** Below the 60-s test timeout of vitest.config.ts, so the property's own report is the one shown. */
export const PROPERTY_TIME_LIMIT_MS = 45_000;

fc.configureGlobal({ ...fc.readConfigureGlobal(), interruptAfterTimeLimit: PROPERTY_TIME_LIMIT_MS, markInterruptAsFailure: true });
