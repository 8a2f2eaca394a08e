/**
 * Diplomacy by mail takes every order a game offers (docs/spec/diplomacy.md §10.3, spec/mail.md §11): what
 * `mail status` shows and what `mail decide --orders` reads, for a position with a convoy through two
 * fleets. The state is the machine's at the commit step, for England's player.
 */
import { describe, expect, it } from 'vitest';
import { checkChoice, type Decision } from '@fairtable/core/protocols/machine.js';
import { orderChoices, type DiplomacyState } from '@fairtable/diplomacy/protocol/index.js';
import { standardMap as map } from '@fairtable/diplomacy/standard.js';
import type { Position } from '@fairtable/diplomacy/position.js';
import { diplomacyText, ordersAnswer } from './diplomacy.js';

const position: Position = {
  phase: { season: 'fall', year: 1903, type: 'movement' },
  units: [
    { power: 'england', type: 'army', at: 'lon' },
    { power: 'england', type: 'fleet', at: 'eng' },
    { power: 'england', type: 'fleet', at: 'mao' },
    { power: 'france', type: 'army', at: 'spa' },
  ],
  dislodged: [],
  contested: [],
  supplyCenterOwners: [
    { power: 'england', at: 'lon' },
    { power: 'france', at: 'spa' },
  ],
  winner: null,
};

/** The parts of the machine's state that the mail text and the reader look at. */
const state = {
  gameId: 'f'.repeat(64),
  round: 7,
  stage: 'play',
  phase: 'commit',
  method: 'weighted',
  typos: 'ignore-unit-letter',
  me: 'ann',
  active: ['ann', 'bob'],
  powers: { ann: 'england', bob: 'france' },
  commits: {},
  claims: {},
  reveals: {},
  signs: {},
  excused: {},
  forfeits: [],
  position,
} as unknown as DiplomacyState;

const decision: Decision = { kind: 'orders', prompt: "England's orders", deadline: 0, choices: orderChoices(map, position, 'england') };

describe('Diplomacy by mail: every order offered can be given', () => {
  it('mail status lists the two-fleet convoy, the convoy orders of both fleets and the support of the convoyed move', () => {
    const lines = diplomacyText(state).split('\n');
    expect(lines).toEqual(
      expect.arrayContaining(['    A lon - por via convoy', '    F mao C A lon - por', '    F eng C A lon - por', '    A spa S A lon - por']),
    );
  });

  it('mail decide --orders reads them into an answer the decision takes', () => {
    const { choice, notes } = ordersAnswer(state, decision, 'A London - Portugal\nF Mid-Atlantic Ocean convoys A London - Portugal\nF ENG C A Lon-Por\n');
    expect(choice).toEqual({ lon: 'A lon - por via convoy', eng: 'F eng C A lon - por', mao: 'F mao C A lon - por' });
    expect(notes).toEqual([]);
    expect(() => checkChoice(decision.choices, choice, 'orders')).not.toThrow();
  });

  it('refuses, naming the line, a convoy no chain through the fleet could carry', () => {
    expect(() => ordersAnswer(state, decision, 'A lon - por\nF mao C A spa - mun\n')).toThrow(
      /line 2: .*no chain of fleets at sea through mao links spa to mun/,
    );
  });
});
