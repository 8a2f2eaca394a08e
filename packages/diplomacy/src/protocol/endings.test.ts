/**
 * Endings by agreement (docs/spec/diplomacy.md §10.12): draw, concession and cancel, voted beside the orders
 * and sealed with them; a vote that breaks no rule but lacks one voter changes nothing; a forged reveal's vote
 * does not count and its author is named.
 */
import { describe, expect, it } from 'vitest';
import { randomChoice } from '@fairtable/core/testing';
import { Auditor } from '@fairtable/core/audit.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { OutgoingHook } from '@fairtable/core/seat/seat.js';
import { RandomStream } from '@fairtable/core/stream.js';
import { standardMap } from '../standard.js';
import { startingPosition } from '../position.js';
import { readOrdersFile } from '../orders-file.js';
import { diplomacyRegistry as registry } from './index.js';
import { diplomacyTable, seed } from './test-table.js';
import { agreedEnding, parseVote, splitVotes, voteLine, type Vote } from './endings.js';

const powers = standardMap.powers;

describe('votes', () => {
  it('reads VOTE lines in any case and writes them back', () => {
    expect(parseVote('vote draw', powers)).toEqual({ kind: 'draw' });
    expect(parseVote('VOTE CONCEDE france', powers)).toEqual({ kind: 'concede', to: 'france' });
    expect(parseVote('VOTE CONCEDE Narnia', powers)).toBeNull();
    expect(parseVote('VOTE PASS', powers)).toBeNull();
    expect(voteLine({ kind: 'concede', to: 'france' })).toBe('VOTE CONCEDE FRANCE');
    expect(splitVotes(['A Par-Bur', 'VOTE DRAW'], powers)).toEqual({ orders: ['A Par-Bur'], vote: { kind: 'draw' } });
    // Two votes in one file vote nothing; the orders still stand.
    expect(splitVotes(['VOTE DRAW', 'A Par-Bur', 'VOTE CANCEL'], powers)).toEqual({ orders: ['A Par-Bur'], vote: null });
  });

  it('agrees only when every voter casts the same vote; a concession needs every voter but the one conceded to', () => {
    const tally = (entries: [string, Vote | null][]) => agreedEnding(new Map(entries), () => true);
    const draw: Vote = { kind: 'draw' };
    const toFrance: Vote = { kind: 'concede', to: 'france' };
    expect(
      tally([
        ['england', draw],
        ['france', draw],
      ]),
    ).toEqual(draw);
    expect(
      tally([
        ['england', draw],
        ['france', null],
      ]),
    ).toBeNull();
    expect(
      tally([
        ['england', draw],
        ['france', { kind: 'cancel' }],
      ]),
    ).toBeNull();
    expect(
      tally([
        ['england', toFrance],
        ['germany', toFrance],
        ['france', null],
      ]),
    ).toEqual(toFrance);
    expect(
      tally([
        ['england', toFrance],
        ['germany', draw],
        ['france', null],
      ]),
    ).toBeNull();
    expect(tally([['france', toFrance]])).toBeNull();
    expect(agreedEnding(new Map([['england', toFrance]]), (p) => p !== 'france')).toBeNull();
    expect(tally([])).toBeNull();
  });

  it('an orders file votes with a VOTE line; a vote the rules do not know, a second vote or a concession to oneself is a problem', () => {
    const start = startingPosition(standardMap);
    const ok = readOrdersFile(standardMap, start, 'england', 'F Lon-ENG\nvote concede france\n');
    expect(ok.problems).toEqual([]);
    expect(ok.vote).toBe('concede:france');
    const bad = readOrdersFile(standardMap, start, 'england', 'VOTE DRAW\nVOTE SURRENDER\nVOTE CANCEL\nVOTE CONCEDE ENGLAND\n');
    expect(bad.vote).toBe('draw');
    expect(bad.problems.map((p) => [p.line, p.code])).toEqual([
      [2, 'bad_order'],
      [3, 'illegal_order'],
      [4, 'illegal_order'],
    ]);
  });
});

/** Seven seats playing S1901 with random orders, each voting `votes[i]` ('none' for no vote); years 3. */
function play(votes: readonly string[], hooks: Readonly<Record<string, OutgoingHook>> = {}) {
  const { clock, log, seats, flush } = diplomacyTable({ params: { years: 3 }, hooks, keySeed: 71, randomSeed: 80 });
  flush();
  const random = new RandomStream(seed(90), 'strategy');
  for (const [i, st] of seats.entries()) {
    const d = st.decision();
    if (d === null) continue;
    const orders = randomChoice(d.choices, random) as Record<string, JsonValue>;
    st.decide({ ...orders, vote: votes[i] ?? 'none' });
    flush();
  }
  const run = (steps: number): void => {
    for (let step = 0; step < steps; step++) {
      clock.now += 1000;
      for (const st of seats) st.tick();
      flush();
    }
  };
  run(20);
  const audit = (): Auditor => {
    const a = new Auditor(log[0]!, { registry, keepEvents: true });
    for (const l of log.slice(1)) a.add(l);
    return a;
  };
  const auditor = audit();
  return { log, events: auditor.referee.events, verdict: auditor.verdict(), outcome: auditor.referee.outcome(), table: { log, seats, flush }, run, audit };
}

const everyone = (v: string): string[] => Array.from({ length: 7 }, () => v);

describe('endings by agreement, played', () => {
  it('a draw voted by all seven ends the game after the phase, shared by every power; nobody is named', () => {
    const r = play(everyone('draw'));
    expect(r.verdict.violations).toEqual([]);
    const over = r.events.find((e) => e.type === 'game-over');
    expect(over).toMatchObject({ phase: 'F1901M', winner: null, ending: 'draw' });
    expect(r.outcome?.winners.length).toBe(7);
    expect(r.outcome?.summary).toMatchObject({ ending: 'draw' });
    // Sealed: no vote is readable in any commit, only in the reveals.
    const commits = r.log.filter((l) => l.includes('"type":"commit"'));
    expect(commits.length).toBe(7);
    for (const c of commits) expect(c).not.toMatch(/VOTE/);
    expect(r.log.filter((l) => l.includes('"type":"reveal"') && l.includes('VOTE DRAW')).length).toBe(7);
  });

  it('six draw votes and one silence play on', () => {
    const r = play([...everyone('draw').slice(0, 6), 'none']);
    expect(r.verdict.violations).toEqual([]);
    expect(r.events.find((e) => e.type === 'votes')).toMatchObject({ agreed: null });
    expect(r.events.some((e) => e.type === 'game-over')).toBe(false);
    expect(r.outcome).toBeNull();
  });

  it('every other power concedes to France (p2): France alone wins', () => {
    const r = play(powers.map((p) => (p === 'france' ? 'none' : 'concede:france')));
    expect(r.verdict.violations).toEqual([]);
    expect(r.events.find((e) => e.type === 'game-over')).toMatchObject({ ending: 'concede:france' });
    expect(r.outcome?.winners).toEqual(['p2']);
  });

  it('a cancel voted by all ends the game with no winner', () => {
    const r = play(everyone('cancel'));
    expect(r.verdict.violations).toEqual([]);
    expect(r.outcome?.winners).toEqual([]);
    expect(r.outcome?.summary).toMatchObject({ ending: 'cancel' });
  });

  it('a pause voted by all: the next phase waits without a deadline until somebody sends orders, then its deadline runs', () => {
    const r = play(everyone('pause'));
    expect(r.verdict.violations).toEqual([]);
    expect(r.events.find((e) => e.type === 'votes')).toMatchObject({ agreed: 'pause' });
    expect(r.events.find((e) => e.type === 'paused')).toMatchObject({ phase: 'F1901M' });
    expect(r.events.some((e) => e.type === 'game-over')).toBe(false);
    // Twenty seconds of ticks, twenty step deadlines: nobody is claimed late while paused.
    const paused = r.table.log.length;
    r.run(20);
    expect(r.table.log.length).toBe(paused);
    // p0 sends its orders: the game resumes, and from then the others have the usual deadline.
    const d = r.table.seats[0]!.decision()!;
    r.table.seats[0]!.decide(randomChoice(d.choices, new RandomStream(seed(91), 'strategy')));
    r.table.flush();
    r.run(5);
    const after = r.audit();
    expect(after.referee.events.find((e) => e.type === 'resumed')).toMatchObject({ player: 'p0' });
    const claim = r.table.log.slice(paused).find((l) => l.includes('"type":"deadline"'));
    expect(claim).toContain('"missing":["p1","p2","p3","p4","p5","p6"]');
    expect(after.verdict().violations.filter((v) => v.kind !== 'absence')).toEqual([]);
  });

  it('a vote slipped into a reveal that does not open its commitment counts for nothing, and its author is named', () => {
    // p3 commits orders with no vote, then reveals a file with VOTE DRAW: the reveal does not open its commitment.
    const forged: OutgoingHook = {
      body: (b) => {
        if (b.type !== 'reveal') return b;
        const opening = b.opening as { value: string; nonce: string };
        return { ...b, opening: { ...opening, value: `${opening.value}\nVOTE DRAW` } };
      },
    };
    const r = play([...everyone('draw').slice(0, 3), 'none', ...everyone('draw').slice(0, 3)], { p3: forged });
    expect(r.verdict.violations.map((v) => v.player)).toEqual(['p3']);
    expect(r.events.some((e) => e.type === 'game-over')).toBe(false);
  });
});
