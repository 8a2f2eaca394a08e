/**
 * Hold'em on the deck (docs/spec/holdem.md §11): honest hands to the showdown, every deck rule broken by a
 * cheater who is named while the honest players never are, a player who leaves mid-hand, and hidden cards
 * that stay hidden in the transcript.
 */
import { describe, expect, it } from 'vitest';
import { utf8 } from '../../bytes.js';
import { taggedHash } from '../../hash.js';
import type { Envelope } from '../../envelope.js';
import { simulate, type SimResult } from '../../sim/simulate.js';
import { frozenRegistry } from '../../sim/frozen.js';
import { sharedAudit } from '../../sim/memo.js';
import { holdemRegistry } from './registry.js';
import { cardUnder } from '../../deck/decrypt.js';
import type { Ciphertext } from '../../deck/elgamal.js';
import { pointFromHex } from '../../deck/group.js';
import { holdemSim, holdemStrategy, type HoldemCheat } from './sim.js';

/** `folder` folds at once when set; everyone else never folds. */
function play(
  players: number,
  seed: number,
  cheat?: HoldemCheat | 'equivocate' | 'out-of-turn',
  cheater = 'p1',
  folder: string | null = null,
  hands = 1,
): SimResult {
  return simulate({
    protocol: 'holdem',
    extension: holdemSim,
    players,
    seed: new Uint8Array(32).fill(seed),
    strategy: (id) => (id === folder ? () => ({ do: 'fold' }) : holdemStrategy(taggedHash('holdem-test-strategy', utf8(`${id} ${seed}`)))),
    params: { hands },
    registry: holdemRegistry,
    ...(cheat === undefined ? {} : { cheat, cheater }),
  });
}

const bodies = (lines: readonly string[]): Envelope[] => lines.slice(1).map((l) => JSON.parse(l) as Envelope);
/** Each transcript's verdict, by registry: an audit is a pure function of the lines, so the checks of a test that read it share one. */
const audit = sharedAudit(holdemRegistry);
const named = (r: SimResult): string[] => [...new Set([...r.violations, ...audit(r.lines).violations].map((v) => v.player ?? 'nobody'))].sort();

describe("Hold'em on the deck", () => {
  it('an honest heads-up hand goes to its showdown; the audit is valid and names nobody', () => {
    const r = play(2, 1);
    const verdict = audit(r.lines);
    expect(verdict.violations).toEqual([]);
    expect(r.violations).toEqual([]);
    expect(r.outcome).not.toBeNull();
    const summary = r.outcome!.summary as { hands: number; stacks: Record<string, number> };
    expect(summary.hands).toBe(1);
    // The passive players reach the showdown: both hands shown, the board complete.
    const result = (r.outcome!.summary as { results: { shown: Record<string, number[]>; board: number[] }[] }).results[0]!;
    expect(Object.keys(result.shown).sort()).toEqual(['p0', 'p1']);
    expect(result.board).toHaveLength(5);
    // Anyone opens a shown hand from the transcript alone: the other's share from the deal, the owner's from its show.
    const { deck, parts } = published(r.lines);
    const opened = (positions: number[]) =>
      positions.map((p) =>
        cardUnder(
          deck[p]!,
          (parts.get(p) ?? []).map((x) => pointFromHex(x.share, 'share')),
          52,
        ),
      );
    expect(opened([0, 1])).toEqual(result.shown.p0);
    expect(opened([2, 3])).toEqual(result.shown.p1);
    expect(summary.stacks.p0! + summary.stacks.p1!).toBe(2 * 10_000);
    expect(verdict.outcome).toEqual(r.outcome);
  }, 120_000);

  it('on frozen states (a step never writes into the state it is given), over a network that loses and repeats messages', () => {
    const registry = frozenRegistry(holdemRegistry);
    const r = simulate({
      protocol: 'holdem',
      extension: holdemSim,
      players: 2,
      seed: new Uint8Array(32).fill(13),
      strategy: (id) => holdemStrategy(taggedHash('holdem-test-strategy', utf8(id))),
      params: { hands: 1 },
      drop: 0.05,
      duplicate: 0.05,
      registry,
    });
    expect(r.outcome).not.toBeNull();
    expect(named(r)).toEqual([]);
    expect(audit(r.lines, registry).valid).toBe(true);
  }, 120_000);

  it('two hands: the button moves, each hand shuffles a fresh deck, the chips carry over', () => {
    const r = play(2, 15, undefined, 'p1', null, 2);
    expect(named(r)).toEqual([]);
    const summary = r.outcome!.summary as { hands: number; stacks: Record<string, number>; results: { won: Record<string, number> }[] };
    expect(summary.hands).toBe(2);
    expect(summary.stacks.p0! + summary.stacks.p1!).toBe(20_000);
    const hands = bodies(r.lines)
      .filter((e) => e.body.type === 'shuffle')
      .map((e) => e.body.hand);
    expect(hands).toEqual([1, 1, 2, 2]);
    expect(audit(r.lines).valid).toBe(true);
  }, 120_000);

  it('heads-up, a player leaves: late to act it folds, late to the next shuffle it is gone; named absent, its chips forfeited', () => {
    const r = play(2, 17, 'leave', 'p1', null, 2);
    // The auditor names nobody for a claim at the log's end that no later envelope vouches for (docs/SPEC.md
    // §7.4): heads-up, nobody but the claimant is left to write one. p0, the honest player, is never named.
    expect(named(r).filter((p) => p !== 'nobody')).toEqual(['p1']);
    expect(r.violations.length).toBe(2);
    expect(r.violations.every((v) => v.player === 'p1' && v.kind === 'absence')).toBe(true);
    expect(r.outcome!.forfeits).toEqual([{ player: 'p1', code: 'withheld' }]);
    expect(r.outcome!.winners).toEqual(['p0']);
    const summary = r.outcome!.summary as { stacks: Record<string, number>; ended: string | null };
    expect(summary.stacks.p1).toBe(0);
    expect(summary.ended).toMatch(/fewer than two players/);
  }, 120_000);

  // Each cheat on a heads-up table: the cheater alone is named, with the deck's code. A cheat at the keys
  // or the shuffle leaves one player, and the game ends with the cheater's chips forfeited.
  it.each([
    ['bad-key-share', 'bad_key_share'],
    ['reused-key', 'bad_key_share'],
    ['bad-shuffle', 'bad_shuffle'],
    ['substituted-card', 'card_not_dealt'],
    ['card-not-dealt', 'card_not_dealt'],
    ['equivocate', 'equivocation'],
    ['out-of-turn', 'out_of_turn'],
  ] as const)(
    '%s: the cheater is named %s, and nobody else',
    (cheat, code) => {
      const r = play(2, 3, cheat, 'p1');
      const verdict = audit(r.lines);
      const found = [...r.violations, ...verdict.violations, ...r.refusals.map((x) => ({ player: x.player, code: x.code }))];
      expect(found.some((v) => v.player === 'p1' && v.code === code)).toBe(true);
      expect(named(r).filter((p) => p !== 'p1')).toEqual([]);
      expect(r.refusals.every((x) => x.player === 'p1')).toBe(true);
      // Refused at the table's door, or a message out of turn that changes nothing: the game goes on.
      if (cheat === 'equivocate' || cheat === 'out-of-turn') return;
      expect(r.outcome?.forfeits.map((f) => f.player)).toEqual(['p1']);
      expect(r.outcome?.winners).toEqual(['p0']);
    },
    120_000,
  );
});

/** The deck of hand 1 as its last shuffle left it, and every published decryption share point by position. */
function published(lines: readonly string[]): { deck: Ciphertext[]; parts: Map<number, { from: string; share: string }[]> } {
  let deck: Ciphertext[] = [];
  const parts = new Map<number, { from: string; share: string }[]>();
  for (const e of bodies(lines)) {
    if (e.body.hand !== 1) continue;
    if (e.body.type === 'shuffle') deck = e.body.deck as unknown as Ciphertext[];
    const list =
      e.body.type === 'shares'
        ? (e.body.shares as unknown as { position: number; share: string }[])
        : e.body.type === 'show'
          ? (e.body.cards as unknown as { share: { position: number; share: string } }[]).map((c) => c.share)
          : e.body.type === 'standin'
            ? (e.body.shares as unknown as { position: number; share: string }[])
            : [];
    for (const x of list) parts.set(x.position, [...(parts.get(x.position) ?? []), { from: e.from, share: x.share }]);
  }
  return { deck, parts };
}

/** `owner`'s hole cards at `positions`: no share of its own in the transcript, and every published share together opens no card. */
function hiddenHole(lines: readonly string[], owner: string, positions: readonly number[]): void {
  const { deck, parts } = published(lines);
  for (const position of positions) {
    const got = parts.get(position) ?? [];
    expect(got.some((x) => x.from === owner)).toBe(false);
    expect(got.length).toBeGreaterThan(0);
    expect(
      cardUnder(
        deck[position]!,
        got.map((x) => pointFromHex(x.share, 'share')),
        52,
      ),
    ).toBeNull();
  }
}

describe("Hold'em on the deck: a seat that breaks a deal step or leaves, and what stays hidden", () => {
  it('a wrong decryption share names its sender; the others stand in for it from its backup and the hand finishes; its folded hand stays hidden', () => {
    const r = play(3, 5, 'bad-decryption-share', 'p1');
    const verdict = audit(r.lines);
    expect(verdict.violations.map((v) => [v.player, v.code])).toEqual([['p1', 'bad_decryption_share']]);
    expect(named(r)).toEqual(['p1']);
    const summary = r.outcome!.summary as { hands: number; gone: string[]; results: { shown: Record<string, number[]>; board: number[] }[] };
    expect(summary.gone).toEqual(['p1']);
    expect(summary.results[0]!.board).toHaveLength(5);
    expect(Object.keys(summary.results[0]!.shown).sort()).toEqual(['p0', 'p2']);
    expect(bodies(r.lines).some((e) => e.body.type === 'standin' && e.body.leaver === 'p1')).toBe(true);
    // p1 folded (its turn came when it was gone): positions 2 and 3 have no share of its own, and what is published opens no card.
    hiddenHole(r.lines, 'p1', [2, 3]);
  }, 240_000);

  it('heads-up, a player folds before the flop: neither hand is ever opened in the transcript', () => {
    const r = play(2, 9, undefined, 'p1', 'p0');
    expect(named(r)).toEqual([]);
    const summary = r.outcome!.summary as { results: { shown: Record<string, number[]>; board: number[] }[] };
    expect(summary.results[0]!.shown).toEqual({});
    hiddenHole(r.lines, 'p0', [0, 1]);
    hiddenHole(r.lines, 'p1', [2, 3]);
  }, 120_000);

  it('a player who leaves mid-hand is named absent, not a cheat; the others finish the hand without it and its cards stay hidden', () => {
    const r = play(3, 7, 'leave', 'p2');
    const verdict = audit(r.lines);
    expect(verdict.violations.every((v) => v.player === 'p2' && v.kind === 'absence')).toBe(true);
    expect(verdict.violations.length).toBeGreaterThan(0);
    expect(named(r)).toEqual(['p2']);
    const summary = r.outcome!.summary as { gone: string[]; stacks: Record<string, number>; results: { shown: Record<string, number[]> }[] };
    expect(summary.gone).toEqual(['p2']);
    expect(summary.stacks.p2).toBe(0);
    expect(Object.keys(summary.results[0]!.shown).sort()).toEqual(['p0', 'p1']);
    expect(r.outcome!.forfeits).toEqual([{ player: 'p2', code: 'withheld' }]);
    // Nobody ever published a share, or a stand-in, for the leaver's own hole cards (positions 4 and 5).
    const { parts } = published(r.lines);
    for (const position of [4, 5]) expect((parts.get(position) ?? []).some((x) => x.from === 'p2')).toBe(false);
    expect(
      bodies(r.lines).some(
        (e) => e.body.type === 'standin' && (e.body.shares as unknown as { position: number }[]).some((x) => x.position >= 4 && x.position <= 5),
      ),
    ).toBe(false);
  }, 240_000);
});
