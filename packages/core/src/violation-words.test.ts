import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { violationMeaning } from './violation-words.js';

describe('violation codes in plain words', () => {
  it('has a sentence for every code a player can be named for', () => {
    // The codes as errors.ts declares them; altered_log names nobody and the audit says so in its own words.
    const source = readFileSync(new URL('./errors.ts', import.meta.url), 'utf8');
    const union = source.slice(source.indexOf('export type ViolationCode'), source.indexOf('export interface Evidence'));
    const codes = [...union.matchAll(/\| '([a-z_]+)'/g)].map((m) => m[1]!).filter((c) => c !== 'altered_log');
    expect(codes.length).toBeGreaterThan(25);
    expect(codes.filter((c) => violationMeaning(c) === null)).toEqual([]);
    for (const c of codes) expect(violationMeaning(c), c).toMatch(/^[a-z].*\.$/s);
  });

  it('has none for a code it does not know', () => {
    expect(violationMeaning('no_such_code')).toBeNull();
  });
});
