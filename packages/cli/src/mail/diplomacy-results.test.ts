/**
 * After a Diplomacy phase every player sees every order and what came of it (docs/spec/mail.md §11.1), and
 * while a phase is played, who has done the step (never what). The results are the adjudicator's, on a
 * hand-made position with a supported attack, a cut support, a bounce and a dislodgement.
 */
import { describe, expect, it } from 'vitest';
import { adjudicate } from '@fairtable/diplomacy/adjudicate.js';
import { phaseName } from '@fairtable/diplomacy/orders-file.js';
import type { Position } from '@fairtable/diplomacy/position.js';
import { standardMap as map } from '@fairtable/diplomacy/standard.js';
import type { DiplomacyState } from '@fairtable/diplomacy/protocol/index.js';
import { diplomacyText } from './diplomacy.js';
import { outcomeWords, progressText, resultsText, type PhaseResults } from './diplomacy-results.js';

const position: Position = {
  phase: { season: 'spring', year: 1902, type: 'movement' },
  units: [
    { power: 'france', type: 'army', at: 'par' },
    { power: 'france', type: 'army', at: 'mar' },
    { power: 'france', type: 'army', at: 'bel' },
    { power: 'germany', type: 'army', at: 'bur' },
    { power: 'germany', type: 'army', at: 'ruh' },
    { power: 'england', type: 'fleet', at: 'lon' },
    { power: 'england', type: 'fleet', at: 'edi' },
  ],
  dislodged: [],
  contested: [],
  supplyCenterOwners: [
    { power: 'france', at: 'par' },
    { power: 'germany', at: 'mun' },
    { power: 'england', at: 'lon' },
  ],
  winner: null,
};

const orders = [
  { power: 'france', text: 'A par - bur' },
  { power: 'france', text: 'A mar S A par - bur' },
  { power: 'france', text: 'A bel - ruh' },
  { power: 'germany', text: 'A bur H' },
  { power: 'germany', text: 'A ruh S A bur' },
  { power: 'england', text: 'F lon - nth' },
  { power: 'england', text: 'F edi - nth' },
];

/** The phase as the machine's `adjudicated` event carries it (the follower reads the same fields). */
function phase(): PhaseResults {
  const result = adjudicate(map, position, orders);
  return {
    line: 42,
    round: 9,
    name: phaseName(position),
    label: 'S1902M',
    orders: result.results.map((r) => ({ power: r.power, order: r.order ?? r.text, status: r.status, reason: r.reason })),
    dislodged: result.position.dislodged.map((d) => ({ power: d.power, at: d.at })),
  };
}

describe('Diplomacy: every order and what came of it, after the phase', () => {
  it('names each outcome: moved, support given, bounced, cut, dislodged', () => {
    const lines = resultsText(phase());
    expect(lines[0]).toBe(`Results of the ${phaseName(position)} (S1902M):`);
    const body = lines.join('\n');
    expect(body).toContain('  France:\n    A par - bur: moved\n    A mar S A par - bur: support given\n    A bel - ruh: bounced');
    expect(body).toContain('  Germany:\n    A bur H: dislodged\n    A ruh S A bur: cut');
    expect(body).toContain('  England:\n    F lon - nth: bounced\n    F edi - nth: bounced');
    expect(lines[lines.length - 1]).toBe('  Dislodged, to retreat or disband: Germany bur');
  });

  it('shows the votes to end the game cast in the phase, and whether an ending was agreed', () => {
    const lines = resultsText({ ...phase(), votes: { byPower: { england: 'draw', france: 'none', germany: 'concede:france' }, agreed: null } });
    expect(lines.at(-1)).toBe('  Votes to end the game: England draw, France no vote, Germany concede to france: no ending agreed, play goes on');
    const agreed = resultsText({ ...phase(), votes: { byPower: { england: 'draw', france: 'draw' }, agreed: 'draw' } });
    expect(agreed.at(-1)).toBe('  Votes to end the game: England draw, France draw: agreed (draw)');
    // No vote cast: nothing said of votes.
    expect(resultsText(phase()).join('\n')).not.toContain('Votes');
  });

  it('a bounce is not shown as a move, nor a move as a bounce', () => {
    const p = phase();
    const words = Object.fromEntries(p.orders.map((o) => [o.order, outcomeWords(o, false)]));
    expect(words['A par - bur']).toBe('moved');
    expect(words['A bel - ruh']).toBe('bounced');
  });

  it('a unit dislodged while its own order failed says both', () => {
    expect(outcomeWords({ power: 'germany', order: 'A ruh - bel', status: 'failed', reason: 'bounced' }, true)).toBe('bounced; dislodged');
    expect(outcomeWords({ power: 'italy', order: 'A ven - tri', status: 'invalid', reason: 'ven does not border xyz' }, false)).toBe(
      'invalid (ven does not border xyz)',
    );
  });

  it('names retreats, disbands, builds and removals', () => {
    const w = (order: string, status = 'succeeded'): string => outcomeWords({ power: 'france', order, status, reason: null }, false);
    expect([w('A bur R pic'), w('A bur D'), w('Build A par'), w('Remove F bre'), w('Waive')]).toEqual(['retreated', 'disbanded', 'built', 'removed', 'waived']);
  });
});

/** The parts of the machine's state the progress text reads. */
const state = (over: Partial<DiplomacyState>): DiplomacyState =>
  ({
    gameId: 'e'.repeat(64),
    round: 9,
    stage: 'play',
    phase: 'commit',
    method: 'weighted',
    typos: 'ignore-unit-letter',
    me: 'ann',
    mine: null,
    active: ['ann', 'bob', 'cat'],
    powers: { ann: 'france', bob: 'germany', cat: 'england' },
    commits: {},
    claims: {},
    reveals: {},
    signs: {},
    excused: {},
    forfeits: [],
    position,
    ...over,
  }) as unknown as DiplomacyState;

describe('Diplomacy: who has done the step so far, never what', () => {
  it('at the claim step: who has claimed, and who the step waits for', () => {
    const s = state({ phase: 'claim', commits: { ann: 'a'.repeat(64), bob: 'b'.repeat(64), cat: 'c'.repeat(64) }, claims: { bob: true } });
    expect(progressText(s)).toEqual(['Claimed so far: bob']);
    const text = diplomacyText(s);
    expect(text).toContain('Waiting for: ann, cat\nClaimed so far: bob\n');
    expect(text).not.toContain('a'.repeat(64));
  });

  it('at the sign step: who has signed', () => {
    expect(progressText(state({ phase: 'sign', signs: { cat: 'f'.repeat(64), ann: 'f'.repeat(64) } }))).toEqual(['Signed so far: ann, cat']);
  });

  it("at a sealed commit step: only the reader's own commitment, held by the orderer; nothing said of the others", () => {
    const mineHeld = state({ mine: { round: 9 } as DiplomacyState['mine'] });
    expect(progressText(mineHeld)).toEqual(['You (ann) have committed: the orderer holds it sealed until every commitment is in']);
    expect(progressText(state({}))).toEqual([]);
    // Commitments the log shows (a game that does not seal them) are named.
    expect(progressText(state({ commits: { cat: 'c'.repeat(64) } }))).toEqual(['Committed so far: cat']);
  });
});
