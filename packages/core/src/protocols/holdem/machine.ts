/**
 * Texas Hold'em played for real (docs/spec/holdem.md §11): the no-limit rules of games/holdem on the deck
 * nobody controls (deck/). Once per game every seat publishes its key share, with its proof, and a k-of-n
 * backup of its secret; each hand every present seat shuffles a fresh deck in seat order, the hole cards
 * are dealt (every other seat's decryption shares, one message per seat), the players bet, the board is
 * turned face up street by street, and the players still in show their hole cards with their own shares.
 *
 * A player late to act folds (the rules' timeout). A player late to a deck step, or named for a broken
 * rule, is gone: the others stand in for its key from its backup so the hand goes on, it folds when its
 * turn comes, it is dealt no more hands, and its chips are forfeited when the hand ends.
 */
import type { ViolationCode } from '../../errors.js';
import { FairtableError } from '../../errors.js';
import type { JsonValue } from '../../jcs.js';
import type { GameSetup } from '../../setup.js';
import type { Accepted } from '../../transcript.js';
import { leaders } from '../../games/game.js';
import { actionChoices, TIMEOUT } from '../../games/holdem/decisions.js';
import { waiting } from '../../games/holdem/hand.js';
import { HoldemError, live, type Action } from '../../games/holdem/state.js';
import { createTable, nextHand, seated, tableAct, tableDeal, tableOver, tableShowdown } from '../../games/holdem/table.js';
import {
  awaitingOf,
  decideBy,
  deadlineTick,
  intParam,
  isDeadlineBody,
  settleClaim,
  Stepper,
  type Awaiting,
  type Ctx,
  type Decision,
  type Machine,
  type Outcome,
  type StepResult,
} from '../machine.js';
import {
  closeStep,
  goneFor,
  jointKey,
  keyMessage,
  openCard,
  openMine,
  sharesMessage,
  showMessage,
  shuffleMessage,
  standInMessage,
  stepKey,
  stepPossible,
  stepShares,
  stepShow,
  stepShuffle,
  stepStandIn,
} from './deck-steps.js';
import { boardPositions, copy, needStandIn, present, shuffler, stepMissing, type HoldemState, type Step } from './state.js';

export type { HoldemState } from './state.js';

function begin(s: HoldemState, phase: HoldemState['phase'], time: number): void {
  s.phase = phase;
  s.phaseStart = time;
  s.round++;
}

function end(s: HoldemState, st: Stepper, why: string | null): void {
  s.phase = 'done';
  s.ended = why;
  const stacks = { ...s.table.stacks };
  for (const p of s.gone) stacks[p] = 0;
  s.table = { ...s.table, stacks, hand: null };
  st.emit({ type: 'over', why });
}

/** The local seat's part in a deal step: its shares, then its stand-ins for every gone player who needs them. */
function sendMine(s: HoldemState, st: Stepper, ctx: Ctx): void {
  if (s.me === null || s.gone.includes(s.me) || s.phase !== 'deal') return;
  const tag = `${s.hand}/${s.step}`;
  if (!s.outbox.includes(`shares/${tag}`)) {
    s.outbox.push(`shares/${tag}`);
    st.send(sharesMessage(s, ctx));
  }
  for (const leaver of needStandIn(s)) {
    if (leaver === s.me || s.outbox.includes(`standin/${tag}/${leaver}`)) continue;
    s.outbox.push(`standin/${tag}/${leaver}`);
    const body = standInMessage(s, leaver, ctx);
    if (body !== null) st.send(body);
  }
}

function startStep(s: HoldemState, st: Stepper, ctx: Ctx, step: Step, time: number): void {
  s.step = step;
  s.sent = [];
  s.standins = {};
  begin(s, 'deal', time);
  sendMine(s, st, ctx);
}

function startHand(s: HoldemState, st: Stepper, time: number): void {
  s.table = nextHand(s.table);
  s.hand++;
  s.deck = [];
  s.shuffled = [];
  s.shuffles = 0;
  s.parts = {};
  s.mine = null;
  s.shown = {};
  s.step = null;
  s.outbox = [];
  begin(s, 'shuffle', time);
  st.emit({ type: 'hand', hand: s.hand, seats: [...s.table.hand!.seats], button: s.table.hand!.button });
}

function finishHand(s: HoldemState, st: Stepper): void {
  const last = s.table.lastHand;
  const stacks = { ...s.table.stacks };
  for (const p of s.gone) stacks[p] = 0;
  s.table = { ...s.table, stacks };
  s.results.push({
    hand: s.hand,
    board: [...(last?.board ?? [])],
    shown: s.shown,
    won: (last?.result?.won ?? {}) as JsonValue,
  } as JsonValue);
  st.emit({ type: 'hand-over', hand: s.hand, won: (last?.result?.won ?? {}) as JsonValue, shown: s.shown as unknown as JsonValue });
}

/** Moves the game on until it waits for somebody. */
function advance(s: HoldemState, st: Stepper, ctx: Ctx, time: number): void {
  for (;;) {
    if (s.phase === 'done') return;
    if (s.phase === 'keys') {
      if (s.gone.length > 0) return end(s, st, `${s.gone.join(', ')} gave no valid key; no hand was dealt`);
      if (s.players.some((p) => s.keyShares[p] === undefined)) return;
      s.jointKey = jointKey(s);
      if (s.jointKey === null) return end(s, st, 'the key shares sum to no key');
      startHand(s, st, time);
      continue;
    }
    if (s.phase === 'shuffle') {
      if (present(s).length < 2) return end(s, st, 'fewer than two players are left');
      const next = shuffler(s);
      if (next !== null) {
        if (s.me === next && !s.outbox.includes(`shuffle/${s.hand}/${s.shuffles}`)) {
          s.outbox.push(`shuffle/${s.hand}/${s.shuffles}`);
          st.send(shuffleMessage(s, ctx));
        }
        return;
      }
      startStep(s, st, ctx, 'hole', time);
      continue;
    }
    if (s.phase === 'deal') {
      if (!stepPossible(s)) return end(s, st, `fewer than ${s.threshold} players are left to stand in for ${needStandIn(s).join(', ')}`);
      sendMine(s, st, ctx);
      if (!closeStep(s)) return;
      if (s.step === 'hole') {
        s.mine = openMine(s);
        if (s.mine !== null) st.emit({ type: 'hole', hand: s.hand, cards: s.mine });
      } else {
        const cards = boardPositions(s, s.step!).map((p) => openCard(s, p));
        if (cards.some((c) => c === null)) return end(s, st, `the ${s.step} does not open to cards`);
        s.table = tableDeal(s.table, cards as number[]);
        st.emit({ type: 'board', hand: s.hand, street: s.step!, cards: cards as number[] });
      }
      s.step = null;
      s.phase = 'act';
      s.actAt = -1;
    }
    if (s.table.hand === null) {
      finishHand(s, st);
      const left = seated(s.table).filter((p) => !s.gone.includes(p));
      if (tableOver(s.table) || left.length < 2) return end(s, st, null);
      startHand(s, st, time);
      continue;
    }
    const w = waiting(s.table.hand);
    if (w.kind === 'act') {
      if (s.gone.includes(w.player)) {
        s.table = tableAct(s.table, w.player, TIMEOUT);
        st.emit({ type: 'act', hand: s.hand, player: w.player, action: TIMEOUT as unknown as JsonValue });
        continue;
      }
      if (s.phase !== 'act' || s.actAt !== s.table.hand.events.length) {
        begin(s, 'act', time);
        s.actAt = s.table.hand.events.length;
      }
      return;
    }
    if (w.kind === 'deal') {
      startStep(s, st, ctx, w.street as Step, time);
      continue;
    }
    if (w.kind === 'showdown') {
      // A gone player's hand is mucked: its chips stay in the pot.
      const h = s.table.hand;
      const mucked = live(h).filter((p) => s.gone.includes(p));
      if (mucked.length > 0) s.table = { ...s.table, hand: { ...h, folded: [...h.folded, ...mucked] } };
      const showing = live(s.table.hand!);
      if (showing.length === 0) return end(s, st, 'nobody is left to show a hand');
      if (s.phase !== 'show') {
        begin(s, 'show', time);
        if (s.me !== null && showing.includes(s.me) && s.mine !== null) st.send(showMessage(s, ctx));
      }
      if (showing.some((p) => s.shown[p] === undefined)) return;
      s.table = tableShowdown(s.table, s.shown);
      continue;
    }
    return;
  }
}

function missing(s: HoldemState): string[] {
  switch (s.phase) {
    case 'keys':
      return s.players.filter((p) => s.keyShares[p] === undefined && !s.gone.includes(p));
    case 'shuffle': {
      const next = shuffler(s);
      return next === null ? [] : [next];
    }
    case 'deal':
      return stepMissing(s);
    case 'act': {
      const h = s.table.hand;
      return h === null || h.toAct === null ? [] : [h.toAct];
    }
    case 'show':
      return s.table.hand === null ? [] : live(s.table.hand).filter((p) => s.shown[p] === undefined);
    case 'done':
      return [];
  }
}

function actDecision(s: HoldemState): Decision | null {
  if (s.me === null || s.phase !== 'act' || s.table.hand === null || s.table.hand.toAct !== s.me || s.gone.includes(s.me)) return null;
  if (s.outbox.includes(`act/${s.round}`)) return null;
  const choices = actionChoices(s.table.hand, s.me);
  if (choices === null) return null;
  return {
    kind: 'bet',
    prompt: `Your action, hand ${s.hand} (${s.table.hand.street}): fold, check or call, bet or raise, all-in`,
    choices,
    deadline: s.phaseStart + s.timeoutMs,
    view: { hand: s.hand, cards: s.mine, board: [...s.table.hand.board], stacks: { ...s.table.hand.stacks }, bets: { ...s.table.hand.bets } },
  };
}

function applyAct(s: HoldemState, st: Stepper, msg: Accepted, ctx: Ctx): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  const h = s.table.hand;
  if (s.phase !== 'act' || h === null || h.toAct !== from || body.hand !== s.hand) {
    st.violation('out_of_turn', from, msg, `${from} acted when it was not its turn to act`);
    return;
  }
  let action = body.action as JsonValue;
  try {
    s.table = tableAct(s.table, from, action);
  } catch (e) {
    if (!(e instanceof HoldemError)) throw e;
    st.violation('illegal_answer', from, msg, `${from}'s action is refused (${e.message}); it folds`);
    action = TIMEOUT as unknown as JsonValue;
    s.table = tableAct(s.table, from, TIMEOUT);
  }
  st.emit({ type: 'act', hand: s.hand, player: from, action });
  advance(s, st, ctx, msg.time);
}

/** A deadline claim that bites: a late bettor folds; a player late to a deck step or the showdown is gone. */
function applyLate(s: HoldemState, st: Stepper, late: readonly string[], msg: Accepted, ctx: Ctx): void {
  if (s.phase === 'act') {
    const p = late[0]!;
    st.absent(p, msg, `${p} did not act before the deadline; it folds (the rules' timeout)`);
    st.emit({ type: 'act', hand: s.hand, player: p, action: TIMEOUT as unknown as JsonValue });
    s.table = tableAct(s.table, p, TIMEOUT);
  } else {
    for (const p of late) {
      st.absent(
        p,
        msg,
        `${p} sent nothing for the ${s.phase === 'deal' ? `${s.step} deal` : s.phase} before the deadline; the others stand in for it and it sits out`,
      );
      goneFor(s, st, p, 'withheld');
      if (s.phase === 'shuffle') s.shuffled.push(p);
    }
    s.phaseStart = msg.time;
    s.round++;
  }
  advance(s, st, ctx, msg.time);
}

export const holdemMachine: Machine<HoldemState> = {
  protocol: 'holdem',

  init(setup: GameSetup, gameId: string, me: string | null, ctx: Ctx): StepResult<HoldemState> {
    const players = setup.players.map((p) => p.id);
    if (players.length < 2 || players.length > 9) throw new FairtableError('out_of_range', "Hold'em seats 2 to 9 players", { field: 'players' });
    const bigBlind = intParam(setup.params, 'bigBlind', 100, 2, 2 ** 40);
    const table = createTable({
      players,
      startingStack: intParam(setup.params, 'stack', 100 * bigBlind, 1, 2 ** 40),
      smallBlind: intParam(setup.params, 'smallBlind', Math.floor(bigBlind / 2), 1, bigBlind),
      bigBlind,
      maxHands: intParam(setup.params, 'hands', 1, 1, 10_000),
    });
    const s: HoldemState = {
      gameId,
      players,
      keys: Object.fromEntries(setup.players.map((p) => [p.id, p.key])),
      // A majority of the table: fewer players than that, together, never open anyone's hole cards from its backup.
      threshold: intParam(setup.params, 'threshold', Math.floor(players.length / 2) + 1, 1, players.length),
      timeoutMs: intParam(setup.params, 'timeoutMs', 30_000, 1, 2 ** 40),
      me,
      secret: null,
      phase: 'keys',
      phaseStart: setup.created,
      round: 0,
      claimed: null,
      keyShares: {},
      backups: {},
      jointKey: null,
      gone: [],
      forfeits: [],
      table,
      hand: 0,
      deck: [],
      shuffled: [],
      shuffles: 0,
      step: null,
      sent: [],
      standins: {},
      parts: {},
      mine: null,
      shown: {},
      outbox: [],
      results: [],
      ended: null,
      actAt: -1,
    };
    const st = new Stepper();
    if (me !== null && players.includes(me)) st.send(keyMessage(s, ctx));
    return st.result(s);
  },

  decision: actDecision,

  decide(state: HoldemState, choice: JsonValue, _ctx: Ctx): StepResult<HoldemState> {
    return decideBy(state, actDecision, choice, copy, (s, st, action) => {
      s.outbox.push(`act/${s.round}`);
      st.send({ type: 'act', hand: s.hand, action: action as Action as unknown as JsonValue });
    });
  },

  step(state: HoldemState, msg: Accepted, ctx: Ctx): StepResult<HoldemState> {
    const st = new Stepper();
    const from = msg.envelope.from;
    const body = msg.envelope.body;
    if (body.type === 'setup' || state.phase === 'done' || state.gone.includes(from)) return st.result(state);
    const s = copy(state);
    if (body.type !== 'key' && body.type !== 'deadline' && body.hand !== s.hand) {
      // A stand-in or share for a hand already over lands late on a slow network: stale, never held against its sender.
      if (typeof body.hand === 'number' && body.hand < s.hand) return st.result(state);
      st.violation('unexpected_message', from, msg, `${from} sent a "${body.type}" for hand ${String(body.hand)} during hand ${s.hand}`);
      return st.result(s);
    }
    if (body.type === 'key') stepKey(s, st, msg);
    else if (body.type === 'shuffle') stepShuffle(s, st, msg);
    else if (body.type === 'shares') stepShares(s, st, msg);
    else if (body.type === 'standin') stepStandIn(s, st, msg);
    else if (body.type === 'show') stepShow(s, st, msg);
    else if (body.type === 'act') {
      applyAct(s, st, msg, ctx);
      return st.result(s);
    } else if (isDeadlineBody(body)) {
      const late = settleClaim(st, msg, body, s, { round: s.round, late: missing(s), isOut: (p) => s.gone.includes(p) });
      if (late !== null) applyLate(s, st, late, msg, ctx);
      return st.result(s);
    } else {
      st.violation('unexpected_message', from, msg, `${from} sent a "${body.type}", which Hold'em does not know`);
      return st.result(s);
    }
    advance(s, st, ctx, msg.time);
    return st.result(s);
  },

  tick(state: HoldemState, ctx: Ctx): StepResult<HoldemState> {
    return deadlineTick(
      state,
      ctx,
      { me: state.me, seated: state.me !== null && !state.gone.includes(state.me), round: state.round, missing: () => missing(state) },
      copy,
    );
  },

  /** Whom the game waits for: the shuffler, the players a deal step or the showdown lacks, the player to act. */
  awaiting(state: HoldemState): Awaiting | null {
    return awaitingOf(state, missing(state));
  },

  penalize(state: HoldemState, player: string, code: ViolationCode, line: number, ctx: Ctx, time: number): StepResult<HoldemState> {
    const st = new Stepper();
    if (state.phase === 'done' || state.gone.includes(player)) return st.result(state);
    const s = copy(state);
    goneFor(s, st, player, code);
    if (s.phase === 'shuffle' && !s.shuffled.includes(player)) s.shuffled.push(player);
    advance(s, st, ctx, time);
    void line;
    return st.result(s);
  },

  outcome(state: HoldemState): Outcome | null {
    if (state.phase !== 'done') return null;
    const left = state.players.filter((p) => !state.gone.includes(p) && (state.table.stacks[p] ?? 0) > 0);
    return {
      winners: left.length === 0 ? [] : leaders({ ...state.table.stacks }, left),
      forfeits: state.forfeits,
      summary: {
        hands: state.results.length,
        stacks: { ...state.table.stacks },
        results: state.results,
        ended: state.ended,
        gone: [...state.gone],
      } as JsonValue,
    };
  },
};
