import { describe, expect, it } from 'vitest';
import type { Violation } from './errors.js';
import { evidenceOfLine, linesNamed, withLineEvidence, type LineEvidence } from './evidence-lines.js';

const violation = (evidence: Violation['evidence']): Violation => ({ code: 'bad_signature', player: 'p1', seq: 2, message: 'm', evidence });

describe("the audit's second pass: lines named as evidence by their number alone", () => {
  it('names only the lines whose evidence has neither an envelope nor a note', () => {
    const vs = [violation([{ line: 2 }, { line: 3, note: 'kept' }, { line: 4, envelope: {} }]), violation([{ line: 7 }, { hash: 'ab' }])];
    expect([...linesNamed(vs)].sort((a, b) => a - b)).toEqual([2, 7]);
  });

  it("reads a line's envelope by the strict reader, and shows the first 200 characters of anything else", () => {
    expect(evidenceOfLine({ text: '{"from":"p1","n":1}', problem: null }, 5)).toEqual({ envelope: { from: 'p1', n: 1 } });
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    expect(evidenceOfLine({ text: deep, problem: null }, 5)).toEqual({ note: deep.slice(0, 200) });
    expect(evidenceOfLine({ text: '{"a":1,"a":2}', problem: null }, 5)).toEqual({ note: '{"a":1,"a":2}' });
    expect(evidenceOfLine({ text: 'not utf-8', problem: 'invalid UTF-8' }, 5)).toEqual({ note: 'not utf-8' });
  });

  it('puts what was found into the evidence that named its line alone, and leaves the rest as it was', () => {
    const vs = [violation([{ line: 2 }, { line: 3, note: 'kept' }, { line: 9 }])];
    const found = new Map<number, LineEvidence>([
      [2, { envelope: { from: 'p1' } }],
      [3, { note: 'not used' }],
    ]);
    const [filled] = withLineEvidence(vs, found);
    expect(filled!.evidence).toEqual([{ line: 2, envelope: { from: 'p1' } }, { line: 3, note: 'kept' }, { line: 9 }]);
    // The violations given are not changed.
    expect(vs[0]!.evidence[0]).toEqual({ line: 2 });
  });
});
