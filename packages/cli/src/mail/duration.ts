/**
 * Deadlines in human units (docs/spec/mail.md §5): `3d`, `12h`, `90m`, `30s`, `500ms`, or a combination
 * such as `1d12h`, turned into the milliseconds a setup's `timeoutMs` holds (docs/SPEC.md §7.4).
 */
import { FairtableError } from '@fairtable/core/errors.js';

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const PART = /(\d+)(ms|s|m|h|d|w)/gy;
/** The longest deadline a setup may carry (the machines take timeoutMs up to 2^40 ms, about 34 years). */
const MAX_MS = 2 ** 40;

export function parseDuration(text: string, field = 'timeout'): number {
  const s = text.trim();
  if (s.length === 0) throw new FairtableError('bad_input', `${field}: empty duration`, { field });
  PART.lastIndex = 0;
  let total = 0;
  let at = 0;
  for (let m = PART.exec(s); m !== null; m = PART.exec(s)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    at = PART.lastIndex;
  }
  if (at !== s.length || total === 0)
    throw new FairtableError('bad_input', `${field}: "${text}" is not a duration such as 3d, 12h, 90m, 30s or 1d12h`, { field });
  if (total > MAX_MS) throw new FairtableError('out_of_range', `${field}: ${text} is longer than ${MAX_MS} ms`, { field });
  return total;
}

/** A duration in the largest units that say it exactly, for messages to people: 259200000 → "3d". */
export function formatDuration(ms: number): string {
  if (ms <= 0) return '0s';
  let rest = ms;
  let out = '';
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ] as const) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return out;
}
