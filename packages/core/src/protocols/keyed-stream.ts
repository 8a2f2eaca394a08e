/**
 * Seed 000's key-committed random streams, implemented as written (docs/SPEC.md §7.3).
 *
 * Each player publishes the public key of a fresh "stream key" pair (Ed25519)
 * and draws its numbers from the stream seeded by H("keyed-stream", secret).
 * Who goes first: the public keys read as big-endian integers are summed, the
 * 7s in the decimal sum are counted (c), and players[(c + N − 1) mod N] starts
 * (for two players: c odd → A, even → B, the seed's rule). A turn: the mover
 * draws X = below(skipLimit) from its own stream and sends it; the next player
 * (the roller) skips 4·X bytes of its own stream (X numbers of 32 bits) and
 * plays the mover's turn on what follows, sending the draws back together with
 * the start of its own turn. Nobody can check a draw until the audit: each
 * player reveals its stream secret, everybody checks it against the published
 * key and replays every number that player produced. What this cannot catch
 * before the audit, and the steering of "who goes first", are in the spec.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToBigInt, fromHex, isHex, toHex } from '../bytes.js';
import { canonicalize, type JsonValue } from '../jcs.js';
import { taggedHash } from '../hash.js';
import { RecordingChance, ScriptedChance, ScriptMismatch } from '../chance.js';
import { RandomStream } from '../stream.js';
import type { ViolationCode } from '../errors.js';
import type { GameSetup } from '../setup.js';
import type { Accepted } from '../transcript.js';
import { BUILTIN_GAMES, gameByName, type GameBook } from '../games/index.js';
import type { ChanceGame } from '../games/game.js';
import { forfeitSeat } from './rotation.js';
import { isStrictPublicKey } from '../identity.js';
import { deadlineTick, intParam, noDecision, refuseDecision, isDeadlineBody, judgeClaim, Stepper, type Ctx, type Machine, type Outcome, type StepResult } from './machine.js';

type Op = { kind: 'x'; limit: number; value: number } | { kind: 'roll'; skip: number; draws: [number, number][] };

export interface KeyedState {
  readonly gameId: string;
  readonly gameName: string;
  readonly rules: ChanceGame<unknown>;
  readonly timeoutMs: number;
  readonly skipLimit: number;
  game: unknown;
  order: string[];
  active: string[];
  phase: 'keys' | 'play' | 'audit' | 'done';
  phaseStart: number;
  keys: Record<string, string>;
  turn: number;
  mover: number;
  pending: { turn: number; mover: string; x: number } | null;
  history: Record<string, Op[]>;
  audited: Record<string, boolean>;
  forfeits: { player: string; code: ViolationCode }[];
  me: string | null;
  mine: { secret: string; consumed: number } | null;
  claimed: string | null;
}

export function streamOfSecret(secret: Uint8Array): RandomStream {
  return new RandomStream(taggedHash('keyed-stream', secret), 'keyed-stream');
}

/** The seed's "who goes first": count the 7s in the decimal sum of the public keys. */
export function firstPlayerIndex(publicKeys: readonly string[]): number {
  const sum = publicKeys.reduce((acc, k) => acc + bytesToBigInt(fromHex(k, 'key', 32)), 0n);
  const sevens = [...sum.toString()].filter((d) => d === '7').length;
  const n = publicKeys.length;
  return (sevens + n - 1) % n;
}

/** Replays a player's numbers from its revealed secret; returns the index of the first op that does not match, or -1. */
export function replayOps(secret: Uint8Array, ops: readonly Op[]): number {
  const stream = streamOfSecret(secret);
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (op.kind === 'x') {
      if (stream.below(op.limit) !== op.value) return i;
    } else {
      stream.skip(4 * op.skip);
      for (const [n, value] of op.draws) if (stream.below(n) !== value) return i;
    }
  }
  return -1;
}

/**
 * A copy deep enough for a step. The per-player histories are append-only and
 * shared between successive states (copying them would make a long game
 * quadratic); nothing reads an old state's history after a step.
 */
function copy(s: KeyedState): KeyedState {
  return { ...s, active: [...s.active], keys: { ...s.keys }, history: { ...s.history }, audited: { ...s.audited }, forfeits: [...s.forfeits] };
}

function myStream(s: KeyedState): RandomStream {
  const stream = streamOfSecret(fromHex(s.mine!.secret));
  stream.skip(s.mine!.consumed);
  return stream;
}

function roller(s: KeyedState): string | null {
  return s.phase === 'play' ? (s.active[s.mover % Math.max(1, s.active.length)] ?? null) : null;
}

function gameOver(s: KeyedState): boolean {
  return s.active.length <= 1 || s.rules.winners(s.game) !== null;
}

/** The local player's turn message: the previous mover's roll (when pending) and its own X. */
function actIfMine(s: KeyedState, st: Stepper): void {
  if (s.me === null || roller(s) !== s.me || s.mine === null) return;
  const stream = myStream(s);
  const before = stream.consumed;
  let roll: JsonValue = null;
  if (s.pending !== null) {
    stream.skip(4 * s.pending.x);
    const chance = new RecordingChance(stream);
    s.rules.play(s.game, s.pending.mover, chance, null);
    roll = { turn: s.pending.turn, draws: chance.draws };
  }
  // Whether the game ends with this roll decides whether a new X is drawn.
  let x: number | null = null;
  const after = roll === null ? s.game : playClaimed(s, s.pending!.mover, (roll as { draws: [number, number][] }).draws);
  const ends = after === null ? false : s.active.length <= 1 || s.rules.winners(after) !== null;
  if (!ends) x = stream.below(s.skipLimit);
  s.mine = { secret: s.mine.secret, consumed: s.mine.consumed + (stream.consumed - before) };
  st.send({ type: 'turn', turn: s.turn, roll, x });
}

function playClaimed(s: KeyedState, mover: string, draws: [number, number][]): unknown {
  const chance = new ScriptedChance(draws);
  const result = s.rules.play(s.game, mover, chance, null);
  if (!chance.exhausted) throw new ScriptMismatch(`the claim holds ${draws.length} draws, the game used fewer`);
  return result.state;
}

function forfeit(s: KeyedState, st: Stepper, player: string, code: ViolationCode): void {
  if (forfeitSeat(s, st, player, code) && s.pending !== null && s.pending.mover === player) s.pending = null;
}

function startAudit(s: KeyedState, st: Stepper, time: number): void {
  s.phase = 'audit';
  s.phaseStart = time;
  s.claimed = null;
  st.emit({ type: 'game-over', winners: s.active.length <= 1 ? [...s.active] : (s.rules.winners(s.game) ?? []) });
  if (s.me !== null && s.active.includes(s.me) && s.mine !== null) st.send({ type: 'audit', secret: s.mine.secret });
}

function missing(s: KeyedState): string[] {
  if (s.phase === 'keys') return s.active.filter((p) => s.keys[p] === undefined);
  if (s.phase === 'audit') return s.active.filter((p) => !s.audited[p]);
  const r = roller(s);
  return r === null ? [] : [r];
}

const deadlineRound = (s: KeyedState): number => (s.phase === 'play' ? s.turn : 0);

/** Seed 000's protocol playing the games of `book` (docs/SPEC.md §7.3). */
export function keyedStreamMachine(book: GameBook = BUILTIN_GAMES): Machine<KeyedState> {
  return {
  protocol: 'keyed-stream',
  // The roller computes the mover's roll, so the games played here take no actions: nothing to decide.
  decision: noDecision,
  decide: refuseDecision,

  init(setup: GameSetup, gameId: string, me: string | null, ctx: Ctx): StepResult<KeyedState> {
    const gameName = setup.game ?? 'dice';
    const players = setup.players.map((p) => p.id);
    const rules = gameByName(gameName, book);
    const s: KeyedState = {
      gameId,
      gameName,
      rules,
      timeoutMs: intParam(setup.params, 'timeoutMs', 30_000, 1, 2 ** 40),
      skipLimit: intParam(setup.params, 'skipLimit', 256, 1, 2 ** 32),
      game: gameByName(gameName).init(players, setup.params),
      order: players,
      active: [...players],
      phase: 'keys',
      phaseStart: setup.created,
      keys: {},
      turn: 0,
      mover: 0,
      pending: null,
      history: Object.fromEntries(players.map((p) => [p, [] as Op[]])),
      audited: {},
      forfeits: [],
      me,
      mine: null,
      claimed: null,
    };
    const st = new Stepper();
    if (me !== null && players.includes(me)) {
      const secret = ctx.random(32);
      s.mine = { secret: toHex(secret), consumed: 0 };
      st.send({ type: 'stream-key', key: toHex(ed25519.getPublicKey(secret)) });
    }
    return st.result(s);
  },

  step(state: KeyedState, msg: Accepted, ctx: Ctx): StepResult<KeyedState> {
    const st = new Stepper();
    const { envelope } = msg;
    const from = envelope.from;
    const body = envelope.body;
    if (body.type === 'setup' || !state.active.includes(from)) return st.result(state);
    const s = copy(state);
    if (s.phase === 'done') {
      // Players race to the end; what arrives after it changes nothing and is held against no one.
      return st.result(s);
    } else if (body.type === 'stream-key') {
      if (s.phase !== 'keys' || s.keys[from] !== undefined) st.violation('out_of_turn', from, msg, `${from} published a stream key outside the key phase`);
      else if (!isHex(body.key, 32) || !isStrictPublicKey(fromHex(body.key))) st.violation('bad_key', from, msg, `${from}'s stream key is not a usable Ed25519 public key`);
      else {
        s.keys[from] = body.key;
        if (s.active.every((p) => s.keys[p] !== undefined)) {
          s.phase = 'play';
          s.phaseStart = envelope.time;
          s.mover = firstPlayerIndex(s.active.map((p) => s.keys[p]!));
          st.emit({ type: 'first-player', player: s.active[s.mover]! });
          actIfMine(s, st);
        }
      }
    } else if (body.type === 'turn') {
      const r = roller(s);
      if (r !== from || body.turn !== s.turn) {
        st.violation('out_of_turn', from, msg, `${from} sent turn ${String(body.turn)}, but it is ${r === null ? `the ${s.phase} phase` : `${r}'s turn ${s.turn}`}`);
        return st.result(s);
      }
      if (s.pending !== null) {
        const roll = body.roll as { turn?: unknown; draws?: unknown } | null;
        const draws = roll?.draws;
        let next: unknown = null;
        try {
          if (roll === null || roll.turn !== s.pending.turn || !Array.isArray(draws)) throw new ScriptMismatch('no roll for the pending turn');
          next = playClaimed(s, s.pending.mover, draws as [number, number][]);
        } catch (e) {
          if (!(e instanceof ScriptMismatch)) throw e;
          st.violation('wrong_result', from, msg, `${from}'s roll for ${s.pending.mover}'s turn ${s.pending.turn} is not a possible roll: ${e.message}`);
          forfeit(s, st, from, 'wrong_result');
          s.phaseStart = envelope.time;
          if (gameOver(s)) startAudit(s, st, envelope.time);
          else actIfMine(s, st);
          return st.result(s);
        }
        s.history[from]!.push({ kind: 'roll', skip: s.pending.x, draws: draws as [number, number][] });
        s.game = next;
        st.emit({ type: 'turn', turn: s.pending.turn, player: s.pending.mover, rolledBy: from, draws: canonicalize(draws) });
        s.pending = null;
      }
      if (gameOver(s)) {
        startAudit(s, st, envelope.time);
        return st.result(s);
      }
      if (typeof body.x !== 'number' || !Number.isSafeInteger(body.x) || body.x < 0 || body.x >= s.skipLimit) {
        st.violation('unexpected_message', from, msg, `${from}'s turn carries no X in [0, ${s.skipLimit})`);
        forfeit(s, st, from, 'unexpected_message');
      } else {
        s.history[from]!.push({ kind: 'x', limit: s.skipLimit, value: body.x });
        s.pending = { turn: s.turn, mover: from, x: body.x };
        s.turn++;
        s.mover = (s.mover + 1) % s.active.length;
      }
      s.phaseStart = envelope.time;
      s.claimed = null;
      if (gameOver(s)) startAudit(s, st, envelope.time);
      else actIfMine(s, st);
    } else if (body.type === 'audit') {
      if (s.phase !== 'audit' || s.audited[from]) st.violation('out_of_turn', from, msg, `${from} sent an audit outside the audit phase`);
      else if (!isHex(body.secret, 32) || toHex(ed25519.getPublicKey(fromHex(body.secret))) !== s.keys[from]) {
        st.violation('bad_key', from, msg, `${from}'s revealed stream secret does not belong to its published key ${s.keys[from] ?? '?'}`);
        forfeit(s, st, from, 'bad_key');
      } else {
        s.audited[from] = true;
        const bad = replayOps(fromHex(body.secret), s.history[from]!);
        if (bad >= 0) {
          const op = s.history[from]![bad]!;
          st.violation('audit_mismatch', from, msg, `${from}'s stream does not produce its ${op.kind === 'x' ? `X = ${op.value}` : `roll ${canonicalize(op.draws)} (after skipping ${op.skip})`} (its number #${bad})`);
          forfeit(s, st, from, 'audit_mismatch');
        }
      }
      if (s.active.every((p) => s.audited[p])) s.phase = 'done';
    } else if (isDeadlineBody(body)) {
      const late = missing(s);
      const claim = judgeClaim(body, envelope.time, s, { round: deadlineRound(s), late, isOut: (p) => !s.active.includes(p) });
      if (claim === 'stale') return st.result(s);
      if (claim === 'false') {
        st.violation('false_deadline_claim', from, msg, `${from} claimed [${body.missing.join(', ')}] missed the ${s.phase} deadline; missing were [${late.join(', ')}]`);
        return st.result(s);
      }
      const phase = s.phase;
      for (const p of late) {
        st.violation('withheld', p, msg, `${p} did not ${phase === 'audit' ? 'reveal its stream secret' : phase === 'keys' ? 'publish a stream key' : `send turn ${s.turn}`} before the deadline; claimed by ${from}`);
        forfeit(s, st, p, 'withheld');
      }
      s.phaseStart = envelope.time;
      s.claimed = null;
      if (phase === 'audit') {
        if (s.active.every((p) => s.audited[p])) s.phase = 'done';
      } else if (phase === 'keys') {
        if (s.active.length > 0 && s.active.every((p) => s.keys[p] !== undefined)) {
          s.phase = 'play';
          s.mover = firstPlayerIndex(s.active.map((p) => s.keys[p]!));
          actIfMine(s, st);
        }
      } else if (gameOver(s)) startAudit(s, st, envelope.time);
      else actIfMine(s, st);
    } else {
      st.violation('unexpected_message', from, msg, `${from} sent a "${body.type}", which the keyed-stream protocol does not know`);
    }
    return st.result(s);
  },

  tick(state: KeyedState, ctx: Ctx): StepResult<KeyedState> {
    return deadlineTick(state, ctx, { me: state.me, seated: state.me !== null && state.active.includes(state.me), round: deadlineRound(state), missing: () => missing(state) }, copy);
  },

  penalize(state: KeyedState, player: string, code: ViolationCode, _line: number, _ctx: Ctx, time: number): StepResult<KeyedState> {
    const st = new Stepper();
    if (!state.active.includes(player) || state.phase === 'done') return st.result(state);
    const s = copy(state);
    const wasRoller = roller(s) === player;
    forfeit(s, st, player, code);
    if (s.phase === 'play') {
      if (wasRoller) s.phaseStart = time;
      if (gameOver(s)) startAudit(s, st, time);
      else if (wasRoller) actIfMine(s, st);
    } else if (s.phase === 'audit' && s.active.every((p) => s.audited[p])) s.phase = 'done';
    return st.result(s);
  },

  outcome(state: KeyedState): Outcome | null {
    if (state.phase !== 'done') return null;
    const winners = state.active.length <= 1 ? [...state.active] : (state.rules.winners(state.game) ?? []);
    return { winners, forfeits: state.forfeits, summary: { game: state.gameName, turns: state.turn, state: state.game as JsonValue } };
  },
};
}

export const keyedStream: Machine<KeyedState> = keyedStreamMachine();
