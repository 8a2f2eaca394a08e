/**
 * What `play`'s hand-over flags make a seat send (docs/spec/diplomacy.md §10.15, "Front ends"): an approval
 * only of a proposal whose newcomer key its player named, once; a proposal only when the power is held by
 * nobody and the player is in the game, once; nothing for anyone else.
 */
import { describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import type { Body } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import type { RelayGame } from '@fairtable/client';
import { approveBody, newcomerBody, newcomerConsent, type DiplomacyState, type Handover } from '@fairtable/diplomacy/protocol/index.js';
import { attachHandover, type HandoverPlan, type NewcomerFile } from './diplomacy-handover.js';

const GAME = 'ab'.repeat(32);
const niaKeys = generateKeyPair(new Uint8Array(32).fill(3));
const nia = { id: 'nia', key: toHex(niaKeys.publicKey), name: 'Nia' };
const zed = { id: 'zed', key: toHex(generateKeyPair(new Uint8Array(32).fill(4)).publicKey), name: 'Zed' };
const open = (who: typeof nia, power: string): Handover => ({ ...who, power, proposer: 'p2', line: 9, approvals: ['p2'] });

/** A seat of `me` in a game whose state is `state`, as the hook sees it; `line()` tells it of a new line. */
function seatOf(me: string, state: Partial<DiplomacyState>, plan: HandoverPlan) {
  const sent: Body[] = [];
  const listeners: (() => void)[] = [];
  const s = { stage: 'play', phase: 'commit', active: ['p1', 'p2'], powers: { p1: 'austria', p2: 'england' }, handovers: {}, closed: [], ...state };
  const game = {
    id: me,
    gameId: GAME,
    seat: { referee: { state: s }, sendUnasked: (b: Body) => sent.push(b) },
    on: (event: string, f: () => void) => (event === 'line' ? listeners.push(f) : undefined),
  } as unknown as RelayGame;
  attachHandover(game, plan, () => {});
  const line = async (): Promise<void> => {
    for (const f of listeners) f();
    await new Promise((r) => setImmediate(r));
  };
  return { sent, line, state: s };
}

describe("play's hand-over flags", () => {
  it('approves only the newcomer key its player named, once', async () => {
    const handovers = { h1: open(zed, 'france'), h2: open(nia, 'turkey') };
    const seat = seatOf('p1', { handovers }, { propose: null, approve: new Set([nia.key]) });
    await seat.line();
    await seat.line();
    expect(seat.sent).toEqual([approveBody('h2')]);
  });

  it('approves nothing for a player out of the game, or one whose approval is in', async () => {
    const out = seatOf('p1', { handovers: { h2: open(nia, 'turkey') }, active: ['p2'] }, { propose: null, approve: new Set([nia.key]) });
    await out.line();
    const done = seatOf('p1', { handovers: { h2: { ...open(nia, 'turkey'), approvals: ['p2', 'p1'] } } }, { propose: null, approve: new Set([nia.key]) });
    await done.line();
    expect([...out.sent, ...done.sent]).toEqual([]);
  });

  it('proposes once the power is held by nobody, and only once', async () => {
    const consent = newcomerConsent(GAME, 'france', nia, niaKeys.secretKey);
    const file: NewcomerFile = { type: 'fairtable-newcomer', game: GAME, power: 'france', newcomer: { ...nia, consent } };
    const held = seatOf('p1', { powers: { p1: 'austria', p2: 'england', p3: 'france' } }, { propose: file, approve: new Set([nia.key]) });
    await held.line();
    expect(held.sent).toEqual([]);
    const seat = seatOf('p1', {}, { propose: file, approve: new Set([nia.key]) });
    await seat.line();
    await seat.line();
    expect(seat.sent).toEqual([newcomerBody('france', nia, consent)]);
  });
});
