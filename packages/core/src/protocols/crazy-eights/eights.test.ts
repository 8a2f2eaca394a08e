/**
 * Crazy Eights on the deck (docs/spec/crazy-eights.md): honest games to their end, each rule broken by a
 * cheater who is named while the honest players never are, a player who leaves, and hands that stay hidden.
 */
import { describe, expect, it } from 'vitest';
import { utf8 } from '../../bytes.js';
import { taggedHash } from '../../hash.js';
import type { Envelope } from '../../envelope.js';
import { simulate, type SimResult } from '../../sim/simulate.js';
import { frozenRegistry } from '../../sim/frozen.js';
import { sharedAudit } from '../../sim/memo.js';
import { cardUnder } from '../../deck/decrypt.js';
import type { Ciphertext } from '../../deck/elgamal.js';
import { pointFromHex } from '../../deck/group.js';
import { crazyEightsRegistry } from './registry.js';
import { eightsSim, eightsStrategy, type EightsCheat } from './sim.js';

function play(
  players: number,
  seed: number,
  cheat?: EightsCheat | 'equivocate' | 'out-of-turn',
  cheater = 'p1',
  registry = crazyEightsRegistry,
  params: Record<string, number> = {},
): SimResult {
  return simulate({
    protocol: 'crazy-eights',
    extension: eightsSim,
    players,
    seed: new Uint8Array(32).fill(seed),
    strategy: (id) => eightsStrategy(taggedHash('eights-test-strategy', utf8(`${id} ${seed}`))),
    registry,
    params,
    ...(cheat === undefined ? {} : { cheat, cheater }),
  });
}

const bodies = (lines: readonly string[]): Envelope[] => lines.slice(1).map((l) => JSON.parse(l) as Envelope);
/** Each transcript's verdict, by registry: an audit is a pure function of the lines, so the checks of a test that read it share one. */
const audit = sharedAudit(crazyEightsRegistry);
const named = (r: SimResult): string[] => [...new Set([...r.violations, ...audit(r.lines).violations].map((v) => v.player ?? 'nobody'))].sort();
type Summary = { turns: number; hands: Record<string, number>; ended: string | null; gone: string[]; history: { player: string; played?: number }[] };

/**
 * Every position dealt or drawn to `owner` and never played: no share of the owner's in the transcript, and
 * every published share together opens no card.
 */
function hiddenHand(lines: readonly string[], owner: string): number[] {
  let deck: Ciphertext[] = [];
  const parts = new Map<number, { from: string; share: string }[]>();
  const add = (from: string, list: { position: number; share: string }[]): void => {
    for (const x of list) parts.set(x.position, [...(parts.get(x.position) ?? []), { from, share: x.share }]);
  };
  const held = new Set<number>();
  for (const e of bodies(lines)) {
    const b = e.body;
    if (b.type === 'shuffle') deck = b.deck as unknown as Ciphertext[];
    if (b.type === 'shares' || b.type === 'standin') add(e.from, b.shares as unknown as { position: number; share: string }[]);
    if (b.type === 'play') add(e.from, [b.share as unknown as { position: number; share: string }]);
  }
  // The owner's positions: those the others' shares open for it (every position some share names, minus those the owner shared itself).
  for (const [position, got] of parts) if (!got.some((x) => x.from === owner)) held.add(position);
  for (const position of held) {
    const got = parts.get(position) ?? [];
    expect(
      cardUnder(
        deck[position]!,
        got.map((x) => pointFromHex(x.share, 'share')),
        52,
      ),
    ).toBeNull();
  }
  return [...held].sort((a, b) => a - b);
}

describe('Crazy Eights on the deck', () => {
  it('an honest game of two goes to its end; the audit is valid, names nobody and agrees', () => {
    const r = play(2, 1);
    const verdict = audit(r.lines);
    expect(verdict.violations).toEqual([]);
    expect(r.violations).toEqual([]);
    expect(r.outcome).not.toBeNull();
    expect(verdict.outcome).toEqual(r.outcome);
    const summary = r.outcome!.summary as Summary;
    expect(r.outcome!.winners).toHaveLength(1);
    if (summary.ended === null) expect(summary.hands[r.outcome!.winners[0]!]).toBe(0);
    // Each card played is opened by anyone from the transcript: the others' shares at the deal or draw, the player's own with its play.
    expect(summary.history.filter((h) => h.played !== undefined).length).toBeGreaterThan(0);
    // The loser's hand stays hidden.
    const loser = ['p0', 'p1'].find((p) => p !== r.outcome!.winners[0])!;
    expect(hiddenHand(r.lines, loser)).toHaveLength(summary.hands[loser]!);
  }, 240_000);

  it('three players on frozen states, over a network that loses and repeats messages', () => {
    const registry = frozenRegistry(crazyEightsRegistry);
    const r = simulate({
      protocol: 'crazy-eights',
      extension: eightsSim,
      players: 3,
      seed: new Uint8Array(32).fill(13),
      strategy: (id) => eightsStrategy(taggedHash('eights-test-strategy', utf8(id))),
      drop: 0.05,
      duplicate: 0.05,
      registry,
    });
    expect(r.outcome).not.toBeNull();
    expect(named(r)).toEqual([]);
    expect(audit(r.lines, registry).valid).toBe(true);
  }, 240_000);

  // Each cheat on a table of three: the cheater alone is named, with its code; the game goes on without it.
  it.each([
    ['bad-shuffle', 'bad_shuffle'],
    ['bad-decryption-share', 'bad_decryption_share'],
    ['card-not-dealt', 'card_not_dealt'],
    ['substituted-card', 'card_not_dealt'],
    ['no-match', 'illegal_answer'],
    ['out-of-turn', 'out_of_turn'],
    ['equivocate', 'equivocation'],
  ] as const)(
    '%s: the cheater is named %s, and nobody else',
    (cheat, code) => {
      const r = play(3, 3, cheat, 'p1');
      const verdict = audit(r.lines);
      const found = [...r.violations, ...verdict.violations, ...r.refusals.map((x) => ({ player: x.player, code: x.code }))];
      expect(found.some((v) => v.player === 'p1' && v.code === code)).toBe(true);
      expect(named(r).filter((p) => p !== 'p1')).toEqual([]);
      expect(r.refusals.every((x) => x.player === 'p1')).toBe(true);
      expect(r.outcome).not.toBeNull();
      expect(verdict.outcome).toEqual(r.outcome);
      if (cheat === 'no-match') {
        // A refused play is named and the player draws instead; it stays in the game, the card face up in its hand.
        expect(verdict.violations.map((v) => [v.player, v.code])).toEqual([['p1', 'illegal_answer']]);
        expect(r.outcome!.forfeits).toEqual([]);
        // It plays the refused card later (this seed): it opens with its share already public, and is not named.
        const position = (JSON.parse(r.lines[verdict.violations[0]!.seq]!) as Envelope).body.position;
        const again = bodies(r.lines.slice(verdict.violations[0]!.seq)).filter(
          (e) => e.from === 'p1' && e.body.type === 'play' && e.body.position === position,
        );
        expect(again).toHaveLength(1);
      }
      if (cheat === 'equivocate' || cheat === 'out-of-turn' || cheat === 'no-match') return;
      expect(r.outcome!.forfeits.map((f) => f.player)).toEqual(['p1']);
      expect(r.outcome!.winners).not.toContain('p1');
      // The cheater's hand, dead, stays hidden.
      hiddenHand(r.lines, 'p1');
    },
    240_000,
  );

  it('a player who leaves after the deal is named absent, not a cheat; the others stand in for it, finish, and its hand stays hidden', () => {
    const r = play(3, 7, 'leave', 'p2');
    const verdict = audit(r.lines);
    expect(verdict.violations.length).toBeGreaterThan(0);
    expect(verdict.violations.every((v) => v.player === 'p2' && v.kind === 'absence')).toBe(true);
    expect(named(r)).toEqual(['p2']);
    const summary = r.outcome!.summary as Summary;
    expect(summary.gone).toEqual(['p2']);
    expect(r.outcome!.forfeits).toEqual([{ player: 'p2', code: 'withheld' }]);
    expect(r.outcome!.winners).not.toContain('p2');
    expect(bodies(r.lines).some((e) => e.body.type === 'standin' && e.body.leaver === 'p2')).toBe(true);
    // Its hand as dealt (seat 2 of three: positions 10 to 14) is among what stays hidden.
    expect(hiddenHand(r.lines, 'p2')).toEqual(expect.arrayContaining([10, 11, 12, 13, 14]));
  }, 240_000);

  it('with every other player needed to stand in (threshold 3 of 3), a leaver ends the game at the next card to open; the stated rule decides', () => {
    const r = play(3, 7, 'leave', 'p2', crazyEightsRegistry, { threshold: 3 });
    expect(named(r)).toEqual(['p2']);
    const summary = r.outcome!.summary as Summary;
    expect(summary.gone).toEqual(['p2']);
    expect(summary.ended).toMatch(/fewer than 3 players are left to stand in for p2; the fewest cards win/);
    const least = Math.min(summary.hands.p0!, summary.hands.p1!);
    expect(r.outcome!.winners).toEqual(['p0', 'p1'].filter((p) => summary.hands[p] === least));
    // Nobody could stand in: no stand-in share was ever sent, and p2's dealt hand stays hidden.
    expect(bodies(r.lines).some((e) => e.body.type === 'standin')).toBe(false);
    expect(hiddenHand(r.lines, 'p2')).toEqual(expect.arrayContaining([10, 11, 12, 13, 14]));
  }, 240_000);
});
