/**
 * Monopoly, the whole game (docs/spec/monopoly.md): the standard rules as a
 * pure `DecisionGame`, the players' decisions as input. The protocol
 * underneath supplies each roll's chance (chain or keyed-stream) and carries
 * the decisions, sealed ones (auction bids) committed then revealed.
 */
import type { Chance } from '../../chance.js';
import type { JsonValue } from '../../jcs.js';
import { FairtableError } from '../../errors.js';
import { leaders, type DecisionGame, type TurnResult, type Waiting } from '../game.js';
import { CHANCE, COMMUNITY_CHEST } from './cards.js';
import { askedNow, applyAnswers, question, whyIllegal } from './decisions.js';
import { bankrupt } from './money.js';
import { proceed, roll } from './turn.js';
import { draft, finish, initialState, type MonopolyState } from './state.js';
import { netWorth } from './view.js';

export type { MonopolyState } from './state.js';
export { boardSummary, netWorth } from './view.js';
export { legalDecisions, describeOffer, type Legal } from './decisions.js';
export { CHANCE, COMMUNITY_CHEST } from './cards.js';
export { BOARD } from './board.js';

function summary(d: { log: JsonValue[] }, s: MonopolyState): JsonValue {
  return { events: d.log, stage: s.stage.kind, mover: s.mover };
}

export const monopolyGame: DecisionGame<MonopolyState> = {
  name: 'monopoly',
  init(players, params) {
    return initialState(players, params, CHANCE.length, COMMUNITY_CHEST.length);
  },

  waiting(s): Waiting {
    if (s.stage.kind === 'over') return { kind: 'over' };
    if (s.stage.kind === 'roll') return { kind: 'roll', player: s.mover };
    const asked = askedNow(s)!;
    return { kind: 'decide', players: asked.players, sealed: asked.sealed };
  },

  play(s: MonopolyState, mover: string, chance: Chance, _action: JsonValue): TurnResult<MonopolyState> {
    if (s.stage.kind !== 'roll' || mover !== s.mover) throw new FairtableError('illegal_choice', `it is not ${mover}'s roll`, { field: 'mover' });
    const d = draft(s);
    roll(d, chance);
    const next = finish(d);
    return { state: next, summary: summary(d, next) };
  },

  question,
  whyIllegal,

  firstPlayer(s, player) {
    return s.players.includes(player) && s.turns === 0 && s.stage.kind === 'turn' ? { ...s, mover: player } : s;
  },

  answer(s, answers) {
    const d = draft(s);
    applyAnswers(d, s, answers);
    const next = finish(d);
    return { state: next, summary: summary(d, next) };
  },

  winners(s) {
    if (s.players.length <= 1) return [...s.players];
    if (s.stage.kind !== 'over') return null;
    return leaders(Object.fromEntries(s.players.map((p) => [p, netWorth(s, p)])), s.players);
  },

  /** A player who leaves (a forfeit by the protocol) goes bankrupt to the bank. */
  forfeit(s, player) {
    if (!s.players.includes(player)) return s;
    const d = draft(s);
    bankrupt(d, player, 'bank');
    const st = d.stage;
    if (d.players.length <= 1) d.stage = { kind: 'over' };
    else if (!d.players.includes(d.mover)) {
      proceed(d);
    } else if (st.kind === 'trade' && (st.offer.to === player || st.offer.from === player)) d.stage = { kind: 'turn' };
    else if (st.kind === 'raise') proceed(d);
    else if (st.kind === 'auction') d.stage = { ...st, bidders: st.bidders.filter((p) => p !== player) };
    return finish(d);
  },
};
