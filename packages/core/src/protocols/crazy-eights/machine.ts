/**
 * Crazy Eights played for real (docs/spec/crazy-eights.md §2): the rules of games/crazy-eights on the deck
 * nobody controls, through the deck table's steps (protocols/deck-table). Every seat publishes its key share
 * with a k-of-n backup, every seat shuffles in seat order, each player is dealt its hand privately and the
 * starter is turned face up in one opening; then in turn each player plays a card from its hand with its own
 * decryption share (which proves the card was dealt there), or draws the next card of the stock privately.
 * A player may always draw instead of playing, so nobody ever proves what it does not hold.
 *
 * A player late to anything, or named for a broken rule, is gone: its hand is dead and stays hidden, its
 * turns are skipped, the others stand in for its key from its backup. The first to empty its hand wins.
 */
import type { ViolationCode } from '../../errors.js';
import { FairtableError } from '../../errors.js';
import type { JsonValue } from '../../jcs.js';
import type { GameSetup } from '../../setup.js';
import type { Accepted } from '../../transcript.js';
import { handSize, legalPlays, nextPlayer, playText, starterTop, topAfter, whyNot, type Play } from '../../games/crazy-eights/index.js';
import {
  awaitingOf,
  decideBy,
  deadlineTick,
  intParam,
  isDeadlineBody,
  settleClaim,
  Stepper,
  type Ctx,
  type Decision,
  type Machine,
  type Outcome,
  type StepResult,
} from '../machine.js';
import { freshDeck, openingMissing, present, shuffler, type OpenedCard } from '../deck-table/state.js';
import {
  checkPlayed,
  closeOpening,
  goneFor,
  jointKey,
  keyMessage,
  openCard,
  openingPossible,
  openOwn,
  ownShare,
  sendMine,
  shuffleMessage,
  staleOpening,
  startOpening,
  stepKey,
  stepShares,
  stepShuffle,
  stepStandIn,
} from '../deck-table/steps.js';
import { copy, type EightsState } from './state.js';

export type { EightsState } from './state.js';

function begin(s: EightsState, phase: EightsState['phase'], time: number): void {
  s.phase = phase;
  s.phaseStart = time;
  s.round++;
}

function end(s: EightsState, st: Stepper, why: string | null): void {
  s.phase = 'done';
  s.ended = why;
  st.emit({ type: 'over', winners: s.winners, why });
}

const inGame = (s: EightsState) => (p: string) => !s.gone.includes(p);

/** The players still in holding the fewest cards. */
function fewest(s: EightsState): string[] {
  const least = Math.min(...present(s).map((p) => s.hands[p]?.length ?? 0));
  return present(s).filter((p) => (s.hands[p]?.length ?? 0) === least);
}

/** The turn passes to the next player still in the game. */
function nextTurn(s: EightsState, time: number): void {
  s.turn = s.turn === null ? (present(s)[0] ?? null) : nextPlayer(s.players, s.turn, inGame(s));
  s.turns++;
  begin(s, 'turn', time);
}

/** The deal: each present player's hand in seat order, then the starter face up; the stock is what is left. */
function deal(s: EightsState, time: number): void {
  const h = handSize(s.players.length);
  const cards: OpenedCard[] = [];
  let next = 0;
  for (const p of present(s)) {
    s.hands[p] = [];
    for (let i = 0; i < h; i++) {
      s.hands[p].push(next);
      cards.push({ position: next++, owner: p });
    }
  }
  cards.push({ position: next++, owner: null });
  s.stock = next;
  startOpening(s, cards);
  s.phaseStart = time;
  s.round++;
}

/** A draw: the next card of the stock opened to the drawer alone, or a pass when the stock is empty. */
function draw(s: EightsState, st: Stepper, player: string, time: number): void {
  if (s.stock < s.size) {
    s.drawer = player;
    startOpening(s, [{ position: s.stock++, owner: player }]);
    s.phaseStart = time;
    s.round++;
    st.emit({ type: 'draw', player });
    s.history.push({ player, drew: true });
    return;
  }
  s.passes++;
  st.emit({ type: 'pass', player });
  s.history.push({ player, passed: true });
  nextTurn(s, time);
}

/** Moves the game on until it waits for somebody. */
function advance(s: EightsState, st: Stepper, ctx: Ctx, time: number): void {
  for (;;) {
    if (s.phase === 'done') return;
    if (s.phase === 'keys') {
      if (s.gone.length > 0) return end(s, st, `${s.gone.join(', ')} gave no valid key; no card was dealt`);
      if (s.players.some((p) => s.keyShares[p] === undefined)) return;
      s.jointKey = jointKey(s);
      if (s.jointKey === null) return end(s, st, 'the key shares sum to no key');
      begin(s, 'shuffle', time);
      continue;
    }
    if (present(s).length < 2) {
      s.winners = present(s);
      return end(s, st, 'fewer than two players are left');
    }
    if (s.phase === 'shuffle') {
      if (shuffler(s) !== null) {
        const body = shuffleMessage(s, ctx);
        if (body !== null) st.send(body);
        return;
      }
      deal(s, time);
      continue;
    }
    if (s.phase === 'open') {
      if (!openingPossible(s)) {
        s.winners = fewest(s);
        return end(s, st, `fewer than ${s.threshold} players are left to stand in for ${s.gone.join(', ')}; the fewest cards win`);
      }
      sendMine(s, st, ctx);
      if (!closeOpening(s)) return;
      const cards = s.opening!.cards;
      s.opening = null;
      if (s.drawer === null) {
        const starter = openCard(s, cards[cards.length - 1]!.position);
        if (starter === null) return end(s, st, 'the starter does not open to a card');
        s.top = starterTop(starter);
        s.discard.push(starter);
        st.emit({ type: 'starter', card: starter });
      } else {
        const position = cards[0]!.position;
        if (!s.gone.includes(s.drawer)) s.hands[s.drawer]!.push(position);
        s.drawer = null;
      }
      for (const p of s.me === null ? [] : (s.hands[s.me] ?? [])) {
        if (s.mine[String(p)] !== undefined) continue;
        const card = openOwn(s, p);
        if (card !== null) s.mine[String(p)] = card;
      }
      nextTurn(s, time);
      continue;
    }
    if (s.phase === 'turn') {
      if (s.turn === null || s.gone.includes(s.turn)) {
        nextTurn(s, time);
        continue;
      }
      if (s.passes >= present(s).length) {
        s.winners = fewest(s);
        return end(s, st, `the stock is empty and every player passed; ${s.winners.join(', ')} ${s.winners.length === 1 ? 'holds' : 'hold'} the fewest cards`);
      }
      return;
    }
    return;
  }
}

/** A play or a draw must be the turn player's, for this turn. */
function onTurn(s: EightsState, st: Stepper, msg: Accepted): boolean {
  const from = msg.envelope.from;
  if (s.phase === 'turn' && s.turn === from && msg.envelope.body.turn === s.turns) return true;
  st.violation(
    'out_of_turn',
    from,
    msg,
    `${from} sent a ${msg.envelope.body.type} when it was ${s.phase === 'turn' ? `${s.turn ?? 'nobody'}'s turn` : 'nobody’s turn'}`,
  );
  return false;
}

function applyPlay(s: EightsState, st: Stepper, msg: Accepted, time: number): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  const hand = s.hands[from] ?? [];
  const card = checkPlayed(s, st, msg, hand);
  if (card === null) return; // named and gone: the turn passes in advance()
  const play: Play = body.suit === undefined ? { card } : { card, suit: body.suit as number };
  const why = whyNot(play, s.top!);
  if (why !== null) {
    // The card is shown but stays in the hand; the play is refused and the player draws instead (the default).
    st.violation('illegal_answer', from, msg, `${from}'s play is refused: ${why}; the card stays in its hand, face up, and it draws instead`);
    st.emit({ type: 'refused', player: from, card });
    return draw(s, st, from, time);
  }
  s.hands[from] = hand.filter((p) => p !== Number(body.position));
  delete s.mine[String(body.position)];
  s.top = topAfter(play);
  s.discard.push(card);
  s.passes = 0;
  s.history.push({ player: from, played: card, ...(play.suit === undefined ? {} : { suit: play.suit }) });
  st.emit({ type: 'play', player: from, card, ...(play.suit === undefined ? {} : { suit: play.suit }), text: playText(play) });
  if (s.hands[from].length === 0) {
    s.winners = [from];
    return end(s, st, null);
  }
  nextTurn(s, time);
}

function missing(s: EightsState): string[] {
  switch (s.phase) {
    case 'keys':
      return s.players.filter((p) => s.keyShares[p] === undefined && !s.gone.includes(p));
    case 'shuffle': {
      const next = shuffler(s);
      return next === null ? [] : [next];
    }
    case 'open':
      return openingMissing(s);
    case 'turn':
      return s.turn === null ? [] : [s.turn];
    case 'done':
      return [];
  }
}

function turnDecision(s: EightsState): Decision | null {
  if (s.me === null || s.phase !== 'turn' || s.turn !== s.me || s.gone.includes(s.me) || s.outbox.includes(`turn/${s.turns}`)) return null;
  const cards = (s.hands[s.me] ?? []).map((p) => s.mine[String(p)]).filter((c): c is number => c !== undefined);
  const plays = legalPlays(cards, s.top!);
  const drawWord = s.stock < s.size ? 'draw' : 'pass';
  return {
    kind: 'play',
    prompt: `Your turn: play a card on ${playText(s.top!)} (its suit, its rank, or an eight naming a suit), or ${drawWord}`,
    choices: { type: 'one-of', values: [...plays.map((p) => p as unknown as JsonValue), drawWord] },
    deadline: s.phaseStart + s.timeoutMs,
    view: {
      top: s.top as unknown as JsonValue,
      hand: cards,
      stock: s.size - s.stock,
      hands: Object.fromEntries(present(s).map((p) => [p, s.hands[p]!.length])),
    },
  };
}

function applyLate(s: EightsState, st: Stepper, late: readonly string[], msg: Accepted, ctx: Ctx): void {
  for (const p of late) {
    st.absent(
      p,
      msg,
      `${p} sent nothing for the ${s.phase === 'open' ? 'opening of cards' : s.phase} before the deadline; its hand is dead and the others stand in for it`,
    );
    goneFor(s, st, p, 'withheld');
    if (s.phase === 'shuffle') s.shuffled.push(p);
  }
  s.phaseStart = msg.time;
  s.round++;
  advance(s, st, ctx, msg.time);
}

export const crazyEightsMachine: Machine<EightsState> = {
  protocol: 'crazy-eights',

  init(setup: GameSetup, gameId: string, me: string | null, ctx: Ctx): StepResult<EightsState> {
    const players = setup.players.map((p) => p.id);
    if (players.length < 2 || players.length > 5) throw new FairtableError('out_of_range', 'Crazy Eights seats 2 to 5 players', { field: 'players' });
    const s: EightsState = {
      gameId,
      players,
      keys: Object.fromEntries(setup.players.map((p) => [p.id, p.key])),
      // A majority of the table: fewer players than that, together, never open anyone's hand from its backup.
      threshold: intParam(setup.params, 'threshold', Math.floor(players.length / 2) + 1, 1, players.length),
      size: 52,
      me,
      phase: 'keys',
      ...freshDeck(),
      timeoutMs: intParam(setup.params, 'timeoutMs', 30_000, 1, 2 ** 40),
      phaseStart: setup.created,
      round: 0,
      claimed: null,
      hands: {},
      mine: {},
      stock: 0,
      top: null,
      discard: [],
      turn: null,
      turns: 0,
      drawer: null,
      passes: 0,
      winners: [],
      ended: null,
      history: [],
    };
    const st = new Stepper();
    if (me !== null && players.includes(me)) st.send(keyMessage(s, ctx));
    return st.result(s);
  },

  decision: turnDecision,

  decide(state: EightsState, choice: JsonValue, ctx: Ctx): StepResult<EightsState> {
    return decideBy(state, turnDecision, choice, copy, (s, st, answer) => {
      s.outbox.push(`turn/${s.turns}`);
      if (typeof answer === 'string') return st.send({ type: 'draw', turn: s.turns });
      const play = answer as unknown as Play;
      const position = Number(Object.keys(s.mine).find((p) => s.mine[p] === play.card && s.hands[s.me!]!.includes(Number(p))));
      const share = ownShare(s, position, ctx);
      st.send({
        type: 'play',
        turn: s.turns,
        position,
        card: play.card,
        ...(play.suit === undefined ? {} : { suit: play.suit }),
        share: share as unknown as JsonValue,
      });
    });
  },

  step(state: EightsState, msg: Accepted, ctx: Ctx): StepResult<EightsState> {
    const st = new Stepper();
    const from = msg.envelope.from;
    const body = msg.envelope.body;
    if (body.type === 'setup' || state.phase === 'done' || state.gone.includes(from)) return st.result(state);
    if ((body.type === 'shares' || body.type === 'standin') && staleOpening(state, body)) return st.result(state);
    const s = copy(state);
    if (body.type === 'key') stepKey(s, st, msg);
    else if (body.type === 'shuffle') stepShuffle(s, st, msg);
    else if (body.type === 'shares') stepShares(s, st, msg);
    else if (body.type === 'standin') stepStandIn(s, st, msg);
    else if (body.type === 'play') {
      if (onTurn(s, st, msg)) applyPlay(s, st, msg, msg.time);
    } else if (body.type === 'draw') {
      if (onTurn(s, st, msg)) draw(s, st, from, msg.time);
    } else if (isDeadlineBody(body)) {
      const late = settleClaim(st, msg, body, s, { round: s.round, late: missing(s), isOut: (p) => s.gone.includes(p) });
      if (late !== null) applyLate(s, st, late, msg, ctx);
      return st.result(s);
    } else {
      st.violation('unexpected_message', from, msg, `${from} sent a "${body.type}", which Crazy Eights does not know`);
      return st.result(s);
    }
    advance(s, st, ctx, msg.time);
    return st.result(s);
  },

  tick(state: EightsState, ctx: Ctx): StepResult<EightsState> {
    return deadlineTick(
      state,
      ctx,
      { me: state.me, seated: state.me !== null && !state.gone.includes(state.me), round: state.round, missing: () => missing(state) },
      copy,
    );
  },

  awaiting: (state: EightsState) => awaitingOf(state, missing(state)),

  penalize(state: EightsState, player: string, code: ViolationCode, _line: number, ctx: Ctx, time: number): StepResult<EightsState> {
    const st = new Stepper();
    if (state.phase === 'done' || state.gone.includes(player)) return st.result(state);
    const s = copy(state);
    goneFor(s, st, player, code);
    if (s.phase === 'shuffle' && !s.shuffled.includes(player)) s.shuffled.push(player);
    advance(s, st, ctx, time);
    return st.result(s);
  },

  outcome(state: EightsState): Outcome | null {
    if (state.phase !== 'done') return null;
    return {
      winners: state.winners,
      forfeits: state.forfeits,
      summary: {
        turns: state.history.length,
        history: state.history,
        discard: state.discard,
        hands: Object.fromEntries(state.players.map((p) => [p, (state.hands[p] ?? []).length])),
        ended: state.ended,
        gone: [...state.gone],
      } as JsonValue,
    };
  },
};
