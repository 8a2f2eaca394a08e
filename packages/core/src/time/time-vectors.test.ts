/** The time rules' vectors (docs/spec/time.md §6): each receipt-time sequence judged by a seat and by an audit. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createdError, firstBackwards, firstPhaseStart, SeatClock } from './index.js';

interface Vectors {
  sequences: {
    name: string;
    receipts: { line: number; time: number; now: number; signed?: number }[];
    seat: { fault: { kind: string; line: number; earlier?: number } | null; offset: number };
    audit: { fault: { kind: string; line: number; earlier?: number } | null };
  }[];
  created: { created: number; now: number; receipt0?: number; refused: boolean }[];
  firstPhaseStart: { created: number; receipt0: number | null; start: number }[];
}

const vectors = JSON.parse(readFileSync(new URL('./vectors/receipt-times.json', import.meta.url), 'utf8')) as Vectors;

describe('receipt-time vectors (docs/spec/time.md)', () => {
  for (const v of vectors.sequences) {
    it(v.name, () => {
      let now = 0;
      const clock = new SeatClock(() => now);
      const faults = [];
      for (const r of v.receipts) {
        now = r.now;
        const f = clock.observe({ line: r.line, time: r.time, ...(r.signed === undefined ? {} : { signed: r.signed }) });
        if (f !== null) faults.push(f);
      }
      expect(faults.length).toBeLessThanOrEqual(1);
      const seat = faults[0] ?? null;
      expect(seat === null ? null : { kind: seat.kind, line: seat.line, ...(seat.earlier === undefined ? {} : { earlier: seat.earlier }) }).toEqual(
        v.seat.fault,
      );
      expect(clock.offset).toBe(v.seat.offset);
      expect(clock.now()).toBe(now + v.seat.offset);
      const audit = firstBackwards(v.receipts.map((r) => r.time));
      expect(audit === null ? null : { kind: audit.kind, line: audit.line, earlier: audit.earlier }).toEqual(v.audit.fault);
    });
  }
  it('a setup created outside the window is refused', () => {
    for (const c of vectors.created) expect(createdError(c.created, c.now, c.receipt0) !== null, JSON.stringify(c)).toBe(c.refused);
  });
  it('the first phase starts at the later of created and line 0 receipt time', () => {
    for (const c of vectors.firstPhaseStart) expect(firstPhaseStart(c.created, c.receipt0 ?? undefined)).toBe(c.start);
  });
});
