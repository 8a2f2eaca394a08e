/**
 * Provenance and distributions on simulated games (docs/spec/explain.md §2, §3): every outcome of every
 * game explained with its inputs checked; a cheater's wrong opening (and a house's wrong proof) shows
 * `ok: false` on exactly that input; the chart's expected counts add up to what was observed.
 */
import { describe, expect, it } from 'vitest';
import { utf8 } from '@fairtable/core/bytes.js';
import { CHEATS, cheatApplies, simKeys, simulate, type Cheat, type SimProtocol } from '@fairtable/core/testing';
import { envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { verify as nobleVerify } from '@fairtable/core/identity.js';
import { explainOutcomes } from './provenance.js';
import { diceSumProbabilities, distribution, outcomeDistributions } from './distributions.js';
import type { Provenance, ProvenanceInput } from './types.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';

/**
 * The games are played on OpenSSL's Ed25519 (the same signatures as noble's, packages/node's differential test):
 * they are the input here; what explains them checks every signature as the page does.
 */
const ed25519 = { sign: nativeSign, verify: nativeVerify } as const;

const game = (protocol: SimProtocol, seed: string, extra: { cheat?: Cheat; cheater?: string; turns?: number; players?: number } = {}) =>
  simulate({ protocol, players: extra.players ?? 3, seed: utf8(seed), turns: extra.turns ?? 4, ...extra, ...ed25519 });

const failed = (entries: readonly Provenance[]): { entry: Provenance; input: ProvenanceInput }[] =>
  entries.flatMap((entry) => entry.inputs.filter((i) => i.ok === false).map((input) => ({ entry, input })));

describe('explainOutcomes on honest games', () => {
  it('beacon: one entry per seed, every opening, the commit set and the seed recomputed', () => {
    const sim = game('beacon', 'explain-beacon', { turns: 3 });
    const entries = explainOutcomes(sim.lines);
    const seeds = (sim.outcome!.summary as { seeds: { seed: string }[] }).seeds;
    expect(entries.map((e) => e.outcome)).toEqual(seeds.map((s) => `seed ${s.seed}`));
    for (const e of entries) {
      expect(e.ok).toBe(true);
      expect(e.inputs.filter((i) => i.ok === true).map((i) => i.label)).toEqual(["p0's value", "p1's value", "p2's value", 'agreed commit set', 'seed']);
    }
  });

  for (const name of ['dice', 'snakes', 'monopoly'] as const) {
    it(`${name} (chain): one entry per turn, the opening, the fresh values and the draws checked`, () => {
      const sim = game(name, `explain-${name}`, { turns: name === 'monopoly' ? 8 : 4 });
      const entries = explainOutcomes(sim.lines);
      // The whole game of Monopoly counts its decisions as turns too; an entry stands for each roll, a move line.
      const moves = sim.lines.filter((l) => (JSON.parse(l) as { body: { type: string } }).body.type === 'move').length;
      expect(entries).toHaveLength(name === 'monopoly' ? moves : (sim.outcome!.summary as { turns: number }).turns);
      for (const e of entries) {
        expect(e.ok).toBe(true);
        const checked = e.inputs.filter((i) => i.ok === true).map((i) => i.label.replace(/^p\d/, 'P'));
        expect(checked).toEqual(["P's opening", "P's fresh value", "P's fresh value", 'draws from the seed']);
      }
      if (name === 'dice') {
        // The entries' rolls add up to the final scores the machine kept.
        const totals: Record<string, number> = {};
        for (const e of entries) totals[e.player!] = (totals[e.player!] ?? 0) + (e.detail as { sum: number }).sum;
        expect(totals).toEqual((sim.outcome!.summary as { state: { scores: Record<string, number> } }).state.scores);
      }
      if (name === 'monopoly') {
        // Every player's rolls are explained, not only the first seat's.
        expect(new Set(entries.map((e) => e.player))).toEqual(new Set(['p0', 'p1', 'p2']));
        for (const e of entries) expect(e.outcome).not.toMatch(/undefined/);
        // Each roll and each card of the summary has its draw shown; the cards by their wording.
        let cards = 0;
        for (const e of entries) {
          const events = (e.detail as { events: { roll?: number[]; card?: string }[] }).events;
          expect(e.inputs.filter((i) => i.label === 'dice').map((i) => i.value)).toEqual(events.filter((v) => v.roll).map((v) => v.roll!.join(', ')));
          const shown = e.inputs.filter((i) => i.label.endsWith(' card')).map((i) => i.value);
          expect(shown).toEqual(events.filter((v) => v.card).map((v) => v.card));
          cards += shown.length;
        }
        expect(cards).toBeGreaterThan(0);
      }
      if (name === 'snakes') {
        const last: Record<string, number> = {};
        for (const e of entries) last[e.player!] = (e.detail as { to: number }).to;
        expect(last).toEqual((sim.outcome!.summary as { state: { positions: Record<string, number> } }).state.positions);
      }
    });
  }

  it("Monopoly on keyed streams: each roll (the mover's X, the next player's draws) explained, and charted", () => {
    const sim = simulate({ protocol: 'keyed-stream', game: 'monopoly', players: 3, seed: utf8('explain-keyed-monopoly'), turns: 4, ...ed25519 });
    expect(sim.violations).toEqual([]);
    const rolls = sim.lines.filter((l) => (JSON.parse(l) as { body: { type: string } }).body.type === 'roll').length;
    expect(rolls).toBeGreaterThan(5);
    const entries = explainOutcomes(sim.lines);
    expect(entries).toHaveLength(rolls);
    for (const e of entries) {
      expect(e.ok).toBe(true);
      expect(e.inputs.some((i) => i.ok === false)).toBe(false);
      expect(e.label).toMatch(/^Turn \d+: (p\d)'s roll, drawn by p\d$/);
      expect(e.inputs.map((i) => i.label)).toContain('dice');
    }
    const [faces] = outcomeDistributions(sim.lines);
    expect(faces!.label).toBe('Die faces (d6)');
    expect(faces!.categories.reduce((a, c) => a + c.observed, 0)).toBe(2 * rolls);
  });

  it('keyed-stream: every X and every roll replayed from the revealed stream secrets', () => {
    const sim = game('keyed-stream', 'explain-keyed');
    const entries = explainOutcomes(sim.lines);
    expect(entries).toHaveLength((sim.outcome!.summary as { turns: number }).turns);
    for (const e of entries) {
      expect(e.ok).toBe(true);
      const draws = e.inputs.find((i) => i.label.includes('draws'))!;
      expect(draws.ok).toBe(true);
      expect(e.inputs.filter((i) => i.label.endsWith('stream secret')).every((i) => i.ok === true)).toBe(true);
    }
    // Every turn but the first has its mover's X, checked too.
    expect(entries.slice(1).every((e) => e.inputs.some((i) => /'s X for turn/.test(i.label) && i.ok === true))).toBe(true);
  });

  it('keyed-stream with audits during play: numbers under each key checked by that key', () => {
    const sim = game('keyed-stream', 'explain-keyed-audits', { turns: 6, players: 2 });
    const withAudits = simulate({ protocol: 'keyed-stream', players: 2, seed: utf8('explain-keyed-audits'), turns: 6, params: { auditEvery: 2 }, ...ed25519 });
    const entries = explainOutcomes(withAudits.lines);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e) => e.ok && e.inputs.some((i) => i.label.includes('draws') && i.ok === true))).toBe(true);
    // Each roll names the line of the stream key that drew it, whose value is that line's key.
    for (const e of entries) {
      const key = e.inputs.find((i) => i.label.endsWith('stream key'))!;
      const body = (JSON.parse(withAudits.lines[key.line!]!) as Envelope).body;
      expect(body.key, e.label).toBe(key.value);
    }
    // More secrets were revealed than at a plain game's end.
    const secrets = (lines: string[]) =>
      new Set(explainOutcomes(lines).flatMap((e) => e.inputs.filter((i) => i.label.endsWith('stream secret')).map((i) => i.value)));
    expect(secrets(withAudits.lines).size).toBeGreaterThan(secrets(sim.lines).size);
  });

  it("signidice: one entry per spin, the house's proof, HR and the lucky number recomputed", () => {
    const sim = game('signidice', 'explain-signidice');
    const entries = explainOutcomes(sim.lines);
    const lucky = (sim.outcome!.summary as { lucky: number[] }).lucky;
    expect(entries.map((e) => Number(e.inputs.find((i) => i.label === 'lucky number')!.value))).toEqual(lucky);
    for (const e of entries) {
      expect(e.ok).toBe(true);
      expect(e.inputs.filter((i) => i.ok === true).map((i) => i.label.replace(/^p\d/, 'P'))).toEqual(["the house's proof", "P's HR", 'lucky number']);
    }
  });

  it('rochambeau: the attempt with every Reveal checked, and each round with its assigned states', () => {
    const sim = game('rochambeau', 'explain-rochambeau', { players: 5 });
    const entries = explainOutcomes(sim.lines);
    const attempt = entries.find((e) => /^Rochambeau attempt \d+$/.test(e.label))!;
    expect(attempt.player).toBe(sim.outcome!.winners[0]);
    expect(attempt.inputs.filter((i) => i.label.endsWith('Reveal') && i.ok === true)).toHaveLength(5);
    const rounds = entries.filter((e) => /round \d+$/.test(e.label));
    expect(rounds.length).toBe((sim.outcome!.summary as { rounds: number }).rounds);
    expect(rounds.every((e) => e.ok && e.inputs.every((i) => i.ok === true))).toBe(true);
  });
});

describe('a wrong opening shows ok: false on exactly that input', () => {
  const cases: [SimProtocol, Cheat, string, RegExp][] = [
    ['beacon', 'wrong-opening', 'commit_mismatch', /^p1's opening$/],
    ['dice', 'wrong-opening', 'commit_mismatch', /^p1's opening$/],
    ['monopoly', 'wrong-opening', 'commit_mismatch', /^p1's opening$/],
    ['rochambeau', 'wrong-opening', 'commit_mismatch', /^p1's Reveal$/],
    ['signidice', 'player-wrong-hr', 'commit_mismatch', /^p1's HR opening$/],
    ['signidice', 'house-wrong-signature', 'bad_vrf_proof', /^the house's proof$/],
    ['keyed-stream', 'wrong-opening', 'audit_mismatch', /^p1's draws for p\d$/],
  ];
  for (const [protocol, cheat, code, label] of cases) {
    it(`${protocol}, ${cheat}`, () => {
      const cheater = cheat.startsWith('house-') ? 'house' : 'p1';
      const sim = game(protocol, `explain-cheat-${protocol}-${cheat}`, { cheat, cheater });
      const violation = sim.violations.find((v) => v.code === code)!;
      expect(violation.player).toBe(cheater);
      const entries = explainOutcomes(sim.lines);
      const bad = failed(entries);
      expect(bad).toHaveLength(1);
      expect(bad[0]!.input.label).toMatch(label);
      expect(bad[0]!.entry.ok).toBe(false);
      expect(entries.filter((e) => !e.ok)).toHaveLength(1);
      // The input stands on the cheater's own line; for a keyed stream it is found out at the audit, later.
      const line = JSON.parse(sim.lines[bad[0]!.input.line!]!) as { from: string };
      expect(line.from).toBe(cheater);
      if (protocol === 'keyed-stream') expect(bad[0]!.input.line!).toBeLessThan(violation.seq);
      else expect(bad[0]!.input.line).toBe(violation.seq);
    });
  }
});

describe('outcomeDistributions', () => {
  it('the sums of fair dice', () => {
    expect(diceSumProbabilities(2, 6).map((p) => Math.round(p * 36))).toEqual([1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]);
    const p = diceSumProbabilities(3, 10);
    expect(p).toHaveLength(28);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it("Pearson's statistic over the categories expected at all", () => {
    const d = distribution('two', ['a', 'b', 'c'], [10, 0, 0], [5, 5, 0]);
    expect(d.chiSquare).toBe(10);
    expect(d.degreesOfFreedom).toBe(1);
  });

  const expectations: [SimProtocol, string[]][] = [
    ['dice', ['Die faces (d6)', 'Sums of 2d6']],
    ['snakes', ['Die rolls (d6)']],
    ['monopoly', ['Die faces (d6)', 'Sums of 2d6', 'Chance cards', 'Community Chest cards']],
    ['keyed-stream', ['Die faces (d6)', 'Sums of 2d6']],
    ['signidice', ['Roulette numbers']],
    ['beacon', ['Hex digits of the beacon seeds']],
    ['rochambeau', ['Rochambeau assigned states (N = 3)']],
  ];
  for (const [protocol, labels] of expectations) {
    it(`${protocol}: expected counts add up to the observed ones`, () => {
      const sim = game(protocol, `explain-dist-${protocol}`, { turns: protocol === 'monopoly' ? 12 : 6 });
      const ds = outcomeDistributions(sim.lines);
      expect(ds.map((d) => d.label)).toEqual(labels);
      for (const d of ds) {
        const observed = d.categories.reduce((a, c) => a + c.observed, 0);
        const expected = d.categories.reduce((a, c) => a + c.expected, 0);
        expect(observed).toBeGreaterThan(0);
        expect(expected).toBeCloseTo(observed, 9);
        expect(d.degreesOfFreedom).toBe(d.categories.length - 1);
        expect(Number.isFinite(d.chiSquare)).toBe(true);
      }
      if (protocol === 'dice') {
        const turns = (sim.outcome!.summary as { turns: number }).turns;
        expect(ds[0]!.categories.reduce((a, c) => a + c.observed, 0)).toBe(2 * turns);
        expect(ds[1]!.categories.find((c) => c.name === '7')!.expected).toBeCloseTo((turns * 6) / 36, 9);
      }
      if (protocol === 'signidice') {
        expect(ds[0]!.categories).toHaveLength(37);
        expect(ds[0]!.categories.reduce((a, c) => a + c.observed, 0)).toBe((sim.outcome!.summary as { lucky: number[] }).lucky.length);
      }
    });
  }

  it('dice with an expression: each turn explained in its words, every face charted on its own die', () => {
    const sim = simulate({ protocol: 'dice', players: 2, seed: utf8('explain-dice-expr'), turns: 5, params: { roll: '2d20kh1+1d4-1' }, ...ed25519 });
    const entries = explainOutcomes(sim.lines);
    expect(entries).toHaveLength(10);
    for (const e of entries) {
      expect(e.ok).toBe(true);
      expect(e.outcome).toMatch(/^rolled 2d20kh1\+1d4-1: \d+ \(dropped \d+\)\+\d-1 = \d+$/);
    }
    const ds = outcomeDistributions(sim.lines);
    expect(ds.map((d) => d.label)).toEqual(['Die faces (d4, 2d20kh1+1d4-1)', 'Die faces (d20, 2d20kh1+1d4-1)']);
    expect(ds.map((d) => d.categories.reduce((a, c) => a + c.observed, 0))).toEqual([10, 20]);
  });

  it('a long fair game stays near its expectation', () => {
    const sim = game('dice', 'explain-dist-long', { turns: 150, players: 2 });
    const [faces] = outcomeDistributions(sim.lines);
    // 600 faces of a d6: the 99.9th percentile of chi-square with 5 degrees of freedom is 20.5.
    expect(faces!.chiSquare).toBeLessThan(20.5);
  });
});

describe('hostile transcripts', () => {
  it('explain and chart what they can and never crash', async () => {
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { writeHostile } = await import('../../../../bench/lib/hostile-transcripts.js');
    const honest = game('dice', 'explain-hostile').lines;
    const files = writeHostile(mkdtempSync(join(tmpdir(), 'fairtable-explain-')), honest, false);
    expect(files.length).toBeGreaterThan(5);
    for (const h of files) {
      const lines = readFileSync(h.file, 'utf8').split('\n');
      expect(() => explainOutcomes(lines), h.name).not.toThrow();
      expect(() => outcomeDistributions([...lines]), h.name).not.toThrow();
    }
  });
});

describe('a transcript tampered after the game', () => {
  it("a move's opening changed and signed again by its author fails on exactly that input", () => {
    const seed = 'explain-tampered';
    const lines = game('dice', seed, { players: 2 }).lines;
    const at = lines.findIndex((l) => (JSON.parse(l) as Envelope).body.type === 'move');
    const envelope = JSON.parse(lines[at]!) as Envelope;
    const opening = envelope.body.opening as { nonce: string; value: JsonValue };
    const { sig: _sig, ...unsigned } = envelope;
    const player = Number(envelope.from.slice(1));
    const altered = signEnvelope(
      { ...unsigned, body: { ...envelope.body, opening: { ...opening, nonce: (opening.nonce[0] === 'a' ? 'b' : 'a') + opening.nonce.slice(1) } } },
      simKeys(utf8(seed), player).secretKey,
    );
    const tampered = [...lines.slice(0, at), envelopeLine(altered), ...lines.slice(at + 1)];
    expect(failed(explainOutcomes(lines))).toHaveLength(0);
    const bad = failed(explainOutcomes(tampered));
    expect(bad).toHaveLength(1);
    expect(bad[0]!.input).toMatchObject({ label: `${envelope.from}'s opening`, line: at, ok: false });
    // The outcomes before it stand, explained and checked.
    expect(explainOutcomes(tampered).filter((e) => e.line < at)).toEqual(explainOutcomes(lines).filter((e) => e.line < at));
  });
});

describe('every cheat of the simulator', () => {
  for (const protocol of ['beacon', 'dice', 'keyed-stream', 'signidice', 'rochambeau'] as const) {
    it(`${protocol}: explained without a crash, and an honest seat's outcome has no failed input unless a cheat touched it`, () => {
      for (const cheat of CHEATS) {
        const cheater = cheat.startsWith('house-') ? 'house' : 'p1';
        if (cheatApplies(cheat, protocol, cheater) !== null) continue;
        const sim = game(protocol, `explain-all-${protocol}-${cheat}`, { cheat, cheater, turns: 2 });
        const entries = explainOutcomes(sim.lines);
        for (const { entry } of failed(entries)) {
          // A failed input is always on an outcome the cheater had a hand in.
          expect(JSON.stringify(entry), `${protocol} ${cheat}`).toContain(cheater === 'house' ? "the house's proof" : `${cheater}'s`);
        }
        expect(() => outcomeDistributions([...sim.lines])).not.toThrow();
      }
    });
  }
});

describe('one walk for both', () => {
  it('reuses the walk for the same lines, and walks again when lines are added or an answer is changed', () => {
    const lines = game('dice', 'explain-cache').lines;
    const growing = lines.slice(0, 12);
    const first = explainOutcomes(growing);
    first[0]!.inputs[0]!.ok = false;
    expect(explainOutcomes(growing)[0]!.inputs[0]!.ok).toBeUndefined();
    growing.push(...lines.slice(12));
    expect(explainOutcomes(growing).length).toBeGreaterThan(first.length);
    expect(explainOutcomes(growing)).toEqual(explainOutcomes([...lines]));
  });
});

describe('signatures checked once', () => {
  it('a line explained again is not verified again; a changed line is', () => {
    const lines = game('dice', 'explain-verify-once', { players: 2 }).lines;
    let calls = 0;
    const verify = (s: Uint8Array, m: Uint8Array, k: Uint8Array): boolean => {
      calls++;
      return nobleVerify(s, m, k);
    };
    // Every line once, the setup included (the referee checks line 0 like any other).
    const first = explainOutcomes([...lines], { verify });
    expect(calls).toBe(lines.length);
    expect(explainOutcomes([...lines], { verify })).toEqual(first);
    expect(calls).toBe(lines.length);
    // A signature altered in place: a new text, checked anew, and refused.
    const forged = [...lines];
    const last = forged.length - 1;
    forged[last] = forged[last]!.replace(/"sig":"(.)/, (_, c: string) => `"sig":"${c === '0' ? '1' : '0'}`);
    explainOutcomes(forged, { verify });
    expect(calls).toBe(lines.length + 1);
  });
});

describe('browser-safe', () => {
  it('no module of explain/ imports Node or a Node-only package', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const here = new URL('.', import.meta.url);
    const sources = readdirSync(here).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(sources.length).toBeGreaterThanOrEqual(6);
    for (const f of sources) {
      const text = readFileSync(new URL(f, here), 'utf8');
      expect(text, f).not.toMatch(/from '(node:[a-z/_]+|ws|fs|net|http|crypto|@fairtable\/(node|relay|cli)[^']*)'/);
      expect(text, f).not.toMatch(/@fairtable\/core\/testing/);
    }
  });
});
