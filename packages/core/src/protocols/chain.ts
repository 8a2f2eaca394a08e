/**
 * Chained commitments (docs/SPEC.md §7.2; seed 004's sequence diagram, for 2..N players).
 *
 * Join: every player commits to a secret value for its first roll. Ready: once
 * all commitments are in, every player publishes a fresh open random value and
 * the commit set's hash. Play, in turn order: the mover's move carries the
 * opening of its pending commitment, a new commitment for its next roll, a new
 * fresh value, its action and the draws it claims; the turn's seed is
 *
 *   H("chain-roll", JCS({game, turn, player, value, fresh}))
 *
 * with `fresh` the latest fresh value of every other active player, in seat
 * order. Every fresh value used was published after the mover's commitment, and
 * the mover's value was hidden when the fresh values were chosen, so neither
 * side can steer the roll; a roll costs no message beyond the move itself.
 * Everyone recomputes the turn and names a mover whose opening or claimed
 * draws are wrong. The mover learns its roll before sending the move, so the
 * one thing it can do is not move: the turn deadline names it (`withheld`) and
 * it forfeits.
 */
import { toHex } from '../bytes.js';
import { canonicalize, canonicalShape } from '../jcs.js';
import { commit, opens, type Opening } from '../commitment.js';
import { hashCanonical, hashJsonHex } from '../hash.js';
import { RecordingChance } from '../chance.js';
import { RandomStream } from '../stream.js';
import { FairtableError, type ViolationCode } from '../errors.js';
import type { JsonValue } from '../jcs.js';
import type { GameSetup } from '../setup.js';
import type { Accepted } from '../transcript.js';
import { BUILTIN_GAMES, gameByName, type GameBook } from '../games/index.js';
import { isDecisionGame, type ChanceGame, type DecisionGame } from '../games/game.js';
import { CHAIN_MESSAGES } from './messages.js';
import {
  ASK_PHASES,
  askDecide,
  completeAsk,
  askDecision,
  askAwaiting,
  askMissing,
  askTick,
  autoUnseal,
  onAskDeadline,
  onAskMessage,
  deadlinesParam,
  type Ask,
  type AskHooks,
} from './asking.js';
import { forfeitSeat, turnsOutcome } from './rotation.js';
import {
  decideBy,
  awaitingOf,
  deadlineTick,
  intParam,
  isDeadlineBody,
  refuseDecision,
  settleClaim,
  Stepper,
  type Awaiting,
  type Ctx,
  type Decision,
  type Machine,
  type StepResult,
} from './machine.js';

export interface ChainState {
  readonly gameId: string;
  readonly gameName: string;
  readonly rules: ChanceGame<unknown>;
  readonly timeoutMs: number;
  game: unknown;
  active: string[];
  phase: 'join' | 'ready' | 'play' | 'done';
  phaseStart: number;
  commits: Record<string, { commitment: string; k: number }>;
  fresh: Record<string, string>;
  readySet: string | null;
  turn: number;
  mover: number;
  forfeits: { player: string; code: ViolationCode }[];
  me: string | null;
  mine: { opening: Opening; k: number } | null;
  /** The turn for which the local player has already sent its move (-1: none). */
  moved: number;
  claimed: string | null;
  last: JsonValue;
  /** Decision games (docs/SPEC.md §7.7): the deadline of each decision, the open ask round, the local player's seal. */
  readonly decisionMs: number;
  readonly deadlines: Readonly<Record<string, number>>;
  ask: Ask | null;
  mySeal: { readonly turn: number; readonly opening: Opening; readonly opened: boolean } | null;
  answered: number;
  /** Transcript lines of each player's latest commitment and latest fresh value: a roll waits for fresh values newer than its commitment. */
  commitLine: Record<string, number>;
  freshLine: Record<string, number>;
  /** The turn for which the local player has sent a fresh value on its own (-1: none). */
  freshSent: number;
}

const purpose = (k: number): string => `chain/roll/${k}`;

/** Whether claimed draws are exactly the computed ones (a plain comparison; this runs once per move in an audit). */
function sameDraws(computed: readonly (readonly [number, number])[], claimed: unknown): boolean {
  if (!Array.isArray(claimed) || claimed.length !== computed.length) return false;
  for (let i = 0; i < computed.length; i++) {
    const c = claimed[i] as unknown;
    if (!Array.isArray(c) || c.length !== 2 || c[0] !== computed[i]![0] || c[1] !== computed[i]![1]) return false;
  }
  return true;
}

/**
 * A copy deep enough for a step: containers are copied, games return new states and openings are never mutated.
 * Every member is written out: spreading a state that was itself made by a spread cost 1–2 µs a step against
 * 0.5 µs for the literal (docs/BENCHMARKS.md, "Digests read as strings, fixed shapes, a copy by members"); the
 * type names each member, and chain-copy.test.ts checks that a copy has every member of what it copies.
 */
export function copyChainState(s: ChainState): ChainState {
  return {
    gameId: s.gameId,
    gameName: s.gameName,
    rules: s.rules,
    timeoutMs: s.timeoutMs,
    game: s.game,
    active: [...s.active],
    phase: s.phase,
    phaseStart: s.phaseStart,
    commits: { ...s.commits },
    fresh: { ...s.fresh },
    readySet: s.readySet,
    turn: s.turn,
    mover: s.mover,
    forfeits: [...s.forfeits],
    me: s.me,
    mine: s.mine,
    moved: s.moved,
    claimed: s.claimed,
    last: s.last,
    decisionMs: s.decisionMs,
    deadlines: s.deadlines,
    ask: s.ask,
    mySeal: s.mySeal,
    answered: s.answered,
    commitLine: { ...s.commitLine },
    freshLine: { ...s.freshLine },
    freshSent: s.freshSent,
  };
}
const copy = copyChainState;

/** JCS({game, turn, player, value, fresh}): an audit takes one a move. */
const turnSeedText = canonicalShape(['game', 'turn', 'player', 'value', 'fresh']);

export function turnSeed(gameId: string, turn: number, player: string, value: JsonValue, fresh: readonly string[]): Uint8Array {
  return hashCanonical('chain-roll', turnSeedText({ game: gameId, turn, player, value, fresh }));
}

function othersFresh(s: ChainState, mover: string): string[] {
  return s.active.filter((p) => p !== mover).map((p) => s.fresh[p] ?? '');
}

/** Plays the mover's turn on its seed; returns the draws and the game's new state. */
export function playTurn(s: ChainState, mover: string, value: JsonValue, action: JsonValue): { draws: [number, number][]; game: unknown; summary: JsonValue } {
  const seed = turnSeed(s.gameId, s.turn, mover, value, othersFresh(s, mover));
  const chance = new RecordingChance(new RandomStream(seed, 'turn'));
  const result = s.rules.play(s.game, mover, chance, action);
  return { draws: chance.draws, game: result.state, summary: result.summary };
}

function newCommitment(s: ChainState, ctx: Ctx, k: number): string {
  const c = commit({ game: s.gameId, player: s.me!, purpose: purpose(k) }, toHex(ctx.random(32)), ctx.random);
  s.mine = { opening: c.opening, k };
  return c.commitment;
}

function currentMover(s: ChainState): string | null {
  return s.phase === 'play' ? (s.active[s.mover % Math.max(1, s.active.length)] ?? null) : null;
}

/** The local player's move, when it is the mover: which action to take (a plain roll for games without actions). */
function moveDecision(s: ChainState): Decision | null {
  if (s.me === null || currentMover(s) !== s.me || s.mine === null || s.moved === s.turn) return null;
  return {
    kind: 'move',
    prompt: `Your turn ${s.turn}: ${s.rules.actions === undefined ? 'roll' : 'choose your action'}`,
    choices: s.rules.actions?.(s.game, s.me) ?? { type: 'one-of', values: [null] },
    deadline: s.phaseStart + s.timeoutMs,
  };
}

function checkEnd(s: ChainState, st: Stepper): void {
  const winners = s.active.length <= 1 ? [...s.active] : s.rules.winners(s.game);
  if (winners !== null) {
    s.phase = 'done';
    st.emit({ type: 'game-over', winners });
  }
}

function advancePhase(s: ChainState, st: Stepper, ctx: Ctx, time: number): void {
  if (s.phase === 'join' && s.active.every((p) => s.commits[p] !== undefined)) {
    s.phase = 'ready';
    s.phaseStart = time;
    s.readySet = hashJsonHex('commit-set', { game: s.gameId, commits: s.active.map((p) => [p, s.commits[p]!.commitment]) });
    if (s.me !== null && s.active.includes(s.me)) st.send({ type: 'ready', commitSet: s.readySet, fresh: toHex(ctx.random(32)) });
  } else if (s.phase === 'ready' && s.active.every((p) => s.fresh[p] !== undefined)) {
    s.phase = 'play';
    s.phaseStart = time;
    s.mover = 0;
  } else {
    return;
  }
  checkEnd(s, st);
}

function missing(s: ChainState): string[] {
  if (s.phase === 'join') return s.active.filter((p) => s.commits[p] === undefined);
  if (s.phase === 'ready') return s.active.filter((p) => s.fresh[p] === undefined);
  const m = currentMover(s);
  return m === null ? [] : [m];
}

const deadlineRound = (s: ChainState): number => (s.phase === 'play' ? s.turn : 0);

/*
 * Decision games on the chain (docs/SPEC.md §7.7). The game says who rolls and who decides. A roll is
 * the roller's `move`, sent on its own as soon as every other player has published a fresh value after
 * the roller's current commitment (in a plain rotation their moves and answers carry them; after
 * doubles, the others send a `fresh` at once), so no roll is ever seeded by values its roller knew when
 * it committed. Answers, seals and unseals carry fresh values too.
 */
const HEX64 = /^[0-9a-f]{64}$/;
const isHex64 = (v: unknown): v is string => typeof v === 'string' && HEX64.test(v);

/** Players whose fresh value is older than the roller's commitment. */
function staleFresh(s: ChainState, roller: string): string[] {
  const since = s.commitLine[roller] ?? 0;
  return s.active.filter((p) => p !== roller && (s.freshLine[p] ?? -1) < since);
}

function rollerOf(rules: DecisionGame<unknown>, s: ChainState): string | null {
  const w = rules.waiting(s.game);
  return w.kind === 'roll' && s.active.includes(w.player) ? w.player : null;
}

function missingRoll(rules: DecisionGame<unknown>, s: ChainState): string[] {
  const r = rollerOf(rules, s);
  if (r === null) return [];
  const stale = staleFresh(s, r);
  return stale.length > 0 ? stale : [r];
}

function askHooks(s: ChainState, st: Stepper): AskHooks {
  return {
    forfeit: (player, code) => {
      forfeitSeat(s, st, player, code);
      checkEnd(s, st);
    },
    accepted: (from, msg) => {
      const fresh = msg.envelope.body.fresh;
      if (isHex64(fresh)) {
        s.fresh[from] = fresh;
        s.freshLine[from] = msg.line;
      }
    },
    resolved: () => checkEnd(s, st),
  };
}

/** What the local player sends on its own: its unseal, its roll, a fresh value a roll waits for. */
function actDecisionGame(s: ChainState, st: Stepper, ctx: Ctx): void {
  if (!isDecisionGame(s.rules) || s.phase !== 'play' || s.me === null || !s.active.includes(s.me)) return;
  const rules = s.rules;
  autoUnseal(rules, s, st);
  const roller = rollerOf(rules, s);
  if (roller === null) return;
  const stale = staleFresh(s, roller);
  if (roller === s.me && stale.length === 0 && s.moved !== s.turn && s.mine !== null) {
    const mine = s.mine;
    const played = playTurn(s, s.me, mine.opening.value, null);
    const commitment = newCommitment(s, ctx, mine.k + 1);
    s.moved = s.turn;
    st.send({ type: 'move', turn: s.turn, opening: mine.opening, commitment, fresh: toHex(ctx.random(32)), action: null, draws: played.draws });
  } else if (stale.includes(s.me) && s.freshSent !== s.turn) {
    s.freshSent = s.turn;
    st.send({ type: 'fresh', turn: s.turn, fresh: toHex(ctx.random(32)) });
  }
}

function stepDecisionGame(rules: DecisionGame<unknown>, s: ChainState, st: Stepper, msg: Accepted, ctx: Ctx): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  if (onAskMessage(rules, s, st, msg, askHooks(s, st))) {
    actDecisionGame(s, st, ctx);
    return;
  }
  if (body.type === 'fresh') {
    const roller = rollerOf(rules, s);
    // A fresh value nobody waits for is dropped: changing one while a roll is due would change the roll.
    if (body.turn === s.turn && roller !== null && staleFresh(s, roller).includes(from) && isHex64(body.fresh)) {
      s.fresh[from] = body.fresh;
      s.freshLine[from] = msg.line;
      actDecisionGame(s, st, ctx);
    }
    return;
  }
  if (body.type === 'move') {
    const roller = rollerOf(rules, s);
    if (roller !== from || body.turn !== s.turn || staleFresh(s, from).length > 0) {
      st.violation(
        'out_of_turn',
        from,
        msg,
        `${from} rolled (turn ${String(body.turn)}), but the game waits for ${roller === null ? 'a decision' : `${roller}'s roll ${s.turn}`}${roller === from ? ' after fresh values from [' + staleFresh(s, from).join(', ') + ']' : ''}`,
      );
      return;
    }
    if (!opens({ game: s.gameId, player: from, purpose: purpose(s.commits[from]!.k) }, s.commits[from]!.commitment, body.opening)) {
      st.violation('commit_mismatch', from, msg, `${from}'s move does not open its commitment ${s.commits[from]!.commitment} (roll ${s.commits[from]!.k})`);
      forfeitSeat(s, st, from, 'commit_mismatch');
    } else if (!isHex64(body.commitment) || !isHex64(body.fresh)) {
      st.violation('unexpected_message', from, msg, `${from}'s move lacks its next commitment or fresh value`);
      return;
    } else {
      const played = playTurn(s, from, (body.opening as Opening).value, null);
      if (!sameDraws(played.draws, body.draws)) {
        st.violation(
          'wrong_result',
          from,
          msg,
          `${from} claimed draws ${canonicalize(body.draws ?? null)}, the turn's seed gives ${canonicalize(played.draws)}`,
        );
        forfeitSeat(s, st, from, 'wrong_result');
      } else {
        s.game = played.game;
        s.last = played.summary;
        st.emit({ type: 'turn', turn: s.turn, player: from, summary: played.summary });
        s.commits[from] = { commitment: body.commitment, k: s.commits[from]!.k + 1 };
        s.commitLine[from] = msg.line;
        s.fresh[from] = body.fresh;
        s.freshLine[from] = msg.line;
        s.turn++;
      }
    }
    s.phaseStart = msg.time;
    s.claimed = null;
    checkEnd(s, st);
    actDecisionGame(s, st, ctx);
    return;
  }
  if (isDeadlineBody(body) && (ASK_PHASES as readonly string[]).includes(body.phase)) {
    onAskDeadline(rules, s, st, msg, body, s.timeoutMs, askHooks(s, st));
    actDecisionGame(s, st, ctx);
    return;
  }
  if (isDeadlineBody(body)) {
    const late = settleClaim(st, msg, body, s, { round: s.turn, late: missingRoll(rules, s), isOut: (p) => !s.active.includes(p) });
    if (late === null) return;
    for (const p of late) {
      // The roller knew its roll (its own opening and every fresh value) before it went silent: a rule broken.
      // A missing fresh value steers nothing: an absence (docs/SPEC.md §7.4).
      st.withheld(
        p,
        rollerOf(rules, s) === p,
        msg,
        `${p} did not send ${rollerOf(rules, s) === p ? `its roll ${s.turn}` : `the fresh value roll ${s.turn} waits for`} before the deadline; claimed by ${from}`,
      );
      forfeitSeat(s, st, p, 'withheld');
    }
    s.phaseStart = msg.time;
    s.claimed = null;
    checkEnd(s, st);
    if (s.phase === 'play') completeAsk(rules, s, st, msg.time, askHooks(s, st));
    actDecisionGame(s, st, ctx);
    return;
  }
  st.violation('unexpected_message', from, msg, `${from} sent a "${body.type}" during play, which the chain protocol does not take now`);
}

function tickDecisionGame(rules: DecisionGame<unknown>, state: ChainState, ctx: Ctx): StepResult<ChainState> {
  if (askMissing(rules, state).length > 0) {
    const { claim, key } = askTick(rules, state, ctx, state.timeoutMs);
    const st = new Stepper();
    if (claim === null) return st.result(state);
    const s = copy(state);
    s.claimed = key;
    st.send(claim);
    return st.result(s);
  }
  return deadlineTick(
    state,
    ctx,
    { me: state.me, seated: state.me !== null && state.active.includes(state.me), round: state.turn, missing: () => missingRoll(rules, state) },
    copy,
  );
}

/** The chain protocol playing the games of `book` (docs/SPEC.md §7.2). */
export function chainMachine(book: GameBook = BUILTIN_GAMES): Machine<ChainState> {
  return {
    protocol: 'chain',
    messages: CHAIN_MESSAGES,

    // Everything but the rules is data; the rules come back from the book by the game's name.
    saveState(s: ChainState): JsonValue {
      const { rules, ...data } = s;
      void rules;
      return data as unknown as JsonValue;
    },

    loadState(saved: JsonValue): ChainState {
      const data = saved as unknown as Omit<ChainState, 'rules'>;
      if (data === null || typeof data !== 'object' || typeof data.gameName !== 'string')
        throw new FairtableError('bad_input', 'a saved chain state names no game', { field: 'gameName' });
      return { ...data, rules: gameByName(data.gameName, book) };
    },

    init(setup: GameSetup, gameId: string, me: string | null, ctx: Ctx): StepResult<ChainState> {
      const gameName = setup.game ?? 'dice';
      const players = setup.players.map((p) => p.id);
      const rules = gameByName(gameName, book);
      const s: ChainState = {
        gameId,
        gameName,
        rules,
        timeoutMs: intParam(setup.params, 'timeoutMs', 30_000, 1, 2 ** 40),
        game: rules.init(players, setup.params),
        active: players,
        phase: 'join',
        phaseStart: setup.created,
        commits: {},
        fresh: {},
        readySet: null,
        turn: 0,
        mover: 0,
        forfeits: [],
        me,
        mine: null,
        moved: -1,
        claimed: null,
        last: null,
        decisionMs: intParam(setup.params, 'decisionMs', intParam(setup.params, 'timeoutMs', 30_000, 1, 2 ** 40), 1, 2 ** 40),
        deadlines: deadlinesParam(setup.params),
        ask: null,
        mySeal: null,
        answered: -1,
        commitLine: {},
        freshLine: {},
        freshSent: -1,
      };
      const st = new Stepper();
      if (me !== null && players.includes(me)) st.send({ type: 'join', commitment: newCommitment(s, ctx, 0) });
      return st.result(s);
    },

    decision: (state: ChainState) =>
      isDecisionGame(state.rules) ? (state.phase === 'play' ? askDecision(state.rules, state, state.timeoutMs) : null) : moveDecision(state),

    decide(state: ChainState, choice: JsonValue, ctx: Ctx): StepResult<ChainState> {
      if (isDecisionGame(state.rules)) {
        const rules = state.rules;
        if (state.phase !== 'play' || askDecision(rules, state, state.timeoutMs) === null) return refuseDecision();
        const s = copy(state);
        const st = new Stepper();
        askDecide(rules, s, st, choice, ctx, { fresh: toHex(ctx.random(32)) });
        return st.result(s);
      }
      return decideBy(state, moveDecision, choice, copy, (s, st, action) => {
        const mine = s.mine!;
        const played = playTurn(s, s.me!, mine.opening.value, action);
        const commitment = newCommitment(s, ctx, mine.k + 1);
        s.moved = s.turn;
        st.send({ type: 'move', turn: s.turn, opening: mine.opening, commitment, fresh: toHex(ctx.random(32)), action, draws: played.draws });
      });
    },

    step(state: ChainState, msg: Accepted, ctx: Ctx): StepResult<ChainState> {
      const st = new Stepper();
      const { envelope } = msg;
      const from = envelope.from;
      const body = envelope.body;
      if (body.type === 'setup' || !state.active.includes(from)) return st.result(state);
      const s = copy(state);
      if (s.phase === 'done') {
        // Players race to the end; what arrives after it changes nothing and is held against no one.
        return st.result(s);
      } else if (isDecisionGame(s.rules) && s.phase === 'play') {
        stepDecisionGame(s.rules, s, st, msg, ctx);
      } else if (body.type === 'join') {
        if (s.phase !== 'join') st.violation('out_of_turn', from, msg, `${from} joined after the join phase closed`);
        else if (s.commits[from] !== undefined) st.violation('duplicate_commit', from, msg, `${from} joined twice`);
        else if (!isHex64(body.commitment)) st.violation('unexpected_message', from, msg, `${from}'s join carries no commitment`);
        else if (Object.values(s.commits).some((c) => c.commitment === body.commitment)) {
          st.violation('copied_commitment', from, msg, `${from} copied another player's commitment`);
          forfeitSeat(s, st, from, 'copied_commitment');
          advancePhase(s, st, ctx, msg.time);
        } else {
          s.commits[from] = { commitment: body.commitment, k: 0 };
          s.commitLine[from] = msg.line;
          advancePhase(s, st, ctx, msg.time);
          actDecisionGame(s, st, ctx);
        }
      } else if (body.type === 'ready') {
        if (s.phase !== 'ready') st.violation('out_of_turn', from, msg, `${from} sent "ready" in the ${s.phase} phase`);
        else if (s.fresh[from] !== undefined) st.violation('unexpected_message', from, msg, `${from} sent "ready" twice`);
        else if (body.commitSet !== s.readySet) {
          st.violation('commit_set_mismatch', from, msg, `${from} is ready on commit set ${String(body.commitSet)}, the agreed set is ${s.readySet}`);
          forfeitSeat(s, st, from, 'commit_set_mismatch');
          advancePhase(s, st, ctx, msg.time);
        } else if (!isHex64(body.fresh)) st.violation('unexpected_message', from, msg, `${from}'s ready carries no fresh value`);
        else {
          s.fresh[from] = body.fresh;
          s.freshLine[from] = msg.line;
          advancePhase(s, st, ctx, msg.time);
          actDecisionGame(s, st, ctx);
        }
      } else if (body.type === 'move') {
        const mover = currentMover(s);
        if (s.phase !== 'play' || mover !== from || body.turn !== s.turn) {
          st.violation(
            'out_of_turn',
            from,
            msg,
            `${from} moved (turn ${String(body.turn)}) but it is ${mover === null ? `the ${s.phase} phase` : `${mover}'s turn ${s.turn}`}`,
          );
        } else if (!opens({ game: s.gameId, player: from, purpose: purpose(s.commits[from]!.k) }, s.commits[from]!.commitment, body.opening)) {
          st.violation('commit_mismatch', from, msg, `${from}'s move does not open its commitment ${s.commits[from]!.commitment} (roll ${s.commits[from]!.k})`);
          forfeitSeat(s, st, from, 'commit_mismatch');
          s.phaseStart = msg.time;
          checkEnd(s, st);
        } else if (!isHex64(body.commitment) || !isHex64(body.fresh)) {
          st.violation('unexpected_message', from, msg, `${from}'s move lacks its next commitment or fresh value`);
        } else {
          const action = (body.action ?? null) as JsonValue;
          const played = playTurn(s, from, (body.opening as Opening).value, action);
          if (!sameDraws(played.draws, body.draws)) {
            st.violation(
              'wrong_result',
              from,
              msg,
              `${from} claimed draws ${canonicalize(body.draws ?? null)}, the turn's seed gives ${canonicalize(played.draws)}`,
            );
            forfeitSeat(s, st, from, 'wrong_result');
            s.phaseStart = msg.time;
          } else {
            s.game = played.game;
            s.last = played.summary;
            st.emit({ type: 'turn', turn: s.turn, player: from, summary: played.summary });
            s.commits[from] = { commitment: body.commitment, k: s.commits[from]!.k + 1 };
            s.fresh[from] = body.fresh;
            s.turn++;
            s.mover = (s.mover + 1) % s.active.length;
            s.phaseStart = msg.time;
            s.claimed = null;
          }
          checkEnd(s, st);
        }
      } else if (isDeadlineBody(body)) {
        const late = settleClaim(st, msg, body, s, { round: deadlineRound(s), late: missing(s), isOut: (p) => !s.active.includes(p) });
        if (late === null) return st.result(s);
        for (const p of late) {
          // A mover's move opens the value it committed to with every fresh value known: withholding it steers.
          st.withheld(
            p,
            s.phase === 'play',
            msg,
            `${p} did not ${s.phase === 'play' ? `move on turn ${s.turn}` : `send "${s.phase}"`} before the deadline ${s.phaseStart + s.timeoutMs}; claimed by ${from}`,
          );
          forfeitSeat(s, st, p, 'withheld');
        }
        s.phaseStart = msg.time;
        s.claimed = null;
        if (s.phase === 'play') {
          checkEnd(s, st);
        } else advancePhase(s, st, ctx, msg.time);
      } else {
        st.violation('unexpected_message', from, msg, `${from} sent a "${body.type}", which the chain protocol does not know`);
      }
      return st.result(s);
    },

    awaiting(state: ChainState): Awaiting | null {
      if (!isDecisionGame(state.rules) || state.phase !== 'play') return awaitingOf(state, missing(state));
      const asked = askAwaiting(state.rules, state);
      return asked ?? awaitingOf(state, missingRoll(state.rules, state));
    },

    tick(state: ChainState, ctx: Ctx): StepResult<ChainState> {
      if (isDecisionGame(state.rules) && state.phase === 'play') return tickDecisionGame(state.rules, state, ctx);
      return deadlineTick(
        state,
        ctx,
        { me: state.me, seated: state.me !== null && state.active.includes(state.me), round: deadlineRound(state), missing: () => missing(state) },
        copy,
      );
    },

    penalize(state: ChainState, player: string, code: ViolationCode, _line: number, ctx: Ctx, time: number): StepResult<ChainState> {
      const st = new Stepper();
      if (!state.active.includes(player) || state.phase === 'done') return st.result(state);
      const s = copy(state);
      const wasMover = currentMover(s) === player;
      forfeitSeat(s, st, player, code);
      if (s.phase === 'play' && isDecisionGame(s.rules)) {
        s.phaseStart = time;
        s.claimed = null;
        checkEnd(s, st);
        if (s.phase === 'play') completeAsk(s.rules, s, st, time, askHooks(s, st));
        actDecisionGame(s, st, ctx);
      } else if (s.phase === 'play') {
        if (wasMover) s.phaseStart = time;
        checkEnd(s, st);
      } else {
        // In "ready" the commit set is already fixed: a player dropped now simply has no fresh value to wait for.
        advancePhase(s, st, ctx, time);
      }
      return st.result(s);
    },

    outcome: turnsOutcome,
  };
}

export const chain: Machine<ChainState> = chainMachine();
