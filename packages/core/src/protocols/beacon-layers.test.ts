/**
 * The beacon with seed 003's layered escrow (docs/spec/escrow.md §3.3–3.5) on the in-memory network: a
 * withheld value is peeled by the others so the round ends with the committed value, and its owner is not
 * named for it (withholding gained nothing); garbage in an onion,
 * a refusal to peel, a wrong exchange and an onion that holds another value are each caught with the
 * cheater named on evidence, and no honest player is ever named.
 */
import { describe, expect, it } from 'vitest';
import { simulate, type SimOptions } from '../sim/simulate.js';
import type { Cheat } from '../sim/cheats.js';
import { auditLines } from '../audit.js';

type Seeds = { round: number; seed: string; players: string[]; opened: string[] }[];
type Line = { from: string; body: { type: string; round?: number; seed?: string; onion?: unknown } };

const SEED = new Uint8Array(32).fill(78);

function run(players: number, extra: Partial<SimOptions> = {}) {
  const r = simulate({ protocol: 'beacon', players, seed: SEED, params: { escrow: { scheme: 'layers' } }, drop: 0.05, duplicate: 0.05, ...extra });
  const verdict = auditLines(r.lines);
  const seeds = (verdict.outcome?.summary as { seeds: Seeds } | undefined)?.seeds ?? [];
  const bodies = r.lines.slice(1).map((l) => JSON.parse(l) as Line);
  return { r, verdict, seeds, bodies };
}

/** Every violation (live and audited) names one of `named`, and each is named with its code and evidence. */
function expectNamed(result: ReturnType<typeof run>, named: Record<string, readonly string[]>): void {
  const { r, verdict } = result;
  for (const v of [...verdict.violations, ...r.violations]) expect(Object.keys(named), `${v.player} named ${v.code}: ${v.message}`).toContain(v.player);
  for (const [player, codes] of Object.entries(named)) {
    for (const code of codes) {
      const v = verdict.violations.find((x) => x.player === player && x.code === code);
      expect(v, `${player} named ${code}`).toBeDefined();
      expect(v!.evidence.length).toBeGreaterThan(0);
      expect(r.violations.some((x) => x.player === player && x.code === code)).toBe(true);
    }
  }
}

const peels = (res: ReturnType<typeof run>): Line[] => res.bodies.filter((b) => b.body.type === 'peel');

describe('beacon with layered escrow', () => {
  const honest = run(5);

  it('honest play: valid, one seed, nothing peeled; every commit carries an onion and every reveal its seed', () => {
    expect(honest.verdict.violations).toEqual([]);
    expect(honest.verdict.valid).toBe(true);
    expect(honest.seeds).toHaveLength(1);
    expect(honest.seeds[0]!.opened).toEqual([]);
    const commits = honest.bodies.filter((b) => b.body.type === 'commit');
    const reveals = honest.bodies.filter((b) => b.body.type === 'reveal');
    expect(commits.every((b) => b.body.onion !== undefined)).toBe(true);
    expect(reveals.every((b) => /^[0-9a-f]{64}$/.test(b.body.seed!))).toBe(true);
    expect(peels(honest)).toEqual([]);
    // Two broadcast rounds, as without escrow: commit and reveal.
    expect(honest.r.lines.length).toBe(1 + 10);
  });

  it('a withholder names nobody: its value is peeled and counts, it stays; the seed is the one an honest reveal gives', () => {
    const res = run(5, { cheat: 'withhold', cheater: 'p2' });
    expect([...res.verdict.violations, ...res.r.violations]).toEqual([]);
    expect(res.verdict.valid).toBe(true);
    expect(res.seeds[0]!.players).toContain('p2');
    expect(res.seeds).toHaveLength(1);
    expect(res.seeds[0]!.round).toBe(1);
    expect(res.seeds[0]!.opened).toEqual(['p2']);
    expect(res.seeds[0]!.seed).toBe(honest.seeds[0]!.seed);
    expect(res.verdict.outcome!.forfeits).toEqual([]);
    // p2's others are p0, p1, p3, p4: layers (p0|p4), (p0|p1), (p1|p3), (p3|p4), then the core to p0 and p1.
    // Each member publishes one exchange, which opens its boxes of every layer: p0 and p4, then p1, then p3.
    expect(
      peels(res)
        .map((b) => b.from)
        .sort(),
    ).toEqual(['p0', 'p1', 'p3', 'p4']);
  });

  it("garbage in a member's box: the member's proven exchange names the owner; its partner peels on, the round keeps the committed value", () => {
    const res = run(5, { cheat: 'layers-bad-box', cheater: 'p2' });
    // The garbage is rule breaking; the withholding itself names nobody.
    expectNamed(res, { p2: ['bad_layer'] });
    expect(res.verdict.violations.every((v) => v.code === 'bad_layer' && v.kind !== 'absence')).toBe(true);
    expect(res.verdict.outcome!.forfeits).toEqual([{ player: 'p2', code: 'bad_layer' }]);
    const named = res.verdict.violations.find((v) => v.code === 'bad_layer')!;
    // The evidence is p0's peel (its exchange and proof) and p2's commit.
    expect((named.evidence[0]!.envelope as Line).from).toBe('p0');
    expect((named.evidence[0]!.envelope as Line).body.type).toBe('peel');
    expect(named.message).toMatch(/p0's key box of layer 1 does not open/);
    expect(res.seeds[0]!.round).toBe(1);
    expect(res.seeds[0]!.opened).toEqual(['p2']);
    expect(res.seeds[0]!.seed).toBe(honest.seeds[0]!.seed);
  });

  it('garbage body in an inner layer: the owner is named on the proven exchange; the value is lost and the round run again without it', () => {
    const res = run(5, { cheat: 'layers-bad-body', cheater: 'p2' });
    expectNamed(res, { p2: ['bad_layer'] });
    expect(res.verdict.valid).toBe(false);
    expect(res.verdict.violations.find((v) => v.code === 'bad_layer')!.message).toMatch(/layer 1's body does not open/);
    expect(res.seeds).toHaveLength(1);
    expect(res.seeds[0]!.round).toBe(2);
    expect(res.seeds[0]!.players).toEqual(['p0', 'p1', 'p3', 'p4']);
  });

  it('an onion holding another value than the one revealed: the background check names the owner; its revealed value stays', () => {
    const res = run(5, { cheat: 'layers-inside-differs', cheater: 'p2' });
    expectNamed(res, { p2: ['bad_layer'] });
    expect(res.verdict.violations[0]!.message).toMatch(/not the one revealed/);
    expect(res.seeds[0]!.round).toBe(1);
    expect(res.seeds[0]!.players).toContain('p2');
    expect(res.seeds[0]!.seed).not.toBe('');
    expect(res.verdict.outcome!.forfeits).toEqual([{ player: 'p2', code: 'bad_layer' }]);
    expect(peels(res)).toEqual([]);
  });

  it('a member who refuses to peel is named; the other member of its pair goes on', () => {
    const res = run(5, { cheat: 'withhold', cheater: 'p2', accomplices: { p0: 'layers-refuse-peel' } });
    expectNamed(res, { p0: ['withheld'] });
    expect(res.seeds[0]!.round).toBe(1);
    expect(res.seeds[0]!.opened).toEqual(['p2']);
    expect(res.seeds[0]!.seed).toBe(honest.seeds[0]!.seed);
    expect(peels(res).some((b) => b.from === 'p0')).toBe(false);
  });

  it('a member who publishes a wrong exchange is named; its partner opens the layer', () => {
    const res = run(5, { cheat: 'withhold', cheater: 'p2', accomplices: { p1: 'layers-bad-peel' } });
    expectNamed(res, { p1: ['bad_share'] });
    expect(res.seeds[0]!.round).toBe(1);
    expect(res.seeds[0]!.seed).toBe(honest.seeds[0]!.seed);
  });

  it('both members of a layer refuse: both are named, the value cannot be opened, the withholder is named an absence, and the round is run again among the rest', () => {
    const accomplices: Record<string, Cheat> = { p0: 'layers-refuse-peel', p4: 'layers-refuse-peel' };
    const res = run(5, { cheat: 'withhold', cheater: 'p2', accomplices });
    expectNamed(res, { p2: ['withheld'], p0: ['withheld'], p4: ['withheld'] });
    for (const v of res.verdict.violations) expect(v.kind).toBe('absence');
    expect(res.seeds).toHaveLength(1);
    expect(res.seeds[0]!.round).toBe(2);
    expect(res.seeds[0]!.players).toEqual(['p1', 'p3']);
  });

  it('lossy networks: over random drops, whoever withholds is opened and nobody is named', () => {
    for (let i = 0; i < 4; i++) {
      const cheater = `p${i % 5}`;
      const res = run(5, { seed: new Uint8Array(32).fill(90 + i), drop: 0.2, duplicate: 0.1, maxDelay: 80, cheat: 'withhold', cheater });
      expect([...res.verdict.violations, ...res.r.violations]).toEqual([]);
      expect(res.verdict.outcome).not.toBeNull();
      expect(res.seeds[0]!.round).toBe(1);
      expect(res.seeds[0]!.opened).toEqual([cheater]);
    }
  });

  it('refuses a layers parameter with anything else in it', () => {
    expect(() => simulate({ protocol: 'beacon', players: 3, seed: SEED, params: { escrow: { scheme: 'layers', threshold: 2 } } })).toThrow(/escrow/);
  });
});
