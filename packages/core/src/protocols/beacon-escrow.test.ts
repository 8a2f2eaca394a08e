/**
 * The beacon's threshold escrow (docs/spec/escrow.md §2) on the in-memory network: a withheld or wrong reveal
 * is opened by k shares so the round ends with the committed value; a value opened from escrow names nobody
 * (withholding gained nothing), while every rule of the escrow a cheater can break is caught and the cheater
 * named, and no honest player is ever blamed.
 */
import { describe, expect, it } from 'vitest';
import { simulate, type SimOptions } from '../sim/simulate.js';
import type { Cheat } from '../sim/cheats.js';
import { auditLines } from '../audit.js';
import type { Body } from '../envelope.js';

type Seeds = { round: number; seed: string; players: string[]; opened: string[] }[];

const SEED = new Uint8Array(32).fill(77);

/** Two ways to be absent, as hooks on what the player's seat sends: after its commitment, or from the start. */
const ABSENT = {
  protocol: 'beacon',
  cheats: {
    'vanish-after-commit': () => ({ body: (b: Body) => (b.type === 'commit' ? b : null) }),
    'withhold-commit': () => ({ body: (b: Body) => (b.type === 'commit' ? null : b) }),
  },
};

function run(players: number, k: number, extra: Partial<SimOptions> = {}) {
  const r = simulate({
    protocol: 'beacon',
    players,
    seed: SEED,
    params: { escrow: { scheme: 'vss', threshold: k } },
    drop: 0.05,
    duplicate: 0.05,
    ...extra,
  });
  const verdict = auditLines(r.lines);
  const seeds = (verdict.outcome?.summary as { seeds: Seeds } | undefined)?.seeds ?? [];
  return { r, verdict, seeds };
}

/** Every violation (live and audited) names one of `cheaters`, and each cheater is named with `codes`. */
function expectNamed(result: ReturnType<typeof run>, named: Record<string, string>): void {
  const { r, verdict } = result;
  for (const v of verdict.violations) expect(Object.keys(named)).toContain(v.player);
  for (const v of r.violations) expect(Object.keys(named)).toContain(v.player);
  for (const [player, code] of Object.entries(named)) {
    const v = verdict.violations.find((x) => x.player === player && x.code === code);
    expect(v, `${player} named ${code}`).toBeDefined();
    expect(v!.evidence.length).toBeGreaterThan(0);
    expect(r.violations.some((x) => x.player === player && x.code === code)).toBe(true);
  }
}

describe('beacon with threshold escrow', () => {
  const honest5 = run(5, 3);

  it('honest play with escrow on a lossy network: valid, one seed, nothing opened', () => {
    expect(honest5.verdict.violations).toEqual([]);
    expect(honest5.verdict.valid).toBe(true);
    expect(honest5.seeds).toHaveLength(1);
    expect(honest5.seeds[0]!.round).toBe(1);
    expect(honest5.seeds[0]!.opened).toEqual([]);
    // Every commitment carries a sharing with k commitments and a sealed share per other player.
    const commits = honest5.r.lines.map((l) => JSON.parse(l) as { body: { type: string; escrow?: { commitments: string[]; shares: unknown[] } } });
    const dealings = commits.filter((e) => e.body.type === 'commit').map((e) => e.body.escrow!);
    expect(dealings).toHaveLength(5);
    for (const d of dealings) {
      expect(d.commitments).toHaveLength(3);
      expect(d.shares).toHaveLength(4);
    }
  });

  it('a withholder names nobody: its value is opened and counts, it stays, the seed is the one an honest reveal gives', () => {
    const res = run(5, 3, { cheat: 'withhold', cheater: 'p2' });
    expect(res.verdict.violations).toEqual([]);
    expect(res.r.violations).toEqual([]);
    expect(res.verdict.valid).toBe(true);
    expect(res.seeds).toHaveLength(1);
    expect(res.seeds[0]!.round).toBe(1);
    expect(res.seeds[0]!.opened).toEqual(['p2']);
    expect(res.seeds[0]!.players).toContain('p2');
    expect(res.seeds[0]!.seed).toBe(honest5.seeds[0]!.seed);
    expect(res.verdict.outcome!.forfeits).toEqual([]);
    // The others claimed the deadline, and the shares opened the value.
    const types = res.r.lines.map((l) => (JSON.parse(l) as { body: { type: string } }).body.type);
    expect(types).toContain('deadline');
    expect(types.filter((t) => t === 'share').length).toBeGreaterThanOrEqual(3);
  });

  it('a player who commits and vanishes: the round completes with its value opened, nobody named', () => {
    const res = run(4, 2, { extension: ABSENT, cheat: 'vanish-after-commit', cheater: 'p1' });
    expect(res.verdict.violations).toEqual([]);
    expect(res.r.violations).toEqual([]);
    expect(res.verdict).toMatchObject({ valid: true, finished: true });
    expect(res.seeds).toHaveLength(1);
    expect(res.seeds[0]!.round).toBe(1);
    expect(res.seeds[0]!.players).toEqual(['p0', 'p1', 'p2', 'p3']);
    expect(res.seeds[0]!.opened).toEqual(['p1']);
    expect(res.verdict.outcome!.forfeits).toEqual([]);
    // p1 sent its commitment and nothing after.
    const mine = res.r.lines.slice(1).filter((l) => (JSON.parse(l) as { from: string }).from === 'p1');
    expect(mine.map((l) => (JSON.parse(l) as { body: { type: string } }).body.type)).toEqual(['commit']);
    expect(res.seeds[0]!.seed).toBe(run(4, 2).seeds[0]!.seed);
  });

  it('a player who never commits: an absence, and it forfeits; the round goes on without it', () => {
    const res = run(4, 2, { extension: ABSENT, cheat: 'withhold-commit', cheater: 'p1' });
    for (const v of [...res.verdict.violations, ...res.r.violations]) expect([v.player, v.code, v.kind]).toEqual(['p1', 'withheld', 'absence']);
    expect(res.verdict.violations.length).toBeGreaterThan(0);
    expect(res.verdict.valid).toBe(true);
    expect(res.verdict.outcome!.forfeits).toEqual([{ player: 'p1', code: 'withheld' }]);
    expect(res.seeds[0]!.players).toEqual(['p0', 'p2', 'p3']);
  });

  it('a reveal that does not open to the sharing is named and the shared value used instead', () => {
    const res = run(5, 3, { cheat: 'wrong-opening', cheater: 'p4' });
    expectNamed(res, { p4: 'commit_mismatch' });
    expect(res.seeds[0]!.round).toBe(1);
    expect(res.seeds[0]!.opened).toEqual(['p4']);
    expect(res.seeds[0]!.seed).toBe(honest5.seeds[0]!.seed);
  });

  it('a reveal on another commit set is named and the shared value used instead', () => {
    const res = run(5, 3, { cheat: 'escrow-reveal-wrong-set', cheater: 'p1' });
    expectNamed(res, { p1: 'commit_set_mismatch' });
    expect(res.seeds[0]!.round).toBe(1);
    expect(res.seeds[0]!.opened).toEqual(['p1']);
    expect(res.seeds[0]!.seed).toBe(honest5.seeds[0]!.seed);
  });

  it('a wrong share published at opening names its sender; the others still open the value', () => {
    const res = run(5, 2, { cheat: 'withhold', cheater: 'p3', accomplices: { p1: 'escrow-wrong-share' } });
    const honest = run(5, 2);
    expectNamed(res, { p1: 'bad_share' });
    expect(res.seeds[0]!.round).toBe(1);
    expect(res.seeds[0]!.opened).toEqual(['p3']);
    expect(res.seeds[0]!.seed).toBe(honest.seeds[0]!.seed);
    // p1's own value was revealed and stays in the round; it leaves afterwards.
    expect(res.seeds[0]!.players).toContain('p1');
    expect(res.verdict.outcome!.forfeits.map((f) => f.player).sort()).toEqual(['p1']);
  });

  it('fewer than k shares: the round ends as without escrow (forfeit, run again among the rest), both named absences', () => {
    const accomplices: Record<string, Cheat> = { p1: 'escrow-withhold-share' };
    const res = run(4, 3, { cheat: 'withhold', cheater: 'p3', accomplices });
    expectNamed(res, { p3: 'withheld', p1: 'withheld' });
    for (const v of res.verdict.violations) expect(v.kind).toBe('absence');
    expect(res.seeds).toHaveLength(1);
    expect(res.seeds[0]!.round).toBe(2);
    expect(res.seeds[0]!.players).toEqual(['p0', 'p2']);
    expect(res.seeds[0]!.opened).toEqual([]);
  });

  it('a dealing whose shares do not fit its commitments: complaints, the answers fail, the dealer is named before any reveal', () => {
    const res = run(4, 2, { cheat: 'escrow-bad-deal', cheater: 'p1' });
    expectNamed(res, { p1: 'bad_share' });
    expect(res.seeds).toHaveLength(1);
    expect(res.seeds[0]!.round).toBe(2);
    expect(res.seeds[0]!.players).toEqual(['p0', 'p2', 'p3']);
    // Nobody revealed in round 1: the dealer was out before it could see a value.
    const round1Reveals = res.r.lines.filter((l) => {
      const b = (JSON.parse(l) as { body: { type: string; round?: number } }).body;
      return b.type === 'reveal' && b.round === 1;
    });
    expect(round1Reveals).toEqual([]);
  });

  it('a false complaint is answered in the clear and blames nobody; the round ends as an honest one', () => {
    const res = run(5, 3, { cheat: 'escrow-false-complaint', cheater: 'p0' });
    expect(res.verdict.violations).toEqual([]);
    expect(res.r.violations).toEqual([]);
    expect(res.seeds[0]!.round).toBe(1);
    expect(res.seeds[0]!.seed).toBe(honest5.seeds[0]!.seed);
    const answers = res.r.lines.filter((l) => (JSON.parse(l) as { body: { type: string } }).body.type === 'share');
    expect(answers).toHaveLength(4);
  });

  // Each remaining rule of the escrow, broken once: the cheater is named, and no honest player.
  const rules: { cheat: Cheat; code: string; why: string; accomplices?: Record<string, Cheat> }[] = [
    { cheat: 'escrow-short-deal', code: 'bad_share', why: 'a sharing of the wrong size' },
    { cheat: 'escrow-bad-check', code: 'commit_set_mismatch', why: 'a share check on another commit set' },
    { cheat: 'escrow-self-complaint', code: 'unexpected_message', why: 'a complaint of a dealing it was not dealt' },
    { cheat: 'escrow-withhold-answer', code: 'withheld', why: 'a complaint left unanswered', accomplices: { p0: 'escrow-false-complaint' } },
  ];
  for (const rule of rules) {
    it(`${rule.cheat} (${rule.why}): named ${rule.code} before any value is public; the seed is drawn without it`, () => {
      const res = run(4, 2, { cheat: rule.cheat, cheater: 'p2', ...(rule.accomplices === undefined ? {} : { accomplices: rule.accomplices }) });
      expectNamed(res, { p2: rule.code });
      expect(res.seeds).toHaveLength(1);
      expect(res.seeds[0]!.players).not.toContain('p2');
      // Named before any value was public: no reveal stands in the log ahead of the violation.
      const named = res.verdict.violations.find((v) => v.player === 'p2')!;
      const firstReveal = res.r.lines.findIndex((l) => (JSON.parse(l) as { body: { type: string } }).body.type === 'reveal');
      expect(firstReveal).toBeGreaterThan(named.seq);
    });
  }

  it('no word on the shares dealt to it (escrow-withhold-check) names nobody: its value stays dealt and the round completes', () => {
    const res = run(4, 2, { cheat: 'escrow-withhold-check', cheater: 'p2' });
    expect(res.verdict.violations).toEqual([]);
    expect(res.r.violations).toEqual([]);
    expect(res.seeds[0]!.round).toBe(1);
    expect(res.seeds[0]!.players).toContain('p2');
    expect(res.seeds[0]!.seed).toBe(run(4, 2).seeds[0]!.seed);
  });

  it('escrow changes nothing for the seed of an honest round but its binding: without escrow the values differ', () => {
    const plain = simulate({ protocol: 'beacon', players: 5, seed: SEED });
    const seeds = (auditLines(plain.lines).outcome!.summary as { seeds: Seeds }).seeds;
    expect(seeds[0]!.seed).not.toBe(honest5.seeds[0]!.seed);
    expect(plain.lines.length).toBe(1 + 10);
    // With escrow: commit, check, reveal per player.
    expect(honest5.r.lines.length).toBe(1 + 15);
  });

  it('refuses an escrow parameter it does not know', () => {
    expect(() => simulate({ protocol: 'beacon', players: 3, seed: SEED, params: { escrow: { scheme: 'magic', threshold: 2 } } })).toThrow(/escrow/);
  });
});
