/**
 * Absence or rule breaking (docs/SPEC.md §7.4, §12): a missed deadline is rule breaking only where the missing
 * message is a reveal its author could send after seeing what it decides, with nothing to open it without the
 * author; otherwise it is an absence, "timed out", and the verdict stays valid. Honest players are never named.
 */
import { describe, expect, it } from 'vitest';
import { simulate } from '../testing.js';
import { auditLines } from '../audit.js';
import { violationKind } from '../errors.js';
import type { JsonValue } from '../jcs.js';

const seed = new Uint8Array(32).fill(5);

describe('a withheld reveal: rule breaking, or an absence', () => {
  // 'nobody': the value is opened from escrow and counts; withholding gained nothing, and nobody is named.
  const cases: [string, Record<string, JsonValue>, 'rule' | 'absence' | 'nobody', string][] = [
    ['beacon', {}, 'rule', 'the last reveal, every other one out'],
    ['beacon', { escrow: { scheme: 'vss', threshold: 2 } }, 'nobody', 'opened from escrow: withholding gains nothing'],
    ['beacon', { escrow: { scheme: 'layers' } }, 'nobody', 'peeled from the layers'],
    ['chain', {}, 'rule', "the mover knew its roll (its opening and the others' fresh values)"],
    ['keyed-stream', {}, 'rule', 'the turn carries a roll its sender already knew'],
    ['monopoly', {}, 'rule', 'the roller knew its roll'],
    ['rochambeau', {}, 'rule', 'the one Reveal missing when the other is in'],
    ['signidice', {}, 'rule', "the HR opened after the house's signature"],
  ];
  for (const [protocol, params, kind, why] of cases) {
    it(`${protocol}${Object.keys(params).length > 0 ? ` ${JSON.stringify(params)}` : ''}: ${kind} (${why})`, () => {
      const r = simulate({ protocol, players: 3, seed, turns: 2, cheat: 'withhold', cheater: 'p1', ...(Object.keys(params).length > 0 ? { params } : {}) });
      const v = auditLines(r.lines);
      if (kind === 'nobody') {
        expect([...v.violations, ...r.violations]).toEqual([]);
        expect(v).toMatchObject({ valid: true, finished: true, inProgress: false });
        expect(v.outcome!.forfeits).toEqual([]);
        return;
      }
      if (protocol === 'rochambeau') {
        // Without escrow the claim against the last revealer is the game's last line: the unvouched tail (SPEC §4.4),
        // so the file alone names nobody and gives no outcome; the seats, who saw the log grow, name p1's rule breaking.
        expect(v.violations.map((x) => [x.code, x.player, x.kind])).toEqual([['withheld', null, 'rule']]);
        expect(v.valid).toBe(false);
        expect(v.outcome).toBeNull();
        expect(r.violations.length).toBeGreaterThan(0);
        for (const x of r.violations) expect([x.code, x.player, violationKind(x)]).toEqual(['withheld', 'p1', kind]);
        return;
      }
      expect(v.violations.length).toBeGreaterThan(0);
      for (const x of v.violations) {
        expect(x.player).toBe('p1');
        expect([x.code, violationKind(x)]).toEqual(['withheld', kind]);
        // A verdict writes the kind out, as --json prints it.
        expect(x.kind).toBe(kind);
      }
      expect(v.valid).toBe(kind === 'absence');
      expect(v.finished).toBe(true);
      expect(v.inProgress).toBe(false);
    });
  }
});

describe('a game in progress', () => {
  it('is in progress, names nobody and stays valid; its end is valid and finished', () => {
    const r = simulate({ protocol: 'dice', players: 3, seed, turns: 2 });
    const half = auditLines(r.lines.slice(0, Math.floor(r.lines.length / 2)));
    expect(half).toMatchObject({ valid: true, finished: false, inProgress: true, violations: [] });
    expect(auditLines(r.lines)).toMatchObject({ valid: true, finished: true, inProgress: false, violations: [] });
  });

  it('a rule broken mid-game is not valid, in progress or not', () => {
    const r = simulate({ protocol: 'chain', players: 2, seed, turns: 2, cheat: 'wrong-opening', cheater: 'p1' });
    const first = r.lines.findIndex((l, i) => i > 0 && auditLines(r.lines.slice(0, i + 1)).violations.length > 0);
    expect(first).toBeGreaterThan(0);
    const cut = auditLines(r.lines.slice(0, first + 1));
    expect(cut.valid).toBe(false);
    expect(cut.violations.map((x) => [x.code, x.player, x.kind])).toEqual([['commit_mismatch', 'p1', 'rule']]);
  });
});
